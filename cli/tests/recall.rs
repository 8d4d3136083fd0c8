//! Recall end to end (R7, R8): a multi-turn session through the CLI on both backends, and each
//! model adapter against a loopback stub that checks the wire format its API expects and
//! replays its real error shapes.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs the CLI in-process; returns (status, stdout, stderr).
fn memdir(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut argv = vec!["memdir".to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = memdir_cli::run(argv, env, &mut out, &mut err);
    (status, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn recall_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let (status, out, err) = memdir(args, env);
    assert_eq!(status, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn memory(dir: &Path, name: &str, description: &str, body: &str) {
    std::fs::write(
        dir.join(name),
        format!("---\nname: {name}\ndescription: {description}\ntype: reference\n---\n{body}"),
    )
    .unwrap();
}

/// Sets a file's modification time `secs` seconds from now (negative: in the past).
fn touch(path: &Path, secs: i64) {
    let now = std::time::SystemTime::now();
    let delta = std::time::Duration::from_secs(secs.unsigned_abs());
    let when = if secs < 0 { now - delta } else { now + delta };
    std::fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
}

#[test]
fn a_session_stops_at_60_kb_and_resumes_after_compaction_on_both_backends() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        std::fs::create_dir(&dir).unwrap();
        for i in 0..20 {
            let body = "deploy step with a line long enough to fill the budget quickly\n".repeat(100);
            memory(&dir, &format!("reference_deploy_{i:02}.md"), "deployment runbook notes", &body);
        }
        let session = tmp.path().join("session.json");
        let (dir, session) = (dir.to_str().unwrap(), session.to_str().unwrap());
        let home = tmp.path().to_str().unwrap();
        let env = [("HOME", home)];
        let turn = || {
            recall_json(
                &[
                    "--backend",
                    backend,
                    "recall",
                    "deployment runbook",
                    "--memory-dir",
                    dir,
                    "--session",
                    session,
                    "--json",
                ],
                &env,
            )
        };
        let mut surfaced = std::collections::BTreeSet::new();
        for expected_session in [20_480, 40_960, 61_440] {
            let r = turn();
            assert_eq!(r["skipped"], Value::Null, "{backend}: {r}");
            assert_eq!(r["attachments"].as_array().unwrap().len(), 5, "{backend}");
            assert_eq!(
                (r["turn_bytes"].as_u64(), r["session_bytes"].as_u64()),
                (Some(20_480), Some(expected_session))
            );
            for a in r["attachments"].as_array().unwrap() {
                assert!(
                    surfaced.insert(a["path"].as_str().unwrap().to_string()),
                    "{backend}: surfaced twice: {a}"
                );
            }
        }
        let spent = turn();
        assert_eq!(spent["skipped"], "budget", "{backend}: {spent}");
        let (status, out, _) = memdir(&["session", "compact", "--session", session], &env);
        assert_eq!((status, out.contains("15 memories")), (0, true), "{out}");
        let resumed = turn();
        assert_eq!(resumed["skipped"], Value::Null, "{backend}: {resumed}");
        assert_eq!(resumed["session_bytes"], 20_480);
    }
}

/// One request as the stub saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A canned answer: status, extra headers, and the body (`None`: accept and never answer).
type Reply = (u16, Vec<(&'static str, String)>, Option<String>);

/// A loopback HTTP server answering each request with the next [`Reply`] (the last one
/// repeats), recording what it saw.
fn stub(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for (i, stream) in listener.incoming().enumerate().take(20) {
            let Ok(mut stream) = stream else { return };
            let Some(request) = read_request(&mut stream) else { continue };
            log.lock().unwrap().push(request);
            let (status, headers, body) = &replies[i.min(replies.len() - 1)];
            match body {
                None => held.push(stream),
                Some(body) => {
                    let mut response = format!(
                        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                        body.len()
                    );
                    for (k, v) in headers {
                        response.push_str(&format!("{k}: {v}\r\n"));
                    }
                    response.push_str("content-type: application/json\r\n\r\n");
                    response.push_str(body);
                    let _ = stream.write_all(response.as_bytes());
                }
            }
        }
    });
    (addr, seen)
}

fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers.iter().find(|(k, _)| k == "content-length")?.1.parse().ok()?;
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Seen { path, headers, body: serde_json::from_slice(&body).ok()? })
}

