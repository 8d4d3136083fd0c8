//! Reading a memory file's frontmatter (R1.2): strict YAML first, then a lenient
//! `key: value` reader for what real directories contain.

use crate::base::yaml::{self, Value};
use crate::format::memory_type::MemoryType;

/// The fields memdir reads from a memory's frontmatter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `type`, or `metadata.type` when there is no top-level one; `None` when unknown.
    pub memory_type: Option<MemoryType>,
    /// What was missing or wrong, in words a person can act on.
    pub diagnostics: Vec<String>,
}

/// Where the frontmatter block sits in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block<'a> {
    /// The text does not start with a `---` line.
    Missing,
    /// An opening `---` with no closing one in the text; holds everything after the opener.
    Unterminated(&'a str),
    /// A complete block; holds the lines between the markers.
    Closed(&'a str),
}

/// Locates the frontmatter block of `text` (LF line ends).
pub fn find_block(text: &str) -> Block<'_> {
    let Some(first_end) = text.find('\n') else {
        return Block::Missing;
    };
    if text[..first_end].trim_end() != "---" {
        return Block::Missing;
    }
    let body = &text[first_end + 1..];
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Block::Closed(&body[..offset]);
        }
        offset += line.len();
    }
    Block::Unterminated(body)
}

/// The frontmatter block and the body after its closing line, when the block is closed.
pub fn split(text: &str) -> Option<(&str, &str)> {
    let Block::Closed(block) = find_block(text) else {
        return None;
    };
    // The block starts after the opening line; the closing line follows it.
    let block_start = block.as_ptr() as usize - text.as_ptr() as usize;
    let after_block = &text[block_start + block.len()..];
    let body = after_block.split_once('\n').map_or("", |(_, rest)| rest);
    Some((block, body))
}

/// Parses the frontmatter of `text` (already decoded, LF line ends). `head_only` says `text`
/// is only the first lines of the file, which changes what an unclosed block means.
pub fn parse(text: &str, head_only: bool) -> Frontmatter {
    let mut fm = Frontmatter::default();
    let fields = match find_block(text) {
        Block::Missing => {
            fm.diagnostics.push("has no frontmatter (the file does not start with a `---` line)".to_string());
            return fm;
        }
        Block::Unterminated(block) => {
            fm.diagnostics.push(if head_only {
                "frontmatter is not closed within the lines read (no closing `---`); read what was there"
                    .to_string()
            } else {
                "frontmatter is never closed (no closing `---` line); read what was there".to_string()
            });
            lenient_fields(block)
        }
        Block::Closed(block) => match strict_fields(block) {
            Ok(fields) => fields,
            Err(problem) => {
                fm.diagnostics.push(format!(
                    "frontmatter is not valid YAML ({problem}); read it as `key: value` lines"
                ));
                lenient_fields(block)
            }
        },
    };
    if fields.name.is_none() {
        fm.diagnostics.push("frontmatter has no `name`".to_string());
    }
    if fields.description.is_none() {
        fm.diagnostics.push("frontmatter has no `description`".to_string());
    }
    match fields.type_value {
        None => fm.diagnostics.push("frontmatter has no `type`".to_string()),
        Some(raw) => {
            fm.memory_type = MemoryType::parse(&raw);
            if fm.memory_type.is_none() {
                fm.diagnostics
                    .push(format!("unknown type {raw:?} (expected user, feedback, project or reference)"));
            }
        }
    }
    fm.name = fields.name;
    fm.description = fields.description;
    fm
}

/// The raw values of the keys memdir reads.
#[derive(Debug, Default)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
    type_value: Option<String>,
}

