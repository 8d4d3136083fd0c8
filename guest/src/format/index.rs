//! MEMORY.md as the model sees it (R6.2, R6.3, revised): the first 200 lines, then at most
//! 25,000 characters counted as the terminal agent counts them (UTF-16 code units, JavaScript's
//! string length) cut at a newline, then a warning that says what was cut and how to fix it.

use crate::base::error::Result;
use crate::base::fs::Fs;
use crate::base::text;
use std::collections::{BTreeMap, BTreeSet};

/// Lines of the index kept for the prompt.
pub const MAX_LINES: usize = 200;
/// Characters of the index kept for the prompt, in UTF-16 code units.
pub const MAX_CHARS: usize = 25_000;
/// An index larger than this is refused rather than read into memory.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Which cuts were applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Truncation {
    /// Only the line cut.
    Lines,
    /// Only the size cut.
    Size,
    /// The line cut, then the size cut.
    LinesAndSize,
}

impl Truncation {
    /// The name used in JSON output: `lines`, `size` or `lines+size`.
    pub fn as_str(self) -> &'static str {
        match self {
            Truncation::Lines => "lines",
            Truncation::Size => "size",
            Truncation::LinesAndSize => "lines+size",
        }
    }
}

/// The index as loaded for the prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LoadedIndex {
    /// What the model sees: the kept part, then a blank line and the warning when cut.
    pub text: String,
    /// Which cuts were applied.
    pub truncated: Option<Truncation>,
    /// Lines in the original (a final newline does not start another line).
    pub lines: usize,
    /// Bytes in the original.
    pub bytes: usize,
    /// Characters in the original, in UTF-16 code units.
    pub chars: usize,
    /// List entries not kept whole.
    pub dropped_entries: usize,
    /// The warning, when anything was cut.
    pub warning: Option<String>,
    /// Repairs made while decoding the file.
    pub diagnostics: Vec<String>,
}

/// Index lines are kept under this many characters (R6.1).
pub const MAX_INDEX_LINE_CHARS: usize = 150;

/// `- [Title](file.md) — `, the title's Markdown link syntax escaped so a name with `]` or `[`
/// cannot break the link.
pub(crate) fn index_line_head(name: &str, file: &str) -> String {
    let title = name.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]");
    format!("- [{title}]({file}) — ")
}

/// `- [Title](file.md) — hook`, kept under [`MAX_INDEX_LINE_CHARS`] characters; `- [Title](file.md)`
/// without a hook.
pub(crate) fn index_line(name: &str, file: &str, description: &str) -> String {
    let head = index_line_head(name, file);
    if description.is_empty() {
        return head.trim_end_matches(" — ").to_string();
    }
    let room = MAX_INDEX_LINE_CHARS.saturating_sub(head.chars().count());
    let hook: String = if description.chars().count() > room {
        description.chars().take(room.saturating_sub(1)).collect::<String>() + "…"
    } else {
        description.to_string()
    };
    head + &hook
}

/// Whether `line` may be appended to an index of `lines` lines and `chars` characters (UTF-16
/// units, trailing whitespace aside): the limits the prompt loads (R6.4), kept by save and by
/// `check --fix` alike (issue 24, defect 18).
pub(crate) fn index_has_room(lines: usize, chars: usize, line: &str) -> bool {
    lines < MAX_LINES && chars + 1 + utf16_len(line) <= MAX_CHARS
}

/// The memory file an index line points at: the target of its first Markdown link, when that
/// is a relative `.md` path (a URL is not a memory).
pub fn pointer(line: &str) -> Option<String> {
    // A title's `]` written `\]` (as save escapes it) does not close the link.
    let start = line.match_indices("](").find(|(at, _)| !line[..*at].ends_with('\\'))?.0 + 2;
    let end = start + line[start..].find(')')?;
    let target = line[start..end].trim();
    let target = target.strip_prefix("./").unwrap_or(target);
    (target.ends_with(".md") && !target.contains("://")).then(|| target.to_string())
}

/// What identifies a line of MEMORY.md across versions: an entry by the file it points at (so
/// a changed description is the same entry), any other line by its text and occurrence.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Entry(String),
    Text(String, usize),
}

fn keyed(text: &str) -> Vec<(Key, String)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut entries: BTreeSet<String> = BTreeSet::new();
    let mut lines = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let key = match pointer(line) {
            Some(path) if line.trim_start().starts_with("- ") && entries.insert(path.clone()) => {
                Key::Entry(path)
            }
            _ => {
                let n = seen.entry(line.to_string()).or_default();
                *n += 1;
                Key::Text(line.to_string(), *n)
            }
        };
        lines.push((key, line.to_string()));
    }
    lines
}

