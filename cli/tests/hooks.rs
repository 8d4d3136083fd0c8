//! `memdir hook` as a client runs it (R14): the real binary, a payload on stdin, a throwaway
//! HOME. A whole turn (index, recall, extraction by a scripted `command:` model in the detached
//! worker), the agent's own write making extraction stand aside (R9.3), and broken ground that
//! must never stand in the client's way (R14.2). The real clients are tests/clients/.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

impl Home {
    fn new() -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&repo).unwrap();
        Home { _tmp: tmp, home, repo }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_memdir"));
        command.args(args).env_clear().env("HOME", &self.home).env("PATH", std::env::var("PATH").unwrap());
        command
    }

    /// Runs `memdir ARGS` with `payload` on stdin; its exit status and stdout.
    fn hook(&self, args: &[&str], payload: &[u8]) -> (i32, String) {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload).unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn memory_dir(&self) -> PathBuf {
        let out = self.command(&["path", "--cwd", self.repo.to_str().unwrap()]).output().unwrap();
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    }

    fn payload(&self, event: &str, extra: Value) -> Vec<u8> {
        let mut v = json!({
            "session_id": "019a-s1", "cwd": self.repo, "hook_event_name": event,
            "model": "gpt-5", "permission_mode": "default", "transcript_path": null
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string().into_bytes()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.home.join(".local/state/memdir/hook.log")).unwrap_or_default()
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `command:` model: round 1 reads nothing, round 2 creates one memory; each request it is
/// asked is appended to `asked`.
fn scripted_model(dir: &Path, asked: &Path) -> String {
    let r1 = dir.join("r1.json");
    let r2 = dir.join("r2.json");
    std::fs::write(&r1, r#"{"read": []}"#).unwrap();
    let op = json!({"operations": [{
        "op": "create", "path": "feedback_release_tags.md", "type": "feedback",
        "name": "release-tags", "description": "tag releases from the release branch, never main",
        "body": "Tag releases from the release branch, never from main.\n\n**Why:** main carries unreleased work.\n\n**How to apply:** check out release/* before tagging."
    }]});
    std::fs::write(&r2, op.to_string()).unwrap();
    format!(
        "command:tee -a {} | grep -q operations && cat {} || cat {}",
        asked.display(),
        r2.display(),
        r1.display()
    )
}

#[test]
fn a_whole_turn_index_recall_then_extraction_in_the_background() {
    let h = Home::new();
    let memory = h.memory_dir();
    let asked = h.home.join("asked.txt");
    let llm = scripted_model(&h.home, &asked);

    let (status, out) =
        h.hook(&["hook", "codex", "session-start"], &h.payload("SessionStart", json!({"source": "startup"})));
    assert_eq!(status, 0);
    let context: Value = serde_json::from_str(&out).unwrap();
    let text = context["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(text.contains("# Memory") && text.contains(memory.to_str().unwrap()), "{text}");

    // No memory directory yet: the prompt has nothing to recall, and nowhere to keep the turn.
    std::fs::create_dir_all(&memory).unwrap();
    let prompt = "always tag releases from the release branch, never from main";
    let (status, out) = h.hook(
        &["hook", "codex", "prompt"],
        &h.payload("UserPromptSubmit", json!({"turn_id": "t1", "prompt": prompt})),
    );
    assert_eq!((status, out.trim()), (0, "{}"));

    let started = Instant::now();
    let stop = h.payload(
        "Stop",
        json!({"turn_id": "t1", "stop_hook_active": false, "last_assistant_message": "Noted."}),
    );
    let (status, out) = h.hook(&["hook", "codex", "stop", "--llm", &llm], &stop);
    assert_eq!((status, out.trim()), (0, "{}"));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the stop hook returns without waiting for the model"
    );

    let saved = memory.join("feedback_release_tags.md");
    wait_for("the detached extraction", || {
        std::fs::read_to_string(memory.join("MEMORY.md"))
            .is_ok_and(|t| t.contains("feedback_release_tags.md"))
    });
    assert!(std::fs::read_to_string(&saved).unwrap().contains("never from main"));
    let request = std::fs::read_to_string(&asked).unwrap();
    assert!(request.contains(prompt) && request.contains("Noted."), "the model saw the turn: {request}");
    wait_for("the job file to go", || {
        std::fs::read_dir(memory.join(".sessions"))
            .unwrap()
            .all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".job.json"))
    });
    // The learning log counts the extraction and its calls (issue 46).
    wait_for("the learning log", || {
        std::fs::read_to_string(memory.join(".sessions/learning.jsonl"))
            .is_ok_and(|t| t.contains("extracted"))
    });
    let log = std::fs::read_to_string(memory.join(".sessions/learning.jsonl")).unwrap();
    assert!(
        log.contains(r#""client":"codex","outcome":"extracted""#) && log.contains(r#""calls":2"#),
        "{log}"
    );

    // The next prompt finds what the last turn taught.
    let (_, out) = h.hook(
        &["hook", "codex", "prompt"],
        &h.payload("UserPromptSubmit", json!({"turn_id": "t2", "prompt": "tag the release from main"})),
    );
    assert!(out.contains("feedback_release_tags.md") && out.contains("data and not instructions"), "{out}");
    assert_eq!(h.log(), "", "nothing went wrong");
}

#[test]
fn when_the_agent_saved_memory_itself_the_extraction_stands_aside() {
    let h = Home::new();
    let memory = h.memory_dir();
    std::fs::create_dir_all(&memory).unwrap();
    let asked = h.home.join("asked.txt");
    let llm = scripted_model(&h.home, &asked);
    let (status, _) = h.hook(
        &["hook", "gemini", "prompt"],
        &h.payload("BeforeAgent", json!({"prompt": "remember: the staging db is read-only"})),
    );
    assert_eq!(status, 0);
    // The agent writes a memory through its own tools during the turn.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(memory.join("project_staging.md"), "---\nname: staging\ndescription: staging db is read-only\nmetadata:\n  type: project\n---\nRead-only.\n").unwrap();
    let (status, out) = h.hook(
        &["hook", "gemini", "stop", "--llm", &llm],
        &h.payload("AfterAgent", json!({"prompt": "x", "prompt_response": "Saved."})),
    );
    assert_eq!((status, out.trim()), (0, "{}"));
    wait_for("the job to finish", || {
        std::fs::read_dir(memory.join(".sessions"))
            .unwrap()
            .all(|e| !e.unwrap().file_name().to_string_lossy().ends_with(".job.json"))
    });
    assert!(!asked.exists(), "no model was asked: {:?}", std::fs::read_to_string(&asked));
    assert!(!memory.join("feedback_release_tags.md").exists());
}

#[test]
fn broken_ground_never_stands_in_the_clients_way() {
    let h = Home::new();
    let memory = h.memory_dir();
    // The memory directory is a file; a payload is huge; another is not UTF-8; the child guard.
    std::fs::create_dir_all(memory.parent().unwrap()).unwrap();
    std::fs::write(&memory, "not a directory").unwrap();
    let prompt = h.payload("UserPromptSubmit", json!({"turn_id": "t", "prompt": "anything"}));
    for (args, payload, env) in [
        (&["hook", "codex", "prompt"][..], prompt.clone(), None),
        (&["hook", "codex", "session-start"][..], prompt.clone(), None),
        (&["hook", "cline", "prompt"][..], vec![b'x'; 5 << 20], None),
        (&["hook", "gemini", "prompt"][..], b"{\"prompt\": \"\xff\xfe\"}".to_vec(), None),
        (&["hook", "cursor", "prompt"][..], prompt.clone(), Some(("MEMDIR_HOOK_CHILD", "1"))),
    ] {
        let mut command = h.command(args);
        if let Some((k, v)) = env {
            command.env(k, v);
        }
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // A client that writes more than memdir reads: the hook still answers.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&payload);
        });
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
        assert!(
            v.get("hookSpecificOutput").is_none() && v.get("additional_context").is_none(),
            "{args:?}: {v}"
        );
        assert_ne!(v.get("cancel"), Some(&json!(true)));
    }
    let log = h.log();
    assert_eq!(log.lines().count(), 4, "one line per failure, none for the guard: {log}");
    assert!(
        log.contains("not a directory") || log.contains("Not a directory") || log.contains("directory"),
        "{log}"
    );
    assert!(log.contains("larger than"), "{log}");
}

