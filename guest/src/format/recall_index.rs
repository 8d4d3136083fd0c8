//! The memory index's file (issue 27, item 3; issue 45, item 6): every memory's header as a scan
//! reads it, with the size and modification time of the file it was read from. Recall, the
//! manifest, `check` and the writers all scan through it. Never authoritative (see
//! [`crate::format::scan`]): anything but a whole index of this version reads as no index.
//!
//! One line a memory, tab-separated:
//! `size  mtime  read  type  path  name  description  diagnostics  links`. The text fields are
//! written with [`escape_controls`], so none holds a tab, a newline or a control character;
//! `name` and `description` are empty when absent and start with `+` when present (an empty name
//! is not a missing one). `diagnostics` and `links` (the names the body links to) are lists:
//! their items, escaped, joined by U+001F, which an escaped item cannot hold. The lines are in [`newest_then_path`] order, the order the scan sorts
//! the listing in: matching one to the other is a single pass, with no map. Reading it
//! borrows from the file's bytes. At 10,000 memories, parsing the JSON this replaced was a
//! quarter of a recall through the component.

use crate::base::text::{escape_controls, unescape_controls};
use crate::base::time::newest_then_path;
use crate::format::memory_type::MemoryType;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Write as _;

/// The index's name in each memory directory.
pub const FILE: &str = ".memdir.index";
/// The first line: which format follows. Another (an older index, a planted file) is rebuilt.
const HEADER: &str = "memdir recall index 4\n";
/// An index larger than this is not read (and is rebuilt): 10,000 memories take about 2 MB.
pub const MAX_BYTES: u64 = 64 << 20;

/// One file as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The file's size when its head was read.
    pub size: u64,
    /// Its modification time in the listing then.
    pub mtime_ms: i64,
    /// The modification time the head was read at (the listing's may be older).
    pub read_ms: i64,
    /// The header's `type`, `name` and `description`, as `MemoryHeader` (the scan's) has them.
    pub memory_type: Option<MemoryType>,
    /// See `memory_type`.
    pub name: Option<Cow<'a, str>>,
    /// See `memory_type`.
    pub description: Option<Cow<'a, str>>,
    /// What was wrong with the file, as the scan said it.
    pub diagnostics: Vec<Cow<'a, str>>,
    /// The names its body links to, unresolved.
    pub links: Vec<Cow<'a, str>>,
}

/// Joins the items of a list field.
const ITEM: char = '\u{1f}';

/// The entries with their paths, in [`newest_then_path`] order.
#[cfg(test)]
pub type Entries<'a> = Vec<(Cow<'a, str>, Entry<'a>)>;

/// The entries of an index file; `None` unless it is whole, of this version and in
/// [`newest_then_path`] order. A file cut short (a host without atomic writes, a crash) ends
/// without its last newline and is refused whole: its last line could be a description cut
/// short. (The scan reads through [`read`]; this is its whole form, for the tests.)
#[cfg(test)]
pub fn parse(bytes: &[u8]) -> Option<Entries<'_>> {
    read(bytes)?.collect()
}

