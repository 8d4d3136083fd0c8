//! Daily-log mode and the dream (R9.4): writing is cheap — append a line to today's
//! `logs/YYYY/MM/YYYY-MM-DD.md` — and a later distillation folds what is new in the logs into
//! topic files and MEMORY.md through model requests, recording how far it read so a rerun does
//! nothing new. The logs stay in place.
//!
//! The dream itself is a step machine in [`crate::writers::dream`], built on [`plan`] and [`commit`].

use crate::base::error::{Error, Result};
use crate::base::fs::{EntryKind, Fs, FsError, join};
use crate::base::model::{ModelRequest, Tier};
use crate::context::target::Target;
use crate::writers::extract::{OPERATIONS_GUIDE, OPERATIONS_REPLY_SCHEMA};
use crate::{base::secrets, format::manifest, format::scan, writers::writer};
use chrono::{DateTime, Duration};
use serde::{Deserialize, Serialize};

/// The daily-log folder at the top of the memory directory.
pub const LOG_DIR: &str = "logs";
/// Where the dream records how far it read each log: `path<TAB>bytes` lines.
pub const DREAMED_FILE: &str = "logs/.dreamed";
/// Log text sent to the model in one request, at most.
pub const MAX_CHUNK_BYTES: usize = 48 * 1024;
/// A log entry longer than this is refused.
pub const MAX_ENTRY_BYTES: usize = 16 * 1024;

/// How far the dream has read one log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPosition {
    /// Path relative to the memory directory.
    pub path: String,
    /// Bytes read.
    pub bytes: u64,
}

/// One dream request and the log positions it covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The model request.
    pub request: ModelRequest,
    /// Where each log it covers will have been read to, once committed.
    pub logs: Vec<LogPosition>,
}

/// Today's log file (relative), for the user's UTC offset.
pub fn log_path(now_ms: i64, utc_offset_minutes: i32) -> (String, DateTime<chrono::Utc>) {
    let local = DateTime::from_timestamp_millis(now_ms).unwrap_or_default()
        + Duration::minutes(utc_offset_minutes.into());
    (local.format("logs/%Y/%m/%Y-%m-%d.md").to_string(), local)
}

/// Appends an entry to today's log in `target`'s memory; returns the log's path (relative).
pub fn append_to(
    fs: &dyn Fs,
    target: &Target,
    text: &str,
    now_ms: i64,
    utc_offset_minutes: i32,
) -> Result<String> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    append(fs, &memory_dir, text, now_ms, utc_offset_minutes)
}

/// Appends an entry to today's log; returns the log's path (relative). Secrets are refused.
pub fn append(
    fs: &dyn Fs,
    memory_dir: &str,
    text: &str,
    now_ms: i64,
    utc_offset_minutes: i32,
) -> Result<String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::InvalidInput("the log entry is empty".into()));
    }
    if text.len() > MAX_ENTRY_BYTES {
        return Err(Error::InvalidInput(format!("a log entry holds at most {MAX_ENTRY_BYTES} bytes")));
    }
    if let Some(finding) = secrets::scan(text).into_iter().next() {
        return Err(Error::InvalidInput(format!(
            "the entry holds a secret ({finding}); logs never store secrets: remove it and log again"
        )));
    }
    let (rel, local) = log_path(now_ms, utc_offset_minutes);
    let abs = join(memory_dir, &rel);
    fs.create_dir_all(crate::base::fs::parent(&abs).unwrap_or(memory_dir))?;
    let mut entry = String::new();
    if matches!(fs.stat(&abs), Err(FsError::NotFound(_))) {
        entry.push_str(&local.format("# %Y-%m-%d\n\n").to_string());
    }
    let mut lines = text.lines();
    entry.push_str(&format!("- {} {}\n", local.format("%H:%M"), lines.next().unwrap_or("")));
    for more in lines {
        entry.push_str(&format!("  {more}\n"));
    }
    fs.append_file(&abs, entry.as_bytes())?;
    Ok(rel)
}

