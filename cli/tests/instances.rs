//! How many core instances an operation costs (issue 45), counted through the harness's call
//! recording: every core a command makes is numbered, and its calls carry the number. Starting
//! an instance is the dearest part of a call, and each one a host starts is a place where it
//! made a decision of its own (where the memory is, what may be written) between two calls.
//! Counts, not timings: the machine's speed never enters.

use memdir_harness::calls::Log;
use serde_json::json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

struct Project {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&repo).unwrap();
        Project { _tmp: tmp, home, repo }
    }

    fn env(&self) -> Vec<(String, String)> {
        vec![("HOME".into(), self.home.display().to_string())]
    }

    /// Runs memdir in this process with its core calls recorded: standard output, and the calls.
    fn run(&self, args: &[&str], stdin: Option<Vec<u8>>) -> (String, Vec<memdir_harness::calls::Call>) {
        let log = Log::default();
        let argv = std::iter::once("memdir").chain(args.iter().copied()).map(String::from);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status =
            memdir_cli::run_with_stdin(argv, self.env(), stdin, &mut out, &mut err, Some(log.clone()));
        assert_eq!(status, 0, "{}", String::from_utf8_lossy(&err));
        let calls = log.lock().unwrap().clone();
        (String::from_utf8(out).unwrap(), calls)
    }

    fn memory_dir(&self) -> PathBuf {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let argv = ["memdir", "path", "--cwd", self.repo.to_str().unwrap()].map(String::from);
        assert_eq!(memdir_cli::run(argv, self.env(), &mut out, &mut err), 0);
        PathBuf::from(String::from_utf8(out).unwrap().trim())
    }
}

fn instances(calls: &[memdir_harness::calls::Call]) -> BTreeSet<u64> {
    calls.iter().map(|c| c.instance).collect()
}

fn memory(dir: &Path, name: &str, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!("---\nname: {name}\ndescription: {body}\nmetadata:\n  type: project\n---\n{body}\n");
    std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
    let index = format!("- [{name}]({name}.md) — {body}\n");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("MEMORY.md"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, index.as_bytes()))
        .unwrap();
}