/// The entries of an index file as they are read, for a reader that stops early (the newest
/// 200 of 2,000 need a tenth of the work). `None` unless the file is whole and of this version,
/// as for [`parse`]. An item is `None` for a line that is not an entry or is out of order: the
/// index ends there, and its reader rebuilds it.
pub fn read(bytes: &[u8]) -> Option<impl Iterator<Item = Option<(Cow<'_, str>, Entry<'_>)>>> {
    let body = std::str::from_utf8(bytes).ok()?.strip_prefix(HEADER)?;
    if !body.is_empty() && !body.ends_with('\n') {
        return None;
    }
    let mut lines = body.split_terminator('\n');
    let mut previous: Option<(i64, Cow<'_, str>)> = None;
    let mut ended = false;
    Some(std::iter::from_fn(move || {
        if ended {
            return None;
        }
        let parsed = parse_line(lines.next()?).filter(|(path, entry)| {
            previous.as_ref().is_none_or(|(mtime_ms, last)| {
                newest_then_path((*mtime_ms, last), (entry.mtime_ms, path)) == Ordering::Less
            })
        });
        match &parsed {
            Some((path, entry)) => previous = Some((entry.mtime_ms, path.clone())),
            None => ended = true,
        }
        Some(parsed)
    }))
}

fn parse_line<'a>(line: &'a str) -> Option<(Cow<'a, str>, Entry<'a>)> {
    let mut fields = line.split('\t');
    let mut next = || fields.next();
    let size = next()?.parse().ok()?;
    let mtime_ms = next()?.parse().ok()?;
    let read_ms = next()?.parse().ok()?;
    let memory_type = match next()? {
        "" => None,
        t => Some(MemoryType::parse(t)?),
    };
    let path = text(next()?)?;
    let optional = |field: &'a str| -> Option<Option<Cow<'a, str>>> {
        match field {
            "" => Some(None),
            _ => text(field.strip_prefix('+')?).map(Some),
        }
    };
    let name = optional(next()?)?;
    let description = optional(next()?)?;
    let diagnostics = list(next()?)?;
    let links = list(next()?)?;
    if next().is_some() || path.is_empty() {
        return None;
    }
    Some((path, Entry { size, mtime_ms, read_ms, memory_type, name, description, diagnostics, links }))
}

/// A list field's items; an empty field is no items, and no item is empty.
fn list(field: &str) -> Option<Vec<Cow<'_, str>>> {
    if field.is_empty() {
        return Some(Vec::new());
    }
    field.split(ITEM).map(|item| text(item).filter(|t| !t.is_empty())).collect()
}

/// A field's text: borrowed unless it holds an escape.
fn text(field: &str) -> Option<Cow<'_, str>> {
    if field.contains('\\') { unescape_controls(field).map(Cow::Owned) } else { Some(Cow::Borrowed(field)) }
}

