//! `manifest`: one line per memory for the model (R5.3).

use crate::base::error::Result;
use crate::base::fs::Fs;
use crate::base::time::iso_millis;
use crate::format::scan::{self, MemoryHeader};
use std::fmt::Write;

/// The manifest of the memory directory `dir`: its newest [`scan::MAX_FILES`] memories. The
/// lines carry neither links nor freshness, so neither is worked out.
pub fn of_dir(fs: &dyn Fs, dir: &str, now_ms: i64) -> Result<String> {
    Ok(format(&scan::newest(fs, dir, scan::MAX_FILES, now_ms)?.headers))
}

/// Formats headers as `- [type] path (time): description` lines, each ending in a newline.
pub fn format(headers: &[MemoryHeader]) -> String {
    let mut out = String::new();
    for header in headers {
        out.push_str("- ");
        if let Some(t) = header.memory_type {
            let _ = write!(out, "[{t}] ");
        }
        let _ = write!(out, "{} ({})", header.path, iso_millis(header.mtime_ms));
        if let Some(description) = &header.description {
            out.push_str(": ");
            out.push_str(&one_line(description));
        }
        out.push('\n');
    }
    out
}

/// Newlines (and carriage returns) become spaces so one header stays one line.
fn one_line(text: &str) -> String {
    text.trim().replace("\r\n", " ").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::memory_type::MemoryType;

    fn header(path: &str, t: Option<MemoryType>, d: Option<&str>) -> MemoryHeader {
        MemoryHeader {
            path: path.into(),
            mtime_ms: 1_770_711_202_000,
            name: None,
            description: d.map(Into::into),
            memory_type: t,
            diagnostics: vec![],
            freshness: Default::default(),
            links: vec![],
            backlinks: vec![],
        }
    }

    #[test]
    fn leaves_out_missing_type_and_description() {
        let text = format(&[
            header("feedback_testing.md", Some(MemoryType::Feedback), Some("no mocks\nreal DB")),
            header("notes.md", None, None),
        ]);
        assert_eq!(
            text,
            "- [feedback] feedback_testing.md (2026-02-10T08:13:22.000Z): no mocks real DB\n\
             - notes.md (2026-02-10T08:13:22.000Z)\n"
        );
    }
}
