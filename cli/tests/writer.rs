//! The save/forget guarantees at process level (R2.4, R13.3): concurrent writers lose no index
//! line, a killed writer leaves no partial file, and a host failure mid-save leaves the
//! directory as it was — on both backends.

mod common;

use common::FaultyFs;
use memdir_core::MemoryType;
use memdir_core::extract::{self, Role};
use memdir_core::model::{Reply, Step};
use memdir_core::target::Target;
use memdir_core::writer::{Memory, Save};
use memdir_harness::{ComponentRuntime, ConfinedFs, Core, NativeCore};
use std::path::Path;
use std::process::{Child, Command};

fn save_process(dir: &Path, name: &str, body: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["save", "--memory-dir", dir.to_str().unwrap(), "--type", "reference", "--name", name])
        .args(["--description", &format!("notes about {name}"), "--body", body])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn index_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("MEMORY.md")).unwrap_or_default().lines().map(str::to_string).collect()
}

#[test]
fn two_processes_saving_100_memories_each_lose_no_index_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                for i in 0..100 {
                    let status = save_process(&dir, &format!("{who}-{i:03}"), "a fact").wait().unwrap();
                    assert!(status.success(), "{who} {i}");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let files =
        std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().file_name() != "MEMORY.md").count();
    let memories = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name().into_string().unwrap();
            name.ends_with(".md") && name != "MEMORY.md"
        })
        .count();
    assert_eq!(memories, 200, "{files} entries");
    let lines = index_lines(&dir);
    assert_eq!(lines.len(), 200);
    for who in ["a", "b"] {
        for i in 0..100 {
            let file = format!("({who}-{i:03}.md)");
            assert_eq!(lines.iter().filter(|l| l.contains(&file)).count(), 1, "{file}");
        }
    }
    // Issue 48: the timeline lost no write either, and no line is torn.
    let timeline = std::fs::read_to_string(dir.join(".sessions/writes.jsonl")).unwrap();
    let written: Vec<serde_json::Value> =
        timeline.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(written.len(), 200);
    assert!(written.iter().all(|w| w["action"] == "created" && w["by"] == "person:cli"), "{timeline}");
}

#[test]
fn the_timeline_keeps_one_clean_line_of_who_asked_whatever_the_host_says_on_both_backends() {
    // Issue 48: `by` comes from a host, which may pass on a client's name: a second line, an
    // escape sequence or a bidi override must not forge another author or another entry.
    let runtime = ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, None).unwrap();
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(tmp.path()).unwrap();
        let fs = ConfinedFs::new().grant_write(&dir).unwrap();
        let mut core: Box<dyn Core> =
            if backend == "component" { Box::new(runtime.core(fs)) } else { Box::new(NativeCore::new(fs)) };
        for (by, expected) in [
            (Some("agent:evil\n{\"by\":\"person:cli\"}"), "agent:evil"),
            (Some("agent:\u{1b}[31mred\u{202e}lrt\u{7}"), "agent:[31mredlrt"),
            (Some("\n\nperson:cli"), "unknown"),
            (Some(&*"x".repeat(500)), &*"x".repeat(64)),
            (None, "unknown"),
        ] {
            let mut target = target(&dir);
            target.by = by.map(str::to_string);
            let memory = Memory {
                memory_type: MemoryType::Reference,
                name: "wiki",
                description: "where the wiki is",
                file: None,
                replaces: None,
                body: "https://wiki.example",
                now_ms: 0,
                utc_offset_minutes: 0,
                scope: None,
            };
            core.save(&Save { target: &target, memory }).unwrap();
            let written = core.timeline(&target, Some("wiki.md"), 1).unwrap();
            assert_eq!(written[0].by, expected, "{backend}");
        }
        let log = std::fs::read_to_string(dir.join(".sessions/writes.jsonl")).unwrap();
        assert_eq!(log.lines().count(), 5, "{backend}: {log}");
        assert_eq!(core.timeline(&target(&dir), None, 3).unwrap().len(), 3, "{backend}");
    }
}

