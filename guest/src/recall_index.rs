//! The recall index's file (issue 27, item 3): every memory's header as recall reads it, with
//! the size and modification time of the file it was read from. Never authoritative (see
//! [`crate::scan::scan_every`]): anything but a whole index of this version reads as no index.
//!
//! One line a memory, tab-separated: `size  mtime  read  type  path  name  description`. The
//! text fields are written with [`escape_controls`], so none holds a tab or a newline; `name`
//! and `description` are empty when absent and start with `+` when present (an empty name is
//! not a missing one). The lines are in [`newest_then_path`] order, the order the scan sorts
//! the listing in: matching one to the other is a single pass, with no map. Reading it
//! borrows from the file's bytes. At 10,000 memories, parsing the JSON this replaced was a
//! quarter of a recall through the component.

use crate::memory_type::MemoryType;
use crate::text::{escape_controls, unescape_controls};
use crate::time::newest_then_path;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::Write as _;

/// The index's name in each memory directory.
pub const FILE: &str = ".memdir.index";
/// The first line: which format follows. Another (an older index, a planted file) is rebuilt.
const HEADER: &str = "memdir recall index 3\n";
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
}

/// The entries with their paths, in [`newest_then_path`] order.
pub type Entries<'a> = Vec<(Cow<'a, str>, Entry<'a>)>;

/// The entries of an index file; `None` unless it is whole, of this version and in
/// [`newest_then_path`] order. A file cut short (a host without atomic writes, a crash) ends
/// without its last newline and is refused whole: its last line could be a description cut
/// short.
pub fn parse(bytes: &[u8]) -> Option<Entries<'_>> {
    let body = std::str::from_utf8(bytes).ok()?.strip_prefix(HEADER)?;
    if !body.is_empty() && !body.ends_with('\n') {
        return None;
    }
    let mut entries = Entries::with_capacity(body.len() / 128);
    for line in body.split_terminator('\n') {
        let (path, entry) = parse_line(line)?;
        if let Some((last, previous)) = entries.last()
            && newest_then_path((previous.mtime_ms, last), (entry.mtime_ms, &path)) != Ordering::Less
        {
            return None;
        }
        entries.push((path, entry));
    }
    Some(entries)
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
    if next().is_some() || path.is_empty() {
        return None;
    }
    Some((path, Entry { size, mtime_ms, read_ms, memory_type, name, description }))
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
        let Entry { size, mtime_ms, read_ms, memory_type, name, description } = entry;
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
        }
    }

    #[test]
    fn entries_come_back_as_written_whatever_their_text() {
        let written = vec![
            ("b.md", entry(Some("tabs\tand\nnewlines \\ back"), None)),
            ("a/\u{1b}odd.md", entry(Some(""), Some("+ leading plus, ünïcode, 部署"))),
            ("c.md", Entry { memory_type: None, mtime_ms: -5, ..entry(None, Some("")) }),
        ];
        let bytes = write(written.clone());
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(text.lines().count(), 4, "one line each: {text}");
        assert!(text.lines().nth(1).unwrap().contains("a/\\u{1b}odd.md"), "newest, then by path: {text}");
        let parsed = parse(&bytes).expect("a whole index");
        let paths: Vec<&str> = parsed.iter().map(|(p, _)| p.as_ref()).collect();
        assert_eq!(paths, ["a/\u{1b}odd.md", "b.md", "c.md"]);
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
            "memdir recall index 3\n1\t2\t3\tfeedback\ta.md\t+n\n",
            "memdir recall index 3\n1\t2\t3\tfeedback\ta.md\t+n\t+d\textra\n",
            "memdir recall index 3\nx\t2\t3\tfeedback\ta.md\t+n\t+d\n",
            "memdir recall index 3\n1\t2\t3\tnotatype\ta.md\t+n\t+d\n",
            "memdir recall index 3\n1\t2\t3\tfeedback\ta.md\tn\t+d\n",
            "memdir recall index 3\n1\t2\t3\tfeedback\t\t+n\t+d\n",
            "memdir recall index 3\n1\t2\t3\tfeedback\ta.md\t+bad \\q escape\t+d\n",
            // Out of order (older first, or the same path twice): not what a host wrote.
            "memdir recall index 3\n1\t2\t2\t\ta.md\t\t\n1\t3\t3\t\tb.md\t\t\n",
            "memdir recall index 3\n1\t2\t2\t\tb.md\t\t\n1\t2\t2\t\ta.md\t\t\n",
            "memdir recall index 3\n1\t2\t2\t\ta.md\t\t\n1\t2\t2\t\ta.md\t\t\n",
        ] {
            assert_eq!(parse(bad.as_bytes()), None, "{bad:?}");
        }
        assert_eq!(parse(b"memdir recall index 3\n1\t2\t3\t\ta.md\t+\xff\t\n"), None, "not UTF-8");
    }
}
