//! The stdio framing in front of the MCP SDK: every line a client sends is checked before the
//! SDK sees it, so each malformed message gets the JSON-RPC error the specification names
//! instead of silence (issue 18, item 10):
//!
//! - a line that is not JSON: `-32700`, id `null`;
//! - JSON that is not a request, notification or response (a batch, a missing method, a wrong
//!   `jsonrpc`): `-32600`, with the message's id when it has a usable one;
//! - a request whose params are missing or not an object where the method needs them: `-32602`
//!   with its id;
//! - a line over [`MAX_LINE_BYTES`]: `-32600`, id `null`, and the rest of the line is skipped
//!   without holding it in memory.
//!
//! Everything else passes through unchanged; the server's own lines go out whole, one at a
//! time, so an error written here never lands inside one of them.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest message a client may send. The largest legitimate one is a save with a 64 KiB body.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Methods whose params must be an object.
const NEEDS_PARAMS: &[&str] = &["initialize", "tools/call", "resources/read", "prompts/get"];

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to the server.
    Forward,
    /// Answer it with this error response, and do not forward it.
    Reply(Value),
    /// Nothing to do (a blank line).
    Skip,
}

/// Checks one line (without its newline).
pub fn check(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let message: Value = match serde_json::from_slice(line) {
        Ok(message) => message,
        Err(e) => return Verdict::Reply(error(&Value::Null, -32700, &format!("Parse error: {e}"))),
    };
    let Some(object) = message.as_object() else {
        return Verdict::Reply(error(
            &Value::Null,
            -32600,
            "Invalid request: send one JSON-RPC object per line (batches are not supported)",
        ));
    };
    let id = match object.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Verdict::Reply(error(&id, -32600, "Invalid request: \"jsonrpc\" must be \"2.0\""));
    }
    let Some(method) = object.get("method") else {
        // A response to a request the server made: it needs an id and a result or an error.
        let response =
            object.contains_key("id") && (object.contains_key("result") || object.contains_key("error"));
        return if response {
            Verdict::Forward
        } else {
            Verdict::Reply(error(&id, -32600, "Invalid request: it has no \"method\""))
        };
    };
    let Some(method) = method.as_str() else {
        return Verdict::Reply(error(&id, -32600, "Invalid request: \"method\" must be a string"));
    };
    if object.contains_key("id") && id.is_null() {
        return Verdict::Reply(error(&id, -32600, "Invalid request: \"id\" must be a string or a number"));
    }
    let params = object.get("params");
    let object_params = params.is_some_and(Value::is_object);
    if params.is_some() && !object_params && !params.is_some_and(Value::is_array) {
        return Verdict::Reply(error(&id, -32602, &format!("Invalid params for {method}: send an object")));
    }
    if NEEDS_PARAMS.contains(&method) && !object_params && !id.is_null() {
        return Verdict::Reply(error(&id, -32602, &format!("Invalid params for {method}: send an object")));
    }
    Verdict::Forward
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Carries the client's lines from `input` to the server's `to_server`, answering malformed
/// ones itself, and the server's lines from `from_server` to `output`. Ends when both sides
/// have closed.
pub async fn relay(
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
    mut to_server: impl AsyncWrite + Unpin + Send + 'static,
    from_server: impl AsyncRead + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let (lines, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
    let replies = lines.clone();
    let inbound = tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let line = match read_bounded_line(&mut input).await? {
                Line::End => break,
                Line::TooLong => {
                    let reply = error(
                        &Value::Null,
                        -32600,
                        &format!("Invalid request: a message over {MAX_LINE_BYTES} bytes was refused"),
                    );
                    let _ = replies.send(reply.to_string().into_bytes());
                    continue;
                }
                Line::Text(line) => line,
            };
            match check(&line) {
                Verdict::Forward => {
                    to_server.write_all(&line).await?;
                    to_server.write_all(b"\n").await?;
                    to_server.flush().await?;
                }
                Verdict::Reply(reply) => {
                    let _ = replies.send(reply.to_string().into_bytes());
                }
                Verdict::Skip => {}
            }
        }
        // End of input: the server sees its input close and finishes.
        to_server.shutdown().await
    });
    let outbound = tokio::spawn(async move {
        let mut from_server = BufReader::new(from_server);
        let mut line = Vec::new();
        while from_server.read_until(b'\n', &mut line).await? > 0 {
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            let _ = lines.send(std::mem::take(&mut line));
        }
        Ok::<(), std::io::Error>(())
    });
    while let Some(line) = outbox.recv().await {
        output.write_all(&line).await?;
        output.write_all(b"\n").await?;
        output.flush().await?;
    }
    inbound.await.map_err(std::io::Error::other)??;
    outbound.await.map_err(std::io::Error::other)??;
    Ok(())
}

enum Line {
    Text(Vec<u8>),
    TooLong,
    End,
}

/// The next line, without its newline; a line over [`MAX_LINE_BYTES`] is consumed and reported
/// without being kept.
async fn read_bounded_line(input: &mut (impl AsyncBufReadExt + Unpin)) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text(line),
            });
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + chunk.len() > MAX_LINE_BYTES {
            too_long = true;
            line = Vec::new();
        }
        if !too_long {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buffer.len());
        input.consume(used);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Text(line) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> (Value, i64) {
        match check(line.as_bytes()) {
            Verdict::Reply(r) => (r["id"].clone(), r["error"]["code"].as_i64().unwrap()),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn each_malformed_message_gets_its_error() {
        assert_eq!(reply("this is not json"), (Value::Null, -32700));
        assert_eq!(reply("{\"jsonrpc\":\"2.0\",\"id\":1"), (Value::Null, -32700));
        assert_eq!(reply("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"), (Value::Null, -32600));
        assert_eq!(reply("{\"jsonrpc\":\"2.0\",\"id\":9}"), (json!(9), -32600));
        assert_eq!(reply("{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"ping\"}"), (json!("a"), -32600));
        assert_eq!(reply("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}"), (json!(3), -32600));
        assert_eq!(reply("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}"), (Value::Null, -32600));
        assert_eq!(reply("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\"}"), (json!(8), -32602));
        assert_eq!(
            reply("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":3}"),
            (json!(8), -32602)
        );
    }

    #[test]
    fn good_messages_pass_through() {
        for ok in [
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"memory_index\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}",
        ] {
            assert_eq!(check(ok.as_bytes()), Verdict::Forward, "{ok}");
        }
        assert_eq!(check(b"  "), Verdict::Skip);
    }
}
