//! Issue 18, item 10: `memdir mcp` answers every malformed line with the JSON-RPC error the
//! specification names — parse errors with -32700 and a null id, invalid requests with their
//! id, missing params with -32602, an over-long line with an error — and keeps serving.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn malformed_lines_get_errors_and_the_server_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["mcp", "--cwd", tmp.path().to_str().unwrap()])
        .env("HOME", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let mut lines =
        vec![init.to_string(), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()];
    lines.push("this is not json".into());
    lines.push(r#"{"jsonrpc":"2.0","id":"x1","method":"tools/call"}"#.into());
    lines.push(r#"{"jsonrpc":"2.0","id":9}"#.into());
    // 9 MiB in one line: over the limit, answered, and skipped without being kept.
    lines.push(format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"memory_recall","arguments":{{"query":"{}"}}}}}}"#, "a".repeat(9 << 20)));
    lines.push(r#"{"jsonrpc":"2.0","id":10,"method":"tools/list"}"#.into());
    let writer = std::thread::spawn(move || {
        for line in lines {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin
    });
    let mut answers: Vec<Value> = Vec::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    while answers.len() < 6 {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        answers.push(serde_json::from_str(&line).unwrap());
    }
    drop(writer.join().unwrap());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let code = |id: Value| {
        answers
            .iter()
            .filter(|a| a["id"] == id)
            .filter_map(|a| a["error"]["code"].as_i64())
            .collect::<Vec<_>>()
    };
    assert_eq!(code(Value::Null), [-32700, -32600], "{answers:#?}");
    assert_eq!(code(json!("x1")), [-32602]);
    assert_eq!(code(json!(9)), [-32600]);
    assert!(answers.iter().any(|a| a["id"] == 10 && a["result"]["tools"].is_array()), "still serving");
    assert!(answers.iter().all(|a| a["id"] != 3), "the over-long request is not processed");
}
