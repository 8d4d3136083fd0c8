//! Which relative paths a memory may have: the one rule every writer's paths pass (save,
//! forget, extraction, the daily log, the trash, the journal) and that `check --fix` holds the
//! files it indexes to.

use crate::base::error::{Error, Result};
use crate::base::text::hides_in_a_name;
use crate::format::scan::INDEX_FILE;

/// `path` when it is a memory path, letting control characters through when `control` (only to
/// forget a file scan refused to read); otherwise why not.
pub(crate) fn checked_relative_path(path: &str, control: bool) -> Result<String> {
    match path_problem(path, control) {
        // `{:?}` writes control characters as escapes: the message stays on one line.
        Some(why) => Err(Error::InvalidInput(format!("{path:?} is not a memory path: {why}"))),
        None => Ok(path.to_string()),
    }
}

/// What makes `path` no memory path, in words; `None` when it is one. The one rule every
/// writer's paths pass (save, forget, extraction, the daily log, the trash, the journal) and
/// that `check --fix` holds the files it indexes to.
pub(crate) fn path_problem(path: &str, control: bool) -> Option<&'static str> {
    if path.is_empty() || path.starts_with('/') || path.starts_with('\\') {
        return Some("it must be relative to the memory directory");
    }
    if !control && path.chars().any(hides_in_a_name) {
        return Some("it holds control characters (or bidirectional controls)");
    }
    if path.contains('%') || path.contains('\\') {
        return Some("encoded or backslash separators are not allowed");
    }
    if path.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
        return Some("it may not hold empty, `.` or `..` parts");
    }
    if !path.ends_with(".md") {
        return Some("memories are `.md` files");
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == INDEX_FILE {
        return Some("MEMORY.md is the index, not a memory");
    }
    if reads_as_index(name) {
        // Issue 24, defect 17: ` MEMORY.md` is the index to a reader, and on a case-insensitive
        // file system `memory.md` is the index itself.
        return Some(
            "it reads as MEMORY.md, the index, once spaces, invisible characters and case are set aside",
        );
    }
    if path.split('/').any(|part| part.trim() != part) {
        // An index line's link target is read trimmed: ` notes.md` would point at `notes.md`.
        return Some("a part of it starts or ends with a space: an index line could not point at it");
    }
    None
}

/// True when `name` is MEMORY.md to a reader or to a case-insensitive file system: equal to it
/// once whitespace, control and invisible (default-ignorable) characters are dropped and case is
/// folded (` MEMORY.md`, `MEMORY\u{3000}.md`, `\u{200B}MEMORY.md`, `memory.md`, `Memory.md`).
pub(crate) fn reads_as_index(name: &str) -> bool {
    let invisible = |c: char| {
        c.is_whitespace()
            || c.is_control()
            || matches!(c,
                '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
                | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}')
    };
    let mut folded = name.chars().filter(|&c| !invisible(c)).flat_map(char::to_lowercase);
    // Compared as it is folded: a long name stops at its first difference.
    INDEX_FILE.to_ascii_lowercase().chars().all(|c| folded.next() == Some(c)) && folded.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bidirectional_control_is_refused_in_a_path_and_escaped_in_output() {
        // `user_\u{202E}dm.txt.md` shows as `user_dm.md.txt…` in a terminal (issue 44).
        for hostile in ["user_\u{202E}dm.txt.md", "a\u{2066}b.md", "c\u{200F}.md"] {
            assert!(checked_relative_path(hostile, false).is_err(), "{hostile:?}");
            let shown = crate::base::text::escape_controls(hostile);
            assert!(!shown.chars().any(hides_in_a_name), "{shown}");
            assert_eq!(crate::base::text::unescape_controls(&shown).as_deref(), Some(hostile));
        }
        assert!(checked_relative_path("user_ünïcode.md", false).is_ok());
    }
}