fn demo_dir(tmp: &Path) -> String {
    let dir = tmp.join("mem");
    std::fs::create_dir(&dir).unwrap();
    memory(&dir, "feedback_testing.md", "Integration tests hit a real Postgres", "Real database.\n");
    memory(&dir, "reference_grafana.md", "Latency dashboards live in Grafana", "grafana.internal\n");
    dir.to_str().unwrap().to_string()
}

fn recall_with(llm: &str, dir: &str, env: &[(&str, &str)]) -> Value {
    recall_json(
        &["recall", "which dashboards show API latency", "--memory-dir", dir, "--llm", llm, "--json"],
        env,
    )
}

#[test]
fn anthropic_requests_carry_the_messages_api_shape_and_a_forced_tool() {
    let tool_reply = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "select_memories",
                     "input": {"selected_memories": ["reference_grafana.md"]}}],
        "stop_reason": "tool_use"
    });
    let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let (base, seen) = stub(vec![
        (529, vec![("retry-after", "0".into())], Some(overloaded.to_string())),
        (200, vec![], Some(tool_reply.to_string())),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let env =
        [("HOME", "/nonexistent"), ("ANTHROPIC_API_KEY", "sk-test"), ("ANTHROPIC_BASE_URL", base.as_str())];
    let r = recall_with("anthropic:claude-haiku", &dir, &env);
    assert_eq!(r["selector"], "model:anthropic:claude-haiku");
    assert_eq!(r["selected"], json!(["reference_grafana.md"]), "{r}");

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "one retry after the 529");
    let req = &seen[1];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("sk-test"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert!(req.header("content-type").unwrap().starts_with("application/json"));
    assert_eq!(req.body["model"], "claude-haiku");
    assert_eq!(req.body["max_tokens"], 256);
    assert!(req.body["system"].as_str().unwrap().contains("at most five"));
    assert_eq!(req.body["messages"][0]["role"], "user");
    assert!(req.body["messages"][0]["content"].as_str().unwrap().contains("reference_grafana.md"));
    assert_eq!(req.body["tool_choice"], json!({"type": "tool", "name": "select_memories"}));
    assert_eq!(req.body["tools"][0]["input_schema"]["required"], json!(["selected_memories"]));
}

#[test]
fn anthropic_errors_degrade_to_no_attachments_with_the_apis_message() {
    let invalid =
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}});
    let (base, seen) = stub(vec![(401, vec![], Some(invalid.to_string()))]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let env = [("HOME", "/nonexistent"), ("ANTHROPIC_API_KEY", "bad"), ("ANTHROPIC_BASE_URL", base.as_str())];
    let r = recall_with("anthropic:claude-haiku", &dir, &env);
    assert_eq!(r["attachments"], json!([]));
    let diagnostic = r["diagnostics"][0].as_str().unwrap();
    assert!(diagnostic.contains("401") && diagnostic.contains("invalid x-api-key"), "{diagnostic}");
    assert_eq!(seen.lock().unwrap().len(), 1, "a 401 is not retried");
}

