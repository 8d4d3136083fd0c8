//! The YAML subset that frontmatter uses, parsed strictly.
//!
//! Memory and rules frontmatter is a mapping of keys to plain, quoted or block scalars, nested
//! mappings (`metadata:`) and sequences (`paths:`, block or flow style). This parser reads
//! exactly that and reports anything else as an error with its line, so that the caller can
//! fall back to the lenient `key: value` reader. Anchors, aliases, tags and multiple documents
//! are errors here. (A general YAML crate would do, but the ones available keep a std
//! `HashMap`, whose random seed would add a `wasi:random` import to the component.)

use std::fmt;

/// A parsed YAML value. Scalars stay text: frontmatter consumers decide what they mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An empty value (`key:` with nothing under it, `~`, `null`).
    Null,
    /// Any scalar, unquoted and unescaped.
    Scalar(String),
    /// A sequence.
    Seq(Vec<Value>),
    /// A mapping, keys in document order.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// The value under `key` when this is a mapping.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

/// Why a text is not in the supported subset, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line number within the parsed text.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses a block of YAML. Empty text (or only comments) is [`Value::Null`].
pub fn parse(text: &str) -> Result<Value, YamlError> {
    let lines: Vec<Line> = text.lines().enumerate().map(|(i, raw)| Line { number: i + 1, raw }).collect();
    let mut parser = Parser { lines, pos: 0 };
    parser.skip_blank();
    if parser.pos >= parser.lines.len() {
        return Ok(Value::Null);
    }
    let first = &parser.lines[parser.pos];
    if first.indent() != 0 {
        return Err(first.error("the first key is indented"));
    }
    let value = parser.block(0)?;
    parser.skip_blank();
    if let Some(line) = parser.lines.get(parser.pos) {
        return Err(line.error("indentation does not match any key above"));
    }
    Ok(value)
}

#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    number: usize,
    raw: &'a str,
}

impl<'a> Line<'a> {
    fn indent(&self) -> usize {
        self.raw.len() - self.raw.trim_start_matches(' ').len()
    }