/// Merges three versions of MEMORY.md, never with a conflict: each line (an entry by the file
/// it points at) is kept, changed or removed as the side that changed it did; a line both
/// changed keeps `ours`; lines only `theirs` added follow the line they followed there. Lines a
/// person wrote are lines like any other, so they are kept.
pub fn merge(base: &str, ours: &str, theirs: &str) -> String {
    let (base, ours, theirs) = (keyed(base), keyed(ours), keyed(theirs));
    let map = |lines: &[(Key, String)]| -> BTreeMap<Key, String> { lines.iter().cloned().collect() };
    let (base_of, ours_of, theirs_of) = (map(&base), map(&ours), map(&theirs));
    let mut kept: Vec<(Key, String)> = Vec::new();
    for (key, line) in &ours {
        let line = match (base_of.get(key), theirs_of.get(key)) {
            (Some(b), Some(t)) if line == b && t != b => Some(t),
            (Some(b), None) if line == b => None,
            _ => Some(line),
        };
        if let Some(line) = line {
            kept.push((key.clone(), line.clone()));
        }
    }
    // Lines only theirs has, anchored after the last line before them that is kept.
    let kept_keys: BTreeSet<Key> = kept.iter().map(|(k, _)| k.clone()).collect();
    let mut after: BTreeMap<Option<Key>, Vec<String>> = BTreeMap::new();
    let mut anchor: Option<Key> = None;
    for (key, line) in &theirs {
        if kept_keys.contains(key) {
            anchor = Some(key.clone());
            continue;
        }
        // Ours has it (kept or changed above), or ours removed it and theirs did not change it.
        if ours_of.contains_key(key) || base_of.get(key) == Some(line) {
            continue;
        }
        after.entry(anchor.clone()).or_default().push(line.clone());
    }
    let mut out = String::new();
    for line in after.remove(&None).unwrap_or_default() {
        out.push_str(&line);
        out.push('\n');
    }
    for (key, line) in kept {
        out.push_str(&line);
        out.push('\n');
        for line in after.remove(&Some(key)).unwrap_or_default() {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Why no index line can point at the memory at `path` (whose line would be `line`): a name
/// the writers refuse (one that reads as MEMORY.md, issue 24 defect 17), or a link that would
/// not read back as this file. A line added for it would be taken for another file's, or for
/// none, and removed by the next `check --fix`, which would add it again.
pub(crate) fn unindexable(path: &str, line: &str) -> Option<&'static str> {
    if let Some(why) = crate::format::memory_path::path_problem(path, false) {
        return Some(why);
    }
    (pointer(line).as_deref() != Some(path)).then_some("a link to it would not read back as this file")
}

/// Lines and characters (UTF-16 units, trailing whitespace aside) of an index text, as save
/// counts them before it appends a line.
pub(crate) fn size(text: &str) -> (usize, usize) {
    (text.lines().count(), utf16_len(text.trim_end()))
}

/// Reads the index at `path` and cuts it for the prompt.
pub fn load(fs: &dyn Fs, path: &str) -> Result<LoadedIndex> {
    let bytes = fs.read_file(path, MAX_FILE_BYTES)?;
    let decoded = text::decode(&bytes, false);
    let mut loaded = truncate(&decoded.text);
    // What the model sees travels inside the agent's wrapper: a description or a teammate's
    // line cannot close it (issue 24, defect 5).
    loaded.text = crate::format::wrapper::neutralize(&loaded.text);
    loaded.bytes = bytes.len();
    loaded.diagnostics = decoded.diagnostics.into_iter().map(|d| format!("{path} {d}")).collect();
    Ok(loaded)
}

/// Cuts index text already in hand.
pub fn truncate(content: &str) -> LoadedIndex {
    let lines = count_lines(content);
    let bytes = content.len();
    let chars = utf16_len(content);
    let trimmed = content.trim();
    let line_cut = count_lines(trimmed) > MAX_LINES;
    let mut kept: &str = if line_cut { first_lines(trimmed, MAX_LINES) } else { trimmed };
    let size_cut = utf16_len(kept) > MAX_CHARS;
    let mut cut_mid_line = false;
    if size_cut {
        // The longest prefix within the limit, then back to its last newline.
        let end = prefix_within(kept, MAX_CHARS);
        match kept[..end].rfind('\n') {
            Some(at) if at > 0 => kept = &kept[..at],
            _ => {
                kept = &kept[..end];
                cut_mid_line = true;
            }
        }
    }
    let truncated = match (line_cut, size_cut) {
        (false, false) => None,
        (true, false) => Some(Truncation::Lines),
        (false, true) => Some(Truncation::Size),
        (true, true) => Some(Truncation::LinesAndSize),
    };
    let Some(truncated) = truncated else {
        return LoadedIndex {
            text: trimmed.to_string(),
            truncated: None,
            lines,
            bytes,
            chars,
            dropped_entries: 0,
            warning: None,
            diagnostics: Vec::new(),
        };
    };
    let whole_lines = if cut_mid_line { &kept[..kept.rfind('\n').unwrap_or(0)] } else { kept };
    let dropped_entries = count_entries(trimmed) - count_entries(whole_lines);
    let kept_lines = count_lines(whole_lines);
    let warning = warning(lines, chars, kept_lines, dropped_entries);
    LoadedIndex {
        text: format!("{kept}\n\n{warning}"),
        truncated: Some(truncated),
        lines,
        bytes,
        chars,
        dropped_entries,
        warning: Some(warning),
        diagnostics: Vec::new(),
    }
}

/// Length as JavaScript counts it: UTF-16 code units.
pub fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The byte length of the longest prefix of `text` within `max` UTF-16 code units.
fn prefix_within(text: &str, max: usize) -> usize {
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max {
            return at;
        }
    }
    text.len()
}

/// Lines as an editor counts them: a final newline does not start another line.
fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    text.bytes().filter(|&b| b == b'\n').count() + usize::from(!text.ends_with('\n'))
}

