//! Issue 18, item 10: a write the disk refuses names the file that failed, on every writing
//! path (save, the daily log, extraction) — the journal a save writes first, or the log — and
//! leaves nothing half-written. The refusal is
//! real: the writer runs with a 1 KiB file-size limit (`ulimit -f`), so the operating system
//! fails the write with EFBIG exactly as a full disk fails it with ENOSPC.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `memdir ARGS` with writes over 1 KiB refused by the kernel.
fn memdir_limited(args: &[&str]) -> Output {
    Command::new("sh")
        .args(["-c", r#"ulimit -f 2; trap "" XFSZ; exec "$0" "$@""#, env!("CARGO_BIN_EXE_memdir")])
        .args(args)
        .output()
        .unwrap()
}

/// Every entry under `dir` except the lock and the cursors, which exist before any write.
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".memdir.lock" && n != ".cursors")
        .collect();
    names.sort();
    names
}

#[test]
fn a_refused_write_names_the_file_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mem");
    std::fs::create_dir(&dir).unwrap();
    let mem = dir.to_str().unwrap();
    let big = "x".repeat(4000);

    let out = memdir_limited(&[
        "save",
        "--memory-dir",
        mem,
        "--type",
        "user",
        "--name",
        "role",
        "--description",
        "who",
        "--body",
        &big,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    // The first file a save writes is its journal, which holds the whole change.
    assert!(stderr.contains(&format!("{mem}/.memdir.journal: File too large")), "{stderr}");
    assert!(!stderr.contains(".memdir-tmp-"), "the scratch file is not what failed: {stderr}");
    assert_eq!(written(&dir), Vec::<String>::new());

    let out = memdir_limited(&["log", "--memory-dir", mem, &big]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("{mem}/logs/")) && stderr.contains(".md: File too large"), "{stderr}");

    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("t.jsonl"), "{\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"I lead the frontend now.\"}}\n").unwrap();
    std::fs::write(outside.join("r1.json"), "{\"read\": []}").unwrap();
    let op = serde_json::json!({"operations": [{"op": "create", "path": "role.md", "type": "user", "name": "role", "description": "Ana leads the frontend", "body": big}]});
    std::fs::write(outside.join("r2.json"), op.to_string()).unwrap();
    let o = outside.to_str().unwrap();
    let llm = format!("command:if grep -q operations; then cat {o}/r2.json; else cat {o}/r1.json; fi");
    let out = memdir_limited(&[
        "extract",
        "--transcript",
        &format!("{o}/t.jsonl"),
        "--memory-dir",
        mem,
        "--json",
        "--llm",
        &llm,
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reason = report["rejected"][0]["reason"].as_str().unwrap_or_default();
    assert_eq!(reason, format!("{mem}/.memdir.journal: File too large (os error 27)"), "{report:#}");
    assert_eq!(written(&dir), ["logs"], "only the log folder the log command made");
}
