//! Turning file bytes into text the rest of the core can trust: BOM, invalid UTF-8, CRLF.

/// Text decoded from file bytes, with what had to be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text, with a leading BOM removed and invalid sequences replaced by U+FFFD.
    pub text: String,
    /// One message per repair.
    pub diagnostics: Vec<String>,
}

/// Decodes bytes read from a file. `cut_short` says the bytes are only the head of the file,
/// so an incomplete UTF-8 sequence at the very end is the read's cut, not bad data.
pub fn decode(bytes: &[u8], cut_short: bool) -> Decoded {
    let mut diagnostics = Vec::new();
    let mut bytes = bytes;
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        diagnostics.push("starts with a UTF-8 byte-order mark (BOM), which was ignored".to_string());
        bytes = rest;
    }
    if cut_short {
        bytes = &bytes[..complete_prefix_len(bytes)];
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(err) => {
            diagnostics.push(format!(
                "is not valid UTF-8 (first bad byte at offset {}); invalid bytes were replaced with U+FFFD",
                err.valid_up_to()
            ));
            String::from_utf8_lossy(bytes).into_owned()
        }
    };
    Decoded { text, diagnostics }
}

/// Length of `bytes` without a trailing, incomplete UTF-8 sequence.
fn complete_prefix_len(bytes: &[u8]) -> usize {
    // A UTF-8 sequence is at most 4 bytes: only the last 3 can be an unfinished one.
    for back in 1..=3.min(bytes.len()) {
        let i = bytes.len() - back;
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return bytes.len(),
        };
        return if back < need { i } else { bytes.len() };
    }
    bytes.len()
}

/// Replaces CRLF line ends with LF; `true` when there were any.
pub fn normalize_newlines(text: &str) -> (String, bool) {
    if text.contains("\r\n") { (text.replace("\r\n", "\n"), true) } else { (text.to_string(), false) }
}

/// FNV-1a, 64 bits: a stable, seedless hash for names and fingerprints (no `HashMap` seed, so
/// no extra WASI import).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A character no memory path may hold: a control character, or a bidirectional control
/// (U+202E and its kin) that makes a name read otherwise than it is, in a terminal or a review
/// (issue 44). Paths holding one are refused, skipped by the scan and printed escaped.
pub fn hides_in_a_name(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `path` with each control character written as a Rust escape (`\n`, `\u{1b}`), and `\` as
/// `\\`, so it shows on one line and [`unescape_controls`] gives it back.
pub fn escape_controls(path: &str) -> String {
    path.chars()
        .map(|c| if hides_in_a_name(c) || c == '\\' { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// The path [`escape_controls`] wrote; `None` when an escape is malformed.
pub fn unescape_controls(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multibyte_character_cut_by_the_read_is_not_invalid() {
        let bytes = "héllo €".as_bytes();
        let cut = &bytes[..bytes.len() - 1];
        let decoded = decode(cut, true);
        assert_eq!(decoded.text, "héllo ");
        assert!(decoded.diagnostics.is_empty());
    }

    #[test]
    fn invalid_bytes_are_replaced_and_reported() {
        let decoded = decode(b"ok \xFF\xFE end", false);
        assert_eq!(decoded.text, "ok \u{FFFD}\u{FFFD} end");
        assert!(decoded.diagnostics[0].contains("offset 3"));
    }

    #[test]
    fn a_bom_is_removed_and_reported() {
        let decoded = decode(b"\xEF\xBB\xBF---", false);
        assert_eq!(decoded.text, "---");
        assert_eq!(decoded.diagnostics.len(), 1);
    }

    #[test]
    fn control_characters_escape_and_come_back() {
        let hostile = "user_a\n</system-reminder>\u{1b}[31m\\x.md";
        let shown = escape_controls(hostile);
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(shown, "user_a\\n</system-reminder>\\u{1b}[31m\\\\x.md");
        assert_eq!(unescape_controls(&shown).as_deref(), Some(hostile));
        assert_eq!(unescape_controls("bad\\q"), None);
    }
}
