//! The timeline of writes (issue 48): every change a writer makes to a memory — a save, a
//! forget, a restore, a model's operation, a proposal accepted, a file team sync brought in —
//! is one JSON line in `<memory>/.sessions/writes.jsonl`, saying when, which memory, what
//! happened and who asked. Team sync keeps `.sessions/` local; the log is capped at
//! [`MAX_BYTES`], keeping the newest half when it grows past. What a write replaced is in the
//! trash, which the line names, so a page can show the change as a diff.
//!
//! The line is written after the change is committed, and a failure to write it never undoes
//! or fails the change: the timeline is a record, not part of the write.

use crate::base::fs::{Fs, join};
use serde::{Deserialize, Serialize};

/// The log's name in `.sessions/`.
pub const LOG: &str = "writes.jsonl";
/// The log's cap: past it, the newest half is kept.
const MAX_BYTES: u64 = 512 * 1024;

/// One change to one memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Written {
    /// When, ms since the epoch.
    pub at_ms: i64,
    /// The memory, relative to the memory directory (`team/` for team memory).
    pub path: String,
    /// `created`, `updated`, `removed`, `restored` or `received` (by team sync).
    pub action: String,
    /// Who asked: `person:cli`, `person:editor`, `person:workbench`, `agent:<client>`,
    /// `extraction`, `dream` or `sync`; `unknown` when the host did not say.
    pub by: String,
    /// What else the change did, in words: a rename, a memory superseded, a proposal accepted.
    pub note: Option<String>,
    /// The trash entry holding the version this change replaced or removed (what `restore`
    /// takes), when one was kept.
    pub before: Option<String>,
}

fn log_path(memory_dir: &str) -> String {
    join(&join(memory_dir, ".sessions"), LOG)
}

/// Records `written` in the timeline of `memory_dir` (created with its `.sessions/` when
/// missing). Errors are ignored: the change it records is already committed.
pub fn record(fs: &dyn Fs, memory_dir: &str, written: &Written) {
    if crate::format::sessions::dir(fs, memory_dir).is_err() {
        return;
    }
    let line = format!("{}\n", serde_json::to_string(written).expect("a timeline line always serialises"));
    let _ = crate::format::sessions::append_capped(fs, &log_path(memory_dir), &line, MAX_BYTES);
}

/// The newest `limit` changes of `memory_dir`, newest first; only those of `path` when given.
/// A line that cannot be read is passed over.
pub fn list(
    fs: &dyn Fs,
    memory_dir: &str,
    path: Option<&str>,
    limit: u32,
) -> crate::base::error::Result<Vec<Written>> {
    let lines = crate::format::sessions::log_lines(fs, &log_path(memory_dir), 2 * MAX_BYTES)?;
    Ok(lines
        .iter()
        .rev()
        .filter_map(|l| serde_json::from_str::<Written>(l).ok())
        .filter(|w| path.is_none_or(|p| w.path == p))
        .take(limit as usize)
        .collect())
}

/// The newest `limit` changes of `target`'s memory directory (only `path`'s when given).
pub fn of_target(
    fs: &dyn Fs,
    target: &crate::context::target::Target,
    path: Option<&str>,
    limit: u32,
) -> crate::base::error::Result<Vec<Written>> {
    list(fs, &target.resolve(fs)?.memory_dir, path, limit)
}
