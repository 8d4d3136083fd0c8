//! Crash consistency (issue 18): writers killed at every point — between the journal, the
//! memory, the memories whose links follow a rename, and the index — and at random with
//! `kill -9`, on both backends. After each kill, `memdir check` finds no drift, the directory
//! holds either everything the killed command would have written or none of it, and no memory
//! that a finished save reported is lost.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_memdir");

fn memdir(backend: &str, args: &[&str], crash_after: Option<u32>) -> Output {
    let mut command = Command::new(BIN);
    command.args(["--backend", backend]).args(args);
    if let Some(n) = crash_after {
        command.env("MEMDIR_CRASH_AFTER_CHANGES", n.to_string());
    }
    command.stdin(Stdio::null()).output().unwrap()
}

/// The memory files (not hidden ones) and their contents, `team/` included.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.starts_with('.') || !entry.file_type().unwrap().is_file() {
            continue;
        }
        files.insert(name, std::fs::read_to_string(entry.path()).unwrap());
    }
    files
}

/// `memdir check` finds nothing; returns how many files it finished for a killed writer.
fn assert_clean(backend: &str, dir: &Path, what: &str) -> u64 {
    let out = memdir(backend, &["check", "--json", "--memory-dir", dir.to_str().unwrap()], None);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    // Drift is the index and the files disagreeing; what the memories say (near duplicates, a
    // link to a memory just forgotten) is not this test's business.
    const DRIFT: &[&str] = &[
        "dangling-index-line",
        "duplicate-index-line",
        "not-in-index",
        "missing-index",
        "journal-set-aside",
    ];
    let findings = report["findings"].as_array().unwrap();
    let drift: Vec<_> =
        findings.iter().filter(|f| DRIFT.contains(&f["kind"].as_str().unwrap_or(""))).collect();
    assert!(drift.is_empty(), "{what}: drift after the kill: {drift:#?}");
    report["recovered"].as_u64().unwrap()
}

fn memory(dir: &Path, file: &str, name: &str, body: &str) {
    let text =
        format!("---\nname: {name}\ndescription: about {name}\nmetadata:\n  type: user\n---\n{body}\n");
    std::fs::write(dir.join(file), text).unwrap();
}

/// A directory with two memories, one linking to the other, and their index.
fn seeded(root: &Path) -> PathBuf {
    let dir = root.join("mem");
    std::fs::create_dir_all(&dir).unwrap();
    memory(&dir, "role.md", "role", "Ana leads the backend.");
    memory(&dir, "linking.md", "linking", "See [[role]].");
    let mut index = "- [role](role.md) — about role\n- [linking](linking.md) — about linking\n".to_string();
    // Enough memories that an extraction may update and delete one each (a quarter of them).
    for i in 0..6 {
        memory(&dir, &format!("other-{i}.md"), &format!("other-{i}"), &format!("Unrelated fact {i}."));
        index.push_str(&format!("- [other-{i}](other-{i}.md) — about other-{i}\n"));
    }
    std::fs::write(dir.join("MEMORY.md"), index).unwrap();
    dir
}

/// The commands killed at each of their changes: each writes several files.
fn scenarios(dir: &Path, outside: &Path) -> Vec<(&'static str, Vec<String>)> {
    let d = dir.to_str().unwrap().to_string();
    let o = outside.to_str().unwrap();
    let save = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "save",
            "--memory-dir",
            &d,
            "--type",
            "user",
            "--description",
            "who Ana is",
            "--body",
            "Ana leads both teams.",
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_string).collect()
    };
    let llm = format!("command:if grep -q operations; then cat {o}/r2.json; else cat {o}/r1.json; fi");
    vec![
        ("save a new memory", save(&["--name", "new-fact"])),
        ("update a memory found by name", save(&["--name", "role"])),
        ("rename a memory and the links to it", save(&["--file", "role.md", "--name", "lead"])),
        ("forget a memory", ["forget", "--memory-dir", &d, "role.md"].map(str::to_string).to_vec()),
        (
            "extraction: create, update, delete",
            ["extract", "--transcript", &format!("{o}/t.jsonl"), "--memory-dir", &d, "--llm", &llm]
                .map(str::to_string)
                .to_vec(),
        ),
    ]
}