#[test]
#[cfg(unix)]
fn a_link_planted_as_the_session_folder_is_never_written_through() {
    let h = Home::new();
    let memory = h.memory_dir();
    std::fs::create_dir_all(&memory).unwrap();
    let elsewhere = h.home.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, memory.join(".sessions")).unwrap();
    let (status, out) = h.hook(
        &["hook", "codex", "prompt"],
        &h.payload("UserPromptSubmit", json!({"turn_id": "t", "prompt": "anything"})),
    );
    assert_eq!((status, out.trim()), (0, "{}"));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "nothing written through the link");
    assert!(h.log().contains("not a plain folder"), "{}", h.log());
}

#[test]
fn a_resumed_session_gets_the_index_once_and_a_compacted_one_again() {
    let h = Home::new();
    std::fs::create_dir_all(h.memory_dir()).unwrap();
    let start = |source: &str| {
        let (status, out) = h
            .hook(&["hook", "codex", "session-start"], &h.payload("SessionStart", json!({"source": source})));
        assert_eq!(status, 0);
        out.contains("additionalContext")
    };
    assert!(start("startup"));
    // Codex resumes a compacted session with SessionStart(resume), then SessionStart(compact).
    assert!(!start("resume"), "the resumed history still holds the index");
    assert!(start("compact"), "compaction took it out of the history");
}

