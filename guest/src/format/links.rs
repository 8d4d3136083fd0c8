//! Links between memories (R1.7): a body says `[[name]]` (or `[[name|label]]`), `name` being
//! another memory's `name:`. Names compare by their kebab-case slug, so `[[Release freeze]]`
//! and `[[release-freeze]]` reach the same memory. A link with no memory behind it is "not
//! written yet": something worth writing later, never an error. Code spans and fenced blocks
//! hold examples, not links, and are passed over.

use serde::{Deserialize, Serialize};

/// Longest link target read: a name is a short slug, anything longer is prose in brackets.
const MAX_TARGET_CHARS: usize = 200;

/// One link a memory makes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Link {
    /// The name as the link writes it.
    pub name: String,
    /// The memory it reaches, relative to the scanned directory; `None`: not written yet.
    pub path: Option<String>,
}

/// The kebab-case slug of a name: lowercase letters and digits (any script), every run of
/// anything else one `-`. `Release freeze` and `release_freeze` are both `release-freeze`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
    out
}

/// The link targets of a body, in order of first appearance, each once (by slug).
pub fn parse(body: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for_each_link(body, |target, _| {
        let key = slug(target);
        if !key.is_empty() && !found.iter().any(|f| slug(f) == key) {
            found.push(target.to_string());
        }
    });
    found
}

/// `body` with every link to `old` (by slug) pointing at `new` instead, labels kept; `None`
/// when no link changed.
pub fn rewrite(body: &str, old: &str, new: &str) -> Option<String> {
    let old = slug(old);
    let mut spans = Vec::new();
    for_each_link(body, |target, at| {
        if slug(target) == old {
            spans.push((at, target.len()));
        }
    });
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(body.len());
    let mut last = 0;
    for (at, len) in spans {
        out.push_str(&body[last..at]);
        out.push_str(new);
        last = at + len;
    }
    out.push_str(&body[last..]);
    Some(out)
}

/// Calls `visit(target, byte offset of target)` for each `[[target]]` / `[[target|label]]`
/// outside code.
fn for_each_link(body: &str, mut visit: impl FnMut(&str, usize)) {
    let mut offset = 0;
    let mut fence: Option<&str> = None;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (Some(open), Some(m)) if m == open => fence = None,
            (None, Some(m)) => fence = Some(m),
            (None, None) => links_in_line(line, offset, &mut visit),
            _ => {}
        }
        offset += line.len();
    }
}

fn links_in_line(line: &str, offset: usize, visit: &mut impl FnMut(&str, usize)) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // An inline code span: skip to its closing run of the same length, if any.
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let ticks = &line[i..i + run];
                i += run;
                if let Some(end) = line[i..].find(ticks) {
                    i += end + run;
                }
            }
            b'[' if bytes.get(i + 1) == Some(&b'[') => {
                let start = i + 2;
                let Some(len) = line[start..].find("]]") else { return };
                let inner = &line[start..start + len];
                let target = inner.split('|').next().unwrap_or("");
                let trimmed = target.trim();
                let well_formed = !trimmed.is_empty()
                    && trimmed.chars().count() <= MAX_TARGET_CHARS
                    && !target.contains(['[', ']']);
                if well_formed {
                    let lead = target.len() - target.trim_start().len();
                    visit(trimmed, offset + start + lead);
                    i = start + len + 2;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_kebab_case_in_any_script() {
        assert_eq!(slug("Release freeze"), "release-freeze");
        assert_eq!(slug("release_freeze"), "release-freeze");
        assert_eq!(slug("  --Äpfel & Birnen--  "), "äpfel-birnen");
        assert_eq!(slug("发布 冻结"), "发布-冻结");
        assert_eq!(slug("!!"), "");
    }

    #[test]
    fn links_are_found_outside_code_once_each() {
        let body = "See [[release-freeze]] and [[Release freeze|the freeze]].\n\
                    `[[not-a-link]]` and ``[[nor]]``\n```\n[[fenced]]\n```\n[[ci-owner]] [[]] [[a]b]]\n";
        assert_eq!(parse(body), vec!["release-freeze", "ci-owner"]);
    }

    #[test]
    fn rewriting_keeps_labels_and_leaves_code_alone() {
        let body = "[[Release freeze|the freeze]], [[release-freeze]], `[[release-freeze]]`, [[other]]";
        assert_eq!(
            rewrite(body, "release-freeze", "release-window").unwrap(),
            "[[release-window|the freeze]], [[release-window]], `[[release-freeze]]`, [[other]]"
        );
        assert_eq!(rewrite(body, "nothing", "x"), None);
    }

    #[test]
    fn an_unclosed_link_or_code_span_ends_quietly() {
        assert_eq!(parse("[[open and `tick"), Vec::<String>::new());
        assert_eq!(parse("`open [[x]]"), vec!["x"]);
    }
}