#[test]
fn openai_requests_use_chat_completions_with_a_json_schema() {
    let reply = json!({
        "id": "chatcmpl-1", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "{\"selected_memories\":[\"reference_grafana.md\"]}"}}]
    });
    let rate_limited = json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}});
    let (base, seen) = stub(vec![
        (429, vec![("retry-after", "0".into())], Some(rate_limited.to_string())),
        (200, vec![], Some(reply.to_string())),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let base_v1 = format!("{base}/v1");
    let env = [("HOME", "/nonexistent"), ("OPENAI_API_KEY", "sk-oa"), ("OPENAI_BASE_URL", base_v1.as_str())];
    let r = recall_with("openai:gpt-4o-mini", &dir, &env);
    assert_eq!(r["selected"], json!(["reference_grafana.md"]), "{r}");
    let seen = seen.lock().unwrap();
    let req = &seen[1];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-oa"));
    assert_eq!(req.body["model"], "gpt-4o-mini");
    assert_eq!(req.body["messages"][0]["role"], "system");
    assert_eq!(req.body["messages"][1]["role"], "user");
    assert_eq!(req.body["response_format"]["type"], "json_schema");
    assert_eq!(req.body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        req.body["response_format"]["json_schema"]["schema"]["properties"]["selected_memories"]["type"],
        "array"
    );
}

#[test]
fn a_local_openai_compatible_server_needs_no_key_and_server_errors_are_retried_then_reported() {
    let busy = json!({"error": {"message": "model is loading", "type": "server_error"}});
    let (base, seen) = stub(vec![(503, vec![("retry-after", "0".into())], Some(busy.to_string()))]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let env = [("HOME", "/nonexistent"), ("OPENAI_BASE_URL", base.as_str()), ("MEMDIR_LLM_RETRIES", "2")];
    let r = recall_with("openai:llama3", &dir, &env);
    assert_eq!(r["attachments"], json!([]));
    assert!(r["diagnostics"][0].as_str().unwrap().contains("model is loading"), "{r}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3, "two retries, then the error");
    assert_eq!(seen[0].header("authorization"), None);
}

#[test]
fn a_model_that_never_answers_times_out_instead_of_hanging() {
    let (base, _seen) = stub(vec![(200, vec![], None)]);
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let env =
        [("HOME", "/nonexistent"), ("OPENAI_BASE_URL", base.as_str()), ("MEMDIR_LLM_TIMEOUT_MS", "300")];
    let start = std::time::Instant::now();
    let r = recall_with("openai:slow", &dir, &env);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert!(r["diagnostics"][0].as_str().unwrap().contains("did not answer"), "{r}");
    let env = [("HOME", "/nonexistent"), ("MEMDIR_LLM_TIMEOUT_MS", "300")];
    let r = recall_with("command:sleep 30", &dir, &env);
    assert!(r["diagnostics"][0].as_str().unwrap().contains("did not answer"), "{r}");
}

/// Issue 18, item 4: a `command:` model bypassed the timeout by leaving a child that holds
/// stdout (`sleep 60 & echo …` took the whole minute), and a timed-out command's children kept
/// running. Now the deadline holds whoever has the pipe, and the command's process group goes.
/// The bound below is the test's, not a timing assertion: a hang fails it.
#[test]
fn a_command_model_cannot_outlive_its_timeout_nor_leave_children_running() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let pid_file = tmp.path().join("child.pid");
    let pid = pid_file.to_str().unwrap().to_string();
    let reply = r#"{\"selected_memories\": [\"reference_grafana.md\"]}"#;
    for (llm, answered) in [
        // Answers, but a child keeps stdout open: the reply counts, the child goes.
        (format!("command:sleep 60 & echo $! > {pid}; echo \"{reply}\""), true),
        // Never answers: a timeout, and the child it waits for goes with it.
        (format!("command:sleep 60 & echo $! > {pid}; wait"), false),
    ] {
        let _ = std::fs::remove_file(&pid_file);
        let (tx, rx) = std::sync::mpsc::channel();
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = tx.send(recall_with(
                &llm,
                &dir,
                &[("HOME", "/nonexistent"), ("MEMDIR_LLM_TIMEOUT_MS", "1000")],
            ));
        });
        let r =
            rx.recv_timeout(Duration::from_secs(40)).expect("recall returned long before the child's minute");
        if answered {
            assert_eq!(r["selected"], json!(["reference_grafana.md"]), "{r}");
        } else {
            assert!(r["diagnostics"][0].as_str().unwrap().contains("did not answer"), "{r}");
        }
        let child = std::fs::read_to_string(&pid_file).unwrap().trim().to_string();
        let alive = || {
            Path::new(&format!("/proc/{child}")).exists()
                && !std::fs::read_to_string(format!("/proc/{child}/stat"))
                    .unwrap_or_default()
                    .contains(") Z ")
        };
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            !alive()
        });
        assert!(gone, "the model's child {child} is still running");
    }
}