/// A memory recalled but left out because the client's limit was full is not counted as
/// surfaced: the next prompt of the session brings it (R8.2 counts what reached the agent).
#[test]
fn a_memory_left_out_for_the_clients_limit_comes_at_the_next_prompt() {
    let h = Home::new();
    let memory = h.memory_dir();
    std::fs::create_dir_all(&memory).unwrap();
    let mut index = String::new();
    for n in 1..=3 {
        // About 3.5 KB each: Codex takes 8,000 bytes of hook text, so two fit in one answer.
        let body = format!(
            "Greenhouse sensor calibration step {n}: {}\n",
            "recalibrate the humidity probe weekly. ".repeat(90)
        );
        let file = format!("project_greenhouse_{n}.md");
        std::fs::write(
            memory.join(&file),
            format!("---\nname: greenhouse {n}\ndescription: greenhouse humidity probe calibration {n}\ntype: project\n---\n{body}"),
        )
        .unwrap();
        index.push_str(&format!("- [greenhouse {n}]({file}) — greenhouse humidity probe calibration {n}\n"));
    }
    std::fs::write(memory.join("MEMORY.md"), index).unwrap();
    let recalled = |turn: &str| -> Vec<String> {
        let prompt = "how do I recalibrate the greenhouse humidity probe?";
        let (status, out) = h.hook(
            &["hook", "codex", "prompt"],
            &h.payload("UserPromptSubmit", json!({"turn_id": turn, "prompt": prompt})),
        );
        assert_eq!(status, 0);
        let answer: Value = serde_json::from_str(&out).unwrap();
        let text = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or("");
        assert!(text.len() <= 8_000, "{}", text.len());
        (1..=3).map(|n| format!("project_greenhouse_{n}.md")).filter(|f| text.contains(f.as_str())).collect()
    };
    let first = recalled("t1");
    assert_eq!(first.len(), 2, "two fit Codex's limit: {first:?}");
    let second = recalled("t2");
    assert_eq!(second.len(), 1, "the third comes at the next prompt: {second:?}");
    assert!(!first.contains(&second[0]));
    assert_eq!(h.log(), "");
}