/// The dream's requests over everything the logs gained since the last dream, oldest first,
/// each at most [`MAX_CHUNK_BYTES`] of log text. Empty when there is nothing new.
pub fn plan(fs: &dyn Fs, memory_dir: &str, now_ms: i64) -> Result<Vec<Chunk>> {
    let done = read_dreamed(fs, memory_dir)?;
    let mut logs = Vec::new();
    collect_logs(fs, memory_dir, LOG_DIR, &mut logs)?;
    logs.sort();
    let existing = match scan::scan(fs, memory_dir, now_ms) {
        Ok(report) => manifest::format(&report.headers),
        Err(e) => return Err(e),
    };
    let mut chunks = Vec::new();
    let mut text = String::new();
    let mut covered: Vec<LogPosition> = Vec::new();
    for rel in logs {
        let bytes = fs.read_file(&join(memory_dir, &rel), 64 * 1024 * 1024)?;
        let from = done.iter().find(|p| p.path == rel).map_or(0, |p| p.bytes as usize).min(bytes.len());
        let mut offset = from;
        while offset < bytes.len() {
            let room = MAX_CHUNK_BYTES.saturating_sub(text.len()).max(1);
            let mut end = (offset + room).min(bytes.len());
            // Cut at a line end when the chunk is full, so an entry is never split.
            if end < bytes.len() {
                end = bytes[offset..end].iter().rposition(|&b| b == b'\n').map_or(end, |i| offset + i + 1);
            }
            text.push_str(&format!("=== {rel}\n{}\n", String::from_utf8_lossy(&bytes[offset..end])));
            covered.retain(|p| p.path != rel);
            covered.push(LogPosition { path: rel.clone(), bytes: end as u64 });
            offset = end;
            if text.len() >= MAX_CHUNK_BYTES {
                chunks.push(chunk(&existing, std::mem::take(&mut text), std::mem::take(&mut covered)));
            }
        }
    }
    if !text.is_empty() {
        chunks.push(chunk(&existing, text, covered));
    }
    Ok(chunks)
}

fn chunk(existing: &str, logs: String, covered: Vec<LogPosition>) -> Chunk {
    Chunk {
        request: ModelRequest {
            system: format!(
                "{OPERATIONS_GUIDE} The input is the agent's daily log since the last distillation, not a \
                 conversation: fold what is worth keeping into memories, one fact per file."
            ),
            user: format!(
                "Existing memories:\n{}\nLog entries:\n{logs}",
                if existing.is_empty() { "(none yet)\n" } else { existing }
            ),
            schema: OPERATIONS_REPLY_SCHEMA.to_string(),
            max_tokens: 4096,
            tier: Tier::Small,
        },
        logs: covered,
    }
}

/// Records that a chunk's logs were read to the given positions (atomically, under the
/// directory's lock), so the next dream starts after them.
pub fn commit(fs: &dyn Fs, memory_dir: &str, positions: &[LogPosition]) -> Result<()> {
    crate::writers::journal::locked(fs, memory_dir, || {
        let mut done = read_dreamed(fs, memory_dir)?;
        for p in positions {
            writer::valid_relative_path(&p.path)?;
            match done.iter_mut().find(|d| d.path == p.path) {
                Some(d) => d.bytes = d.bytes.max(p.bytes),
                None => done.push(p.clone()),
            }
        }
        let text: String = done.iter().map(|d| format!("{}\t{}\n", d.path, d.bytes)).collect();
        fs.write_file(&join(memory_dir, DREAMED_FILE), text.as_bytes()).map_err(Error::from)
    })
    .map(|_| ())
}

fn read_dreamed(fs: &dyn Fs, memory_dir: &str) -> Result<Vec<LogPosition>> {
    match fs.read_file(&join(memory_dir, DREAMED_FILE), 4 * 1024 * 1024) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|l| {
                let (path, bytes) = l.split_once('\t')?;
                Some(LogPosition { path: path.to_string(), bytes: bytes.trim().parse().ok()? })
            })
            .collect()),
        Err(FsError::NotFound(_)) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

fn collect_logs(fs: &dyn Fs, memory_dir: &str, rel: &str, out: &mut Vec<String>) -> Result<()> {
    let entries = match fs.list_dir(&join(memory_dir, rel)) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    for entry in entries {
        if entry.name.starts_with('.') {
            continue;
        }
        let child = format!("{rel}/{}", entry.name);
        match entry.kind {
            EntryKind::Dir => collect_logs(fs, memory_dir, &child, out)?,
            EntryKind::File if entry.name.ends_with(".md") => out.push(child),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_path_follows_the_users_day() {
        // 2026-03-04T23:30Z is already March 5th at UTC+1.
        let now = DateTime::parse_from_rfc3339("2026-03-04T23:30:00Z").unwrap().timestamp_millis();
        assert_eq!(log_path(now, 0).0, "logs/2026/03/2026-03-04.md");
        assert_eq!(log_path(now, 60).0, "logs/2026/03/2026-03-05.md");
    }
}
