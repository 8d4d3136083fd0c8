//! Issue 13: team memory synced through git, end to end. Two people (two HOMEs, two clones of
//! one project) share `team/` through a bare repository on the local disk, with the `memdir`
//! binary (the component) and the real `git`. Then one person's private memory between two
//! HOMEs, and the conflict paths on the native core without the merge driver.

use memdir_core::Fs;
use memdir_core::target::Target;
use memdir_core::team::{Action, InitOptions, Input, Which};
use memdir_harness::{ConfinedFs, NativeCore};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One person on one machine, working in a clone of the project.
struct Person {
    home: PathBuf,
    host: &'static str,
    project: PathBuf,
    gitconfig: PathBuf,
}

impl Person {
    fn memdir(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_memdir"))
            .args(args)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap())
            .env("HOME", &self.home)
            .env("MEMDIR_TEAM_MEMORY", "1")
            .env("MEMDIR_HOST_NAME", self.host)
            .env("GIT_CONFIG_GLOBAL", &self.gitconfig)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap()
    }

    /// `memdir ARGS`, which must succeed; its standard output.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.memdir(args);
        assert!(
            out.status.success(),
            "{} memdir {args:?} failed: {}{}",
            self.host,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn save(&self, name: &str, fact: &str) {
        let body = format!("{fact}\n\n**Why:** the team agreed.\n\n**How to apply:** follow it.");
        self.ok(&[
            "save",
            "--scope",
            "team",
            "--type",
            "project",
            "--name",
            name,
            "--description",
            fact,
            "--body",
            &body,
        ]);
    }

    fn sync(&self) -> String {
        self.ok(&["team", "sync"])
    }

    fn memory_dir(&self) -> PathBuf {
        PathBuf::from(self.ok(&["path"]).trim())
    }

    fn team(&self) -> PathBuf {
        self.memory_dir().join("team")
    }

    fn index(&self) -> String {
        std::fs::read_to_string(self.team().join("MEMORY.md")).unwrap_or_default()
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A bare `origin.git` with one commit on `main`, and a clone of it for each person.
fn project(root: &Path, names: &[&'static str]) -> Vec<Person> {
    git(root, &["init", "-q", "--bare", "origin.git"]);
    git(root, &["clone", "-q", "origin.git", "seed"]);
    git(
        &root.join("seed"),
        &["-c", "user.name=s", "-c", "user.email=s@x", "commit", "-q", "--allow-empty", "-m", "start"],
    );
    git(&root.join("seed"), &["push", "-q", "origin", "HEAD:refs/heads/main"]);
    names
        .iter()
        .map(|&name| {
            git(root, &["clone", "-q", "origin.git", &format!("{name}-clone")]);
            let home = root.join(format!("home-{name}"));
            std::fs::create_dir_all(&home).unwrap();
            let gitconfig = root.join(format!("{name}.gitconfig"));
            std::fs::write(&gitconfig, format!("[user]\n\tname = {name}\n\temail = {name}@example.com\n"))
                .unwrap();
            Person { home, host: name, project: root.join(format!("{name}-clone")), gitconfig }
        })
        .collect()
}

#[test]
fn two_people_share_team_memory_through_the_projects_own_remote() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let people = project(root, &["ana", "ben"]);
    let (ana, ben) = (&people[0], &people[1]);
    let bare = root.join("origin.git");

    // Ana's team/ already holds a memory: it becomes the first commit, on an orphan branch of
    // the project's own origin (the default remote).
    ana.save("deploy-freeze", "deploys stop at the end of each sprint");
    let out = ana.ok(&["team", "init"]);
    assert!(out.contains("pushed"), "{out}");
    let files = git(&bare, &["ls-tree", "-r", "--name-only", "memdir-team"]);
    assert_eq!(files, "MEMORY.md\ndeploy-freeze.md\n", "only memories travel, never the lock");
    let log = git(&bare, &["log", "--format=%s%n%b", "memdir-team"]);
    assert!(log.contains("memdir sync (ana): 2 added") && log.contains("added: deploy-freeze.md"), "{log}");
    // MEMORY.md merges through memdir's driver when git merges by hand too.
    let attributes = std::fs::read_to_string(ana.team().join(".git/info/attributes")).unwrap();
    assert!(attributes.contains("/MEMORY.md merge=memdir-index"), "{attributes}");

    // Ben joins; his recall finds Ana's memory.
    let out = ben.ok(&["team", "init"]);
    assert!(out.contains("received: MEMORY.md, deploy-freeze.md"), "{out}");
    let recalled = ben.ok(&["recall", "when do deploys stop in the sprint"]);
    assert!(recalled.contains("team/deploy-freeze.md"), "{recalled}");

    // Both save between syncs: the index is the union, identical on both sides.
    ana.save("api-owner", "the payments API belongs to the platform team");
    ben.save("flaky-tests", "the checkout suite is flaky on CI runners");
    ana.sync();
    let out = ben.sync();
    assert!(out.contains("received:") && out.contains("pushed"), "{out}");
    ana.sync();
    for person in [ana, ben] {
        let index = person.index();
        for file in ["deploy-freeze.md", "api-owner.md", "flaky-tests.md"] {
            assert!(index.contains(&format!("({file})")), "{}: {index}", person.host);
        }
    }
    assert_eq!(ana.index(), ben.index());

    // Both change one memory: the remote's version keeps the name, Ben's is kept beside it,
    // and check lists it.
    ana.save("deploy-freeze", "deploys stop two days before the sprint ends");
    ben.save("deploy-freeze", "deploys stop one day before the sprint ends");
    ana.sync();
    let out = ben.sync();
    assert!(out.contains("conflict: deploy-freeze.md changed here and on the remote"), "{out}");
    let team = ben.team();
    let copies: Vec<String> = std::fs::read_dir(&team)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".conflict-"))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert!(copies[0].starts_with("deploy-freeze.conflict-ben-"), "{copies:?}");
    assert!(std::fs::read_to_string(team.join("deploy-freeze.md")).unwrap().contains("two days"));
    assert!(std::fs::read_to_string(team.join(&copies[0])).unwrap().contains("one day"));
    let check = ben.memdir(&["check"]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.contains("sync-conflict") && said.contains(&copies[0]), "{said}");

    // Ana forgets a memory; after Ben's sync it is gone from his index and his disk.
    ana.ok(&["forget", "team/api-owner.md"]);
    ana.sync();
    ben.sync();
    assert!(!ben.index().contains("api-owner.md"), "{}", ben.index());
    assert!(!ben.team().join("api-owner.md").exists());

    // A key written by hand into team/ stops the sync, and the remote never receives it.
    let key = "AKIA".to_string() + "IOSFODNN7EXAMPLE";
    std::fs::write(ana.team().join("notes.md"), format!("# notes\n\naws key {key}\n")).unwrap();
    let out = ana.memdir(&["team", "sync"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("notes.md line 3") && err.contains("AWS access key"), "{err}");
    let everything = git(&bare, &["log", "-p", "--all"]);
    assert!(!everything.contains(&key));
    assert!(!git(&ana.team(), &["log", "-p", "--all"]).contains(&key), "nothing committed either");
    std::fs::remove_file(ana.team().join("notes.md")).unwrap();

    // Without the remote, a sync fails clearly and saving still works; the next sync pushes.
    std::fs::rename(&bare, root.join("away.git")).unwrap();
    ana.save("release-train", "releases leave every second week");
    let out = ana.memdir(&["team", "sync"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach the remote") && err.contains("next sync retries"), "{err}");
    ana.save("on-call", "the on-call rota lives in the ops wiki");
    std::fs::rename(root.join("away.git"), &bare).unwrap();
    let out = ana.sync();
    assert!(out.contains("pushed"), "{out}");

    // Fifty memories on each side between syncs all arrive, and after both sync twice the
    // indexes agree byte for byte.
    for i in 0..50 {
        ana.save(&format!("ana-fact-{i}"), &format!("ana fact number {i} about the billing service"));
        ben.save(&format!("ben-fact-{i}"), &format!("ben fact number {i} about the search service"));
    }
    for _ in 0..2 {
        ana.sync();
        ben.sync();
    }
    let (a, b) = (ana.index(), ben.index());
    assert_eq!(a, b);
    for i in 0..50 {
        assert!(
            a.contains(&format!("(ana-fact-{i}.md)")) && a.contains(&format!("(ben-fact-{i}.md)")),
            "{i}"
        );
        assert!(ben.team().join(format!("ana-fact-{i}.md")).exists());
        assert!(ana.team().join(format!("ben-fact-{i}.md")).exists());
    }
    let status = ana.ok(&["team", "status"]);
    assert!(status.contains("ahead 0, behind 0, dirty 0"), "{status}");

    // A plain `git pull` by hand merges MEMORY.md through memdir's driver: no conflict.
    ana.save("hand-a", "a memory ana syncs");
    ana.sync();
    ben.save("hand-b", "a memory ben pulls by hand");
    git(&ben.team(), &["add", "-A"]);
    git(&ben.team(), &["-c", "user.name=ben", "-c", "user.email=b@x", "commit", "-q", "-m", "by hand"]);
    let pulled = Command::new("git")
        .args(["-c", "user.name=ben", "-c", "user.email=b@x", "pull", "--no-rebase", "--no-edit", "-q"])
        .current_dir(ben.team())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(pulled.status.success(), "{}", String::from_utf8_lossy(&pulled.stderr));
    let index = ben.index();
    assert!(
        index.contains("(hand-a.md)") && index.contains("(hand-b.md)") && !index.contains("<<<<"),
        "{index}"
    );
}

#[test]
fn one_persons_private_memory_follows_them_between_machines() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut people = project(root, &["laptop", "desktop"]);
    // The same person: the second machine's clone is at another path, so its memory directory
    // differs, and the private remote joins them.
    for p in &mut people {
        p.gitconfig = root.join("laptop.gitconfig");
    }
    let (laptop, desktop) = (&people[0], &people[1]);
    git(root, &["init", "-q", "--bare", "private.git"]);
    let remote = root.join("private.git");
    let remote = remote.to_str().unwrap();

    // The project's remote is never a default for private memory.
    let out = laptop.memdir(&["team", "init", "--private"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs its own remote"));

    laptop.ok(&[
        "save",
        "--type",
        "user",
        "--name",
        "editor-habits",
        "--description",
        "prefers vim keybindings everywhere",
        "--body",
        "The user prefers vim keybindings in every editor.",
    ]);
    laptop.ok(&["log", "worked on the billing export"]);
    // A pause and the review queue are this machine's too (issue 28).
    laptop.ok(&["pause", "--for", "2h"]);
    std::fs::create_dir_all(laptop.memory_dir().join(".pending")).unwrap();
    std::fs::write(laptop.memory_dir().join(".pending/rejected"), "0123456789abcdef\n").unwrap();
    let out = laptop.ok(&["team", "init", "--private", "--remote", remote]);
    assert!(out.contains("pushed"), "{out}");
    let files = git(&root.join("private.git"), &["ls-tree", "-r", "--name-only", "memdir-team"]);
    assert_eq!(
        files, "MEMORY.md\neditor-habits.md\n",
        "logs, lock, team/, the pause and the queue stay on the machine"
    );

    desktop.ok(&["team", "init", "--private", "--remote", remote]);
    assert!(
        !desktop.memory_dir().join(".paused").exists() && !desktop.memory_dir().join(".pending").exists()
    );
    let recalled = desktop.ok(&["recall", "which keybindings does the user prefer in the editor"]);
    assert!(recalled.contains("editor-habits.md"), "{recalled}");
    desktop.ok(&[
        "save",
        "--type",
        "feedback",
        "--name",
        "short-answers",
        "--description",
        "wants short answers",
        "--body",
        "Keep answers short.\n\n**Why:** reads on a phone.\n\n**How to apply:** summaries first.",
    ]);
    desktop.ok(&["team", "sync", "--private"]);
    laptop.ok(&["team", "sync", "--private"]);
    assert!(laptop.memory_dir().join("short-answers.md").exists());
    let status = laptop.ok(&["team", "status", "--private", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!((status["ahead"].as_u64(), status["behind"].as_u64()), (Some(0), Some(0)), "{status}");
}

/// The native core, no merge driver (as the VS Code extension runs it): MEMORY.md's conflict
/// is settled by the core itself, a removed-here-changed-there file is kept, and an automatic
/// sync inside its interval does nothing.
#[test]
fn without_the_driver_the_core_settles_the_index_and_keeps_every_version() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "--bare", "shared.git"]);
    let remote = root.join("shared.git").to_str().unwrap().to_string();
    let sync = |mem: &Path, host: &str, action: Action, min: Option<i64>| {
        std::fs::create_dir_all(mem).unwrap();
        let fs = ConfinedFs::new().grant_read("/").unwrap().grant_write(mem).unwrap();
        let mut core = NativeCore::new(fs);
        let env = vec![
            ("HOME".to_string(), root.to_str().unwrap().to_string()),
            ("GIT_CONFIG_NOSYSTEM".to_string(), "1".to_string()),
        ];
        let mut target = Target::new(root.to_str().unwrap(), &env);
        target.memory_dir = Some(mem.to_str().unwrap().to_string());
        let input = Input {
            target,
            which: Which::Private,
            action,
            now_ms: 1_764_547_200_000,
            host_name: host.into(),
            min_interval_ms: min,
        };
        let lock = format!("{}/.memdir.lock", mem.to_str().unwrap());
        memdir_harness::steps::drive_team(&mut core, &input, |c| {
            // The writers' lock is held for every local step and never while git talks to
            // the remote.
            let probe = ConfinedFs::new().grant_write(mem).unwrap();
            let free = probe.lock(&lock, 0).is_ok();
            if free {
                probe.unlock(&lock).unwrap();
            }
            assert_eq!(free, c.network, "lock free during `git {}`", c.args.join(" "));
            let mut c = c.clone();
            c.args.splice(
                0..0,
                ["-c".to_string(), format!("user.name={host}"), "-c".into(), format!("user.email={host}@x")],
            );
            memdir_harness::git::run_command(&c)
        })
    };
    let (a, b) = (root.join("a"), root.join("b"));
    let memory = |dir: &Path, file: &str, text: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join(file),
            format!("---\nname: {}\ndescription: d\ntype: user\n---\n{text}\n", file.trim_end_matches(".md")),
        )
        .unwrap();
    };
    memory(&a, "x.md", "x");
    memory(&a, "y.md", "y");
    std::fs::write(a.join("MEMORY.md"), "# Memory\n- [x](x.md) — x\n- [y](y.md) — y\n").unwrap();
    let init =
        || Action::Init(InitOptions { remote: Some(remote.clone()), branch: None, merge_driver: None });
    sync(&a, "a", init(), None).unwrap();
    sync(&b, "b", init(), None).unwrap();
    assert!(b.join("x.md").exists());

    // Both add to the index and both touch y; a removes x while b changes it.
    std::fs::write(a.join("MEMORY.md"), "# Memory\n- [y](y.md) — y\n- [p](p.md) — p\n").unwrap();
    memory(&a, "p.md", "p");
    memory(&a, "y.md", "y from a");
    std::fs::remove_file(a.join("x.md")).unwrap();
    std::fs::write(b.join("MEMORY.md"), "# Memory\n- [x](x.md) — x\n- [y](y.md) — y\n- [q](q.md) — q\n")
        .unwrap();
    memory(&b, "q.md", "q");
    memory(&b, "y.md", "y from b");
    memory(&b, "x.md", "x changed by b");
    sync(&a, "a", Action::Sync, None).unwrap();
    let report = sync(&b, "b", Action::Sync, None).unwrap();
    assert!(report.pushed, "{report:?}");
    let index = std::fs::read_to_string(b.join("MEMORY.md")).unwrap();
    // x's line went with a's removal; q follows y, where b wrote it.
    assert_eq!(index, "# Memory\n- [y](y.md) — y\n- [q](q.md) — q\n- [p](p.md) — p\n");
    assert!(
        std::fs::read_to_string(b.join("x.md")).unwrap().contains("x changed by b"),
        "b's change is kept"
    );
    assert!(std::fs::read_to_string(b.join("y.md")).unwrap().contains("y from a"));
    let kept = report.conflicts.iter().find_map(|c| c.kept_as.clone()).expect("y's copy");
    assert_eq!(kept, "y.conflict-b-2025-12-01.md");
    assert!(std::fs::read_to_string(b.join(&kept)).unwrap().contains("y from b"));
    assert_eq!(report.conflicts.len(), 2, "{:?}", report.conflicts);

    // A hostile branch: a symlink to a file outside memory arrives as a plain file holding
    // the link's text, never as a link.
    git(root, &["clone", "-q", "-b", "memdir-team", &remote, "hostile"]);
    std::os::unix::fs::symlink("/etc/passwd", root.join("hostile/passwd.md")).unwrap();
    git(&root.join("hostile"), &["add", "-A"]);
    git(&root.join("hostile"), &["-c", "user.name=h", "-c", "user.email=h@x", "commit", "-q", "-m", "link"]);
    git(&root.join("hostile"), &["push", "-q", "origin", "HEAD:memdir-team"]);
    sync(&b, "b", Action::Sync, None).unwrap();
    let arrived = std::fs::symlink_metadata(b.join("passwd.md")).unwrap();
    assert!(arrived.is_file(), "a symlink from the remote became a link here");
    assert_eq!(std::fs::read_to_string(b.join("passwd.md")).unwrap(), "/etc/passwd");
    // A remote that would be an option to git is refused.
    let hostile = Action::Init(InitOptions {
        remote: Some("--upload-pack=touch /tmp/x".into()),
        branch: None,
        merge_driver: None,
    });
    let err = sync(&root.join("d"), "d", hostile, None).unwrap_err().to_string();
    assert!(err.contains("is not a remote"), "{err}");

    // An automatic sync inside its interval runs no network command and changes nothing.
    let report = sync(&a, "a", Action::Sync, Some(60_000)).unwrap();
    let skipped = report.skipped.expect("skipped");
    assert!(
        matches!(skipped, memdir_core::team::Skip::SyncedRecently(ms) if (0..60_000).contains(&ms)),
        "{skipped:?}"
    );
    assert_eq!(skipped.to_string(), "synced 0s ago");

    // A directory that is not a working copy says what to run.
    std::fs::create_dir_all(root.join("c")).unwrap();
    let err = sync(&root.join("c"), "c", Action::Sync, None).unwrap_err().to_string();
    assert!(err.contains("is not synced yet: run `memdir team init --private"), "{err}");
}

/// `project`, with the first person's memory pushed by `team init` and everyone else joined.
fn synced(root: &Path, names: &[&'static str]) -> Vec<Person> {
    let people = project(root, names);
    people[0].save("deploy-freeze", "deploys stop at the end of each sprint");
    for person in &people {
        person.ok(&["team", "init"]);
    }
    people
}

/// A teammate's commit made with plain git in a clone of their own, pushed to the team branch.
fn push_by_hand(root: &Path, files: &[(&str, &str)], message: &str) {
    let clone = root.join(format!("by-hand-{}", message.replace(' ', "-")));
    git(root, &["clone", "-q", "-b", "memdir-team", "origin.git", clone.to_str().unwrap()]);
    for (path, text) in files {
        std::fs::write(clone.join(path), text).unwrap();
    }
    let names: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let mut add = vec!["add", "--force", "--"];
    add.extend(&names);
    git(&clone, &add);
    git(&clone, &["-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", message]);
    git(&clone, &["push", "-q", "origin", "HEAD:refs/heads/memdir-team"]);
}

#[test]
fn a_teammates_ignore_lock_or_journal_never_costs_a_local_memory() {
    // Issue 24, defects 1, 7 and 8.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let people = synced(root, &["ana", "ben"]);
    let ben = &people[1];
    let bare = root.join("origin.git");

    // A teammate commits a .gitignore naming notes.md, and memdir's own lock and journal: a journal
    // that would delete a memory without the trash.
    let lock = "{\"pid\":1,\"host\":\"ana\",\"since\":0}\n";
    let journal = "memdir-journal 1\nremove deploy-freeze.md\nwrite 0 MEMORY.md\n\n";
    push_by_hand(
        root,
        &[(".gitignore", "notes.md\n"), (".memdir.lock", lock), (".memdir.journal", journal)],
        "ignore notes",
    );
    ben.sync();
    let team = ben.team();
    assert!(!team.join(".memdir.journal").exists(), "a teammate's journal was checked out");
    assert_ne!(std::fs::read_to_string(team.join(".memdir.lock")).ok().as_deref(), Some(lock));

    // Ben's next team write does not wait on that lock, and applies no journal of theirs.
    ben.save("api-owner", "the payments API belongs to the platform team");
    assert!(team.join("deploy-freeze.md").exists(), "the teammate's journal was applied");
    assert!(ben.index().contains("(deploy-freeze.md)"), "{}", ben.index());

    // Ben writes notes.md by hand: status says it is pending, though the branch ignores it.
    std::fs::write(team.join("notes.md"), "# notes\n\nBen's notes.\n").unwrap();
    let status = ben.ok(&["team", "status"]);
    assert!(status.contains("notes.md"), "{status}");

    // The teammate pushes a notes.md of their own first. Ben's sync keeps his as a conflict copy.
    push_by_hand(root, &[("notes.md", "# notes\n\ntheirs\n")], "their notes");
    let out = ben.sync();
    assert!(out.contains("conflict: notes.md"), "{out}");
    assert!(std::fs::read_to_string(team.join("notes.md")).unwrap().contains("theirs"));
    let copy = std::fs::read_dir(&team)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("notes.conflict-ben-"))
        .expect("Ben's notes were not kept");
    assert!(std::fs::read_to_string(copy).unwrap().contains("Ben's"));

    // Ben's commits never touched memdir's own files, in either direction.
    let touched = git(&bare, &["log", "--format=", "--name-only", "--author=ben", "memdir-team"]);
    assert!(!touched.contains(".memdir."), "{touched}");
    assert_eq!(git(&bare, &["show", "memdir-team:.memdir.lock"]), lock);
}

#[test]
fn a_secret_in_any_outgoing_commit_stops_the_push_even_when_a_later_one_removes_it() {
    // Issue 24, defects 2 and 6.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let people = synced(root, &["ana"]);
    let ana = &people[0];
    let bare = root.join("origin.git");
    let team = ana.team();
    let key = "AKIA".to_string() + "IOSFODNN7EXAMPLE";
    let by_hand = |text: &str, message: &str| {
        std::fs::write(team.join("notes.md"), text).unwrap();
        git(&team, &["add", "notes.md"]);
        git(&team, &["-c", "user.name=a", "-c", "user.email=a@x", "commit", "-q", "-m", message]);
    };
    by_hand(&format!("# notes\n\naws key {key}\n"), "notes");
    by_hand("# notes\n\nno key here\n", "drop the key");
    let out = ana.memdir(&["team", "sync"]);
    assert!(!out.status.success(), "a secret in an earlier commit was pushed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("notes.md line 3") && err.contains("reset --soft"), "{err}");
    assert!(!git(&bare, &["log", "-p", "--all"]).contains(&key));

    // The advice works: the commits come back into the working copy, and the next sync pushes
    // one clean commit.
    let undo = err.split('`').nth(1).unwrap().to_string();
    let status =
        Command::new("sh").arg("-c").arg(&undo).env("GIT_CONFIG_GLOBAL", "/dev/null").status().unwrap();
    assert!(status.success(), "{undo}");
    let out = ana.sync();
    assert!(out.contains("pushed"), "{out}");
    assert!(!git(&bare, &["log", "-p", "--all"]).contains(&key));
    assert!(git(&bare, &["show", "memdir-team:notes.md"]).contains("no key here"));

    // A message and a file name travel too.
    std::fs::write(team.join("ok.md"), "# ok\n").unwrap();
    git(&team, &["add", "ok.md"]);
    git(&team, &["-c", "user.name=a", "-c", "user.email=a@x", "commit", "-q", "-m", &format!("key {key}")]);
    let out = ana.memdir(&["team", "sync"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("its message"), "{out:?}");
    git(&team, &["reset", "-q", "--soft", "HEAD~1"]);
    git(&team, &["reset", "-q"]);
    std::fs::remove_file(team.join("ok.md")).unwrap();
    std::fs::write(team.join(format!("{key}.md")), "# named\n").unwrap();
    let out = ana.memdir(&["team", "sync"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("file name"), "{out:?}");
    assert!(!git(&bare, &["log", "--all", "--name-only"]).contains(&key));
}

#[test]
fn a_sync_killed_while_its_rebase_is_stopped_recovers_on_the_next_one() {
    // Issue 24, defect 10: the state a sync killed mid-rebase leaves, made with git by hand.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let people = synced(root, &["ana", "ben"]);
    let (ana, ben) = (&people[0], &people[1]);
    ana.save("deploy-freeze", "deploys stop two days before the sprint ends");
    ana.sync();
    ben.save("deploy-freeze", "deploys stop one day before the sprint ends");
    let team = ben.team();
    git(&team, &["add", "-A"]);
    git(&team, &["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "-m", "mine"]);
    git(&team, &["fetch", "-q", "origin", "+refs/heads/memdir-team:refs/remotes/origin/memdir-team"]);
    let stopped = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@x", "rebase", "origin/memdir-team"])
        .current_dir(&team)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(!stopped.status.success(), "the rebase did not stop");
    let out = ben.sync();
    assert!(out.contains("pushed"), "{out}");
    let copies = std::fs::read_dir(&team)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(".conflict-"))
        .count();
    assert_eq!(copies, 1, "both versions are kept");
}