#[test]
fn a_writer_killed_mid_save_leaves_no_partial_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    let body = format!(
        "{}\nEND OF MEMORY",
        "a long line of memory text to make the write take a while\n".repeat(900)
    );
    for round in 0..8u64 {
        let mut child = save_process(&dir, &format!("big-{round}"), &body);
        std::thread::sleep(std::time::Duration::from_millis(5 + round * 7));
        let _ = child.kill();
        let _ = child.wait();
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with('.') || name == "MEMORY.md" {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        assert!(text.starts_with("---\nname: ") && text.ends_with("END OF MEMORY\n"), "{name} is partial");
    }
    for line in index_lines(&dir) {
        let file = line.split("](").nth(1).and_then(|rest| rest.split(')').next()).unwrap();
        assert!(dir.join(file).is_file(), "the index points at a missing {file}");
    }
}

fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .map(|n| (n.clone(), std::fs::read_to_string(dir.join(&n)).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_host_failure_mid_save_leaves_the_directory_as_it_was_on_both_backends() {
    let runtime = ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, None).unwrap();
    for backend in ["component", "native"] {
        // A failing index write after a new file, after an updated file (named, or found by its
        // name); a failing file write; and a rename (R1.7) failing at the memory linking to it
        // or at the index, after both files were rewritten.
        for (fail_name, file, name) in [
            ("MEMORY.md", Some("tools.md"), "tools"),
            ("MEMORY.md", Some("user_role.md"), "role"),
            ("MEMORY.md", None, "Role"),
            ("user_role.md", Some("user_role.md"), "role"),
            ("linking.md", Some("user_role.md"), "owner"),
            ("MEMORY.md", Some("user_role.md"), "owner"),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = std::fs::canonicalize(tmp.path()).unwrap();
            std::fs::write(
                dir.join("user_role.md"),
                "---\nname: Role\ndescription: old\ntype: user\n---\nOld.\n",
            )
            .unwrap();
            std::fs::write(
                dir.join("linking.md"),
                "---\nname: linking\ndescription: links\ntype: user\n---\nSee [[role]].\n",
            )
            .unwrap();
            std::fs::write(dir.join("MEMORY.md"), "- [Role](user_role.md) — old\n").unwrap();
            let before = snapshot(&dir);
            let fs = FaultyFs {
                fail_writes_ending: Some(fail_name),
                ..FaultyFs::new(ConfinedFs::new().grant_read("/").unwrap().grant_write(&dir).unwrap())
            };
            let mut core: Box<dyn Core> =
                if backend == "native" { Box::new(NativeCore::new(fs)) } else { Box::new(runtime.core(fs)) };
            let target = target(&dir);
            let request = Save {
                target: &target,
                memory: Memory {
                    memory_type: MemoryType::User,
                    name,
                    description: "new",
                    file,
                    replaces: None,
                    body: "New.",
                    now_ms: 0,
                    utc_offset_minutes: 0,
                    scope: None,
                },
            };
            let err = core.save(&request).expect_err("the injected failure surfaces");
            assert!(err.to_string().contains("injected"), "{backend}/{fail_name}: {err}");
            assert_eq!(
                snapshot(&dir),
                before,
                "{backend}: failing {fail_name} while saving {name} as {file:?} changed the directory"
            );
            // The lock was released: the same save without the failure goes through.
            let ok = ConfinedFs::new().grant_read("/").unwrap().grant_write(&dir).unwrap();
            let mut core: Box<dyn Core> =
                if backend == "native" { Box::new(NativeCore::new(ok)) } else { Box::new(runtime.core(ok)) };
            let report = core.save(&request).unwrap();
            if name == "owner" {
                assert_eq!(report.renamed_from.as_deref(), Some("Role"));
                assert_eq!(report.links_rewritten, ["linking.md"]);
                let linking = std::fs::read_to_string(dir.join("linking.md")).unwrap();
                assert!(linking.ends_with("See [[owner]].\n"), "{linking}");
            }
        }
    }
}

/// A target whose memory directory is `dir`, with a home of its own.
fn target(dir: &Path) -> Target {
    let dir = dir.to_str().unwrap().to_string();
    Target { cwd: dir.clone(), env: vec![("HOME".into(), dir.clone())], memory_dir: Some(dir), by: None }
}

#[test]
fn a_host_failure_during_extraction_rejects_that_operation_and_keeps_the_rest_unchanged() {
    let runtime = ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, None).unwrap();
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::write(dir.join("MEMORY.md"), "- [Role](user_role.md) — old\n").unwrap();
        std::fs::write(
            dir.join("user_role.md"),
            "---\nname: Role\ndescription: old\ntype: user\n---\nOld.\n",
        )
        .unwrap();
        // Enough memories that this run's share of deletions and overwrites covers the two.
        for i in 0..4 {
            let text =
                format!("---\nname: Link {i}\ndescription: link {i}\ntype: reference\n---\nhttps://x/{i}\n");
            std::fs::write(dir.join(format!("reference_link_{i}.md")), text).unwrap();
        }
        let before = snapshot(&dir);
        let fs = FaultyFs {
            fail_writes_ending: Some("MEMORY.md"),
            ..FaultyFs::new(ConfinedFs::new().grant_read("/").unwrap().grant_write(&dir).unwrap())
        };
        let mut core: Box<dyn Core> =
            if backend == "native" { Box::new(NativeCore::new(fs)) } else { Box::new(runtime.core(fs)) };
        let input = extract::Input {
            target: target(&dir),
            messages: vec![extract::Message {
                role: Role::User,
                text: "I use vim now".into(),
                wrote: vec![],
            }],
            main_agent: true,
            ..extract::Input::default()
        };
        let reply = r#"{"operations": [
            {"op": "update", "path": "user_role.md", "type": "user", "name": "Role", "description": "new", "body": "New."},
            {"op": "create", "path": "user_tools.md", "type": "user", "name": "Tools", "description": "vim", "body": "Vim."},
            {"op": "delete", "path": "user_role.md"}]}"#;
        let mut step = core.extract_start(&input).unwrap();
        for reply in [r#"{"read": []}"#, reply] {
            let Step::Ask(call) = step else { panic!("{backend}: extraction stopped early: {step:?}") };
            step = core.extract_resume(&call.state, Reply::Text(reply.into())).unwrap();
        }
        let result = step.done().expect("two rounds finish");
        assert_eq!(result.operations.len(), 3);
        for op in &result.operations {
            let why = op.rejected.as_deref().unwrap_or_else(|| panic!("{backend}: {op:?} applied"));
            assert!(why.contains("injected"), "{backend}: {why}");
        }
        assert_eq!(snapshot(&dir), before, "{backend}: the directory changed");
    }
}

