//! The stdio framing in front of the MCP SDK: every line a client sends is checked before the
//! SDK sees it, so each malformed message gets the JSON-RPC error the specification names
//! instead of silence (issue 18, item 10):
//!
//! - a line that is not JSON: `-32700`, id `null`;
//! - JSON that is not a request, notification or response (a batch, a missing method, a wrong
//!   `jsonrpc`, a request the SDK cannot read): `-32600`, with the message's id when it has a
//!   usable one;
//! - a request whose params are missing, not an object, or not the method's (a `tools/call`
//!   whose `arguments` is a string): `-32602` with its id and what is wrong (issue 24);
//! - a line over [`MAX_LINE_BYTES`]: `-32600`, id `null`, and the rest of the line is skipped
//!   without holding it in memory.
//!
//! Everything else passes through unchanged; the server's own lines go out whole, one at a
//! time, so an error written here never lands inside one of them.
//!
//! **Back-pressure** (issue 24, defect 11). The SDK reads every request it is given and queues
//! its answers without limit, so a client that stops reading stdout while it keeps writing
//! would grow the server without bound. The relay is where reading can stop: it lets at most
//! [`MAX_PENDING`] requests (and [`MAX_PENDING_BYTES`] of their text) be with the server at
//! once, a request's slot freed when its answer is handed to the writer, and past that it
//! reads nothing more from the client until an answer goes out. The lines on their way to
//! stdout wait in a queue of [`OUTBOX`]. (The price: a client with more than [`MAX_PENDING`]
//! requests in flight, whose answer to the server's own request — sampling, roots — sits behind
//! them in its pipe, waits for that request's timeout.)
//!
//! For that every request must get exactly one answer, so the relay, not the SDK, takes a
//! client's `notifications/cancelled`: the SDK would drop the answer of a cancelled request,
//! and the relay could not tell a dropped answer from one still coming. The relay drops that
//! answer itself when it comes. (memdir's handlers do not watch the SDK's cancellation token,
//! so nothing else is lost; a tool call already running on the worker runs to its end either
//! way.) A request reusing the id of one still being answered is refused, for the same reason.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, RequestId};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Longest message a client may send. The largest legitimate one is a save with a 64 KiB body.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Requests the server may hold at once (read, not yet answered). Far more than a client has in
/// flight: the one worker answers tool calls one at a time.
pub const MAX_PENDING: usize = 64;
/// The text of the requests the server holds at once, at most: four of the longest.
pub const MAX_PENDING_BYTES: usize = 4 * MAX_LINE_BYTES;
/// Lines waiting for stdout, at most.
pub const OUTBOX: usize = 16;

/// Methods whose params must be an object.
const NEEDS_PARAMS: &[&str] = &["initialize", "tools/call", "resources/read", "prompts/get"];

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand this request to the server: it will answer it once, under this id.
    Request(RequestId),
    /// Hand it to the server (a notification, or a response to the server's own request).
    Forward,
    /// The client cancels its request with this id (if it named a usable one): not forwarded.
    Cancel(Option<RequestId>),
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
    if id.is_null() {
        if method == "notifications/cancelled" {
            let cancelled =
                params.and_then(|p| p.get("requestId")).and_then(|id| RequestId::deserialize(id).ok());
            return Verdict::Cancel(cancelled);
        }
        return Verdict::Forward;
    }
    let Ok(key) = RequestId::deserialize(&id) else {
        return Verdict::Reply(error(
            &Value::Null,
            -32600,
            "Invalid request: \"id\" must be a string or an integer",
        ));
    };
    // Read as the SDK will read it: what it cannot read it answers without an id, and a known
    // method whose params it cannot read it takes for an unknown one (-32601).
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Err(_) => Verdict::Reply(error(
            &id,
            -32600,
            &format!("Invalid request: it does not have the shape of an MCP {method} request"),
        )),
        Ok(JsonRpcMessage::Request(request)) => match request.request {
            ClientRequest::CustomRequest(_) => match params_error(method, params.unwrap_or(&Value::Null)) {
                Some(why) => {
                    Verdict::Reply(error(&id, -32602, &format!("Invalid params for {method}: {why}")))
                }
                None => Verdict::Request(key),
            },
            _ => Verdict::Request(key),
        },
        Ok(_) => Verdict::Forward,
    }
}

