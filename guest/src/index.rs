//! MEMORY.md as the model sees it (R6.2, R6.3, revised): the first 200 lines, then at most
//! 25,000 characters counted as the terminal agent counts them (UTF-16 code units, JavaScript's
//! string length) cut at a newline, then a warning that says what was cut and how to fix it.

use crate::error::Result;
use crate::fs::Fs;
use crate::text;

/// Lines of the index kept for the prompt.
pub const MAX_LINES: usize = 200;
/// Characters of the index kept for the prompt, in UTF-16 code units.
pub const MAX_CHARS: usize = 25_000;
/// An index larger than this is refused rather than read into memory.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Which cuts were applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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

/// Reads the index at `path` and cuts it for the prompt.
pub fn load(fs: &dyn Fs, path: &str) -> Result<LoadedIndex> {
    let bytes = fs.read_file(path, MAX_FILE_BYTES)?;
    let decoded = text::decode(&bytes, false);
    let mut loaded = truncate(&decoded.text);
    // What the model sees travels inside the agent's wrapper: a description or a teammate's
    // line cannot close it (issue 24, defect 5).
    loaded.text = crate::wrapper::neutralize(&loaded.text);
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
fn group(n: usize) -> String {
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
