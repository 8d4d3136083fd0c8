//! The review queue (issue 28, item 2): under `memoryWrites: review`, what extraction and the
//! dream would write waits here as a proposal until the user accepts or rejects it.
//!
//! Each proposal is one file in the memory directory's hidden `.pending/`, so the scan never
//! reads it (a pending memory is never recalled) and team sync never shares it. Accepting runs
//! the same checks and the same journaled write as the background writer would have. A rejected
//! proposal's fingerprint is kept in `.pending/rejected`, so the same proposal is not made again.

use crate::base::error::{Error, Result};
use crate::base::fs::{EntryKind, Fs, FsError, join};
use crate::context::target::Target;
use crate::format::memory_type::MemoryType;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The queue, inside the memory directory.
pub const PENDING_DIR: &str = ".pending";
/// Fingerprints of rejected proposals, one per line.
const REJECTED: &str = "rejected";
/// A proposal file larger than this is not one of ours.
const MAX_PROPOSAL_BYTES: u64 = 256 * 1024;
/// Rejections remembered, at most (the oldest are forgotten first).
const MAX_REJECTED: usize = 1000;

/// One proposed change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Proposal {
    /// What `accept` and `reject` take.
    pub id: String,
    /// When it was proposed, ms since the epoch.
    pub created_ms: i64,
    /// The writer that proposed it: `extraction` or `dream`.
    pub source: String,
    /// The run it belongs to, for a dream's proposals (`dream-<when it began>`): a dream is
    /// reviewed as one change, accepted or rejected whole, or item by item (issue 28, item 3).
    pub batch: Option<String>,
    /// What the whole batch does, in words (`dream: creates 2, updates 1, deletes 1`).
    pub batch_summary: Option<String>,
    /// `create`, `update` or `delete`.
    pub op: String,
    /// The memory's path, relative to the memory directory.
    pub path: String,
    /// The memory's type; for a delete, the type of the memory it removes.
    pub memory_type: Option<MemoryType>,
    /// The new memory's name (none for a delete).
    pub name: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its body.
    pub body: Option<String>,
    /// The memory at `path` as it is now (none when there is none): what accepting replaces.
    pub current: Option<String>,
}

/// What a proposal file holds: the proposal and the operation as the writer validated it.
#[derive(Serialize, Deserialize)]
pub(crate) struct Stored {
    pub(crate) proposal: Proposal,
    pub(crate) operation: Value,
    fingerprint: String,
    /// Its place in the queue: a dream's proposals share a time, and apply in the order made.
    #[serde(default)]
    seq: u64,
}

/// Queues `operation` (already valid) from `source`; its id. An operation the user rejected
/// before is refused with that reason; one already waiting keeps its id.
pub fn propose(
    fs: &dyn Fs,
    memory_dir: &str,
    source: &str,
    operation: &Value,
    memory_type: Option<MemoryType>,
    now_ms: i64,
) -> std::result::Result<String, String> {
    // A delete is of the memory as it is now: rejecting it says nothing of a later version.
    let current = (operation["op"] == "delete")
        .then(|| operation["path"].as_str())
        .flatten()
        .and_then(|path| crate::writers::writer::valid_relative_path(path).ok())
        .and_then(|rel| fs.read_file(&join(memory_dir, &rel), MAX_PROPOSAL_BYTES).ok());
    let fingerprint = fingerprint(operation, current.as_deref());
    let fail = |e: FsError| format!("it could not be queued for review ({e}); nothing changed");
    if rejected(fs, memory_dir).map_err(fail)?.contains(&fingerprint) {
        return Err("the user rejected this change before; it is not proposed again".into());
    }
    let waiting = stored(fs, memory_dir).map_err(fail)?;
    if let Some(same) = waiting.iter().find(|s| s.fingerprint == fingerprint) {
        return Ok(same.proposal.id.clone());
    }
    let seq = waiting.iter().map(|s| s.seq).max().unwrap_or(0) + 1;
    let text = |k: &str| operation[k].as_str().map(str::to_string);
    let stamp = crate::base::time::iso_millis(now_ms).replace([':', '.'], "");
    let id = format!("{stamp}-{}", &fingerprint[..8]);
    // Every proposal of one dream run shares its start time, so they make one batch.
    let batch = (source == "dream").then(|| format!("dream-{stamp}"));
    let proposal = Proposal {
        id: id.clone(),
        created_ms: now_ms,
        source: source.to_string(),
        batch,
        batch_summary: None,
        op: text("op").unwrap_or_default(),
        path: text("path").unwrap_or_default(),
        memory_type,
        name: text("name"),
        description: text("description"),
        body: text("body"),
        current: None,
    };
    let stored = Stored { proposal, operation: operation.clone(), fingerprint, seq };
    let dir = join(memory_dir, PENDING_DIR);
    fs.create_dir_all(&dir).map_err(fail)?;
    let bytes = serde_json::to_vec_pretty(&stored).expect("a proposal serializes");
    fs.write_file(&join(&dir, &format!("{id}.json")), &bytes).map_err(fail)?;
    Ok(id)
}

