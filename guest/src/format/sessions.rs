//! `.sessions/` in a memory directory: where the hooks keep each session's files, and where the
//! receipts, the timeline of writes and the learning log are kept. Team sync keeps it local.

use crate::base::fs::{EntryKind, Fs};

/// `<memory>/.sessions`, created on first use. A link or a file planted in its place would
/// send the hook's writes elsewhere: refused.
pub fn dir(fs: &dyn Fs, memory_dir: &str) -> crate::base::error::Result<String> {
    let path = crate::base::fs::join(memory_dir, ".sessions");
    let entry = fs.list_dir(memory_dir)?.into_iter().find(|e| e.name == ".sessions");
    match entry.map(|e| e.kind) {
        Some(EntryKind::Dir) => {}
        Some(_) => {
            return Err(crate::base::error::Error::InvalidInput(format!(
                "{path}: not a plain folder (a link?); the hook keeps no state through it"
            )));
        }
        None => fs.create_dir_all(&path)?,
    }
    Ok(path)
}

/// The lines of a log in `.sessions/` (at most `max_bytes` of it); none when the log, or the
/// folder, is not there yet.
pub fn log_lines(fs: &dyn Fs, path: &str, max_bytes: u64) -> crate::base::error::Result<Vec<String>> {
    match fs.read_file(path, max_bytes) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).lines().map(str::to_string).collect()),
        Err(e) if e.is_not_found() || matches!(e, crate::base::fs::FsError::NotADirectory(_)) => {
            Ok(Vec::new())
        }
        Err(e) => Err(e.into()),
    }
}

/// Appends `line` (one JSON line, with its newline) to the log at `path`, whose folder exists.
/// Past `max_bytes` the log keeps its newest half, so it never grows without bound.
pub fn append_capped(fs: &dyn Fs, path: &str, line: &str, max_bytes: u64) -> crate::base::error::Result<()> {
    let size = fs.stat(path).map(|s| s.size).unwrap_or(0);
    if size + line.len() as u64 <= max_bytes {
        fs.append_file(path, line.as_bytes())?;
        return Ok(());
    }
    let mut lines = log_lines(fs, path, 2 * max_bytes)?;
    lines.drain(..lines.len() / 2);
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(line);
    fs.write_file(path, text.as_bytes())?;
    Ok(())
}
