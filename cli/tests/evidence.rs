//! Issue 14: evidence against a real git repository, on both backends — a cited file that
//! commits changed after the memory was saved is `changed` (with how many commits), and the
//! symbol search reads the tracked files only (an untracked scratch file proves nothing).

use std::path::Path;
use std::process::Command;

fn git(repo: &Path, args: &[&str], when: &str) {
    let status = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_DATE", when)
        .env("GIT_COMMITTER_DATE", when)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn commits_after_the_memory_make_a_citation_changed_on_both_backends() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "-q"], "2026-01-01T00:00:00Z");
    std::fs::write(repo.join("src/db.rs"), "pub fn connect_pool() {}\n").unwrap();
    std::fs::write(repo.join("src/api.rs"), "pub fn serve() {}\n").unwrap();
    git(&repo, &["add", "."], "2026-01-01T00:00:00Z");
    git(&repo, &["commit", "-q", "-m", "one"], "2026-01-01T00:00:00Z");
    // Two commits touch src/db.rs after the memory was saved (2026-01-15), none src/api.rs.
    for (i, when) in ["2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z"].iter().enumerate() {
        std::fs::write(repo.join("src/db.rs"), format!("pub fn connect_pool() {{}} // {i}\n")).unwrap();
        git(&repo, &["commit", "-q", "-am", "db"], when);
    }
    // Untracked: a symbol only here is not in the project.
    std::fs::write(repo.join("scratch.rs"), "fn draft_only() {}\n").unwrap();

    let mem = tmp.path().join("mem");
    std::fs::create_dir(&mem).unwrap();
    let body = "The pool is `connect_pool()` in `src/db.rs`; the API is `src/api.rs`; try `draft_only()`.";
    std::fs::write(
        mem.join("db.md"),
        format!("---\nname: db\ndescription: the database pool\nmetadata:\n  type: reference\n---\n{body}\n"),
    )
    .unwrap();
    std::fs::write(mem.join("MEMORY.md"), "- [db](db.md) — the database pool\n").unwrap();
    let saved = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_768_435_200); // 2026-01-15
    std::fs::File::options().write(true).open(mem.join("db.md")).unwrap().set_modified(saved).unwrap();

    for backend in ["component", "native"] {
        let out = Command::new(env!("CARGO_BIN_EXE_memdir"))
            .args(["--backend", backend, "--now", "2026-03-01T00:00:00Z", "check", "--json"])
            .args(["--cwd", repo.to_str().unwrap(), "--memory-dir", mem.to_str().unwrap()])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{backend}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let citations = &report["evidence"][0]["citations"];
        let detail = |text: &str| {
            citations
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["text"] == text)
                .map(|c| (c["status"].clone(), c["detail"].clone()))
        };
        assert_eq!(
            detail("src/db.rs"),
            Some(("changed".into(), "changed in 2 commits since the memory was saved".into())),
            "{backend}: {report:#}"
        );
        assert_eq!(detail("src/api.rs"), Some(("found".into(), "still there".into())), "{backend}");
        assert_eq!(detail("connect_pool"), Some(("found".into(), "still in the code".into())), "{backend}");
        assert_eq!(
            detail("draft_only").map(|d| d.0),
            Some("missing".into()),
            "{backend}: untracked files are not searched"
        );
        assert_eq!(report["evidence"][0]["verdict"], "missing", "{backend}");
    }
}

/// Issue 25, item 4: `check` asks for its git commands; whatever the host answers, it ends in a
/// report, on both backends. A host that runs no git (VS Code in an untrusted workspace) gets
/// a report after one step; a failed history still uses the files; a state that is not the
/// core's is refused.
#[test]
fn check_steps_end_in_a_report_whatever_git_answers() {
    use memdir_core::check::CheckStep;
    use memdir_core::git::GitOutput;
    use memdir_harness::{ComponentRuntime, ConfinedFs, Core, Error, NativeCore, steps};

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["init", "-q"], "2026-01-01T00:00:00Z");
    git(&repo, &["add", "."], "2026-01-01T00:00:00Z");
    git(&repo, &["commit", "-q", "-m", "one"], "2026-01-01T00:00:00Z");
    let mem = tmp.path().join("mem");
    std::fs::create_dir(&mem).unwrap();
    std::fs::write(
        mem.join("a.md"),
        "---\nname: a\ndescription: the letter\ntype: reference\n---\n`a.txt` and `b.txt`.\n",
    )
    .unwrap();
    std::fs::write(mem.join("MEMORY.md"), "- [a](a.md) — the letter\n").unwrap();
    let target = memdir_core::target::Target {
        cwd: repo.to_str().unwrap().to_string(),
        env: vec![("HOME".into(), tmp.path().to_str().unwrap().into())],
        memory_dir: Some(mem.to_str().unwrap().to_string()),
        by: None,
    };
    let fs = || ConfinedFs::new().grant_read(tmp.path()).unwrap().grant_write(&mem).unwrap();
    let runtime = ComponentRuntime::load().unwrap();
    let cores: Vec<Box<dyn Core + '_>> = vec![Box::new(NativeCore::new(fs())), Box::new(runtime.core(fs()))];
    for mut core in cores {
        let backend = core.backend();
        let failed = |code| GitOutput { status: code, stdout: String::new(), stderr: "no".into() };

        let mut asked = Vec::new();
        let report = steps::drive_check(&mut *core, &target, 0, |c| {
            asked.push(c.args.clone());
            failed(None)
        })
        .unwrap();
        assert_eq!((report.memories, asked.len()), (1, 1), "{backend}: no git, one step");
        assert!(asked[0].contains(&"ls-files".to_string()), "{backend}: {asked:?}");

        let mut asked = 0;
        let report = steps::drive_check(&mut *core, &target, 0, |c| {
            asked += 1;
            if c.args.contains(&"ls-files".to_string()) {
                GitOutput { status: Some(0), stdout: "a.txt\0we\nird\0".into(), stderr: String::new() }
            } else {
                failed(Some(128))
            }
        })
        .unwrap();
        assert_eq!((report.memories, asked), (1, 2), "{backend}: the history failed");
        let cited: Vec<_> =
            report.evidence.iter().flat_map(|e| &e.citations).map(|c| (c.text.as_str(), c.status)).collect();
        assert!(cited.contains(&("a.txt", memdir_core::evidence::Status::Found)), "{backend}: {cited:?}");

        let Ok(CheckStep::Run(call)) = core.check_start(&target, 0) else {
            panic!("{backend}: a git repo asks git")
        };
        assert!(call.command.env.iter().any(|(k, v)| k == "GIT_NO_LAZY_FETCH" && v == "1"), "{backend}");
        for state in ["", "{}", "not json", "[1, 2]"] {
            match core.check_resume(state, failed(None)) {
                Err(Error::Core(memdir_core::Error::InvalidInput(m))) => {
                    assert!(m.contains("check state"), "{m}")
                }
                other => panic!("{backend}: {state:?}: {other:?}"),
            }
        }
    }
}