/// The proposals waiting for `target`'s memory, oldest first, each with the memory it would
/// replace. Files in `.pending/` that are not proposals are left alone.
pub fn list_for(fs: &dyn Fs, target: &Target) -> Result<Vec<Proposal>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let mut proposals: Vec<Proposal> = stored(fs, &memory_dir)?.into_iter().map(|s| s.proposal).collect();
    let summaries = batches(&proposals);
    for p in &mut proposals {
        p.batch_summary =
            p.batch.as_ref().and_then(|b| summaries.iter().find(|(id, _)| id == b)).map(|(_, s)| s.clone());
        p.current = crate::writers::writer::valid_relative_path(&p.path)
            .ok()
            .and_then(|rel| fs.read_file(&join(&memory_dir, &rel), MAX_PROPOSAL_BYTES).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    }
    Ok(proposals)
}

/// Takes proposal `id`, or every proposal of batch `id`, off the queue and remembers each, so
/// none is proposed again.
pub fn reject_for(fs: &dyn Fs, target: &Target, id: &str) -> Result<Vec<Proposal>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let found = matching(fs, &memory_dir, id)?;
    let mut kept = rejected(fs, &memory_dir)?;
    kept.extend(found.iter().map(|s| s.fingerprint.clone()));
    let skip = kept.len().saturating_sub(MAX_REJECTED);
    let text: String = kept[skip..].iter().map(|f| format!("{f}\n")).collect();
    fs.write_file(&join(&memory_dir, &format!("{PENDING_DIR}/{REJECTED}")), text.as_bytes())?;
    let mut gone = Vec::new();
    for stored in found {
        fs.remove_file(&file_of(&memory_dir, &stored.proposal.id))?;
        gone.push(stored.proposal);
    }
    Ok(gone)
}

/// The proposal named `id`, or the proposals of batch `id`, oldest first.
pub(crate) fn matching(fs: &dyn Fs, memory_dir: &str, id: &str) -> Result<Vec<Stored>> {
    let plain = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if plain && id.starts_with("dream-") {
        let batch: Vec<Stored> =
            stored(fs, memory_dir)?.into_iter().filter(|s| s.proposal.batch.as_deref() == Some(id)).collect();
        if !batch.is_empty() {
            return Ok(batch);
        }
    }
    Ok(vec![find(fs, memory_dir, id)?])
}

/// Each batch's summary, by batch id: `dream: creates 2, updates 1, deletes 1`.
fn batches(proposals: &[Proposal]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for id in proposals.iter().filter_map(|p| p.batch.as_ref()) {
        if out.iter().any(|(b, _)| b == id) {
            continue;
        }
        let members: Vec<&Proposal> = proposals.iter().filter(|p| p.batch.as_ref() == Some(id)).collect();
        let count = |op: &str| members.iter().filter(|p| p.op == op).count();
        let parts: Vec<String> = [("creates", "create"), ("updates", "update"), ("deletes", "delete")]
            .into_iter()
            .filter(|(_, op)| count(op) > 0)
            .map(|(verb, op)| format!("{verb} {}", count(op)))
            .collect();
        out.push((id.clone(), format!("{}: {}", members[0].source, parts.join(", "))));
    }
    out
}

pub(crate) fn file_of(memory_dir: &str, id: &str) -> String {
    join(memory_dir, &format!("{PENDING_DIR}/{id}.json"))
}

fn find(fs: &dyn Fs, memory_dir: &str, id: &str) -> Result<Stored> {
    let plain = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let missing = || Error::InvalidInput(format!("no proposal {id:?} is waiting (memdir review lists them)"));
    if !plain {
        return Err(missing());
    }
    let bytes = match fs.read_file(&file_of(memory_dir, id), MAX_PROPOSAL_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_)) => return Err(missing()),
        Err(e) => return Err(e.into()),
    };
    serde_json::from_slice(&bytes).map_err(|e| Error::Other(format!("{id}: not a proposal ({e})")))
}

/// Every proposal file, oldest first.
fn stored(fs: &dyn Fs, memory_dir: &str) -> Result<Vec<Stored>, FsError> {
    let entries = match fs.list_dir(&join(memory_dir, PENDING_DIR)) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found: Vec<Stored> = entries
        .into_iter()
        .filter(|e| e.kind == EntryKind::File && e.name.ends_with(".json"))
        .filter_map(|e| {
            let bytes = fs
                .read_file(&join(memory_dir, &format!("{PENDING_DIR}/{}", e.name)), MAX_PROPOSAL_BYTES)
                .ok()?;
            serde_json::from_slice::<Stored>(&bytes)
                .ok()
                .filter(|s| format!("{}.json", s.proposal.id) == e.name)
        })
        .collect();
    found.sort_by(|a, b| {
        (a.proposal.created_ms, a.seq, &a.proposal.id).cmp(&(b.proposal.created_ms, b.seq, &b.proposal.id))
    });
    Ok(found)
}

fn rejected(fs: &dyn Fs, memory_dir: &str) -> Result<Vec<String>, FsError> {
    match fs.read_file(&join(memory_dir, &format!("{PENDING_DIR}/{REJECTED}")), 1 << 20) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).lines().map(str::to_string).collect()),
        Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// A stable fingerprint of what an operation would write: FNV-1a over its JSON (serde_json
/// keeps an object's keys sorted), as hex.
fn fingerprint(operation: &Value, current: Option<&[u8]>) -> String {
    let mut text = serde_json::to_string(operation).unwrap_or_default();
    if let Some(current) = current {
        text.push('\0');
        text.push_str(&String::from_utf8_lossy(current));
    }
    format!("{:016x}", crate::base::text::fnv1a(&text))
}
