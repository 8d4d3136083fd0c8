//! Receipts of what each agent was given (issue 48): every time a hook injects memory (the index
//! at a session's start, recalled memories at a prompt), one JSON line in
//! `<memory>/.sessions/receipts.jsonl` says which client, which session, when, which memories
//! and how many bytes. Team sync keeps `.sessions/` local; the log is capped at [`MAX_BYTES`],
//! keeping the newest half when it grows past. From the receipts, each memory's use count and
//! when it was last given.

use crate::base::fs::Fs;
use serde::{Deserialize, Serialize};

/// The log's name in `.sessions/`.
pub const LOG: &str = "receipts.jsonl";
/// The log's cap: past it, the newest half is kept.
const MAX_BYTES: u64 = 512 * 1024;

/// What one injection gave an agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Receipt {
    /// When, ms since the epoch.
    pub at_ms: i64,
    /// The client (`codex`, `vscode`, `mcp`).
    pub client: String,
    /// The client's session id, if it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `session-start` (the index and guidance) or `prompt` (recalled memories).
    pub kind: String,
    /// The memories given, as paths relative to the memory directory (absolute for a shared
    /// one); `MEMORY.md` for the index.
    pub memories: Vec<String>,
    /// Bytes of text given.
    pub bytes: u32,
}

/// How often a memory was given, and when last.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Usage {
    /// The memory, as the receipts name it.
    pub path: String,
    /// How many injections gave it.
    pub count: u32,
    /// When it was last given, ms since the epoch.
    pub last_ms: i64,
}

/// The receipts of a memory directory, newest first, and the use of each memory they name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Receipts {
    /// The newest receipts, newest first.
    pub receipts: Vec<Receipt>,
    /// When the oldest receipt kept was made: how long memdir has been watching.
    pub since_ms: Option<i64>,
    /// Every memory named by a receipt, most used first.
    pub usage: Vec<Usage>,
}

/// Appends `receipt` to the log of `memory_dir`, whose `.sessions/` exists.
pub fn record(fs: &dyn Fs, memory_dir: &str, receipt: &Receipt) -> crate::base::error::Result<()> {
    let line = format!("{}\n", serde_json::to_string(receipt).expect("a receipt always serialises"));
    crate::format::sessions::append_capped(fs, &log_path(memory_dir), &line, MAX_BYTES)
}

fn log_path(memory_dir: &str) -> String {
    crate::base::fs::join(&crate::base::fs::join(memory_dir, ".sessions"), LOG)
}

fn read(fs: &dyn Fs, path: &str) -> crate::base::error::Result<Vec<String>> {
    crate::format::sessions::log_lines(fs, path, 2 * MAX_BYTES)
}

/// The newest `limit` receipts of `memory_dir` and every memory's use.
pub fn list(fs: &dyn Fs, memory_dir: &str, limit: u32) -> crate::base::error::Result<Receipts> {
    let all: Vec<Receipt> =
        read(fs, &log_path(memory_dir))?.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let mut usage: Vec<Usage> = Vec::new();
    for receipt in &all {
        for path in &receipt.memories {
            match usage.iter_mut().find(|u| &u.path == path) {
                Some(u) => {
                    u.count += 1;
                    u.last_ms = u.last_ms.max(receipt.at_ms);
                }
                None => usage.push(Usage { path: path.clone(), count: 1, last_ms: receipt.at_ms }),
            }
        }
    }
    usage.sort_by(|a, b| b.count.cmp(&a.count).then(b.last_ms.cmp(&a.last_ms)).then(a.path.cmp(&b.path)));
    let since_ms = all.iter().map(|r| r.at_ms).min();
    let receipts = all.into_iter().rev().take(limit as usize).collect();
    Ok(Receipts { receipts, since_ms, usage })
}

/// The newest `limit` receipts of `target`'s memory directory and every memory's use.
pub fn of_target(
    fs: &dyn Fs,
    target: &crate::context::target::Target,
    limit: u32,
) -> crate::base::error::Result<Receipts> {
    list(fs, &target.resolve(fs)?.memory_dir, limit)
}

/// Records what a host gave an agent outside the hooks (an MCP tool's recall, the editor's), in
/// `target`'s memory directory; false when it has none. Grant it `paths.plan(recall, ...)`.
pub fn record_for(
    fs: &dyn Fs,
    target: &crate::context::target::Target,
    receipt: &Receipt,
) -> crate::base::error::Result<bool> {
    let dir = target.resolve(fs)?.memory_dir;
    if fs.stat(&dir).is_err() || receipt.memories.is_empty() {
        return Ok(false);
    }
    crate::format::sessions::dir(fs, &dir)?;
    record(fs, &dir, receipt)?;
    Ok(true)
}
