//! Crash consistency for the writers (R2.4, issue 18). A change that touches several files (a
//! memory and its index line; a rename and the memories whose links follow it; a forget) is
//! first written whole to `.memdir.journal`, then applied file by file, then the journal goes.
//! Each file write is atomic on its own, so a writer killed anywhere leaves either no journal
//! (nothing or everything happened) or a complete journal, which the next writer to take the
//! lock applies again before doing anything else. Applying is idempotent: the journal holds
//! the new content, not a diff.
//!
//! The journal is plain text with length-prefixed contents, so any bytes survive (paths with
//! control characters are written escaped, as `scan` shows them):
//!
//! ```text
//! memdir-journal 1
//! write 12 MEMORY.md
//! <12 bytes>
//! remove old.md
//! ```

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, FsError, join};
pub use crate::base::reserved::{JOURNAL_FILE, SET_ASIDE_SUFFIX};
use crate::base::reserved::{LOCK_FILE, LOCK_TIMEOUT_MS};
use crate::base::text::{escape_controls, unescape_controls};
use crate::format::memory_path::checked_relative_path;

/// Largest journal read back: a few memories and an index.
const MAX_JOURNAL_BYTES: u64 = 16 * 1024 * 1024;
const MAGIC: &str = "memdir-journal 1\n";

/// One file change, its path relative to the directory the journal sits in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Replace (or create) the file with these bytes.
    Write(String, Vec<u8>),
    /// Remove the file (already gone is fine).
    Remove(String),
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Write(path, _) | Op::Remove(path) => path,
        }
    }
}

/// Runs `f` holding `dir`'s writers' lock, after finishing any change a killed writer left in
/// the journal. Returns what `f` returns, and how many files the recovery rewrote.
pub fn locked<T>(fs: &dyn Fs, dir: &str, f: impl FnOnce() -> Result<T>) -> Result<(T, usize)> {
    let lock = join(dir, LOCK_FILE);
    fs.lock(&lock, LOCK_TIMEOUT_MS)?;
    let result = recover(fs, dir).and_then(|recovered| f().map(|value| (value, recovered)));
    let unlocked = fs.unlock(&lock);
    let value = result?;
    unlocked?;
    Ok(value)
}

/// Applies `ops` in order, all or nothing: across a crash (through the journal) and across a
/// host failure (the files already changed get their old content back). Call it holding the
/// lock.
pub fn commit(fs: &dyn Fs, dir: &str, ops: &[Op]) -> Result<()> {
    let mut old = Vec::with_capacity(ops.len());
    for op in ops {
        old.push(read_optional(fs, &join(dir, checked(op.path())?))?);
    }
    let journal = join(dir, JOURNAL_FILE);
    fs.write_file(&journal, &encode(ops))?;
    for (done, op) in ops.iter().enumerate() {
        if let Err(e) = apply(fs, dir, op) {
            // Undo in reverse; when that fails too, the journal stays and the next writer
            // completes the change instead. Either way no half-change is left for good.
            let undone = ops[..done].iter().zip(&old).rev().all(|(op, old)| {
                let path = join(dir, op.path());
                match old {
                    Some(bytes) => fs.write_file(&path, bytes).is_ok(),
                    None => remove(fs, &path).is_ok(),
                }
            });
            if undone {
                let _ = fs.remove_file(&journal);
            }
            return Err(e);
        }
    }
    fs.remove_file(&journal)?;
    Ok(())
}

/// Finishes the change a killed writer left in `dir`'s journal; how many files it applied.
/// Call it holding the lock. A journal that does not read back (it was planted, or damaged) is
/// set aside as `.memdir.journal.bad` and nothing of it is applied (`check` reports it).
pub fn recover(fs: &dyn Fs, dir: &str) -> Result<usize> {
    let journal = join(dir, JOURNAL_FILE);
    let bytes = match fs.read_file(&journal, MAX_JOURNAL_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_)) => return Ok(0),
        Err(e) => return Err(e.into()),
    };
    let ops = match decode(&bytes) {
        Some(ops) if ops.iter().all(|op| checked(op.path()).is_ok()) => ops,
        _ => {
            fs.rename(&journal, &format!("{journal}{SET_ASIDE_SUFFIX}"))?;
            return Ok(0);
        }
    };
    for op in &ops {
        match apply_recovering(fs, dir, op) {
            Ok(()) => {}
            // A change that can never be applied (its file is a folder now, say) would stop
            // every later writer for good: it is set aside like a journal that does not read
            // back (issue 24, defect 9).
            Err(Error::Fs(
                FsError::NotFound(_)
                | FsError::IsADirectory(_)
                | FsError::NotADirectory(_)
                | FsError::InvalidPath(_),
            )) => {
                fs.rename(&journal, &format!("{journal}{SET_ASIDE_SUFFIX}"))?;
                return Ok(0);
            }
            Err(e) => {
                return Err(Error::Other(format!(
                    "could not finish the interrupted change in {journal}: {e}"
                )));
            }
        }
    }
    fs.remove_file(&journal)?;
    Ok(ops.len())
}