    fn content(&self) -> &'a str {
        self.raw.trim_start_matches(' ')
    }

    fn is_blank(&self) -> bool {
        let c = self.content().trim_end();
        c.is_empty() || c.starts_with('#')
    }

    fn error(&self, message: impl Into<String>) -> YamlError {
        YamlError { line: self.number, message: message.into() }
    }
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn skip_blank(&mut self) {
        while self.lines.get(self.pos).is_some_and(Line::is_blank) {
            self.pos += 1;
        }
    }

    /// A mapping or sequence whose lines start at column `indent`.
    fn block(&mut self, indent: usize) -> Result<Value, YamlError> {
        let line = self.lines[self.pos];
        if line.raw.starts_with('\t') || line.raw[line.indent()..].starts_with('\t') {
            return Err(line.error("tabs cannot indent YAML"));
        }
        if is_seq_item(line.content()) { self.seq(indent) } else { self.map(indent) }
    }

    fn map(&mut self, indent: usize) -> Result<Value, YamlError> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        loop {
            self.skip_blank();
            let Some(&line) = self.lines.get(self.pos) else { break };
            if line.indent() < indent {
                break;
            }
            if line.indent() > indent {
                return Err(line.error("unexpected indentation"));
            }
            if is_seq_item(line.content()) {
                return Err(line.error("a list item where a key was expected"));
            }
            let (key, rest) = split_key(line)?;
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(line.error(format!("duplicate key `{key}`")));
            }
            self.pos += 1;
            let value = self.value_after_indicator(rest, line, indent)?;
            entries.push((key, value));
        }
        Ok(Value::Map(entries))
    }

    fn seq(&mut self, indent: usize) -> Result<Value, YamlError> {
        let mut items = Vec::new();
        loop {
            self.skip_blank();
            let Some(&line) = self.lines.get(self.pos) else { break };
            if line.indent() < indent || !is_seq_item(line.content()) {
                if line.indent() > indent {
                    return Err(line.error("unexpected indentation"));
                }
                break;
            }
            if line.indent() > indent {
                return Err(line.error("unexpected indentation"));
            }
            self.pos += 1;
            let rest = line.content()[1..].trim_start_matches(' ');
            if !rest.is_empty() && !rest.starts_with('#') && split_key_text(rest).is_some() {
                return Err(line.error("mappings inside list items are not supported"));
            }
            items.push(self.value_after_indicator(rest, line, indent)?);
        }
        Ok(Value::Seq(items))
    }

    /// The value that follows `key:` or `-` on `line` (with `rest` the text after it).
    fn value_after_indicator(
        &mut self,
        rest: &'a str,
        line: Line<'a>,
        indent: usize,
    ) -> Result<Value, YamlError> {
        let rest = strip_comment(rest.trim_start_matches(' ')).trim_end();
        if rest.is_empty() {
            self.skip_blank();
            return match self.lines.get(self.pos) {
                Some(next) if next.indent() > indent => self.block(next.indent()),
                // A sequence may sit at the same column as its key.
                Some(next)
                    if next.indent() == indent
                        && is_seq_item(next.content())
                        && !is_seq_item(line.content()) =>
                {
                    self.seq(indent)
                }
                _ => Ok(Value::Null),
            };
        }
        if let Some(style) = block_scalar_style(rest) {
            return Ok(Value::Scalar(self.block_scalar(style, indent)));
        }
        match rest.as_bytes()[0] {
            b'"' | b'\'' => self.quoted(rest, line, indent).map(Value::Scalar),
            b'[' => flow_seq(rest, line),
            b'{' => Err(line.error("flow mappings (`{...}`) are not supported")),
            b'&' | b'*' | b'!' => Err(line.error("anchors, aliases and tags are not supported")),
            b'|' | b'>' => Err(line.error("unsupported block scalar header")),
            b'@' | b'`' | b'%' => {
                Err(line.error(format!("a plain value cannot start with `{}`", &rest[..1])))
            }
            _ => self.plain(rest, line, indent),
        }
    }

    /// A plain scalar, folded across more-indented continuation lines.
    fn plain(&mut self, first: &str, line: Line<'a>, indent: usize) -> Result<Value, YamlError> {
        check_plain(first, line)?;
        let mut text = first.to_string();
        while let Some(&next) = self.lines.get(self.pos) {
            if next.is_blank() || next.indent() <= indent {
                break;
            }
            let more = strip_comment(next.content()).trim_end();
            check_plain(more, next)?;
            text.push(' ');
            text.push_str(more);
            self.pos += 1;
        }
        Ok(match text.as_str() {
            "~" | "null" | "Null" | "NULL" => Value::Null,
            _ => Value::Scalar(text),
        })
    }

    /// A quoted scalar, which may continue on following lines until its closing quote.
    fn quoted(&mut self, first: &str, line: Line<'a>, indent: usize) -> Result<String, YamlError> {
        let quote = first.as_bytes()[0];
        let mut source = first.to_string();
        loop {
            if let Some(end) = closing_quote(&source, quote) {
                let after = source[end + 1..].trim();
                if !after.is_empty() && !after.starts_with('#') {
                    return Err(line.error("text after the closing quote"));
                }
                return unescape(&source[1..end], quote).map_err(|m| line.error(m));
            }
            match self.lines.get(self.pos) {
                Some(next) if next.indent() > indent || next.content().is_empty() => {
                    source.push(' ');
                    source.push_str(next.content().trim_end());
                    self.pos += 1;
                }
                _ => return Err(line.error("the quoted value is never closed")),
            }
        }
    }

    /// A `|` or `>` block scalar: the more-indented lines that follow.
    fn block_scalar(&mut self, style: BlockStyle, indent: usize) -> String {
        let mut lines = Vec::new();
        let mut body_indent = None;
        while let Some(&next) = self.lines.get(self.pos) {
            let blank = next.raw.trim().is_empty();
            if !blank && next.indent() <= indent {
                break;
            }
            let at = *body_indent.get_or_insert(if blank { usize::MAX } else { next.indent() });
            lines.push(if blank { "" } else { &next.raw[at.min(next.indent())..] });
            self.pos += 1;
        }
        while lines.last() == Some(&"") {
            lines.pop();
        }
        let mut text = if style.literal {
            lines.join("\n")
        } else {
            let mut folded = String::new();
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    folded.push(if l.is_empty() || lines[i - 1].is_empty() { '\n' } else { ' ' });
                }
                folded.push_str(l);
            }
            folded
        };
        if style.keep_newline && !text.is_empty() {
            text.push('\n');
        }
        text
    }
}

#[derive(Clone, Copy)]
struct BlockStyle {
    literal: bool,
    keep_newline: bool,
}

fn block_scalar_style(rest: &str) -> Option<BlockStyle> {
    let (literal, chomp) = match rest.as_bytes()[0] {
        b'|' => (true, &rest[1..]),
        b'>' => (false, &rest[1..]),
        _ => return None,
    };
    match chomp {
        "" | "+" => Some(BlockStyle { literal, keep_newline: true }),
        "-" => Some(BlockStyle { literal, keep_newline: false }),
        _ => None,
    }
}

fn is_seq_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// Splits `key: rest` at the colon that ends the key.
fn split_key<'a>(line: Line<'a>) -> Result<(String, &'a str), YamlError> {
    let content = line.content();
    split_key_text(content).ok_or_else(|| line.error("expected `key: value`"))
}

fn split_key_text(content: &str) -> Option<(String, &str)> {
    if let Some(quote @ (b'"' | b'\'')) = content.bytes().next() {
        let end = closing_quote(content, quote)?;
        let rest = content[end + 1..].strip_prefix(':')?;
        if !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        return Some((unescape(&content[1..end], quote).ok()?, rest));
    }
    let colon = content
        .char_indices()
        .find(|&(i, c)| c == ':' && content[i + 1..].chars().next().is_none_or(|n| n == ' '))?
        .0;
    let key = &content[..colon];
    if key.is_empty() || key.contains(" #") || key.starts_with(['#', '[', '{', '&', '*', '!', '|', '>']) {
        return None;
    }
    Some((key.trim_end().to_string(), &content[colon + 1..]))
}