/// Issue 18, item 7: a FIFO named `.memdir.lock` made `save` wait forever. Now it is refused at
/// once, before anything is written, on both backends. The bound is the test's own (a thread
/// that must answer within a minute), not a timing assertion.
#[test]
fn a_fifo_lock_file_is_refused_at_once_on_both_backends() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(tmp.path()).unwrap();
        let fifo = dir.join(".memdir.lock");
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let (tx, rx) = std::sync::mpsc::channel();
        let args: Vec<String> = [
            "memdir",
            "--backend",
            backend,
            "save",
            "--memory-dir",
            dir.to_str().unwrap(),
            "--type",
            "user",
            "--name",
            "Editor",
            "--description",
            "Ana uses vim",
            "--body",
            "Ana uses vim.",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let home = dir.to_str().unwrap().to_string();
        std::thread::spawn(move || {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let status = memdir_cli::run(args, vec![("HOME".into(), home)], &mut out, &mut err);
            let _ = tx.send((status, String::from_utf8_lossy(&err).into_owned()));
        });
        let (status, err) = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{backend}: save is still waiting on the FIFO"));
        assert_ne!(status, 0, "{backend}: {err}");
        assert!(err.contains(".memdir.lock"), "{backend}: {err}");
        assert!(!dir.join("user_editor.md").exists(), "{backend}: the memory was written anyway");
        assert!(!dir.join("MEMORY.md").exists(), "{backend}: the index was written anyway");
    }
}
