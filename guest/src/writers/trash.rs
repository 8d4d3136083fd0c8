//! The trash: what a writer deletes or overwrites (issue 18; every writer since issue 44) is kept,
//! with its index lines, in the memory directory's hidden `.trash/` for [`KEEP_DAYS`] days, and
//! `restore` brings it back (issue 18). The scan never enters hidden folders, so nothing in the
//! trash is ever recalled.

use crate::base::error::{Error, Result};
use crate::base::fs::{EntryKind, Fs, FsError, join};
use crate::format::scan::INDEX_FILE;
use crate::writers::journal::Op;
use crate::writers::timeline::Written;
use chrono::DateTime;

/// The trash folder, inside the memory directory.
pub const TRASH_DIR: &str = ".trash";
/// Days a trashed memory is kept before a later background write removes it.
pub const KEEP_DAYS: i64 = 30;
/// The suffix of the file beside a trashed memory that holds its MEMORY.md lines.
const LINES_SUFFIX: &str = ".index";
/// The largest memory file the trash keeps: well above what a writer writes (a body is at most
/// `writer::MAX_BODY_BYTES`), so a hand-grown memory is kept too.
const MAX_TRASHED_BYTES: u64 = 1 << 20;

/// One memory in the trash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Trashed {
    /// What `restore` takes: `<when>_<file>`.
    pub id: String,
    /// The memory's path, relative to the memory directory.
    pub path: String,
    /// When it was trashed, ms since the epoch.
    pub trashed_ms: i64,
}

fn stamp(now_ms: i64) -> String {
    DateTime::from_timestamp_millis(now_ms).unwrap_or_default().format("%Y%m%dT%H%M%S%3fZ").to_string()
}

fn parse_id(id: &str) -> Option<(i64, &str)> {
    let (when, file) = id.split_once('_')?;
    let when = chrono::NaiveDateTime::parse_from_str(when, "%Y%m%dT%H%M%S%3fZ").ok()?;
    Some((when.and_utc().timestamp_millis(), file))
}

/// Keeps the memory at `rel` (top level) and its index lines in the trash, and forgets trash
/// older than [`KEEP_DAYS`]. The caller changes the memory only when this succeeded. Returns
/// the id `restore` takes.
pub fn keep(fs: &dyn Fs, memory_dir: &str, rel: &str, now_ms: i64) -> Result<String> {
    let bytes = fs.read_file(&join(memory_dir, rel), MAX_TRASHED_BYTES)?;
    let index = match fs.read_file(&join(memory_dir, INDEX_FILE), 1 << 20) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(FsError::NotFound(_)) => String::new(),
        Err(e) => return Err(e.into()),
    };
    let pointer = format!("]({rel})");
    let lines: String = index.lines().filter(|l| l.contains(&pointer)).map(|l| format!("{l}\n")).collect();
    let trash = join(memory_dir, TRASH_DIR);
    fs.create_dir_all(&trash)?;
    let id = format!("{}_{rel}", stamp(now_ms));
    fs.write_file(&join(&trash, &format!("{id}{LINES_SUFFIX}")), lines.as_bytes())?;
    fs.write_file(&join(&trash, &id), &bytes)?;
    for old in list(fs, memory_dir)? {
        if now_ms - old.trashed_ms > KEEP_DAYS * 86_400_000 {
            let _ = fs.remove_file(&join(&trash, &old.id));
            let _ = fs.remove_file(&join(&trash, &format!("{}{LINES_SUFFIX}", old.id)));
        }
    }
    Ok(id)
}

/// What the trash of `target`'s memory holds, oldest first.
pub fn list_for(fs: &dyn Fs, target: &crate::context::target::Target) -> Result<Vec<Trashed>> {
    list(fs, &target.resolve(fs)?.memory_dir)
}

/// Restores a trashed memory of `target`'s memory directory.
pub fn restore_for(
    fs: &dyn Fs,
    target: &crate::context::target::Target,
    id: &str,
    now_ms: i64,
) -> Result<Trashed> {
    restore(fs, &target.resolve(fs)?.memory_dir, id, now_ms, &target.asker())
}

/// What the trash holds, oldest first.
pub fn list(fs: &dyn Fs, memory_dir: &str) -> Result<Vec<Trashed>> {
    let entries = match fs.list_dir(&join(memory_dir, TRASH_DIR)) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out: Vec<Trashed> = entries
        .into_iter()
        .filter(|e| e.kind == EntryKind::File && !e.name.ends_with(LINES_SUFFIX))
        .filter_map(|e| {
            let (trashed_ms, file) = parse_id(&e.name)?;
            Some(Trashed { path: file.to_string(), trashed_ms, id: e.name })
        })
        .collect();
    out.sort_by(|a, b| a.trashed_ms.cmp(&b.trashed_ms).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// Puts a trashed memory back with its index lines. A memory now at its path goes to the trash
/// first, so a restore loses nothing either.
pub fn restore(fs: &dyn Fs, memory_dir: &str, id: &str, now_ms: i64, by: &str) -> Result<Trashed> {
    let item = list(fs, memory_dir)?.into_iter().find(|t| t.id == id).ok_or_else(|| {
        Error::InvalidInput(format!("{id:?} is not in the trash; list the trash to see what is"))
    })?;
    let rel = crate::format::memory_path::checked_relative_path(&item.path, false)?;
    let trash = join(memory_dir, TRASH_DIR);
    let bytes = fs.read_file(&join(&trash, id), MAX_TRASHED_BYTES)?;
    let lines = match fs.read_file(&join(&trash, &format!("{id}{LINES_SUFFIX}")), 1 << 20) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(FsError::NotFound(_)) => String::new(),
        Err(e) => return Err(e.into()),
    };
    let (restored, _) = crate::writers::journal::locked(fs, memory_dir, || {
        let path = join(memory_dir, &rel);
        let before = if fs.stat(&path).is_ok() { Some(keep(fs, memory_dir, &rel, now_ms)?) } else { None };
        let index_path = join(memory_dir, INDEX_FILE);
        let index = match fs.read_file(&index_path, 1 << 20) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(FsError::NotFound(_)) => String::new(),
            Err(e) => return Err(e.into()),
        };
        let mut ops = vec![Op::Write(rel.clone(), bytes.clone())];
        // The memory's lines come back as they were; lines a later version wrote go.
        if !lines.is_empty() {
            let pointer = format!("]({rel})");
            let mut kept: String =
                index.lines().filter(|l| !l.contains(&pointer)).map(|l| format!("{l}\n")).collect();
            kept.push_str(&lines);
            ops.push(Op::Write(INDEX_FILE.to_string(), kept.into_bytes()));
        }
        crate::writers::journal::commit(fs, memory_dir, &ops)?;
        fs.remove_file(&join(&trash, id))?;
        let _ = fs.remove_file(&join(&trash, &format!("{id}{LINES_SUFFIX}")));
        Ok((item.clone(), before))
    })?;
    let (restored, before) = restored;
    let written = Written {
        at_ms: now_ms,
        path: rel,
        action: "restored".into(),
        by: by.to_string(),
        note: Some(format!("the version of {}", stamp_words(restored.trashed_ms))),
        before,
    };
    crate::writers::timeline::record(fs, memory_dir, &written);
    Ok(restored)
}

/// When a version was trashed, in words for the timeline.
fn stamp_words(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms).unwrap_or_default().format("%Y-%m-%d %H:%M UTC").to_string()
}