/// YAML forbids `: ` and ` #` inside a plain scalar only in the sense that they end it; a
/// value containing `: ` is an error (a mapping where a scalar was expected).
fn check_plain(text: &str, line: Line<'_>) -> Result<(), YamlError> {
    if text.contains(": ") || text.ends_with(':') {
        return Err(line.error("`: ` inside an unquoted value (quote the value)"));
    }
    Ok(())
}

/// Removes a trailing ` # comment` from a plain line (not inside quotes).
fn strip_comment(text: &str) -> &str {
    if text.starts_with('#') {
        return "";
    }
    let bytes = text.as_bytes();
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'')
                if i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'[' || bytes[i - 1] == b',' =>
            {
                quote = Some(b)
            }
            (Some(q), _) if b == q => quote = None,
            (None, b'#') if i > 0 && bytes[i - 1] == b' ' => return &text[..i],
            _ => {}
        }
    }
    text
}

/// The byte index of the quote closing the one at index 0.
fn closing_quote(text: &str, quote: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn unescape(inner: &str, quote: u8) -> Result<String, String> {
    if quote == b'\'' {
        return Ok(inner.replace("''", "'"));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some(' ') => out.push(' '),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let ch = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                out.push(ch.ok_or_else(|| format!("bad escape `\\u{hex}`"))?);
            }
            other => {
                return Err(format!("unknown escape `\\{}`", other.map(String::from).unwrap_or_default()));
            }
        }
    }
    Ok(out)
}

/// A one-line flow sequence of scalars: `[a, "b c", 'd']`.
fn flow_seq(text: &str, line: Line<'_>) -> Result<Value, YamlError> {
    let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return Err(line.error("a flow list must open and close on one line"));
    };
    let mut items = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let (item, after) = if let Some(quote @ (b'"' | b'\'')) = rest.bytes().next() {
            let end =
                closing_quote(rest, quote).ok_or_else(|| line.error("unclosed quote in a flow list"))?;
            let item = unescape(&rest[1..end], quote).map_err(|m| line.error(m))?;
            (item, rest[end + 1..].trim_start())
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let item = rest[..end].trim();
            if item.contains(['[', ']', '{', '}']) {
                return Err(line.error("nested flow collections are not supported"));
            }
            (item.to_string(), &rest[end..])
        };
        items.push(Value::Scalar(item));
        rest = match after.strip_prefix(',') {
            Some(more) => more.trim_start(),
            None if after.is_empty() => after,
            None => return Err(line.error("expected `,` between list items")),
        };
    }
    Ok(Value::Seq(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(s: &str) -> Value {
        Value::Scalar(s.into())
    }

    #[test]
    fn reads_scalars_nested_maps_and_lists() {
        let v = parse(
            "name: Deploy notes # why\ndescription: 'it''s \"quoted\"'\nmetadata:\n  type: project\n  modified: 2026-01-01\npaths:\n  - src/**/*.ts\n  - \"docs/*.md\"\nflow: [a, 'b c']\nempty:\n",
        )
        .unwrap();
        assert_eq!(v.get("name"), Some(&scalar("Deploy notes")));
        assert_eq!(v.get("description"), Some(&scalar("it's \"quoted\"")));
        assert_eq!(v.get("metadata").and_then(|m| m.get("type")), Some(&scalar("project")));
        assert_eq!(v.get("paths"), Some(&Value::Seq(vec![scalar("src/**/*.ts"), scalar("docs/*.md")])));
        assert_eq!(v.get("flow"), Some(&Value::Seq(vec![scalar("a"), scalar("b c")])));
        assert_eq!(v.get("empty"), Some(&Value::Null));
    }

    #[test]
    fn reads_block_scalars_and_folded_plain_lines() {
        let v = parse("a: >-\n  one\n  two\nb: |\n  x\n  y\nc: first\n  second\n").unwrap();
        assert_eq!(v.get("a"), Some(&scalar("one two")));
        assert_eq!(v.get("b"), Some(&scalar("x\ny\n")));
        assert_eq!(v.get("c"), Some(&scalar("first second")));
    }

    #[test]
    fn rejects_what_real_yaml_rejects() {
        for (text, line) in [
            ("description: Use: the staging box\n", 1),
            ("name: \"Deploy\" checklist\n", 1),
            ("a: 1\na: 2\n", 2),
            ("a: \"never closed\n", 1),
            ("a: 1\n  b: 2\n", 2),
            ("a: &anchor x\n", 1),
        ] {
            assert_eq!(parse(text).unwrap_err().line, line, "{text:?}");
        }
    }

    #[test]
    fn an_empty_block_is_null() {
        assert_eq!(parse("# only a comment\n\n").unwrap(), Value::Null);
    }
}
