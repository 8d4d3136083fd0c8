//! Issue 47, item 4: one table of settings. Every `MEMDIR_` and `CLAUDE_` variable that memdir's
//! code reads (the Rust crates, the JS packages, the editor extension) is named in
//! `docs/settings.md`, and the one test-only switch is read only in builds that ask for it.

mod common;

use std::path::{Path, PathBuf};

const SOURCES: [&str; 6] = [
    "guest/src",
    "host-harness/src",
    "cli/src",
    "packages/core-js/src",
    "packages/opencode/src",
    "extension/vscode/src",
];

fn files(dir: &Path) -> Vec<PathBuf> {
    common::source_files(dir, &["rs", "ts"])
}

/// The quoted `MEMDIR_…` and `CLAUDE_…` names in a source text.
fn variables(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            (s.starts_with("MEMDIR_") || s.starts_with("CLAUDE_"))
                && s.len() > 7
                && s.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn every_variable_the_code_reads_is_in_the_settings_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let doc = std::fs::read_to_string(root.join("docs/settings.md")).unwrap();
    let mut found = std::collections::BTreeSet::new();
    for dir in SOURCES {
        for file in files(&root.join(dir)) {
            found.extend(variables(&std::fs::read_to_string(&file).unwrap()));
        }
    }
    assert!(found.len() > 20, "found only {found:?}: are the paths right?");
    let missing: Vec<&String> = found.iter().filter(|v| !doc.contains(&format!("`{v}`"))).collect();
    assert!(missing.is_empty(), "docs/settings.md does not name {missing:?}");
}

/// The crash tests' kill switch is read in one function, compiled only with the `crash-switch`
/// feature, which neither the shipped binary nor the host library's default turns on.
#[test]
fn the_test_only_switch_is_read_only_in_builds_that_ask_for_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut readers = Vec::new();
    for dir in SOURCES {
        for file in files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if line.contains("\"MEMDIR_CRASH_AFTER_CHANGES\"") {
                    let item = lines[..i]
                        .iter()
                        .rposition(|l| l.starts_with("fn ") || l.starts_with("pub fn "))
                        .unwrap();
                    readers.push((file.display().to_string(), lines[item - 1].trim().to_string()));
                }
            }
        }
    }
    assert_eq!(readers.len(), 1, "{readers:?}");
    assert_eq!(readers[0].1, "#[cfg(feature = \"crash-switch\")]", "{readers:?}");
    for manifest in ["host-harness/Cargo.toml", "cli/Cargo.toml"] {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        let default = text.lines().find(|l| l.starts_with("default = ")).unwrap();
        assert!(!default.contains("crash-switch"), "{manifest}: {default}");
        let dependencies = text.split("\n[").find(|t| t.starts_with("dependencies]")).unwrap();
        assert!(!dependencies.contains("crash-switch"), "{manifest}: the shipped build turns it on");
    }
}