#[test]
fn the_command_adapter_sends_the_request_as_json_on_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let captured = tmp.path().join("request.json");
    let cmd = format!(
        "cat > {} && echo '{{\"selected_memories\": [\"feedback_testing.md\"]}}'",
        captured.display()
    );
    let r = recall_json(
        &[
            "recall",
            "are the integration tests mocked",
            "--memory-dir",
            &dir,
            "--llm",
            &format!("command:{cmd}"),
            "--json",
            "--recent-tool",
            "Bash",
        ],
        &[("HOME", "/nonexistent")],
    );
    assert_eq!(r["selected"], json!(["feedback_testing.md"]));
    let request: Value = serde_json::from_str(&std::fs::read_to_string(captured).unwrap()).unwrap();
    assert_eq!(request["max_tokens"], 256);
    assert_eq!(request["tier"], "small");
    assert_eq!(request["schema"]["required"], json!(["selected_memories"]));
    assert!(request["user"].as_str().unwrap().contains("Tools in use: Bash"));
    assert!(request["user"].as_str().unwrap().contains("- [reference] feedback_testing.md ("));
}

/// Issue 17, item 3: the model is offered the offline ranker's shortlist, sized by
/// `MEMDIR_RECALL_SHORTLIST` (0: every memory), and the memories the request names are on it.
#[test]
fn the_model_is_offered_the_shortlist_and_zero_offers_every_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    for i in 0..60 {
        memory(&dir, &format!("reference_note_{i:02}.md"), &format!("Note {i} about the office plants"), "x");
    }
    memory(&dir, "reference_kafka.md", "Kafka consumer lag dashboard for the billing topics", "x");
    let offered = |shortlist: &str| -> Vec<String> {
        let captured = tmp.path().join(format!("request-{shortlist}.json"));
        let cmd = format!("cat > {} && echo '{{\"selected_memories\": []}}'", captured.display());
        for backend in ["native", "component"] {
            recall_json(
                &[
                    "--backend",
                    backend,
                    "recall",
                    "why is kafka lag growing on billing",
                    "--memory-dir",
                    dir.to_str().unwrap(),
                    "--llm",
                    &format!("command:{cmd}"),
                    "--json",
                ],
                &[("HOME", "/nonexistent"), ("MEMDIR_RECALL_SHORTLIST", shortlist)],
            );
        }
        let request: Value = serde_json::from_str(&std::fs::read_to_string(captured).unwrap()).unwrap();
        request["user"].as_str().unwrap().lines().filter(|l| l.starts_with("- [")).map(String::from).collect()
    };
    let short = offered("8");
    assert_eq!(short.len(), 8, "{short:#?}");
    assert!(short.iter().any(|l| l.contains("reference_kafka.md")), "{short:#?}");
    assert_eq!(offered("0").len(), 61);
}