/// What is wrong with the params of a request for a method the server knows, which the SDK
/// could not read as that method's; None for other methods.
fn params_error(method: &str, params: &Value) -> Option<String> {
    use rmcp::model as m;
    fn read<T: serde::de::DeserializeOwned>(params: &Value) -> Option<String> {
        Some(
            T::deserialize(params)
                .err()
                .map_or_else(|| "they do not fit the method".into(), |e| e.to_string()),
        )
    }
    match method {
        "tools/call" => {
            if !params.get("name").is_some_and(Value::is_string) {
                return Some("\"name\" must be a string, the tool's name".into());
            }
            if params.get("arguments").is_some_and(|a| !a.is_object() && !a.is_null()) {
                return Some("\"arguments\" must be an object holding the tool's arguments".into());
            }
            read::<m::CallToolRequestParams>(params)
        }
        "initialize" => read::<m::InitializeRequestParams>(params),
        "resources/read" => read::<m::ReadResourceRequestParams>(params),
        "resources/subscribe" => read::<m::SubscribeRequestParams>(params),
        "resources/unsubscribe" => read::<m::UnsubscribeRequestParams>(params),
        "prompts/get" => read::<m::GetPromptRequestParams>(params),
        "completion/complete" => read::<m::CompleteRequestParams>(params),
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            read::<m::PaginatedRequestParams>(params)
        }
        _ => None,
    }
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// One line for stdout, and the request it answers (when it answers one).
struct Outgoing {
    line: Vec<u8>,
    answers: Option<RequestId>,
}

/// The requests the server holds, each with its share of the budget.
#[derive(Default)]
struct Pending {
    open: Mutex<HashMap<RequestId, Slot>>,
}

struct Slot {
    _count: OwnedSemaphorePermit,
    _bytes: OwnedSemaphorePermit,
    /// The client cancelled it: its answer is dropped.
    cancelled: bool,
}