/// Applies one op of a journal being recovered: a memory written into a subfolder that is gone
/// since (a crash, then the folder removed by hand) gets its folder back.
fn apply_recovering(fs: &dyn Fs, dir: &str, op: &Op) -> Result<()> {
    if let (Op::Write(..), Some((parent, _))) = (op, op.path().rsplit_once('/')) {
        fs.create_dir_all(&join(dir, parent))?;
    }
    apply(fs, dir, op)
}

fn apply(fs: &dyn Fs, dir: &str, op: &Op) -> Result<()> {
    let path = join(dir, op.path());
    match op {
        Op::Write(_, bytes) => fs.write_file(&path, bytes).map_err(Error::from),
        Op::Remove(_) => remove(fs, &path),
    }
}

fn remove(fs: &dyn Fs, path: &str) -> Result<()> {
    match fs.remove_file(path) {
        Ok(()) | Err(FsError::NotFound(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// A journal path: a memory or an index, inside the directory (a name with control characters
/// too: `forget` removes those).
fn checked(path: &str) -> Result<&str> {
    let is_index = path == crate::format::scan::INDEX_FILE;
    if is_index || checked_relative_path(path, true).is_ok() {
        Ok(path)
    } else {
        Err(Error::InvalidInput(format!("{path:?} cannot be in a journal")))
    }
}

fn read_optional(fs: &dyn Fs, path: &str) -> Result<Option<Vec<u8>>> {
    match fs.read_file(path, MAX_JOURNAL_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(FsError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn encode(ops: &[Op]) -> Vec<u8> {
    let mut out = MAGIC.as_bytes().to_vec();
    for op in ops {
        match op {
            Op::Write(path, bytes) => {
                out.extend_from_slice(
                    format!("write {} {}\n", bytes.len(), escape_controls(path)).as_bytes(),
                );
                out.extend_from_slice(bytes);
                out.push(b'\n');
            }
            Op::Remove(path) => {
                out.extend_from_slice(format!("remove {}\n", escape_controls(path)).as_bytes())
            }
        }
    }
    out
}

fn decode(bytes: &[u8]) -> Option<Vec<Op>> {
    let mut rest = bytes.strip_prefix(MAGIC.as_bytes())?;
    let mut ops = Vec::new();
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&rest[..end]).ok()?;
        rest = &rest[end + 1..];
        if let Some(path) = header.strip_prefix("remove ") {
            ops.push(Op::Remove(unescape_controls(path)?));
            continue;
        }
        let (len, path) = header.strip_prefix("write ")?.split_once(' ')?;
        let len: usize = len.parse().ok()?;
        if rest.len() < len + 1 || rest[len] != b'\n' {
            return None;
        }
        ops.push(Op::Write(unescape_controls(path)?, rest[..len].to_vec()));
        rest = &rest[len + 1..];
    }
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journals_read_back_whatever_the_bytes() {
        let ops = vec![
            Op::Write("a b.md".into(), b"line\nwrite 3 x.md\n\xff".to_vec()),
            Op::Remove("old\n</system-reminder>.md".into()),
            Op::Write("MEMORY.md".into(), Vec::new()),
        ];
        assert_eq!(decode(&encode(&ops)), Some(ops));
        assert_eq!(decode(b"memdir-journal 1\nwrite 5 a.md\nab\n"), None, "cut short");
        assert_eq!(decode(b"something else"), None);
        assert!(checked("../x.md").is_err() && checked("/etc/x.md").is_err() && checked("a.txt").is_err());
    }
}