#[test]
fn the_offline_selector_finds_the_labelled_memories() {
    let set: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/offline-selector/set.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for (file, fields) in set["memories"].as_object().unwrap() {
        let kind = file.split('_').next().unwrap();
        let text = format!(
            "---\nname: {}\ndescription: {}\ntype: {kind}\n---\nBody.\n",
            fields[0].as_str().unwrap(),
            fields[1].as_str().unwrap()
        );
        std::fs::write(tmp.path().join(file), text).unwrap();
    }
    let dir = tmp.path().to_str().unwrap();
    let (mut found, mut expected, mut misses) = (0, 0, Vec::new());
    for case in set["queries"].as_array().unwrap() {
        let query = case[0].as_str().unwrap();
        let r = recall_json(&["recall", query, "--memory-dir", dir, "--json"], &[("HOME", "/nonexistent")]);
        // Injected whole or named by its entry (issue 27): either way the agent sees it.
        let selected: Vec<&str> =
            r["attachments"].as_array().unwrap().iter().map(|a| a["path"].as_str().unwrap()).collect();
        for want in case[1].as_array().unwrap() {
            expected += 1;
            if selected.contains(&want.as_str().unwrap()) {
                found += 1;
            } else {
                misses.push(format!("{query:?} missed {want} (got {selected:?})"));
            }
        }
    }
    let recall_at_5 = found as f64 / expected as f64;
    // Issue 27 raised the bar for naming a memory at all from one rare shared word to one and a
    // half, which keeps most requests that need no memory empty; two requests here share one
    // word only with their memory ("React", "summary") and now get nothing.
    assert!(found >= 10, "recall@5 = {recall_at_5:.2} ({found}/{expected}); misses: {misses:#?}");
}

/// Issue 18, item 10: a reply past what memdir reads is reported with its real size, not the
/// size of what was kept.
#[test]
fn an_oversized_command_reply_is_reported_with_its_real_size() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let r = recall_with("command:head -c 20000000 /dev/zero | tr '\\0' x", &dir, &[("HOME", "/nonexistent")]);
    let said = r["diagnostics"][0].as_str().unwrap();
    assert!(said.contains("replied with 20000000 bytes"), "{r}");
    assert_eq!(r["attachments"], json!([]));
}

/// Issue 27, item 3: the recall index never hides what another tool wrote. A memory edited in
/// place (an editor, a git pull) is read again; one added or removed is seen at once.
#[test]
fn the_recall_index_follows_files_other_tools_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    memory(dir, "reference_grafana.md", "latency dashboards live in grafana", "Grafana.");
    memory(dir, "reference_kafka.md", "the kafka brokers run in the eu cluster", "Kafka.");
    // Written an hour ago, so the index keeps them (it leaves out files changed in the last
    // two seconds).
    for file in ["reference_grafana.md", "reference_kafka.md"] {
        touch(&dir.join(file), -3600);
    }
    let selected = |query: &str| {
        let r = recall_json(
            &["recall", query, "--memory-dir", dir.to_str().unwrap(), "--json"],
            &[("HOME", "/nonexistent")],
        );
        // Injected whole or named: either way, found.
        let attachments = r["attachments"].as_array().unwrap().iter();
        attachments.map(|a| a["path"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(selected("where do the kafka brokers run?"), ["reference_kafka.md"]);
    let index =
        std::fs::read_to_string(dir.join(".memdir.index")).expect("the first recall writes the index");
    assert!(index.contains("reference_kafka.md"), "{index}");
    // Edited in place by another tool: new words, a later mtime.
    memory(dir, "reference_kafka.md", "the redpanda brokers replaced kafka in the us cluster", "Redpanda.");
    touch(&dir.join("reference_kafka.md"), 5);
    assert_eq!(selected("where do the redpanda brokers run?"), ["reference_kafka.md"]);
    // Added, and removed.
    memory(dir, "reference_sentry.md", "errors are reported to sentry under the shop project", "Sentry.");
    assert_eq!(selected("which sentry project gets the errors?"), ["reference_sentry.md"]);
    std::fs::remove_file(dir.join("reference_sentry.md")).unwrap();
    assert!(selected("which sentry project gets the errors?").is_empty());
}

/// Issue 45, item 6: `scan` and `manifest` read the memory index too, for files whose size and
/// time agree, and see exactly what reading the files shows: diagnostics and links included.
/// A planted entry proves the index was read; a file edited since is read again. Both backends.
#[test]
fn the_manifest_and_scan_read_the_memory_index_and_show_what_the_files_hold() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        memory(dir, "reference_grafana.md", "latency dashboards live in grafana", "See [[Kafka notes]].\n");
        std::fs::write(dir.join("crlf.md"), "---\r\nname: crlf\r\ndescription: line ends\r\n---\r\nbody\r\n")
            .unwrap();
        std::fs::write(dir.join("bad.md"), "---\nname: [unclosed\ntype: nonsense\n---\nbody [[grafana]]\n")
            .unwrap();
        for file in ["reference_grafana.md", "crlf.md", "bad.md"] {
            touch(&dir.join(file), -3600);
        }
        let d = dir.to_str().unwrap();
        let env = [("HOME", "/nonexistent")];
        let scan = || {
            recall_json(&["--backend", backend, "--now", "2026-12-06T00:00:00Z", "scan", d, "--json"], &env)
        };
        let manifest = || {
            let (status, out, err) = memdir(&["--backend", backend, "manifest", d], &env);
            assert_eq!(status, 0, "{err}");
            out
        };
        let (read, listed) = (scan(), manifest());
        assert!(!dir.join(".memdir.index").exists(), "{backend}: scan and manifest are granted no write");
        // A recall writes the index.
        recall_json(
            &[
                "--backend",
                backend,
                "recall",
                "where do the latency dashboards live?",
                "--memory-dir",
                d,
                "--json",
            ],
            &env,
        );
        let index = std::fs::read_to_string(dir.join(".memdir.index")).unwrap();
        assert!(index.contains("uses CRLF line ends") && index.contains("Kafka notes"), "{backend}: {index}");
        assert_eq!(scan(), read, "{backend}: the same scan through the index");
        assert_eq!(manifest(), listed, "{backend}: the same manifest through the index");
        // An entry changed in place is believed while size and time agree: it was read.
        std::fs::write(dir.join(".memdir.index"), index.replace("line ends", "line ENDS")).unwrap();
        assert!(manifest().contains("line ENDS"), "{backend}: the manifest read the index");
        // A file edited since is read again, whatever its entry says.
        std::fs::write(dir.join("crlf.md"), "---\nname: crlf\ndescription: line ends fixed\n---\nbody\n")
            .unwrap();
        touch(&dir.join("crlf.md"), -60);
        let fresh = manifest();
        assert!(fresh.contains("line ends fixed") && !fresh.contains("ENDS"), "{backend}: {fresh}");
    }
}

