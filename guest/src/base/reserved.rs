//! The names memdir keeps for itself in a memory directory: the writers' lock and the journal
//! of a change in progress. (The lock's protocol is the host's: `host-fs` `lock` and `unlock`.)

/// The lock file that serialises index changes, inside the memory directory.
pub const LOCK_FILE: &str = ".memdir.lock";
/// How long a writer waits for another to finish with the index.
pub const LOCK_TIMEOUT_MS: u32 = 10_000;
/// The journal of a change in progress, hidden like the lock so scans pass over it.
pub const JOURNAL_FILE: &str = ".memdir.journal";
/// Appended to the journal's name when it is set aside unapplied.
pub const SET_ASIDE_SUFFIX: &str = ".bad";