/// A user prompt through a hook is one instance, on both backends: the client's payload read,
/// the plan, the turn's log, the session, recall and the framed text, and the client's answer.
/// It used to be five.
#[test]
fn a_hook_prompt_costs_one_instance() {
    let p = Project::new();
    let dir = p.memory_dir();
    memory(&dir, "deploy-process", "deploys go through the staging cluster before production");
    for backend in ["component", "native"] {
        let payload = json!({
            "session_id": format!("s-{backend}"), "cwd": p.repo, "hook_event_name": "UserPromptSubmit",
            "prompt": "how do deploys reach production?"
        });
        let args = ["--backend", backend, "hook", "codex", "prompt"];
        let (out, calls) = p.run(&args, Some(payload.to_string().into_bytes()));
        let funcs: Vec<&str> = calls.iter().map(|c| c.func.as_str()).collect();
        assert_eq!(instances(&calls).len(), 1, "{backend}: {funcs:?}");
        assert_eq!(funcs, ["hook.read", "paths.plan", "hook.prompt", "hook.answer"], "{backend}");
        // And it did the work: the memory was injected and the session kept by the core.
        let done = &calls[2].result["val"]["val"]["text"];
        assert!(done.as_str().is_some_and(|t| t.contains("staging cluster")), "{backend}: {done}");
        // What the hook printed is the core's answer, word for word.
        assert_eq!(calls[3].result.as_str(), Some(out.as_str()), "{backend}");
        let printed: serde_json::Value = serde_json::from_str(&out).unwrap();
        let context = printed["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or("");
        assert!(context.contains("staging cluster"), "{backend}: {out}");
        let sessions: Vec<_> = std::fs::read_dir(dir.join(".sessions")).unwrap().flatten().collect();
        assert!(
            sessions.iter().any(|e| e.file_name().to_string_lossy() == format!("codex-s-{backend}.json"))
        );
    }
}

/// A session's start is one instance too: the payload, the plan, then guidance and MEMORY.md,
/// the session files and their pruning in one core operation, and the answer.
#[test]
fn a_hook_session_start_costs_one_instance() {
    let p = Project::new();
    memory(&p.memory_dir(), "deploy-process", "deploys go through the staging cluster before production");
    let payload =
        json!({"session_id": "s1", "cwd": p.repo, "hook_event_name": "SessionStart", "source": "startup"});
    let (_, calls) = p.run(&["hook", "codex", "session-start"], Some(payload.to_string().into_bytes()));
    let funcs: Vec<&str> = calls.iter().map(|c| c.func.as_str()).collect();
    assert_eq!(instances(&calls).len(), 1, "{funcs:?}");
    assert_eq!(funcs, ["hook.read", "paths.plan", "hook.session-start", "hook.answer"]);
    let text = &calls[2].result["val"]["text"];
    assert!(text.as_str().is_some_and(|t| t.contains("deploy-process")), "{text}");
}

/// A check is one instance: the core plans its grant (the memory directory writable because it
/// exists) and runs on it; the host no longer asks where the memory is first.
#[test]
fn a_check_costs_one_instance_planned_by_the_core() {
    let p = Project::new();
    let dir = p.memory_dir();
    memory(&dir, "deploy-process", "deploys go through the staging cluster before production");
    let (_, calls) = p.run(&["check", "--cwd", p.repo.to_str().unwrap()], None);
    let funcs: Vec<&str> = calls.iter().map(|c| c.func.as_str()).collect();
    assert_eq!(instances(&calls).len(), 1, "{funcs:?}");
    assert_eq!(funcs.first(), Some(&"paths.plan"), "{funcs:?}");
    assert!(!funcs.contains(&"paths.locate"), "{funcs:?}");
    let write = &calls[0].result["val"]["write"];
    assert_eq!(write, &json!([dir.display().to_string()]), "{funcs:?}");
}

/// An MCP `memory_save` into a project with no memory yet is one instance and one tool call:
/// it used to be six, four of which asked where the memory is, and the server parsed the
/// arguments and worded the answer itself.
#[test]
fn an_mcp_save_costs_one_instance_and_one_tool_call() {
    let p = Project::new();
    let cwd = p.repo.to_str().unwrap();
    let frame = |v: serde_json::Value| format!("{v}\n");
    let hello = frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        + &frame(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let save = frame(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "memory_save", "arguments": {"type": "project", "name": "fish-shell",
        "description": "the user works in the fish shell", "body": "The user works in the fish shell.\n\n**Why:** they said so.\n\n**How to apply:** write fish syntax in shell examples."}}}));
    let (_, started) = p.run(&["mcp", "--cwd", cwd], Some(hello.clone().into_bytes()));
    let (_, saved) = p.run(&["mcp", "--cwd", cwd], Some((hello + &save).into_bytes()));
    assert!(p.memory_dir().join("fish-shell.md").is_file(), "the save did not land");
    // The calls the save added beyond the server's start.
    let start_funcs: Vec<&str> = started.iter().map(|c| c.func.as_str()).collect();
    let save_calls: Vec<_> = saved.iter().skip(started.len()).cloned().collect();
    let funcs: Vec<&str> = save_calls.iter().map(|c| c.func.as_str()).collect();
    assert_eq!(funcs, ["tools.operation-of", "paths.plan", "tools.call"], "start {start_funcs:?}");
    let n = instances(&save_calls).len();
    assert_eq!(n, 1, "an MCP save took {n} instances: {funcs:?}");
}

/// An MCP `memory_recall` is one instance too: the core recalls within the connection's
/// session, keeps the receipt and words the answer; the server only keeps the session it hands
/// back for the next call.
#[test]
fn an_mcp_recall_costs_one_instance_and_keeps_the_session() {
    let p = Project::new();
    memory(&p.memory_dir(), "deploy-process", "deploys go through the staging cluster before production");
    let cwd = p.repo.to_str().unwrap();
    let frame = |v: serde_json::Value| format!("{v}\n");
    let hello = frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        + &frame(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let recall = |id: u32| {
        frame(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "memory_recall", "arguments": {"query": "how do deploys reach production?"}}}))
    };
    let (_, started) = p.run(&["mcp", "--cwd", cwd], Some(hello.clone().into_bytes()));
    let (_, calls) = p.run(&["mcp", "--cwd", cwd], Some((hello + &recall(2) + &recall(3)).into_bytes()));
    let recalls: Vec<_> = calls.iter().skip(started.len()).cloned().collect();
    let funcs: Vec<&str> = recalls.iter().map(|c| c.func.as_str()).collect();
    let one = ["tools.operation-of", "paths.plan", "tools.call"];
    assert_eq!(funcs, [one, one].concat(), "{funcs:?}");
    assert_eq!(instances(&recalls[..3]).len(), 1, "{funcs:?}");
    // The first call gave the memory; the second, in the session the first handed back, not again.
    // The first call gave the memory; the second, in the session the first handed back, not again.
    let text = |i: usize| recalls[i].result["val"]["val"]["text"].as_str().unwrap_or("").to_string();
    assert!(text(2).contains("staging cluster"), "{}", recalls[2].result);
    assert!(!text(5).contains("staging cluster") && !text(5).is_empty(), "{}", recalls[5].result);
    let session = recalls[5].args[0]["session"].as_str().unwrap_or("");
    assert!(session.contains("deploy-process"), "the second call carried the first's session: {session}");
}