fn extraction_fixture(outside: &Path) {
    std::fs::create_dir_all(outside).unwrap();
    std::fs::write(outside.join("t.jsonl"), "{\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"I lead the frontend too; forget the link note.\"}}\n").unwrap();
    std::fs::write(outside.join("r1.json"), r#"{"read": ["role.md", "linking.md"]}"#).unwrap();
    let ops = serde_json::json!({"operations": [
        {"op": "create", "path": "frontend.md", "type": "user", "name": "frontend", "description": "Ana leads the frontend", "body": "Ana leads the frontend too."},
        {"op": "update", "path": "role.md", "type": "user", "name": "role", "description": "Ana leads both", "body": "Ana leads backend and frontend."},
        {"op": "delete", "path": "linking.md"}
    ]});
    std::fs::write(outside.join("r2.json"), ops.to_string()).unwrap();
}

#[test]
fn a_writer_killed_after_any_change_leaves_all_or_nothing_and_no_drift() {
    for backend in ["component", "native"] {
        for index in 0..5 {
            // What the command does when it is not killed.
            let tmp = tempfile::tempdir().unwrap();
            let dir = seeded(tmp.path());
            let outside = tmp.path().join("outside");
            extraction_fixture(&outside);
            let before = snapshot(&dir);
            let (what, args) = scenarios(&dir, &outside).swap_remove(index);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = memdir(backend, &args, None);
            assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
            let after = snapshot(&dir);
            assert_ne!(before, after, "{what} changes something");

            let mut killed_at = 0;
            for n in 1.. {
                let tmp = tempfile::tempdir().unwrap();
                let dir = seeded(tmp.path());
                let outside = tmp.path().join("outside");
                extraction_fixture(&outside);
                let (_, args) = scenarios(&dir, &outside).swap_remove(index);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let out = memdir(backend, &args, Some(n));
                if out.status.success() {
                    break;
                }
                assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{what}: killed after change {n}");
                killed_at = n;
                let at = format!("{backend}: {what}, killed after change {n}");
                assert_clean(backend, &dir, &at);
                let now = snapshot(&dir);
                if what.starts_with("extraction") {
                    // Each operation stands alone: every memory is as it was or as the run left it.
                    for (file, text) in &now {
                        let known = before.get(file) == Some(text) || after.get(file) == Some(text);
                        assert!(
                            known || file == "MEMORY.md",
                            "{at}: {file} is neither before nor after:\n{text}"
                        );
                    }
                } else {
                    assert!(now == before || now == after, "{at}: a half-done change\n{now:#?}");
                }
            }
            assert!(killed_at >= 3, "{backend}: {what} was killed at only {killed_at} points");
            eprintln!("crash: {backend}: {what}: killed at {killed_at} points, clean after each");
        }
    }
}

/// A small deterministic generator, so a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

#[test]
fn savers_and_forgetters_killed_at_random_lose_no_saved_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mem");
    std::fs::create_dir(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let mut rng = Lcg(0x5eed);
    let mut saved: Vec<String> = Vec::new();
    let mut kills = 0;
    for i in 0..40 {
        // A save that runs to the end, and beside it a save, rename or forget that is killed.
        let keep = format!("kept-{i:02}");
        let body = format!("Fact number {i}, kept.");
        let keeper = Command::new(BIN)
            .args([
                "save",
                "--memory-dir",
                d,
                "--type",
                "user",
                "--name",
                &keep,
                "--description",
                "kept",
                "--body",
                &body,
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let victim_args: Vec<String> = match rng.next(3) {
            0 => [
                "save",
                "--memory-dir",
                d,
                "--type",
                "user",
                "--name",
                &format!("victim-{i}"),
                "--description",
                "v",
                "--body",
                "Victim.",
            ]
            .map(str::to_string)
            .to_vec(),
            1 if !saved.is_empty() => {
                let target = &saved[rng.next(saved.len() as u64) as usize];
                [
                    "save",
                    "--memory-dir",
                    d,
                    "--type",
                    "user",
                    "--file",
                    &format!("{target}.md"),
                    "--name",
                    target,
                    "--description",
                    "renamed in place",
                    "--body",
                    "Same fact.",
                ]
                .map(str::to_string)
                .to_vec()
            }
            _ => ["forget", "--memory-dir", d, &format!("victim-{}.md", rng.next(i + 1))]
                .map(str::to_string)
                .to_vec(),
        };
        let mut victim =
            Command::new(BIN).args(&victim_args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(rng.next(40_000)));
        if victim.kill().is_ok() {
            kills += 1;
        }
        let _ = victim.wait();
        let kept = keeper.wait_with_output().unwrap();
        assert!(kept.status.success(), "round {i}: the keeper failed");
        saved.push(keep);
        assert_clean("component", &dir, &format!("round {i}"));
        let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
        for name in &saved {
            assert!(dir.join(format!("{name}.md")).is_file(), "round {i}: {name} was lost");
            assert!(index.contains(&format!("]({name}.md)")), "round {i}: {name} lost its index line");
        }
    }
    assert!(kills > 10, "only {kills} of 40 victims were still running when killed");
}

/// What `memdir recall --json` selects and injects for `query` (status checked).
fn recall_selection(backend: &str, dir: &Path, query: &str) -> (serde_json::Value, serde_json::Value) {
    let out = memdir(backend, &["recall", query, "--json", "--memory-dir", dir.to_str().unwrap()], None);
    assert!(out.status.success(), "recall: {}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (r["selected"].clone(), r["attachments"].clone())
}

/// Sets a file's modification time `secs` seconds before now.
fn age(path: &Path, secs: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
}

/// Issue 27, item 3: the recall index survives a crash mid-update. Recall over 1,200 memories
/// (the index then spans more than the 200 newest) is killed after its index write, at random
/// points of a full rebuild with `kill -9`, and its index is torn in half as a filesystem
/// without an atomic rename could leave it. After each, the next recall selects exactly what a
/// recall with no index selects, the memory edited before the kill among them, and leaves a
/// whole index that knows the edit.
#[test]
fn a_recall_killed_mid_update_leaves_an_index_the_next_recall_rebuilds() {
    const MEMORIES: u64 = 1_200;
    for backend in ["native", "component"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        std::fs::create_dir(&dir).unwrap();
        for i in 0..MEMORIES {
            let file = format!("note-{i:04}.md");
            memory(&dir, &file, &format!("note-{i:04}"), &format!("Filler fact {i} about crate{i}."));
            // An hour and more ago, so the index keeps every one; note-0000 is the oldest.
            age(&dir.join(&file), 3_600 + MEMORIES - i);
        }
        let index_path = dir.join(".memdir.index");
        // The first build, timed: the kills below fall anywhere within one.
        let started = std::time::Instant::now();
        recall_selection(backend, &dir, "warm up");
        let full_build = started.elapsed();
        assert!(index_path.is_file(), "{backend}: the first recall writes the index");

        let mut rng = Lcg(0x1de7);
        let mut kills = 0;
        for round in 0..12u64 {
            // Another tool edits one old memory in place: new words, the same age class.
            let edited = format!("note-{:04}", rng.next(MEMORIES));
            let word = format!("zanzibar{round}");
            let text = format!(
                "---\nname: {edited}\ndescription: the {word} gateway fronts the billing api\nmetadata:\n  type: user\n---\nThe {word} gateway.\n"
            );
            std::fs::write(dir.join(format!("{edited}.md")), text).unwrap();
            age(&dir.join(format!("{edited}.md")), 3_000 + round);
            let query = format!("which {word} gateway fronts billing?");
            let what = format!("{backend}, round {round}");
            match round % 3 {
                // Stopped right after the index is replaced.
                0 => {
                    let out = memdir(
                        backend,
                        &["recall", &query, "--json", "--memory-dir", dir.to_str().unwrap()],
                        Some(1),
                    );
                    assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{what}: the crash switch fired");
                }
                // Killed at a random point of a full rebuild.
                1 => {
                    std::fs::remove_file(&index_path).unwrap();
                    let mut victim = Command::new(BIN)
                        .args(["--backend", backend, "recall", &query, "--json", "--memory-dir"])
                        .arg(&dir)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap();
                    let at = rng.next(full_build.as_micros() as u64 + 1);
                    std::thread::sleep(std::time::Duration::from_micros(at));
                    if victim.kill().is_ok() {
                        kills += 1;
                    }
                    let _ = victim.wait();
                }
                // Torn: the first half of the index, as a non-atomic rename could leave it.
                _ => {
                    let whole = std::fs::read(&index_path).unwrap();
                    std::fs::write(&index_path, &whole[..whole.len() / 2]).unwrap();
                }
            }
            let after_kill = recall_selection(backend, &dir, &query);
            let selected = after_kill.0.as_array().unwrap();
            assert!(
                selected.iter().any(|s| s == &format!("{edited}.md")),
                "{what}: the edited memory is recalled: {selected:?}"
            );
            let index = std::fs::read_to_string(&index_path).unwrap();
            let entries: Vec<&str> = index
                .strip_prefix("memdir recall index 4\n")
                .unwrap_or_else(|| panic!("{what}: the index is whole again: {index:.80}"))
                .lines()
                .collect();
            assert!(index.ends_with('\n'), "{what}: the index is whole again");
            assert_eq!(entries.len() as u64, MEMORIES, "{what}: every memory is in the index");
            let entry = entries.iter().find(|e| e.contains(&format!("\t{edited}.md\t"))).unwrap();
            assert!(entry.contains(&word), "{what}: the index knows the edit: {entry}");
            // The same as a recall that finds no index at all.
            std::fs::remove_file(&index_path).unwrap();
            assert_eq!(recall_selection(backend, &dir, &query), after_kill, "{what}: as with no index");
        }
        assert!(kills >= 2, "{backend}: only {kills} rebuilds were still running when killed");
        eprintln!(
            "crash: {backend}: recall index: 12 rounds, {kills} kills within {full_build:?}, rebuilt after each"
        );
    }
}
