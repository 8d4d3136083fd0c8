//! `check`: what has drifted in a memory directory (issue 14, item 3; issue 18). MEMORY.md is
//! compared with the files, and each file's frontmatter is read as recall reads it:
//!
//! - an index line whose file is gone, and a second line for the same file;
//! - a memory file no index line points at, and a missing MEMORY.md;
//! - an index past what the prompt loads (R6.2);
//! - frontmatter that does not parse, lacks a field, or names an unknown type.
//!
//! The private directory and `team/` are checked each against its own index. A change a killed
//! writer left half-done is finished first (see [`crate::journal`]): that is not drift, it is
//! the end of a save, and the report counts it.

use crate::error::{Error, Result};
use crate::fs::{Fs, FsError, join};
use crate::scan::{self, INDEX_FILE};
use crate::target::Target;
use crate::writer::TEAM_DIR;
use crate::{index, journal};
use serde::{Deserialize, Serialize};

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// An index line points at a file that does not exist.
    DanglingIndexLine,
    /// Another index line points at a file an earlier line already points at.
    DuplicateIndexLine,
    /// A memory file no index line points at.
    NotInIndex,
    /// Memory files exist and MEMORY.md does not (the next prompt writes it, R6.5).
    MissingIndex,
    /// MEMORY.md is longer than the prompt loads.
    IndexOverLimit,
    /// A memory's frontmatter is missing, broken, incomplete or names an unknown type.
    Frontmatter,
    /// A journal that did not read back was set aside, unapplied, for a person to look at.
    JournalSetAside,
}

/// One thing `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Finding {
    /// What kind of drift.
    pub kind: FindingKind,
    /// The file it is about, relative to the memory directory (`team/...` for team memory).
    pub path: String,
    /// The line of that file, 1-based, when it is about one line.
    pub line: Option<u32>,
    /// What was found, in words a person can act on.
    pub message: String,
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CheckReport {
    /// The memory directory checked.
    pub memory_dir: String,
    /// Memory files read.
    pub memories: u32,
    /// Everything found, by path and line.
    pub findings: Vec<Finding>,
    /// Files rewritten to finish a change a killed writer left half-done.
    pub recovered: u32,
}

/// Checks `target`'s memory directory. A directory that does not exist yet is clean.
pub fn check(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<CheckReport> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let mut report = CheckReport { memory_dir: memory_dir.clone(), ..CheckReport::default() };
    let team = join(&memory_dir, TEAM_DIR);
    for (dir, prefix) in [(memory_dir.as_str(), ""), (team.as_str(), "team/")] {
        match fs.stat(dir) {
            Ok(_) => check_dir(fs, dir, prefix, now_ms, &mut report)?,
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    report.findings.sort_by(|a, b| (&a.path, a.line, a.kind as u8).cmp(&(&b.path, b.line, b.kind as u8)));
    Ok(report)
}

fn check_dir(fs: &dyn Fs, dir: &str, prefix: &str, now_ms: i64, report: &mut CheckReport) -> Result<()> {
    if fs.stat(&join(dir, journal::JOURNAL_FILE)).is_ok() {
        let ((), recovered) = journal::locked(fs, dir, || Ok(()))?;
        report.recovered += u32::try_from(recovered).unwrap_or(u32::MAX);
    }
    let set_aside = format!("{}{}", journal::JOURNAL_FILE, journal::SET_ASIDE_SUFFIX);
    if fs.stat(&join(dir, &set_aside)).is_ok() {
        report.findings.push(Finding {
            kind: FindingKind::JournalSetAside,
            path: format!("{prefix}{set_aside}"),
            line: None,
            message:
                "an interrupted write's journal did not read back (damaged, or not memdir's) and was not \
                      applied: look at it, then delete it"
                    .to_string(),
        });
    }
    let mut headers = scan::scan_with_limit(fs, dir, usize::MAX, now_ms)?.headers;
    // The private directory's index does not cover team memory, which has its own.
    headers.retain(|h| prefix == "team/" || !h.path.starts_with(&format!("{TEAM_DIR}/")));
    report.memories += u32::try_from(headers.len()).unwrap_or(u32::MAX);
    let mut add = |kind, path: &str, line: Option<usize>, message: String| {
        report.findings.push(Finding {
            kind,
            path: format!("{prefix}{path}"),
            line: line.and_then(|l| u32::try_from(l).ok()),
            message,
        });
    };
    for h in &headers {
        for d in &h.diagnostics {
            add(FindingKind::Frontmatter, &h.path, None, d.clone());
        }
    }

    let index_path = join(dir, INDEX_FILE);
    let text = match fs.read_file(&index_path, index::MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(FsError::NotFound(_)) => {
            if !headers.is_empty() {
                let n = headers.len();
                let memories = if n == 1 { "memory" } else { "memories" };
                let message = format!(
                    "{n} {memories} and no {INDEX_FILE}: the next prompt writes one, or run `memdir prompt`"
                );
                add(FindingKind::MissingIndex, INDEX_FILE, None, message);
            }
            return Ok(());
        }
        Err(e) => return Err(Error::from(e)),
    };
    let loaded = index::truncate(&text);
    if let Some(warning) = &loaded.warning {
        add(
            FindingKind::IndexOverLimit,
            INDEX_FILE,
            None,
            warning.lines().next().unwrap_or(warning).trim_start_matches("> ").to_string(),
        );
    }
    let mut pointed: Vec<(String, usize)> = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let Some(file) = pointer(line) else { continue };
        let number = at + 1;
        if let Some((_, first)) = pointed.iter().find(|(f, _)| *f == file) {
            add(
                FindingKind::DuplicateIndexLine,
                INDEX_FILE,
                Some(number),
                format!("{file} already has its line at line {first}: keep one"),
            );
            continue;
        }
        let exists = crate::writer::valid_relative_path(&file).is_ok()
            && match fs.stat(&join(dir, &file)) {
                Ok(_) => true,
                Err(FsError::NotFound(_)) => false,
                Err(e) => return Err(e.into()),
            };
        if !exists {
            add(FindingKind::DanglingIndexLine, INDEX_FILE, Some(number), format!("{file} does not exist"));
        }
        pointed.push((file, number));
    }
    for h in &headers {
        if !pointed.iter().any(|(f, _)| *f == h.path) {
            add(FindingKind::NotInIndex, &h.path, None, format!("no line in {INDEX_FILE} points at it"));
        }
    }
    Ok(())
}

/// The memory file an index line points at: the target of its first Markdown link, when that
/// is a relative `.md` path (a URL is not a memory).
fn pointer(line: &str) -> Option<String> {
    // A title's `]` written `\]` (as save escapes it) does not close the link.
    let start = line.match_indices("](").find(|(at, _)| !line[..*at].ends_with('\\'))?.0 + 2;
    let end = start + line[start..].find(')')?;
    let target = line[start..end].trim();
    let target = target.strip_prefix("./").unwrap_or(target);
    (target.ends_with(".md") && !target.contains("://")).then(|| target.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lines_point_at_their_first_relative_link() {
        assert_eq!(pointer("- [A](a.md) — hook").as_deref(), Some("a.md"));
        assert_eq!(pointer("- [A](./sub/a.md) — see [b](b.md)").as_deref(), Some("sub/a.md"));
        assert_eq!(pointer("- [Docs](https://x.example/a.md)"), None);
        assert_eq!(pointer("# Heading"), None);
        assert_eq!(pointer("- [A\\] (x.md) \\[b](a.md) — hook").as_deref(), Some("a.md"));
        assert_eq!(pointer("- [a\\](b.md](c.md) — hook").as_deref(), Some("c.md"));
    }
}
