//! Issue 14, item 6: `memdir review` walks the findings one memory at a time; a past-dated
//! project memory is offered for retirement and forgotten on "f"; "k" keeps; the end of input
//! keeps the rest. On both backends.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn review_retires_keeps_and_stops_at_the_end_of_input() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("mem");
        std::fs::create_dir(&mem).unwrap();
        let memory = |file: &str, kind: &str, body: &str| {
            let text = format!(
                "---\nname: {}\ndescription: about {file}\nmetadata:\n  type: {kind}\n---\n{body}\n",
                file.trim_end_matches(".md")
            );
            std::fs::write(mem.join(file), text).unwrap();
        };
        memory(
            "freeze.md",
            "project",
            "Merges stop from 2025-12-03 to 2025-12-10.\n**Why:** release.\n**How to apply:** hold merges.",
        );
        memory("plain.md", "user", "Ana prefers short answers; see [[ci-owner]].");
        memory("seeds.md", "reference", "Seed data comes from `scripts/seed.py`.");
        std::fs::write(
            mem.join("MEMORY.md"),
            "- [freeze](freeze.md) — a\n- [plain](plain.md) — b\n- [seeds](seeds.md) — c\n",
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
            .args([
                "--backend",
                backend,
                "--now",
                "2026-03-04T10:00:00Z",
                "review",
                "--cwd",
                tmp.path().to_str().unwrap(),
            ])
            .args(["--memory-dir", mem.to_str().unwrap()])
            .env("MEMDIR_CACHE_DIR", tmp.path().join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"f\nk\n").unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{backend}: {text}");
        assert!(text.contains("[1/3] freeze.md") && text.contains("retire it?"), "{backend}: {text}");
        assert!(text.contains("forgot freeze.md (1 MEMORY.md line(s) removed)"), "{backend}: {text}");
        assert!(
            text.contains("[3/3] seeds.md") && text.contains("cites `scripts/seed.py` — not found"),
            "{backend}: {text}"
        );
        assert!(text.contains("reviewed: 1 kept, 1 forgotten"), "{backend}: {text}");
        assert!(
            !mem.join("freeze.md").exists() && mem.join("plain.md").exists() && mem.join("seeds.md").exists()
        );
        let index = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
        assert_eq!(index, "- [plain](plain.md) — b\n- [seeds](seeds.md) — c\n", "{backend}");
    }
}

/// Issue 28: `memdir review` walks the review queue first: a dream's proposals as one change
/// (here walked one by one), an extraction's alone; accepting writes through the core, rejecting
/// remembers. On both backends.
#[test]
fn review_walks_the_queue_first_a_dream_as_one_change() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("mem");
        std::fs::create_dir_all(mem.join("logs/2026/03")).unwrap();
        std::fs::write(mem.join("logs/2026/03/2026-03-04.md"), "# 2026-03-04\n\n- 09:15 Ana prefers pnpm\n")
            .unwrap();
        let ops = serde_json::json!({"operations": [
            {"op": "create", "path": "project_a.md", "type": "project", "name": "A", "description": "first", "body": "A until 2026-04-01.\n**Why:** x.\n**How to apply:** y."},
            {"op": "create", "path": "project_b.md", "type": "project", "name": "B", "description": "second", "body": "B until 2026-04-01.\n**Why:** x.\n**How to apply:** y."},
        ]});
        std::fs::write(tmp.path().join("ops.json"), ops.to_string()).unwrap();
        let run = |args: &[&str], stdin: &[u8]| {
            let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
                .args(["--backend", backend, "--now", "2026-03-05T08:00:00Z"])
                .args(args)
                .args(["--cwd", tmp.path().to_str().unwrap(), "--memory-dir", mem.to_str().unwrap()])
                .env("MEMDIR_CACHE_DIR", tmp.path().join("cache"))
                .env("MEMDIR_MEMORY_WRITES", "review")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(stdin).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{backend}: {args:?}: {}", String::from_utf8_lossy(&out.stdout));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let model = format!("command:cat {}", tmp.path().join("ops.json").display());
        run(&["dream", "--utc-offset", "0", "--llm", &model], b"");
        assert!(!mem.join("project_a.md").exists(), "{backend}: proposed, not written");
        // One by one: accept the first, reject the second.
        let text = run(&["review", "--utc-offset", "0"], b"o\na\nr\n");
        assert!(text.contains("dream: creates 2"), "{backend}: {text}");
        assert!(text.contains("proposals: 1 accepted, 1 rejected"), "{backend}: {text}");
        assert!(mem.join("project_a.md").exists() && !mem.join("project_b.md").exists(), "{backend}: {text}");
        assert!(std::fs::read_to_string(mem.join("MEMORY.md")).unwrap().contains("(project_a.md)"));
        assert!(run(&["review", "--pending"], b"").contains("no proposals are waiting"), "{backend}");
    }
}
