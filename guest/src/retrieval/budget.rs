//! The seven budget layers (R8.1) and the session counters that enforce the cumulative ones
//! (R8.2). Recall consults a [`Session`] before it injects anything.

use serde::{Deserialize, Serialize};

/// Memories selected per request.
pub const SELECT_COUNT: u32 = 5;
/// Max tokens of the selection reply.
pub const SELECT_REPLY_TOKENS: u32 = 256;
/// Lines of one injected memory.
pub const MEMORY_LINES: u32 = 200;
/// Bytes of one injected memory.
pub const MEMORY_BYTES: u32 = 4096;
/// Bytes injected in one turn.
pub const TURN_BYTES: u32 = SELECT_COUNT * MEMORY_BYTES;
/// Bytes injected in one session before recall stops prefetching.
pub const SESSION_BYTES: u32 = 60 * 1024;

/// All budget limits in one place, as the `budget.limits` export reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Limits {
    /// Lines of MEMORY.md kept.
    pub index_lines: u32,
    /// Characters of MEMORY.md kept, in UTF-16 code units.
    pub index_chars: u32,
    /// Files scanned.
    pub scan_files: u32,
    /// Lines read per scanned file.
    pub scan_lines: u32,
    /// Memories selected per request.
    pub select_count: u32,
    /// Max tokens of the selection reply.
    pub select_reply_tokens: u32,
    /// Lines of one memory.
    pub memory_lines: u32,
    /// Bytes of one memory.
    pub memory_bytes: u32,
    /// Bytes per turn.
    pub turn_bytes: u32,
    /// Bytes per session.
    pub session_bytes: u32,
}

/// The limits in force.
pub const LIMITS: Limits = Limits {
    index_lines: crate::format::index::MAX_LINES as u32,
    index_chars: crate::format::index::MAX_CHARS as u32,
    scan_files: crate::format::scan::MAX_FILES as u32,
    scan_lines: crate::format::scan::HEAD_LINES,
    select_count: SELECT_COUNT,
    select_reply_tokens: SELECT_REPLY_TOKENS,
    memory_lines: MEMORY_LINES,
    memory_bytes: MEMORY_BYTES,
    turn_bytes: TURN_BYTES,
    session_bytes: SESSION_BYTES,
};

/// What a session holds, for hosts that report it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Totals {
    /// Memories surfaced so far.
    pub surfaced: u32,
    /// Bytes injected in the last turn.
    pub turn_bytes: u32,
    /// Bytes injected since the session began or was compacted.
    pub session_bytes: u32,
}

/// The totals of a session kept as JSON (empty: a new session); bad text is bad input.
pub fn totals(session: &str) -> crate::base::error::Result<Totals> {
    let session = Session::from_json(session).map_err(crate::base::error::Error::InvalidInput)?;
    Ok(Totals {
        surfaced: u32::try_from(session.surfaced().len()).unwrap_or(u32::MAX),
        turn_bytes: session.turn_bytes(),
        session_bytes: session.session_bytes(),
    })
}

/// What one session has injected: the surfaced set and the turn and session byte counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    surfaced: Vec<String>,
    turn_bytes: u32,
    session_bytes: u32,
}

impl Session {
    /// A fresh session.
    pub fn new() -> Self {
        Self::default()
    }

    /// Restores a session saved with [`Session::to_json`]; the empty string is a new session.
    pub fn from_json(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Session::new());
        }
        serde_json::from_str(text).map_err(|e| format!("session is not valid: {e}"))
    }

    /// The session as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a session always serialises")
    }

    /// Starts a new turn.
    pub fn begin_turn(&mut self) {
        self.turn_bytes = 0;
    }

    /// Whether `path` may still be injected with `bytes` bytes in this turn. The session
    /// budget is not asked here: R8.1 stops recall at the *start* of a turn once the session has
    /// injected its 60 KB, so a turn that starts under it has its whole turn budget, and a
    /// model call is never made for memories that could not be injected (issue 17, item 0).
    pub fn can_inject(&self, path: &str, bytes: u32) -> bool {
        !self.surfaced.iter().any(|p| p == path) && self.turn_bytes.saturating_add(bytes) <= TURN_BYTES
    }

    /// Whether the session has injected its budget: recall is skipped from the next turn (R8.1).
    pub fn spent(&self) -> bool {
        self.session_bytes >= SESSION_BYTES
    }

    /// Records an injection.
    pub fn record_injection(&mut self, path: &str, bytes: u32) {
        if !self.surfaced.iter().any(|p| p == path) {
            self.surfaced.push(path.to_string());
        }
        self.turn_bytes = self.turn_bytes.saturating_add(bytes);
        self.session_bytes = self.session_bytes.saturating_add(bytes);
    }

    /// Takes back an injection the host could not deliver (a hook's client takes less text
    /// than the turn's budget): the memory may be recalled again, and its bytes are not counted.
    pub fn withdraw(&mut self, path: &str, bytes: u32) {
        if let Some(i) = self.surfaced.iter().position(|p| p == path) {
            self.surfaced.remove(i);
            self.turn_bytes = self.turn_bytes.saturating_sub(bytes);
            self.session_bytes = self.session_bytes.saturating_sub(bytes);
        }
    }

    /// Paths surfaced so far, oldest first.
    pub fn surfaced(&self) -> &[String] {
        &self.surfaced
    }

    /// Bytes injected this turn.
    pub fn turn_bytes(&self) -> u32 {
        self.turn_bytes
    }

    /// Bytes injected since the session began or was last compacted.
    pub fn session_bytes(&self) -> u32 {
        self.session_bytes
    }

    /// The conversation was compacted: everything injected left the context.
    pub fn compact(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surfaced_memory_is_not_injected_again_until_compaction() {
        let mut s = Session::new();
        assert!(s.can_inject("a.md", 100));
        s.record_injection("a.md", 100);
        assert!(!s.can_inject("a.md", 100));
        s.compact();
        assert!(s.can_inject("a.md", 100));
    }

    #[test]
    fn a_withdrawn_injection_can_be_made_again_and_costs_nothing() {
        let mut s = Session::new();
        s.record_injection("a.md", 100);
        s.record_injection("b.md", 50);
        s.withdraw("a.md", 100);
        assert!(s.can_inject("a.md", 100));
        assert_eq!((s.surfaced(), s.turn_bytes(), s.session_bytes()), (&["b.md".to_string()][..], 50, 50));
        s.withdraw("never.md", 70);
        assert_eq!(s.session_bytes(), 50);
    }

    #[test]
    fn the_turn_and_session_budgets_bound_injection() {
        let mut s = Session::new();
        for i in 0..5 {
            s.record_injection(&format!("m{i}.md"), MEMORY_BYTES);
        }
        assert!(!s.can_inject("m5.md", 1));
        s.begin_turn();
        assert!(s.can_inject("m5.md", MEMORY_BYTES));
        for i in 5..15 {
            s.begin_turn();
            s.record_injection(&format!("m{i}.md"), MEMORY_BYTES);
        }
        // 60 KB injected: the session is spent and recall stops at the next turn's start; a turn
        // already under way keeps its turn budget.
        assert!(s.spent());
        s.begin_turn();
        assert!(s.can_inject("x.md", MEMORY_BYTES));
        assert_eq!(Session::from_json(&s.to_json()).unwrap(), s);
    }
}
