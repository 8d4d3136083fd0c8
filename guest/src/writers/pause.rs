//! Pausing automatic memory for a project (issue 28, item 4): while a pause holds, nothing writes
//! memory by itself. Extraction (writer B, the hooks' stop among its callers) and the dream stand
//! aside; recall and a save the user asked for go on. The state is a small file in the memory
//! directory, hidden like `.trash/` and `.cursors/`, so the scan never reads it and team sync
//! never shares it: a pause is one person's, on one machine.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, FsError, join};
use crate::context::target::Target;
use serde::{Deserialize, Serialize};

/// The pause file, inside the memory directory.
pub const PAUSE_FILE: &str = ".paused";
/// A pause file larger than this is not one of ours.
const MAX_PAUSE_BYTES: u64 = 4096;

/// A pause in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Pause {
    /// When it began, ms since the epoch.
    pub since_ms: i64,
    /// When it ends by itself, ms since the epoch; `None` holds until `resume`.
    pub until_ms: Option<i64>,
}

impl Pause {
    /// Whether the pause holds at `now_ms`.
    pub fn holds(&self, now_ms: i64) -> bool {
        self.until_ms.is_none_or(|until| now_ms < until)
    }
}

/// The pause of `memory_dir` at `now_ms`; `None` when there is none or it has run out. A pause
/// file that cannot be read as one counts as a pause without end, so a damaged file never turns
/// automatic writes back on behind the user's back; `resume` clears it.
pub fn current(fs: &dyn Fs, memory_dir: &str, now_ms: i64) -> Result<Option<Pause>> {
    let bytes = match fs.read_file(&join(memory_dir, PAUSE_FILE), MAX_PAUSE_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => return Ok(None),
        // Too large, a directory, unreadable: not a pause memdir wrote, but one all the same.
        Err(_) => return Ok(Some(Pause { since_ms: 0, until_ms: None })),
    };
    let pause = serde_json::from_slice::<Pause>(&bytes).unwrap_or(Pause { since_ms: 0, until_ms: None });
    Ok(pause.holds(now_ms).then_some(pause))
}

/// Pauses automatic writes from `now_ms`, until `until_ms` or until `resume`. Pausing again
/// replaces the end. An end not after `now_ms` is `invalid-input`.
pub fn pause_for(fs: &dyn Fs, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause> {
    if let Some(until) = until_ms
        && until <= now_ms
    {
        return Err(Error::InvalidInput("a pause must end after it begins".into()));
    }
    let memory_dir = target.resolve(fs)?.memory_dir;
    fs.create_dir_all(&memory_dir)?;
    let pause = Pause { since_ms: now_ms, until_ms };
    let text = serde_json::to_vec(&pause).expect("a pause serializes");
    fs.write_file(&join(&memory_dir, PAUSE_FILE), &text)?;
    Ok(pause)
}

/// Ends a pause; whether there was one in force at `now_ms`.
pub fn resume_for(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<bool> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let was = current(fs, &memory_dir, now_ms)?.is_some();
    // Whatever is there goes, damaged or not: resuming must always be possible.
    match fs.remove_file(&join(&memory_dir, PAUSE_FILE)) {
        Ok(()) | Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => Ok(was),
        Err(e) => Err(e.into()),
    }
}

/// The pause in force for `target` at `now_ms`.
pub fn state_for(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<Option<Pause>> {
    current(fs, &target.resolve(fs)?.memory_dir, now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_holds_until_its_end_and_one_without_end_until_resume() {
        let until = Pause { since_ms: 1_000, until_ms: Some(5_000) };
        assert!(until.holds(1_000) && until.holds(4_999) && !until.holds(5_000));
        assert!(Pause { since_ms: 0, until_ms: None }.holds(i64::MAX));
    }
}
