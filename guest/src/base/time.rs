//! Timestamps as text. The core never reads a clock: callers pass times in.

use chrono::{DateTime, SecondsFormat};

/// Milliseconds since the epoch as RFC 3339 in UTC with milliseconds,
/// e.g. `2026-02-10T08:13:22.000Z`. Times chrono cannot represent are clamped.
pub fn iso_millis(ms: i64) -> String {
    let time = DateTime::from_timestamp_millis(ms).unwrap_or(if ms < 0 {
        DateTime::<chrono::Utc>::MIN_UTC
    } else {
        DateTime::<chrono::Utc>::MAX_UTC
    });
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The order of scans, of recall's candidates and of the recall index's lines: newest first,
/// then by path. Each side is a modification time in ms and a path.
pub fn newest_then_path(a: (i64, &str), b: (i64, &str)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_milliseconds_in_utc() {
        assert_eq!(iso_millis(1_770_711_202_000), "2026-02-10T08:13:22.000Z");
        assert_eq!(iso_millis(-1), "1969-12-31T23:59:59.999Z");
    }
}