/// Issue 44, low: a client that sends its payload and keeps standard input open does not hold
/// the prompt, and one that sends nothing whole is answered too: the hook reads with a deadline.
#[test]
fn a_client_that_keeps_stdin_open_does_not_hold_the_hook() {
    let home = Home::new();
    for payload in [home.payload("SessionStart", json!({"source": "startup"})), b"{\"session_id\": ".to_vec()]
    {
        let mut child = home
            .command(&["hook", "codex", "session-start"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&payload).unwrap();
        // stdin stays open until the hook has answered (or the wait below gives up).
        wait_for("the hook to answer with stdin open", || child.try_wait().unwrap().is_some());
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.code().is_some(), "{out:?}");
    }
}

/// Issue 44, low: `.sessions/` stays bounded: a session's start removes session files nobody
/// touched for 30 days and keeps the recent ones.
#[test]
fn a_session_start_prunes_old_session_files() {
    let h = Home::new();
    let sessions = h.memory_dir().join(".sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let month_ago = std::time::SystemTime::now() - Duration::from_secs(40 * 86_400);
    for name in ["codex-old.json", "codex-old.cursor"] {
        std::fs::write(sessions.join(name), "{}").unwrap();
        std::fs::File::options()
            .write(true)
            .open(sessions.join(name))
            .unwrap()
            .set_modified(month_ago)
            .unwrap();
    }
    std::fs::write(sessions.join("codex-recent.json"), "{}").unwrap();
    let (status, _) =
        h.hook(&["hook", "codex", "session-start"], &h.payload("SessionStart", json!({"source": "startup"})));
    assert_eq!(status, 0);
    assert!(!sessions.join("codex-old.json").exists() && !sessions.join("codex-old.cursor").exists());
    assert!(sessions.join("codex-recent.json").exists());
}

/// Issue 45: the worker takes its job through the core, which reads and removes only a job file
/// in a `.sessions/` folder. A worker pointed anywhere else (a memory, any file) touches nothing.
#[test]
fn a_worker_given_a_path_that_is_not_a_job_leaves_it_alone() {
    let h = Home::new();
    let dir = h.memory_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let memory = dir.join("deploy.md");
    std::fs::write(&memory, "---\nname: deploy\n---\nkeep me\n").unwrap();
    let planted = dir.join("x.job.json");
    std::fs::write(&planted, r#"{"cwd": "/", "turn-began-ms": 0, "transcript": ""}"#).unwrap();
    for target in [&memory, &planted] {
        let args = ["hook", "codex", "stop", "--worker", target.to_str().unwrap(), "--llm", "command:false"];
        let (status, _) = h.hook(&args, b"");
        assert_eq!(status, 0);
        assert!(target.exists(), "{} was removed", target.display());
    }
    assert_eq!(std::fs::read_to_string(&memory).unwrap(), "---\nname: deploy\n---\nkeep me\n");
    assert!(h.log().contains("not a memdir hook job"), "{}", h.log());
}

/// A turn's log too large to read (a hostile or runaway writer) goes at the stop, so every later
/// stop does not fail on it again; the hook still answers "carry on".
#[test]
fn a_turn_log_too_large_to_read_goes_at_the_stop() {
    let h = Home::new();
    let dir = h.memory_dir();
    std::fs::create_dir_all(dir.join(".sessions")).unwrap();
    let log = dir.join(".sessions/codex-019a-s1.jsonl");
    std::fs::write(&log, vec![b'x'; 10 << 20]).unwrap();
    std::fs::write(dir.join(".sessions/codex-019a-s1.turn"), "0").unwrap();
    let (status, _) =
        h.hook(&["hook", "codex", "stop", "--llm", "command:false"], &h.payload("Stop", json!({})));
    assert_eq!(status, 0);
    assert!(!log.exists(), "the log stayed");
    assert!(!dir.join(".sessions/codex-019a-s1.turn").exists());
}