/// A host's temporary file from a write killed before its rename (`kill -9` mid-save) is
/// removed by a later recall once it is an hour old; a younger one may be a write in flight
/// and is left alone, as is a link that merely has the name. On both backends.
#[cfg(unix)]
#[test]
fn recall_sweeps_temporary_files_that_writes_left_behind() {
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir(dir.join("team")).unwrap();
        memory(dir, "reference_grafana.md", "latency dashboards live in grafana", "Grafana.");
        touch(&dir.join("reference_grafana.md"), -3600);
        for (name, age) in
            [(".memdir-tmp-1-old", -7200), ("team/.memdir-tmp-2-old", -7200), (".memdir-tmp-3-new", -60)]
        {
            std::fs::write(dir.join(name), "half a memory").unwrap();
            touch(&dir.join(name), age);
        }
        std::os::unix::fs::symlink("reference_grafana.md", dir.join(".memdir-tmp-4-link")).unwrap();
        let r = recall_json(
            &[
                "--backend",
                backend,
                "recall",
                "where do the latency dashboards live?",
                "--memory-dir",
                dir.to_str().unwrap(),
                "--json",
            ],
            &[("HOME", "/nonexistent")],
        );
        assert_eq!(r["selected"], serde_json::json!(["reference_grafana.md"]), "{backend}");
        assert!(!dir.join(".memdir-tmp-1-old").exists(), "{backend}: an hour-old one is swept");
        assert!(!dir.join("team/.memdir-tmp-2-old").exists(), "{backend}: in a folder too");
        assert!(dir.join(".memdir-tmp-3-new").exists(), "{backend}: a write in flight is left alone");
        assert!(dir.join(".memdir-tmp-4-link").symlink_metadata().is_ok(), "{backend}: a link is left alone");
        assert!(dir.join("reference_grafana.md").exists());
    }
}

