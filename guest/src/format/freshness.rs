//! How old a memory is (R7.6) and whether its type has kept it that long (R1.6).

use crate::format::memory_type::MemoryType;
use serde::{Deserialize, Serialize};

/// One day in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// A memory's age as of some "now".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Freshness {
    /// Whole days since the file was modified, at least 0.
    pub days: u32,
    /// `today`, `yesterday` or `N days ago`.
    pub text: String,
    /// Older than its type keeps: check it before relying on it.
    pub stale: bool,
}

impl Freshness {
    /// The freshness of a memory of `memory_type` modified at `mtime_ms`, as of `now_ms`.
    pub fn of(now_ms: i64, mtime_ms: i64, memory_type: Option<MemoryType>) -> Self {
        let days = days(now_ms, mtime_ms);
        Freshness { days, text: text(days), stale: days > stale_after_days(memory_type) }
    }
}

/// Whole days between `mtime_ms` and `now_ms`; a future mtime counts as today.
pub fn days(now_ms: i64, mtime_ms: i64) -> u32 {
    u32::try_from(now_ms.saturating_sub(mtime_ms).max(0) / DAY_MS).unwrap_or(u32::MAX)
}

/// `today`, `yesterday` or `N days ago` (R7.6).
pub fn text(days: u32) -> String {
    match days {
        0 => "today".to_string(),
        1 => "yesterday".to_string(),
        n => format!("{n} days ago"),
    }
}

/// Days a memory of this type stays current (R1.6): project state goes stale fastest, who the
/// user is and how they work hardly at all. A memory without a type is treated as project.
pub fn stale_after_days(memory_type: Option<MemoryType>) -> u32 {
    match memory_type {
        Some(MemoryType::User | MemoryType::Feedback) => 365,
        Some(MemoryType::Reference) => 90,
        Some(MemoryType::Project) | None => 30,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_age_at_their_own_pace() {
        let day = DAY_MS;
        let of = |days: i64, t| Freshness::of(days * day, 0, t);
        assert_eq!(of(0, None), Freshness { days: 0, text: "today".into(), stale: false });
        assert_eq!(of(1, Some(MemoryType::User)).text, "yesterday");
        assert!(!of(30, Some(MemoryType::Project)).stale);
        assert!(of(31, Some(MemoryType::Project)).stale);
        assert!(of(31, None).stale);
        assert!(!of(90, Some(MemoryType::Reference)).stale);
        assert!(of(91, Some(MemoryType::Reference)).stale);
        assert!(!of(365, Some(MemoryType::Feedback)).stale);
        assert!(of(366, Some(MemoryType::User)).stale);
        assert_eq!(Freshness::of(0, day * 5, None).days, 0, "a future mtime is today");
    }
}