/// The first `n` lines of `text`, without the newline that ends the last one.
fn first_lines(text: &str, n: usize) -> &str {
    match text.match_indices('\n').nth(n - 1) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// Index entries: list items (`- `, `* `, `+ `).
fn count_entries(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            let line = line.trim_start();
            ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m))
        })
        .count()
}

/// What the model is told when the index was cut (R6.3, revised): the size, how many lines
/// were cut from which line, the entries lost, and how to fix it.
fn warning(lines: usize, chars: usize, kept_lines: usize, dropped: usize) -> String {
    let cut = lines.saturating_sub(kept_lines);
    let entries = if dropped == 1 { "entry" } else { "entries" };
    format!(
        "> WARNING: MEMORY.md is {} lines and {} characters (limits: {MAX_LINES} lines, {} characters), so \
         only part of it was loaded: {} line{} cut, starting at line {}, and {dropped} index {entries} with \
         them. Keep each entry to one line under ~200 characters and move details into the topic files.",
        group(lines),
        group(chars),
        group(MAX_CHARS),
        group(cut),
        if cut == 1 { " was" } else { "s were" },
        group(kept_lines + 1),
    )
}

/// `25000` → `25,000`.
pub(crate) fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n";

    #[test]
    fn both_sides_adding_keeps_both_entries() {
        let ours = format!("{BASE}- [C](c.md) — c\n");
        let theirs = format!("{BASE}- [D](d.md) — d\n");
        assert_eq!(
            merge(BASE, &ours, &theirs),
            "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n- [D](d.md) — d\n- [C](c.md) — c\n"
        );
    }

    #[test]
    fn a_removal_on_either_side_is_kept() {
        let theirs = "# Memory\n- [B](b.md) — b\n";
        assert_eq!(merge(BASE, BASE, theirs), theirs);
        assert_eq!(merge(BASE, theirs, BASE), theirs);
    }

    #[test]
    fn a_changed_description_replaces_the_entry_and_ours_wins_when_both_change() {
        let theirs = BASE.replace("— a", "— a, revised");
        assert_eq!(merge(BASE, BASE, &theirs), theirs);
        let ours = BASE.replace("— a", "— a, mine");
        assert_eq!(merge(BASE, &ours, &theirs), ours);
    }

    #[test]
    fn lines_a_person_wrote_survive_and_unrelated_indexes_union() {
        let ours = "# Memory\nRead these first.\n- [A](a.md) — a\n";
        let theirs = "# Memory\n- [Z](z.md) — z\n";
        assert_eq!(
            merge("", ours, theirs),
            "# Memory\n- [Z](z.md) — z\nRead these first.\n- [A](a.md) — a\n"
        );
    }

    #[test]
    fn merging_is_stable_when_one_side_already_has_the_other() {
        let ours = format!("{BASE}- [C](c.md) — c\n");
        assert_eq!(merge(BASE, &ours, BASE), ours);
        assert_eq!(merge(BASE, &ours, &ours), ours);
    }

    fn entries(n: usize) -> String {
        (0..n).map(|i| format!("- [M{i}](m{i}.md) — hook {i}\n")).collect()
    }

    #[test]
    fn an_index_within_limits_is_kept_whole() {
        let loaded = truncate(&entries(200));
        assert_eq!(loaded.truncated, None);
        assert_eq!(loaded.lines, 200);
        assert_eq!(loaded.text, entries(200).trim_end());
    }

    #[test]
    fn line_201_is_dropped_with_a_warning() {
        let loaded = truncate(&entries(201));
        assert_eq!(loaded.truncated, Some(Truncation::Lines));
        assert_eq!(loaded.dropped_entries, 1);
        assert!(loaded.text.ends_with(loaded.warning.as_deref().unwrap()));
        assert!(loaded.warning.unwrap().contains("201 lines and"), "names the size");
    }

    #[test]
    fn a_long_single_line_is_cut_on_a_character_boundary() {
        // "é" is one UTF-16 unit but two UTF-8 bytes: 20,003 units fit, 40,003 bytes would not.
        let line = "- x".to_string() + &"é".repeat(20_000);
        assert_eq!(truncate(&line).truncated, None);
        let line = "- x".to_string() + &"é".repeat(30_000);
        let loaded = truncate(&line);
        assert_eq!(loaded.truncated, Some(Truncation::Size));
        let kept = loaded.text.split("\n\n> WARNING").next().unwrap();
        assert_eq!(utf16_len(kept), 25_000);
        assert_eq!(loaded.dropped_entries, 1);
        // An astral character is two units, as in JavaScript.
        assert_eq!(utf16_len("😀a"), 3);
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(group(25_000), "25,000");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_234_567), "1,234,567");
    }
}