/// Issue 27, item 3: a link planted where the recall index goes is neither read nor written
/// through, so recall (which may write there) cannot overwrite the memory it points to.
#[cfg(unix)]
#[test]
fn a_link_in_place_of_the_recall_index_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    memory(dir, "reference_grafana.md", "latency dashboards live in grafana", "Grafana.");
    touch(&dir.join("reference_grafana.md"), -3600);
    let before = std::fs::read(dir.join("reference_grafana.md")).unwrap();
    std::os::unix::fs::symlink("reference_grafana.md", dir.join(".memdir.index")).unwrap();
    let r = recall_json(
        &["recall", "where do the latency dashboards live?", "--memory-dir", dir.to_str().unwrap(), "--json"],
        &[("HOME", "/nonexistent")],
    );
    assert_eq!(r["selected"], serde_json::json!(["reference_grafana.md"]));
    assert_eq!(std::fs::read(dir.join("reference_grafana.md")).unwrap(), before, "the memory is untouched");
    assert!(std::fs::symlink_metadata(dir.join(".memdir.index")).unwrap().file_type().is_symlink());
}

/// An OpenAI-compatible `/v1/embeddings` reply with these vectors.
fn embeddings_reply(vectors: &[&[f32]]) -> Reply {
    let data: Vec<Value> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v}))
        .collect();
    (200, vec![], Some(json!({"object": "list", "data": data}).to_string()))
}

#[test]
fn an_embeddings_endpoint_finds_by_meaning_caches_by_content_and_never_decides_alone() {
    // Issue 27, item 2: the request shares no word with the memory it needs.
    let query = "the bedroom is still cold in the morning";
    let heating: &[f32] = &[0.9, 0.1, 0.0, 0.0];
    for backend in ["component", "native"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        std::fs::create_dir(&dir).unwrap();
        memory(&dir, "heating.md", "Thermostat schedules live in Home Assistant", "Edit the automation.\n");
        memory(&dir, "pnpm.md", "Use pnpm, never npm", "pnpm everywhere.\n");
        memory(&dir, "deploy.md", "Deploys go through the release train", "Fridays only.\n");
        for (name, age) in [("heating.md", -300), ("pnpm.md", -400), ("deploy.md", -500)] {
            touch(&dir.join(name), age);
        }
        let (base, seen) = stub(vec![
            // The request, then each memory newest first.
            embeddings_reply(&[&[1.0, 0.0, 0.0, 0.0], heating, &[0.0, 1.0, 0.0, 0.0], &[0.0, 0.0, 1.0, 0.0]]),
            // Then only the request: the memories' vectors are cached.
            embeddings_reply(&[&[1.0, 0.0, 0.0, 0.0]]),
            (500, vec![], Some(json!({"error": {"message": "out of memory"}}).to_string())),
        ]);
        let base_v1 = format!("{base}/v1");
        let env = [
            ("HOME", "/nonexistent"),
            ("MEMDIR_EMBEDDINGS_BASE_URL", base_v1.as_str()),
            // Given for OpenAI's server: never sent to another.
            ("OPENAI_API_KEY", "sk-not-for-this-server"),
        ];
        let dir = dir.to_str().unwrap();
        let recall = || {
            let args = ["--backend", backend, "recall", query, "--memory-dir", dir, "--json"];
            recall_json(&[&args[..], &["--embeddings", "openai:nomic-embed-text"]].concat(), &env)
        };
        let first = recall();
        assert_eq!(first["selected"], json!(["heating.md"]), "{backend}: {first}");
        assert_eq!(first["attachments"][0]["whole"], true);
        let second = recall();
        assert_eq!(second["selected"], json!(["heating.md"]), "{backend}: {second}");
        let third = recall();
        assert_eq!(third["selected"], json!([]), "{backend}: words alone find nothing here: {third}");
        let why = third["diagnostics"][0].as_str().unwrap();
        assert!(why.contains("out of memory") && why.contains("recalled by words alone"), "{why}");

        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3, "{backend}");
        assert_eq!(seen[0].path, "/v1/embeddings");
        assert!(seen.iter().all(|s| s.header("authorization").is_none()), "OpenAI's key stays OpenAI's");
        assert_eq!(seen[0].body["model"], "nomic-embed-text");
        let input = seen[0].body["input"].as_array().unwrap();
        assert_eq!(input[0], query);
        assert_eq!(input[1], "heating.md: Thermostat schedules live in Home Assistant");
        assert_eq!(seen[1].body["input"], json!([query]), "{backend}: cached by content");
        assert!(Path::new(dir).join(".memdir.embeddings").is_file());
    }
}