/// Reads the block as YAML. An empty block is an empty mapping.
fn strict_fields(block: &str) -> Result<Fields, String> {
    let doc = match yaml::parse(block).map_err(|e| e.to_string())? {
        Value::Null => return Ok(Fields::default()),
        doc @ Value::Map(_) => doc,
        _ => return Err("it is not a mapping of keys to values".to_string()),
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let type_value = text(doc.get("type")).or_else(|| text(doc.get("metadata").and_then(|m| m.get("type"))));
    Ok(Fields { name: text(doc.get("name")), description: text(doc.get("description")), type_value })
}

/// Reads `key: value` lines the way a person would: top-level keys, one level of nesting under
/// `metadata:`, matching quotes removed, indented lines continuing the value above them.
fn lenient_fields(block: &str) -> Fields {
    let mut fields = Fields::default();
    let mut metadata_type = None;
    // The key whose value continues on indented lines, and whether we are inside `metadata:`.
    let mut current: Option<(String, String)> = None;
    let mut in_metadata = false;
    let mut finished = Vec::new();

    for line in block.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if indented {
            if in_metadata {
                if let Some((key, value)) = split_key_value(line.trim_start())
                    && key == "type"
                {
                    metadata_type = Some(unquote(value));
                }
            } else if let Some((_, value)) = current.as_mut() {
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some(done) = current.take() {
            finished.push(done);
        }
        in_metadata = false;
        let Some((key, value)) = split_key_value(line) else {
            continue;
        };
        if key == "metadata" && value.is_empty() {
            in_metadata = true;
            continue;
        }
        let value = match value {
            ">" | ">-" | "|" | "|-" | ">+" | "|+" => String::new(),
            v => v.to_string(),
        };
        current = Some((key.to_string(), value));
    }
    finished.extend(current);

    for (key, value) in finished {
        let value = unquote(&value);
        let slot = match key.as_str() {
            "name" => &mut fields.name,
            "description" => &mut fields.description,
            "type" => &mut fields.type_value,
            _ => continue,
        };
        if slot.is_none() && !value.is_empty() {
            *slot = Some(value);
        }
    }
    if fields.type_value.is_none() {
        fields.type_value = metadata_type.filter(|v| !v.is_empty());
    }
    fields
}

/// Splits `key: value` (or `key:` at the end of the line) at the first colon that ends a key.
fn split_key_value(line: &str) -> Option<(&str, &str)> {
    let colon = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(char::is_whitespace))
        .map(|(i, _)| i)?;
    let key = line[..colon].trim();
    if key.is_empty() || key.contains(char::is_whitespace) && !key.starts_with(['"', '\'']) {
        return None;
    }
    Some((key.trim_matches(['"', '\'']), line[colon + 1..].trim()))
}

/// Removes one pair of matching surrounding quotes, undoing the simple escapes inside.
fn unquote(value: &str) -> String {
    let value = value.trim();
    if value.len() >= 2 {
        if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            return inner.replace("\\\"", "\"").replace("\\\\", "\\");
        }
        if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            return inner.replace("''", "'");
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(text: &str) -> Frontmatter {
        parse(text, false)
    }

    #[test]
    fn split_returns_the_block_and_the_body() {
        assert_eq!(split("---\na: 1\n---\nbody\n"), Some(("a: 1\n", "body\n")));
        assert_eq!(split("---\n---\n"), Some(("", "")));
        assert_eq!(split("no\n"), None);
    }

    #[test]
    fn reads_plain_frontmatter() {
        let f = fm("---\nname: Testing\ndescription: Use real DB\ntype: feedback\n---\nbody\n");
        assert_eq!(f.name.as_deref(), Some("Testing"));
        assert_eq!(f.description.as_deref(), Some("Use real DB"));
        assert_eq!(f.memory_type, Some(MemoryType::Feedback));
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    }

    #[test]
    fn reads_the_type_nested_under_metadata() {
        let f = fm("---\nname: a\ndescription: b\nmetadata:\n  type: project\n  modified: 2026-01-01\n---\n");
        assert_eq!(f.memory_type, Some(MemoryType::Project));
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    }

    #[test]
    fn falls_back_to_key_value_lines_when_yaml_is_invalid() {
        let f = fm(
            "---\nname: \"Deploy\" checklist\ndescription: Use: the staging box first\nmetadata:\n  type: reference\n---\n",
        );
        assert_eq!(f.name.as_deref(), Some("\"Deploy\" checklist"));
        assert_eq!(f.description.as_deref(), Some("Use: the staging box first"));
        assert_eq!(f.memory_type, Some(MemoryType::Reference));
        assert!(f.diagnostics[0].contains("not valid YAML"), "{:?}", f.diagnostics);
    }

    #[test]
    fn lenient_reader_folds_continuation_lines_and_block_scalars() {
        let f = fm("---\nname: x: y\ndescription: >-\n  first part\n  second part\ntype: user\n---\n");
        assert_eq!(f.description.as_deref(), Some("first part second part"));
        assert_eq!(f.memory_type, Some(MemoryType::User));
    }

    #[test]
    fn reports_an_unknown_type_and_keeps_the_rest() {
        let f = fm("---\nname: a\ndescription: b\ntype: Feedback-ish\n---\n");
        assert_eq!(f.memory_type, None);
        assert_eq!(f.name.as_deref(), Some("a"));
        assert!(f.diagnostics.iter().any(|d| d.contains("unknown type \"Feedback-ish\"")));
    }

    #[test]
    fn a_file_without_frontmatter_has_a_diagnostic() {
        let f = fm("# just notes\n");
        assert_eq!(
            f,
            Frontmatter {
                diagnostics: vec!["has no frontmatter (the file does not start with a `---` line)".into()],
                ..Frontmatter::default()
            }
        );
    }

    #[test]
    fn an_unclosed_block_is_read_leniently() {
        let f = parse("---\nname: a\ndescription: b\ntype: user\n", true);
        assert_eq!(f.memory_type, Some(MemoryType::User));
        assert!(f.diagnostics[0].contains("not closed"));
    }
}