/// The index file for these entries (one each path), in [`newest_then_path`] order: every host
/// writes the same bytes.
pub fn write<'a>(mut entries: Vec<(&'a str, Entry<'a>)>) -> Vec<u8> {
    entries.sort_unstable_by(|a, b| newest_then_path((a.1.mtime_ms, a.0), (b.1.mtime_ms, b.0)));
    let mut out = String::with_capacity(HEADER.len() + entries.len() * 128);
    out.push_str(HEADER);
    for (path, entry) in &entries {
        let Entry { size, mtime_ms, read_ms, memory_type, name, description, diagnostics, links } = entry;
        let kind = memory_type.map_or("", MemoryType::as_str);
        let _ = write!(out, "{size}\t{mtime_ms}\t{read_ms}\t{kind}\t");
        push_text(&mut out, path);
        for field in [name, description] {
            out.push('\t');
            if let Some(value) = field {
                out.push('+');
                push_text(&mut out, value);
            }
        }
        for items in [diagnostics, links] {
            out.push('\t');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(ITEM);
                }
                push_text(&mut out, item);
            }
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn push_text(out: &mut String, text: &str) {
    if text.chars().any(|c| c.is_control() || c == '\\') {
        out.push_str(&escape_controls(text));
    } else {
        out.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(name: Option<&'a str>, description: Option<&'a str>) -> Entry<'a> {
        Entry {
            size: 235,
            mtime_ms: 1_767_225_600_000,
            read_ms: 1_767_225_600_000,
            memory_type: Some(MemoryType::Feedback),
            name: name.map(Cow::Borrowed),
            description: description.map(Cow::Borrowed),
            diagnostics: Vec::new(),
            links: Vec::new(),
        }
    }

    #[test]
    fn entries_come_back_as_written_whatever_their_text() {
        let written = vec![
            ("b.md", entry(Some("tabs\tand\nnewlines \\ back"), None)),
            ("a/\u{1b}odd.md", entry(Some(""), Some("+ leading plus, ünïcode, 部署"))),
            ("c.md", Entry { memory_type: None, mtime_ms: -5, ..entry(None, Some("")) }),
            (
                "d.md",
                Entry {
                    diagnostics: vec!["uses CRLF line ends".into(), "odd\u{1f}unit\tseparator".into()],
                    links: vec!["deploy".into(), "部署 notes".into()],
                    ..entry(Some("d"), None)
                },
            ),
        ];
        let bytes = write(written.clone());
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(text.lines().count(), 5, "one line each: {text}");
        assert!(text.lines().nth(1).unwrap().contains("a/\\u{1b}odd.md"), "newest, then by path: {text}");
        let parsed = parse(&bytes).expect("a whole index");
        let paths: Vec<&str> = parsed.iter().map(|(p, _)| p.as_ref()).collect();
        assert_eq!(paths, ["a/\u{1b}odd.md", "b.md", "d.md", "c.md"]);
        for (path, entry) in written {
            assert_eq!(parsed.iter().find(|(p, _)| p == path).map(|(_, e)| e), Some(&entry), "{path}");
        }
        assert_eq!(write(vec![]), HEADER.as_bytes(), "an empty directory's index");
        assert_eq!(parse(HEADER.as_bytes()).map(|e| e.len()), Some(0));
    }

    #[test]
    fn anything_but_a_whole_index_of_this_version_is_no_index() {
        let bytes =
            write(vec![("a.md", entry(Some("a"), Some("the a memory"))), ("b.md", entry(None, None))]);
        let whole = String::from_utf8(bytes).unwrap();
        for cut in 1..whole.len() - 1 {
            if whole.is_char_boundary(cut) {
                let torn = &whole[..cut];
                let parsed = parse(torn.as_bytes());
                // Cut at a line's end it is a smaller index that is still true.
                assert!(parsed.is_none() || torn.ends_with('\n'), "{torn:?}");
            }
        }
        for bad in [
            "{\"version\":2,\"entries\":{}}",
            "memdir recall index 2\n",
            // A whole line of the last version: read as no index, and rebuilt.
            "memdir recall index 3\n1\t2\t3\tfeedback\ta.md\t+n\t+d\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\t+n\t+d\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\t+n\t+d\t\t\textra\n",
            "memdir recall index 4\nx\t2\t3\tfeedback\ta.md\t+n\t+d\t\t\n",
            "memdir recall index 4\n1\t2\t3\tnotatype\ta.md\t+n\t+d\t\t\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\tn\t+d\t\t\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\t\t+n\t+d\t\t\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\t+bad \\q escape\t+d\t\t\n",
            // A list with an empty item, or a bad escape in one.
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\t+n\t+d\tx\u{1f}\t\n",
            "memdir recall index 4\n1\t2\t3\tfeedback\ta.md\t+n\t+d\t\tdeploy\u{1f}\\q\n",
            // Out of order (older first, or the same path twice): not what a host wrote.
            "memdir recall index 4\n1\t2\t2\t\ta.md\t\t\t\t\n1\t3\t3\t\tb.md\t\t\t\t\n",
            "memdir recall index 4\n1\t2\t2\t\tb.md\t\t\t\t\n1\t2\t2\t\ta.md\t\t\t\t\n",
            "memdir recall index 4\n1\t2\t2\t\ta.md\t\t\t\t\n1\t2\t2\t\ta.md\t\t\t\t\n",
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad:?}");
        }
        assert_eq!(parse(b"memdir recall index 4\n1\t2\t3\t\ta.md\t+\xff\t\t\t\n"), None, "not UTF-8");
        assert_eq!(parse(b"memdir recall index 4\n1\t2\t3\t\ta.md\t\t\t\t\n").map(|e| e.len()), Some(1));
    }
}