impl Pending {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Slot>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The request a line from the server answers, if it is an answer.
fn answered(line: &[u8]) -> Option<RequestId> {
    // The SDK writes `jsonrpc`, then `id`, then `result`, `error` or (its own requests)
    // `method`: read that far and no further, since an answer can be large. Any other order is
    // read whole.
    if let Some(rest) = line.strip_prefix(br#"{"jsonrpc":"2.0","id":"#) {
        let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<RequestId>();
        if let Some(Ok(id)) = values.next() {
            let after = &rest[values.byte_offset()..];
            if after.starts_with(br#","result":"#) || after.starts_with(br#","error":"#) {
                return Some(id);
            }
            if after.starts_with(br#","method":"#) {
                return None;
            }
        }
    }
    #[derive(Deserialize)]
    struct Envelope {
        id: Option<RequestId>,
        method: Option<serde::de::IgnoredAny>,
    }
    let envelope: Envelope = serde_json::from_slice(line).ok()?;
    if envelope.method.is_some() { None } else { envelope.id }
}

/// The budget a request of `len` bytes takes from [`MAX_PENDING_BYTES`], in KiB.
fn kib(len: usize) -> u32 {
    u32::try_from(len.div_ceil(1024).max(1)).unwrap_or(u32::MAX)
}

/// Carries the client's lines from `input` to the server's `to_server`, answering malformed
/// ones itself, and the server's lines from `from_server` to `output`, with back-pressure (see
/// the module's notes). Ends when both sides have closed.
pub async fn relay(
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
    mut to_server: impl AsyncWrite + Unpin + Send + 'static,
    from_server: impl AsyncRead + Unpin + Send + 'static,
) -> std::io::Result<()> {
    let (lines, mut outbox) = mpsc::channel::<Outgoing>(OUTBOX);
    let replies = lines.clone();
    let pending = Arc::new(Pending::default());
    let writer_pending = pending.clone();
    let count = Arc::new(Semaphore::new(MAX_PENDING));
    let bytes = Arc::new(Semaphore::new(MAX_PENDING_BYTES / 1024));
    let inbound = tokio::spawn(async move {
        let reply = async |reply: Value| {
            // Waits while stdout is behind: the client's own errors are answers too.
            let _ = replies.send(Outgoing { line: reply.to_string().into_bytes(), answers: None }).await;
        };
        let mut input = BufReader::new(input);
        loop {
            let line = match read_bounded_line(&mut input).await? {
                Line::End => break,
                Line::TooLong => {
                    reply(error(
                        &Value::Null,
                        -32600,
                        &format!("Invalid request: a message over {MAX_LINE_BYTES} bytes was refused"),
                    ))
                    .await;
                    continue;
                }
                Line::Text(line) => line,
            };
            match check(&line) {
                Verdict::Request(id) => {
                    if pending.open().contains_key(&id) {
                        let id = id.into_json_value();
                        let message =
                            format!("Invalid request: id {id} is taken by a request not yet answered");
                        reply(error(&id, -32600, &message)).await;
                        continue;
                    }
                    // Here the relay stops reading while the server holds its fill.
                    let closed = |_| std::io::Error::other("the relay's budget closed");
                    let count = count.clone().acquire_owned().await.map_err(closed)?;
                    let bytes = bytes.clone().acquire_many_owned(kib(line.len())).await.map_err(closed)?;
                    pending.open().insert(id, Slot { _count: count, _bytes: bytes, cancelled: false });
                    to_server.write_all(&line).await?;
                    to_server.write_all(b"\n").await?;
                    to_server.flush().await?;
                }
                Verdict::Forward => {
                    to_server.write_all(&line).await?;
                    to_server.write_all(b"\n").await?;
                    to_server.flush().await?;
                }
                Verdict::Cancel(Some(id)) => {
                    if let Some(slot) = pending.open().get_mut(&id) {
                        slot.cancelled = true;
                    }
                }
                Verdict::Cancel(None) => {}
                Verdict::Reply(error) => reply(error).await,
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
            let answers = answered(&line);
            // Waits while stdout is behind, and the server's answers wait in turn.
            let _ = lines.send(Outgoing { line: std::mem::take(&mut line), answers }).await;
        }
        Ok::<(), std::io::Error>(())
    });
    while let Some(Outgoing { line, answers }) = outbox.recv().await {
        // The slot is freed as the answer leaves the queue, before it is written: a client that
        // has read an answer can reuse its id.
        let slot = answers.and_then(|id| writer_pending.open().remove(&id));
        if slot.is_some_and(|slot| slot.cancelled) {
            continue;
        }
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
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncBufReadExt, DuplexStream};

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
        // What the SDK would answer without an id (issue 24): answered here, with it.
        assert_eq!(reply(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":[]}"#), (json!(4), -32600));
        assert_eq!(reply(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#), (Value::Null, -32600));
    }

    #[test]
    fn a_known_method_with_params_not_its_own_is_invalid_params() {
        // issue 24, lower item: the SDK took these for unknown methods (-32601, its message the
        // method's name).
        let message = |line: &str| match check(line.as_bytes()) {
            Verdict::Reply(r) => {
                assert_eq!(r["error"]["code"], -32602, "{line}");
                r["error"]["message"].as_str().unwrap().to_string()
            }
            other => panic!("{line}: {other:?}"),
        };
        let call =
            |params: &str| format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{params}}}"#);
        assert_eq!(
            message(&call(r#"{"name":"memory_index","arguments":"{}"}"#)),
            "Invalid params for tools/call: \"arguments\" must be an object holding the tool's arguments"
        );
        assert_eq!(
            message(&call(r#"{"name":5}"#)),
            "Invalid params for tools/call: \"name\" must be a string, the tool's name"
        );
        assert_eq!(
            message(r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":5}}"#),
            "Invalid params for resources/read: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            check(call(r#"{"name":"memory_index","arguments":null}"#).as_bytes()),
            Verdict::Request(RequestId::Number(2))
        );
    }

    #[test]
    fn good_messages_pass_through() {
        for (ok, id) in [
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", RequestId::Number(1)),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"memory_index\"}}",
                RequestId::String("x".into()),
            ),
            ("{\"jsonrpc\":\"2.0\",\"id\":1e3,\"method\":\"ping\"}", RequestId::Number(1000)),
        ] {
            assert_eq!(check(ok.as_bytes()), Verdict::Request(id), "{ok}");
        }
        for ok in [
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}",
        ] {
            assert_eq!(check(ok.as_bytes()), Verdict::Forward, "{ok}");
        }
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}"#),
            Verdict::Cancel(Some(RequestId::String("x".into())))
        );
        assert_eq!(check(b"  "), Verdict::Skip);
    }

    #[test]
    fn answers_are_told_from_the_servers_own_messages() {
        for (line, id) in [
            (r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#, Some(RequestId::Number(3))),
            (
                r#"{"jsonrpc":"2.0","id":"a,b","error":{"code":1,"message":"m"}}"#,
                Some(RequestId::String("a,b".into())),
            ),
            (r#"{"result":{},"id":4,"jsonrpc":"2.0"}"#, Some(RequestId::Number(4))),
            (r#"{"jsonrpc":"2.0","id":5,"method":"roots/list"}"#, None),
            (r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#, None),
            (r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#, None),
        ] {
            assert_eq!(answered(line.as_bytes()), id, "{line}");
        }
    }

    /// A server that answers each request `{"id": …, "result": {}}`, at once or (`hold`) when a
    /// `flush` request comes; it counts the requests and the cancellations it reads.
    fn fake_server(end: DuplexStream, hold: bool) -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let (requests, cancels) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (r, c) = (requests.clone(), cancels.clone());
        tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(end);
            let mut lines = BufReader::new(read).lines();
            let mut held = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                let message: Value = serde_json::from_str(&line).unwrap();
                if message["method"] == "notifications/cancelled" {
                    c.fetch_add(1, Ordering::SeqCst);
                }
                if message["id"].is_null() {
                    continue;
                }
                r.fetch_add(1, Ordering::SeqCst);
                held.push(json!({"jsonrpc": "2.0", "id": message["id"], "result": {}}));
                if !hold || message["method"] == "flush" {
                    for answer in held.drain(..) {
                        write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
                    }
                }
            }
        });
        (requests, cancels)
    }

    /// The relay between a client's two pipes (`output` holds `output_capacity` bytes) and a
    /// fake server.
    fn relayed(
        hold: bool,
        output_capacity: usize,
    ) -> (DuplexStream, DuplexStream, Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let (client_in, relay_in) = tokio::io::duplex(1 << 16);
        let (relay_out, client_out) = tokio::io::duplex(output_capacity);
        let (server, relay_end) = tokio::io::duplex(1 << 16);
        let (from_server, to_server) = tokio::io::split(relay_end);
        tokio::spawn(relay(relay_in, relay_out, to_server, from_server));
        let (requests, cancels) = fake_server(server, hold);
        (client_in, client_out, requests, cancels)
    }

    async fn send(to: &mut DuplexStream, message: Value) {
        to.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }

    async fn next(lines: &mut tokio::io::Lines<BufReader<DuplexStream>>) -> Value {
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_client_that_stops_reading_stops_the_relay_reading() {
        // issue 24, defect 11: the server is given at most MAX_PENDING requests more than the
        // answers that left for the client, however many the client writes.
        let (mut client_in, client_out, requests, _) = relayed(false, 1024);
        let n = 1000;
        let writer = tokio::spawn(async move {
            for id in 1..=n {
                send(&mut client_in, json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})).await;
            }
            client_in
        });
        // Everything runs on this thread: once every task waits, nothing moves until the client
        // reads.
        for _ in 0..10_000 {
            tokio::task::yield_now().await;
        }
        let read = requests.load(Ordering::SeqCst);
        // The answers that left: those in the client's pipe (1 KiB of ~40-byte lines) and the
        // one being written.
        assert!((MAX_PENDING..MAX_PENDING + 40).contains(&read), "the server read {read} of {n} requests");
        let mut lines = BufReader::new(client_out).lines();
        for id in 1..=n {
            assert_eq!(next(&mut lines).await["id"], id);
        }
        drop(writer.await.unwrap());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_cancelled_request_is_answered_by_nobody_and_frees_its_slot() {
        let (mut client, client_out, requests, cancels) = relayed(true, 1 << 16);
        let mut lines = BufReader::new(client_out).lines();
        let request = |id: Value, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method});
        send(&mut client, request(json!(1), "tools/list")).await;
        send(
            &mut client,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        )
        .await;
        // Its id is still the server's, until the server's answer comes.
        send(&mut client, request(json!(1), "tools/list")).await;
        send(&mut client, request(json!(2), "flush")).await;
        let refused = next(&mut lines).await;
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (json!(1), json!(-32600)),
            "{refused}"
        );
        assert_eq!(
            next(&mut lines).await,
            json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
            "1's answer is dropped"
        );
        // The answer came: the id is free again.
        send(&mut client, request(json!(1), "tools/list")).await;
        send(&mut client, request(json!(3), "flush")).await;
        assert_eq!(next(&mut lines).await["id"], 1);
        assert_eq!(next(&mut lines).await["id"], 3);
        assert_eq!((requests.load(Ordering::SeqCst), cancels.load(Ordering::SeqCst)), (4, 0));
    }
}
