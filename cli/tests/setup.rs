//! `memdir setup` (issue 15) for every client it knows, in a throwaway HOME: each file gets the
//! entry its client documents, at the key it reads, a second run changes nothing, and
//! `--remove` leaves every file byte for byte as it was. The real-client half (Gemini CLI and
//! Codex CLI reading what setup wrote) is `tests/clients/clients.test.mjs`.

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

fn memdir(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(args)
        .env_clear()
        .env("HOME", home)
        // No client on PATH counts: only the files each test makes.
        .env("PATH", "/nonexistent")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Each client's file under HOME (Linux layout), the key path of its servers, and its entry.
fn expected(program: &str) -> Vec<(&'static str, &'static str, Vec<&'static str>, Value)> {
    let plain = json!({ "command": program, "args": ["mcp"] });
    vec![
        (
            "claude",
            ".claude.json",
            vec!["mcpServers", "memdir"],
            json!({ "type": "stdio", "command": program, "args": ["mcp"], "env": {} }),
        ),
        ("cursor", ".cursor/mcp.json", vec!["mcpServers", "memdir"], plain.clone()),
        (
            "vscode",
            ".config/Code/User/mcp.json",
            vec!["servers", "memdir"],
            json!({ "type": "stdio", "command": program, "args": ["mcp"] }),
        ),
        (
            "zed",
            ".config/zed/settings.json",
            vec!["context_servers", "memdir"],
            json!({ "command": program, "args": ["mcp"], "env": {} }),
        ),
        ("gemini", ".gemini/settings.json", vec!["mcpServers", "memdir"], plain.clone()),
        (
            "opencode",
            ".config/opencode/opencode.json",
            vec!["mcp", "memdir"],
            json!({ "type": "local", "command": [program, "mcp"], "enabled": true }),
        ),
        ("windsurf", ".codeium/windsurf/mcp_config.json", vec!["mcpServers", "memdir"], plain),
    ]
}

#[test]
#[cfg(target_os = "linux")]
fn every_json_client_gets_its_documented_entry_and_removal_restores_every_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    let program = program.to_str().unwrap();
    let mut originals = Vec::new();
    for (i, (_, file, _, _)) in expected(program).iter().enumerate() {
        let path = home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Half the files exist with the user's own keys (and a comment where JSONC allows it);
        // the others do not exist yet.
        if i % 2 == 0 {
            let comment = if *file == ".claude.json" { "" } else { "  // mine\n" };
            let original = format!("{{\n{comment}  \"numStartups\": 3\n}}\n");
            std::fs::write(&path, &original).unwrap();
            originals.push((path, Some(original)));
        } else {
            originals.push((path, None));
        }
    }
    let out = memdir(home, &["setup", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    for (client, file, keys, entry) in expected(program) {
        let written = std::fs::read_to_string(home.join(file)).unwrap();
        let parsed: Value = jsonc_value(&written);
        let mut at = &parsed;
        for key in &keys {
            at = &at[key];
        }
        assert_eq!(at, &entry, "{client}: {written}");
    }
    let again = memdir(home, &["setup", "--yes"]);
    assert!(text(&again).matches("already registered").count() >= 7, "{}", text(&again));

    let removed = memdir(home, &["setup", "--remove", "--yes"]);
    assert!(removed.status.success(), "{}", text(&removed));
    for (path, original) in originals {
        match original {
            Some(bytes) => assert_eq!(std::fs::read_to_string(&path).unwrap(), bytes, "{}", path.display()),
            None => assert!(!path.exists(), "{} was created by setup and should be gone", path.display()),
        }
    }
}

/// JSON with `//` comments, as the clients read it.
fn jsonc_value(text: &str) -> Value {
    let stripped: String =
        text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    serde_json::from_str(&stripped).unwrap()
}

#[test]
fn broken_files_and_unknown_clients_are_refused_with_the_file_named_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let settings = home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{ \"ui\": ").unwrap();
    let out = memdir(home, &["setup", "--client", "gemini", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("settings.json: not valid JSON"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ \"ui\": ");

    let out = memdir(home, &["setup", "--client", "emacs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("no client named \"emacs\"; the clients are claude, cursor"),
        "{}",
        text(&out)
    );

    // Without a terminal and without --yes, nothing is written.
    let out = memdir(home, &["setup", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("pass --yes"), "{}", text(&out));
    assert!(!home.join(".cursor/mcp.json").exists());
}

#[test]
fn check_reports_a_registered_server_that_does_not_start() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let file = home.join(".cursor/mcp.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        r#"{"mcpServers": {"memdir": {"command": "/nonexistent/memdir", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    let out = memdir(home, &["setup", "--client", "cursor", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("Cursor: registered, but the server does not answer: /nonexistent/memdir"),
        "{}",
        text(&out)
    );
    let out = memdir(home, &["setup", "--client", "windsurf", "--check"]);
    assert!(text(&out).contains("Windsurf: not registered"), "{}", text(&out));
}

#[test]
#[cfg(target_os = "linux")]
fn zed_and_vs_code_are_left_to_memdirs_own_extension_when_it_is_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join(".local/share/zed/extensions/installed/memdir")).unwrap();
    std::fs::create_dir_all(home.join(".vscode/extensions/memdir.memdir-0.3.0")).unwrap();
    let out = memdir(home, &["setup", "--client", "zed", "--client", "vscode", "--yes"]);
    let said = text(&out);
    assert!(said.contains("Zed: skipped: memdir's extension for it is installed"), "{said}");
    assert!(said.contains("VS Code: skipped: memdir's extension for it is installed"), "{said}");
    assert!(!home.join(".config/zed/settings.json").exists());
    assert!(!home.join(".config/Code/User/mcp.json").exists());

    // Other extensions whose names merely start alike do not count.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join(".local/share/zed/extensions/installed/memdirx")).unwrap();
    std::fs::create_dir_all(other.path().join(".vscode/extensions/memdir.memdirx-1.0.0")).unwrap();
    let out = memdir(other.path(), &["setup", "--client", "zed", "--client", "vscode", "--yes"]);
    assert!(out.status.success() && !text(&out).contains("skipped"), "{}", text(&out));
    assert!(other.path().join(".config/zed/settings.json").exists());
}

#[test]
#[cfg(unix)]
fn a_linked_configuration_file_stays_a_link_and_its_target_is_edited() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let dotfiles = home.join("dotfiles/cursor-mcp.json");
    std::fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    std::fs::write(&dotfiles, "{}\n").unwrap();
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    std::os::unix::fs::symlink(&dotfiles, home.join(".cursor/mcp.json")).unwrap();
    let out = memdir(home, &["setup", "--client", "cursor", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(std::fs::symlink_metadata(home.join(".cursor/mcp.json")).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&dotfiles).unwrap().contains("\"memdir\""));
    memdir(home, &["setup", "--client", "cursor", "--remove", "--yes"]);
    assert_eq!(std::fs::read_to_string(&dotfiles).unwrap(), "{}\n");
}

/// The snippets docs/mcp.md shows for each client, by the `<!-- setup: id -->` before them.
fn documented_snippets() -> Vec<(String, String)> {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/mcp.md")).unwrap();
    let mut found = Vec::new();
    for part in docs.split("<!-- setup: ").skip(1) {
        let (id, rest) = part.split_once(" -->").unwrap();
        let body = rest.split_once("```").unwrap().1;
        let (_lang, body) = body.split_once('\n').unwrap();
        found.push((id.to_string(), body.split_once("```").unwrap().0.to_string()));
    }
    found
}

/// `value` with every "memdir" string (the program) replaced by `program`.
fn with_program(value: Value, program: &str) -> Value {
    match value {
        Value::String(s) if s == "memdir" => Value::String(program.into()),
        Value::String(s) if s.starts_with("memdir hook ") => Value::String(s.replacen("memdir", program, 1)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| with_program(v, program)).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, with_program(v, program))).collect())
        }
        other => other,
    }
}

#[test]
#[cfg(target_os = "linux")]
fn every_snippet_in_the_docs_is_what_setup_writes() {
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    let program = program.to_str().unwrap();
    let snippets = documented_snippets();
    let ids: Vec<&str> = snippets.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["claude", "cursor", "vscode", "codex", "gemini", "opencode", "windsurf", "cline", "zed"]
    );
    for (id, snippet) in snippets {
        let tmp = tempfile::tempdir().unwrap();
        let out = memdir(tmp.path(), &["setup", "--client", &id, "--yes"]);
        assert!(out.status.success(), "{id}: {}", text(&out));
        let file =
            text(&out).lines().find_map(|l| l.split_once(": create ").map(|(_, f)| f.to_string())).unwrap();
        let written = std::fs::read_to_string(&file).unwrap();
        if id == "codex" {
            let parse = |t: &str| t.parse::<toml_edit::DocumentMut>().unwrap();
            let (doc, mine) = (parse(&snippet), parse(&written));
            let entry = |d: &toml_edit::DocumentMut, key: &str| d["mcp_servers"]["memdir"][key].to_string();
            assert_eq!(
                entry(&doc, "command").trim().replace("\"memdir\"", &format!("\"{program}\"")),
                entry(&mine, "command").trim()
            );
            assert_eq!(entry(&doc, "args"), entry(&mine, "args"));
        } else {
            let documented = with_program(serde_json::from_str(&snippet).unwrap(), program);
            assert_eq!(documented, jsonc_value(&written), "{id}: the docs show {snippet}");
        }
    }
}

#[test]
fn a_hand_written_memdir_entry_is_backed_up_when_replaced_and_comes_back_on_remove() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let file = home.join(".cursor/mcp.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mine = "{\n  \"mcpServers\": {\n    \"memdir\": { \"command\": \"/opt/memdir\", \"args\": [\"mcp\", \"--llm\", \"offline\"] }\n  }\n}\n";
    std::fs::write(&file, mine).unwrap();
    let out = memdir(home, &["setup", "--client", "cursor", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(home.join(".cursor/mcp.json.memdir-backup")).unwrap(), mine);
    assert!(!std::fs::read_to_string(&file).unwrap().contains("/opt/memdir"));

    let out = memdir(home, &["setup", "--client", "cursor", "--check"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Cursor: registered; the server answers (memdir "), "{}", text(&out));

    let out = memdir(home, &["setup", "--client", "cursor", "--remove", "--yes"]);
    assert!(text(&out).contains("restore from the backup"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mine, "the user's own entry is back");
    assert!(!home.join(".cursor/mcp.json.memdir-backup").exists(), "the backup has done its work");
}

/// issue 24, defect 12: an agent that rewrites its own file while setup writes it (read, change,
/// write; in place or through a rename, as agents and editors do) loses no update. Whichever of
/// the two writes last, every one of the agent's increments is in the file at the end; setup
/// either wrote (with the agent's writes up to then in its text) or refused and said why.
#[test]
#[cfg(unix)]
fn an_agent_rewriting_its_file_while_setup_writes_loses_no_update() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut outcomes = std::collections::BTreeMap::<&str, u32>::new();
    let started = std::time::Instant::now();
    for run in 0..40u64 {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(".cursor");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mcp.json");
        std::fs::write(&file, "{\"n\": 0}\n").unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let agent = {
            let (stop, file) = (stop.clone(), file.clone());
            std::thread::spawn(move || {
                // Agents that write often and rarely: a pause of up to 0.2, 5 or 50 ms.
                let pause = [200, 5_000, 50_000][run as usize % 3];
                let (mut made, mut seed) = (0u64, run * 2654435761 + 1);
                while !stop.load(Ordering::Relaxed) {
                    let mut value: Value =
                        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                    // A file without "n" has lost the agent's writes; the check below says so.
                    value["n"] = json!(value["n"].as_u64().unwrap_or(0) + 1);
                    if seed % 2 == 0 {
                        std::fs::write(&file, value.to_string()).unwrap();
                    } else {
                        let next = file.with_file_name(format!(".agent-{made}"));
                        std::fs::write(&next, value.to_string()).unwrap();
                        std::fs::rename(&next, &file).unwrap();
                    }
                    made += 1;
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    std::thread::sleep(std::time::Duration::from_micros(seed % pause));
                }
                made
            })
        };
        let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--yes"]);
        stop.store(true, Ordering::Relaxed);
        let made = agent.join().unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            value["n"],
            json!(made),
            "run {run}: an agent's write was lost; setup said: {}",
            text(&out)
        );
        let said = text(&out);
        let outcome = if out.status.success() {
            "setup wrote"
        } else if said.contains("changed while setup was writing") {
            "refused: written during the write"
        } else if said.contains("changed while setup was waiting") {
            "refused: written before the write"
        } else if said.contains("not valid JSON") {
            "refused: read half-written"
        } else {
            panic!("run {run}: {said}")
        };
        *outcomes.entry(outcome).or_default() += 1;
    }
    eprintln!("40 runs in {:?}: {outcomes:?}", started.elapsed());
}

/// issue 24, defect 13: a `<file>.memdir-backup` planted as a link, dangling or to a file
/// elsewhere, is never written through: setup refuses, names it, and changes nothing.
#[test]
#[cfg(unix)]
fn a_backup_planted_as_a_link_is_never_written_through() {
    for target_exists in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("elsewhere.json");
        if target_exists {
            std::fs::write(&target, "precious\n").unwrap();
        }
        let file = tmp.path().join(".cursor/mcp.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "{}\n").unwrap();
        std::os::unix::fs::symlink(&target, tmp.path().join(".cursor/mcp.json.memdir-backup")).unwrap();
        let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--yes"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(text(&out).contains("mcp.json.memdir-backup is a link"), "{}", text(&out));
        match target_exists {
            true => assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n"),
            false => assert!(!target.exists(), "the backup was written through the link"),
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
    }
}

/// issue 24, defect 14: the user's own arguments on memdir's entry (the `--llm` docs/mcp.md
/// recommends) and its environment survive running setup again, in every client's format:
/// unchanged when the entry is current, kept when setup updates it because the binary moved.
#[test]
#[cfg(target_os = "linux")]
fn running_setup_again_keeps_the_users_arguments_and_environment() {
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    let program = program.to_str().unwrap();
    let llm = ["--llm", "command:my-model"];
    for (client, file, keys, _) in expected(program) {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(file);
        assert!(memdir(tmp.path(), &["setup", "--client", client, "--yes"]).status.success());
        let edit = |command: &str| {
            let mut value = jsonc_value(&std::fs::read_to_string(&path).unwrap());
            let entry = keys.iter().fold(&mut value, |at, key| &mut at[key]);
            if client == "opencode" {
                entry["command"] = json!([command, "mcp", llm[0], llm[1]]);
                entry["environment"] = json!({ "MY_KEY": "1" });
            } else {
                entry["command"] = json!(command);
                entry["args"] = json!(["mcp", llm[0], llm[1]]);
                entry["env"] = json!({ "MY_KEY": "1" });
            }
            std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        };
        edit(program);
        let mine = std::fs::read_to_string(&path).unwrap();
        let out = memdir(tmp.path(), &["setup", "--client", client, "--yes"]);
        assert!(text(&out).contains("already registered"), "{client}: {}", text(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), mine, "{client}");

        edit("/where/it/was/memdir");
        let out = memdir(tmp.path(), &["setup", "--client", client, "--yes"]);
        assert!(out.status.success(), "{client}: {}", text(&out));
        let value = jsonc_value(&std::fs::read_to_string(&path).unwrap());
        let entry = keys.iter().fold(&value, |at, key| &at[key]);
        if client == "opencode" {
            assert_eq!(entry["command"], json!([program, "mcp", llm[0], llm[1]]), "{client}");
            assert_eq!(entry["environment"], json!({ "MY_KEY": "1" }), "{client}");
        } else {
            assert_eq!(entry["command"], json!(program), "{client}");
            assert_eq!(entry["args"], json!(["mcp", llm[0], llm[1]]), "{client}");
            assert_eq!(entry["env"], json!({ "MY_KEY": "1" }), "{client}");
        }
    }

    // Codex's TOML, with the environment as its own table and a comment in the entry.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(".codex/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mine = |command: &str| {
        format!(
            "[mcp_servers.memdir]\ncommand = \"{command}\"\n# my model\nargs = [\"mcp\", \"--llm\", \"command:my-model\"]\n\n[mcp_servers.memdir.env]\nMY_KEY = \"1\"\n"
        )
    };
    std::fs::write(&path, mine(program)).unwrap();
    let out = memdir(tmp.path(), &["setup", "--client", "codex", "--yes"]);
    assert!(text(&out).contains("already registered"), "{}", text(&out));
    std::fs::write(&path, mine("/where/it/was/memdir")).unwrap();
    let out = memdir(tmp.path(), &["setup", "--client", "codex", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), mine(program), "only the command changed");
}

/// issue 24, defect 16: with `mcpServers` twice, JSON readers (the clients among them) see the
/// last one only, so that is the one `--check` reads and setup writes and removes from.
#[test]
fn with_the_servers_key_twice_setup_and_check_act_on_the_last_which_the_client_reads() {
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    let program = program.to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let shadowed = json!({ "memdir": { "command": program, "args": ["mcp"] } });
    std::fs::write(
        &file,
        format!("{{\n  \"mcpServers\": {shadowed},\n  \"mcpServers\": {{ \"other\": {{ \"command\": \"x\" }} }}\n}}\n"),
    )
    .unwrap();
    let seen = || {
        serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap()["mcpServers"].clone()
    };
    let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--check"]);
    assert!(text(&out).contains("Cursor: not registered"), "{}", text(&out));

    let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        seen(),
        json!({ "other": { "command": "x" }, "memdir": { "command": program, "args": ["mcp"] } })
    );
    let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--check"]);
    assert!(text(&out).contains("Cursor: registered; the server answers"), "{}", text(&out));

    let out = memdir(tmp.path(), &["setup", "--client", "cursor", "--remove", "--yes"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(seen(), json!({ "other": { "command": "x" } }));
}

/// issue 24 (lower): a 100 MB `.claude.json` took setup 1.6 GB. Files over 32 MB are refused,
/// named, and left as they are.
#[test]
fn a_file_too_large_to_edit_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(".claude.json");
    std::fs::File::create(&file).unwrap().set_len(33 << 20).unwrap();
    let out = memdir(tmp.path(), &["setup", "--client", "claude", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(".claude.json: larger than 32 MB, more than setup edits"), "{}", text(&out));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 33 << 20);
    let out = memdir(tmp.path(), &["setup", "--client", "claude", "--check"]);
    assert!(text(&out).contains("larger than 32 MB"), "{}", text(&out));
}

/// Every file under `dir`, by relative path, with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
#[cfg(target_os = "linux")]
fn hooks_go_beside_the_users_own_and_remove_leaves_every_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    // A user who already has hooks of their own, with a comment, in Codex and Gemini CLI.
    let codex_hooks = "{\n  // my notifier\n  \"hooks\": { \"Stop\": [{ \"hooks\": [{ \"type\": \"command\", \"command\": \"notify-send done\" }] }] }\n}\n";
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::write(home.join(".codex/hooks.json"), codex_hooks).unwrap();
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/settings.json"), "{ \"theme\": \"dark\" }\n").unwrap();
    // And a Cline hook of the user's own, under a name memdir does not use.
    std::fs::create_dir_all(home.join("Documents/Cline/Hooks")).unwrap();
    std::fs::write(home.join("Documents/Cline/Hooks/PreToolUse"), "#!/bin/sh\necho '{}'\n").unwrap();
    let before = tree(home);
    let clients = [
        "--client", "codex", "--client", "gemini", "--client", "cursor", "--client", "vscode", "--client",
        "copilot", "--client", "cline", "--client", "cn",
    ];
    let added = memdir(home, &[&["setup", "--yes"][..], &clients].concat());
    assert!(added.status.success(), "{}", text(&added));
    let said = text(&added);
    assert!(said.contains("type /hooks"), "Codex's trust step is named: {said}");
    assert!(said.contains("needs a model"), "the stop hook's model is asked for once: {said}");
    for (file, event) in [
        (".codex/hooks.json", "UserPromptSubmit"),
        (".gemini/settings.json", "BeforeAgent"),
        (".cursor/hooks.json", "beforeSubmitPrompt"),
        (".copilot/hooks/memdir.json", "UserPromptSubmit"),
        (".continue/settings.json", "UserPromptSubmit"),
    ] {
        let written = jsonc_value(&std::fs::read_to_string(home.join(file)).unwrap());
        let command = written["hooks"][event].to_string();
        assert!(command.contains(" hook ") && command.contains(" prompt"), "{file}: {written}");
    }
    let codex = std::fs::read_to_string(home.join(".codex/hooks.json")).unwrap();
    assert!(codex.contains("// my notifier") && codex.contains("notify-send done"), "{codex}");
    let gemini = jsonc_value(&std::fs::read_to_string(home.join(".gemini/settings.json")).unwrap());
    assert_eq!(gemini["theme"], "dark");
    assert!(
        gemini["mcpServers"]["memdir"].is_object() && gemini["hooks"]["AfterAgent"].is_array(),
        "{gemini}"
    );

    // Cline's hooks are scripts named after its events, each memdir's by its mark.
    for (event, ours) in
        [("TaskStart", "session-start"), ("UserPromptSubmit", "prompt"), ("TaskComplete", "stop")]
    {
        let script = home.join("Documents/Cline/Hooks").join(event);
        let body = std::fs::read_to_string(&script).unwrap();
        assert!(
            body.starts_with("#!/bin/sh\n# memdir's hook")
                && body.ends_with(&format!(" hook cline {ours}\n")),
            "{body}"
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o755, "{event}");
    }
    assert!(said.contains("config.yaml"), "cn's MCP entry is left to the user: {said}");

    let again = memdir(home, &[&["setup", "--yes"][..], &clients].concat());
    // Codex 2, Gemini 1, Cursor 2, VS Code 1, Copilot 1, Cline 4 (its servers and 3 scripts), cn 1.
    assert_eq!(text(&again).matches("already registered").count(), 12, "{}", text(&again));

    let removed = memdir(home, &[&["setup", "--yes", "--remove"][..], &clients].concat());
    assert!(removed.status.success(), "{}", text(&removed));
    assert_eq!(tree(home), before, "{}", text(&removed));
}

#[test]
#[cfg(target_os = "linux")]
fn the_stop_hook_carries_the_model_setup_was_given() {
    let tmp = tempfile::tempdir().unwrap();
    let out =
        memdir(tmp.path(), &["setup", "--yes", "--client", "codex", "--llm", "command:my model --fast"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("needs a model"), "{}", text(&out));
    let hooks = jsonc_value(&std::fs::read_to_string(tmp.path().join(".codex/hooks.json")).unwrap());
    let stop = hooks["hooks"]["Stop"][0]["hooks"][0]["command"].as_str().unwrap();
    assert!(stop.ends_with(" hook codex stop --llm 'command:my model --fast'"), "{stop}");
    let prompt = hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"].as_str().unwrap();
    assert!(!prompt.contains("--llm"), "prompt time never waits for a model: {prompt}");
}

#[test]
#[cfg(target_os = "linux")]
fn a_cline_hook_of_the_users_own_is_never_replaced_or_removed() {
    // R14: Cline runs one script per event; one the user wrote under the name memdir would use
    // stays, and setup says why it did not install that one.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let theirs = home.join("Documents/Cline/Hooks/UserPromptSubmit");
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    std::fs::write(&theirs, "#!/bin/sh\nexec my-own-recall\n").unwrap();
    let out = memdir(home, &["setup", "--yes", "--client", "cline"]);
    assert!(!out.status.success(), "a file setup could not write is reported: {}", text(&out));
    assert!(text(&out).contains("did not write"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "#!/bin/sh\nexec my-own-recall\n");
    let removed = memdir(home, &["setup", "--yes", "--remove", "--client", "cline"]);
    assert!(removed.status.success(), "{}", text(&removed));
    assert!(theirs.is_file() && !home.join("Documents/Cline/Hooks/TaskComplete").exists());
}

#[test]
#[cfg(target_os = "linux")]
fn a_run_without_llm_keeps_the_model_and_remove_takes_every_script_back_out() {
    // Issue 26: the VS Code extension runs setup without --llm; a stop hook the user gave a
    // model keeps it. A hook script setup rewrote is its own, so --remove deletes it rather
    // than bringing an older one back from a backup.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let before = tree(home);
    for client in ["codex", "cline"] {
        let out = memdir(home, &["setup", "--yes", "--client", client, "--llm", "command:my model"]);
        assert!(out.status.success(), "{}", text(&out));
        let again = memdir(home, &["setup", "--yes", "--client", client]);
        assert!(again.status.success(), "{}", text(&again));
        assert!(
            !text(&again).contains(": add memdir to") && !text(&again).contains(": create "),
            "{}",
            text(&again)
        );
    }
    let stop = std::fs::read_to_string(home.join("Documents/Cline/Hooks/TaskComplete")).unwrap();
    assert!(stop.ends_with(" hook cline stop --llm 'command:my model'\n"), "{stop}");
    let codex = std::fs::read_to_string(home.join(".codex/hooks.json")).unwrap();
    assert!(codex.contains("--llm 'command:my model'"), "{codex}");
    // A new model replaces the script; no backup of memdir's own old one is kept.
    let out = memdir(home, &["setup", "--yes", "--client", "cline", "--llm", "command:other"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!home.join("Documents/Cline/Hooks/TaskComplete.memdir-backup").exists());
    for client in ["codex", "cline"] {
        let out = memdir(home, &["setup", "--yes", "--remove", "--client", client]);
        assert!(out.status.success(), "{}", text(&out));
    }
    assert_eq!(tree(home), before, "every file as it was");
}
