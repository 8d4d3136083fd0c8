//! Issue 24, defect 3: the git memdir runs in a project it does not own (`memdir check`, MCP
//! `memory_check`) starts none of the programs the project's git configuration names. The
//! project comes from `tests/fixtures/hostile-git-repo.sh`, which plants one for every way git
//! starts a program (signature checkers on signed commits, a pager, external diff and textconv,
//! filters, an fsmonitor, hooks, and a lazy fetch's credential helper, askpass, ssh command,
//! upload-pack and `ext::` remote); each creates a marker file when it runs.
//! The arguments and environment are the core's (`check` asks for each command), so every host
//! runs the same git; `packages/core-js/test/git-config.test.mjs` runs this project through the
//! Node host.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The programs a plain `git ls-files` and `git log` start in the planted repositories: proof
/// that the plants are live (the rest are planted too, though these two commands do not reach
/// them today).
const LIVE: &[&str] = &[
    "askpass",
    "credential",
    "ext",
    "fsmonitor",
    "gpg",
    "gpg-openpgp",
    "gpg-ssh",
    "gpg-x509",
    "ssh-command",
    "upload-pack-local",
];

/// An HTTP server that answers every request with "401, log in": git asks the credential
/// helper, then the askpass.
fn password_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            let _ = stream.read(&mut [0; 64 * 1024]);
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    port
}

/// The planted repositories under `dir`: `repo` and `repo-gpg`.
fn plant(dir: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile-git-repo.sh");
    let out = Command::new("sh")
        .arg(script)
        .arg(dir)
        .arg(password_server().to_string())
        .envs(quiet_git(dir))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// No configuration but the repository's: the machine's and the user's stay out of it.
fn quiet_git(home: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", home.to_path_buf()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ]
}

/// The markers the planted programs left, cleared.
fn take_markers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("markers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in &names {
        std::fs::remove_file(dir.join("markers").join(name)).unwrap();
    }
    names
}

/// `memdir check` on `repo`, on both backends: it ran and read the project's git.
fn check(dir: &Path, repo: &Path) {
    let mem = dir.join("mem");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(
        mem.join("a.md"),
        "---\nname: a\ndescription: the letter\nmetadata:\n  type: reference\n---\n`a.txt` holds `draft_only()`.\n",
    )
    .unwrap();
    std::fs::write(mem.join("MEMORY.md"), "- [a](a.md) — the letter\n").unwrap();
    // A `git` planted in the project, and a PATH whose first entry is relative: git is still
    // the one on PATH's absolute entries, never the project's.
    let planted = repo.join("git");
    std::fs::write(&planted, format!("#!/bin/sh\ntouch '{}'\n", dir.join("markers/planted-git").display()))
        .unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&planted, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(".:{}", std::env::var("PATH").unwrap_or_default());
    // The plant is live: a plain `git` run there with that PATH starts it.
    let _ = Command::new("git").arg("--version").current_dir(repo).env("PATH", &path).output();
    assert_eq!(take_markers(dir), ["planted-git"], "the planted git did not start");
    for backend in ["component", "native"] {
        let out = Command::new(env!("CARGO_BIN_EXE_memdir"))
            .args(["--backend", backend, "check", "--json"])
            .args(["--cwd", repo.to_str().unwrap(), "--memory-dir", mem.to_str().unwrap()])
            .envs(quiet_git(dir))
            .env("PATH", &path)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{backend}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(report["memories"], 1, "{backend}: {report:#}");
    }
}

/// MCP `memory_check` in `repo`.
fn mcp_check(dir: &Path, repo: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["mcp", "--cwd", repo.to_str().unwrap()])
        .envs(quiet_git(dir))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_check", "arguments": {}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let answer = loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "the server ended before answering");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    assert!(answer["result"]["content"].is_array(), "{answer:#}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn git_in_a_hostile_project_starts_none_of_its_programs() {
    // issue 24, defect 3
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    plant(dir);
    let (repo, repo_gpg) = (dir.join("repo"), dir.join("repo-gpg"));

    // The plants are live: git as memdir ran it before (only the fsmonitor turned off), here
    // without even that, starts each.
    for repo in [&repo, &repo_gpg] {
        for args in [
            &["ls-files", "-z"][..],
            &["log", "--format=%x00%ct", "--name-only", "--no-renames", "-n", "2000"],
        ] {
            let _ = Command::new("git").arg("-C").arg(repo).args(args).envs(quiet_git(dir)).output().unwrap();
        }
    }
    let started = take_markers(dir);
    for name in LIVE {
        assert!(started.iter().any(|s| s == name), "plain git did not start {name}: {started:?}");
    }

    for repo in [&repo, &repo_gpg] {
        check(dir, repo);
        assert_eq!(take_markers(dir), Vec::<String>::new(), "memdir check in {}", repo.display());
    }
    mcp_check(dir, &repo);
    assert_eq!(take_markers(dir), Vec::<String>::new(), "MCP memory_check");
}