#[test]
fn hostile_vectors_leave_recall_to_words_and_cache_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    for (reply, expect) in [
        (embeddings_reply(&[&[1.0, 0.0]]), "1 vectors for 3 texts"),
        (embeddings_reply(&[&[1.0, 0.0], &[1.0, 0.0, 0.0], &[0.0, 1.0]]), "dimensions"),
        (embeddings_reply(&[&[0.0, 0.0], &[1.0, 0.0], &[0.0, 1.0]]), "all zeros"),
        ((200, vec![], Some("{\"data\": 7}".into())), "no `data` list"),
        // Beyond f32's range: infinity, which the core refuses and JSON cannot carry.
        (
            (
                200,
                vec![],
                Some(
                    "{\"data\": [{\"index\": 0, \"embedding\": [1e39, 0]}, {\"index\": 1, \"embedding\": [1, 0]}, \
                     {\"index\": 2, \"embedding\": [0, 1]}]}"
                        .into(),
                ),
            ),
            "finite numbers",
        ),
    ] {
        let (base, _) = stub(vec![reply]);
        let env = [("HOME", "/nonexistent"), ("MEMDIR_EMBEDDINGS_BASE_URL", base.as_str())];
        let r = recall_json(
            &[
                "recall",
                "which dashboards show API latency",
                "--memory-dir",
                &dir,
                "--json",
                "--embeddings",
                "openai:m",
            ],
            &env,
        );
        let why = r["diagnostics"][0].as_str().unwrap_or_default();
        assert!(why.contains(expect) && why.contains("by words alone"), "{expect}: {r}");
        assert_eq!(r["selected"], json!(["reference_grafana.md"]), "words still recall: {r}");
        assert!(!Path::new(&dir).join(".memdir.embeddings").exists(), "{expect}");
    }
}

#[test]
fn a_bad_embeddings_setting_or_an_exhausted_budget_costs_the_meaning_not_the_recall() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    let query = ["recall", "which dashboards show API latency", "--memory-dir", &dir, "--json"];
    // From the environment (what a hook sees on every prompt): a diagnostic.
    let r = recall_json(&query, &[("HOME", "/nonexistent"), ("MEMDIR_EMBEDDINGS", "bogus")]);
    assert_eq!(r["selected"], json!(["reference_grafana.md"]), "{r}");
    assert!(r["diagnostics"].to_string().contains("MEMDIR_EMBEDDINGS: unknown embeddings spec"), "{r}");
    // On the command line: refused.
    let (status, _, err) =
        memdir(&[&query[..], &["--embeddings", "bogus"]].concat(), &[("HOME", "/nonexistent")]);
    assert_eq!(status, 2, "{err}");
    // No time left: no call is made, and words recall.
    let (base, seen) = stub(vec![embeddings_reply(&[&[1.0]])]);
    let env = [
        ("HOME", "/nonexistent"),
        ("MEMDIR_EMBEDDINGS", "openai:m"),
        ("MEMDIR_EMBEDDINGS_BASE_URL", base.as_str()),
        ("MEMDIR_EMBEDDINGS_TIMEOUT_MS", "0"),
    ];
    let r = recall_json(&query, &env);
    assert_eq!(r["selected"], json!(["reference_grafana.md"]), "{r}");
    assert!(r["diagnostics"][0].as_str().unwrap().contains("recalled by words alone"), "{r}");
    assert!(seen.lock().unwrap().is_empty());
}
