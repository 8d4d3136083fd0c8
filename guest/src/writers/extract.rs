//! Writer B, background extraction (R9.2, R9.3), as a step machine (R0.3, see
//! [`crate::base::model`]):
//!
//! 1. [`start`]: locate the memory, resolve the switches, read the conversation's cursor; skip
//!    (a subagent, memory off, nothing new, or the main agent already wrote memory this turn —
//!    the cursor still advances) or ask round 1: which existing memories might need to change?
//! 2. [`resume`] with round 1's reply (`{"read": [...]}`): read only the offered files the model
//!    named and ask round 2 with their contents.
//! 3. [`resume`] with round 2's reply (`{"operations": [...]}`): validate every operation and
//!    apply the valid ones through [`crate::writers::writer`]; the result lists what was applied and
//!    what was rejected, with reasons.
//!
//! A failed call at either round changes nothing but the cursor.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, join};
use crate::base::model::{self, ModelRequest, Reply, Step, Tier};
use crate::context::policy::WritePolicy;
use crate::context::target::Target;
use crate::format::manifest;
use crate::format::scan::{self, MemoryHeader};
use crate::writers::apply::{Landing, OpReport, RunCaps, apply_operations, json_object};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Transcript text offered to the model at most (the newest part is kept).
pub const MAX_TRANSCRIPT_CHARS: usize = 48_000;
/// Files the model may read in round 2, and bytes of each.
pub const MAX_READ_FILES: usize = 10;
/// Bytes of each file shown in round 2.
pub const MAX_READ_BYTES: u64 = 8 * 1024;
/// The system text shared by every request that returns operations.
pub const OPERATIONS_GUIDE: &str = ROUND2;
/// The JSON schema of an operations reply.
pub const OPERATIONS_REPLY_SCHEMA: &str = OPERATIONS_SCHEMA;
/// Tools that write files: a call naming a path in the memory directory means the main agent
/// saved memory itself this turn (R9.3).
const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"];

/// Where the cursors of conversations live, inside the memory directory.
pub const CURSORS_DIR: &str = ".cursors";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The user.
    User,
    /// The agent.
    Assistant,
    /// A tool's result.
    Tool,
}

impl Role {
    /// `user`, `assistant` or `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text, with tool calls summarised.
    pub text: String,
    /// Paths this message's tool calls wrote.
    pub wrote: Vec<String>,
}

/// Parses the transcript wire format: JSON lines, each either the agent's own shape
/// (`{"type": "user"|"assistant", "message": {"role", "content": string | [blocks]}}`) or a flat
/// `{"role", "content": string}`. Other lines (summaries, metadata) are skipped; a line that is
/// not JSON is an error naming it.
pub fn parse_transcript(text: &str) -> std::result::Result<Vec<Message>, String> {
    let mut messages = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("transcript line {} is not JSON: {e}", i + 1))?;
        let (role, content) = match (&value["message"], &value["role"]) {
            (Value::Object(m), _) => (m.get("role").or(value.get("type")), m.get("content")),
            (_, Value::String(_)) => (value.get("role"), value.get("content")),
            _ => continue,
        };
        let Some(role) = role.and_then(Value::as_str).and_then(Role::parse) else {
            continue;
        };
        let (text, wrote) = content_text(content.unwrap_or(&Value::Null));
        messages.push(Message { role, text, wrote });
    }
    Ok(messages)
}

fn content_text(content: &Value) -> (String, Vec<String>) {
    match content {
        Value::String(s) => (s.clone(), Vec::new()),
        Value::Array(blocks) => {
            let mut parts = Vec::new();
            let mut wrote = Vec::new();
            for block in blocks {
                match block["type"].as_str() {
                    Some("text") => parts.push(block["text"].as_str().unwrap_or("").to_string()),
                    Some("tool_use") => {
                        let name = block["name"].as_str().unwrap_or("tool");
                        let path = block["input"]["file_path"].as_str().or(block["input"]["path"].as_str());
                        if let (true, Some(path)) = (WRITE_TOOLS.contains(&name), path) {
                            wrote.push(path.to_string());
                        }
                        parts.push(format!(
                            "[used {name}{}]",
                            path.map(|p| format!(" on {p}")).unwrap_or_default()
                        ));
                    }
                    Some("tool_result") => parts.push("[tool result]".to_string()),
                    _ => {}
                }
            }
            (parts.join("\n"), wrote)
        }
        _ => (String::new(), Vec::new()),
    }
}

/// What extraction runs over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Input {
    /// Whose memory.
    pub target: Target,
    /// The whole conversation so far.
    pub messages: Vec<Message>,
    /// The conversation's id, whose cursor the core keeps in `.cursors/`; `None`: no cursor.
    pub conversation: Option<String>,
    /// Paths the host knows the main agent wrote this turn.
    pub written: Vec<String>,
    /// False for a subagent.
    pub main_agent: bool,
    /// "Now", ms since the epoch.
    pub now_ms: i64,
    /// The user's UTC offset in minutes.
    pub utc_offset_minutes: i32,
}

/// What an extraction did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractResult {
    /// Why it did not run.
    pub skipped: Option<Skip>,
    /// Messages seen: the cursor stored, whatever happened (R9.3).
    pub cursor: u32,
    /// Files round 1 asked for and round 2 was shown.
    pub read: Vec<String>,
    /// Every operation of round 2, applied or rejected.
    pub operations: Vec<OpReport>,
    /// Model failures and replies that could not be used.
    pub diagnostics: Vec<String>,
}

/// What an extraction waiting for the model keeps between rounds.
#[derive(Serialize, Deserialize)]
struct State {
    memory_dir: String,
    conversation_id: Option<String>,
    cursor: u32,
    now_ms: i64,
    utc_offset_minutes: i32,
    candidates: Vec<MemoryHeader>,
    conversation: String,
    /// Round 2's: the files read and round 1's diagnostics; `None` in round 1.
    read: Option<(Vec<String>, Vec<String>)>,
    /// The write policy when extraction began (issue 28).
    policy: WritePolicy,
}

/// Starts extraction: skip (storing the cursor), or ask round 1.
pub fn start(fs: &dyn Fs, input: &Input) -> Result<Step<ExtractResult>> {
    if let Some(id) = &input.conversation {
        valid_conversation_id(id)?;
    }
    let resolved = input.target.resolve(fs)?;
    let memory_dir = resolved.memory_dir.as_str();
    let cursor = match &input.conversation {
        Some(id) => read_cursor(fs, memory_dir, id)?,
        None => 0,
    };
    let seen = u32::try_from(input.messages.len()).unwrap_or(u32::MAX);
    let shared: Vec<String> =
        crate::context::scope::shared(&resolved.location).into_iter().map(|s| s.dir).collect();
    let turn = Turn {
        memory_dir,
        shared: &shared,
        messages: &input.messages,
        cursor: cursor as usize,
        written: &input.written,
        main_agent: input.main_agent,
        auto_memory: resolved.switches.auto_memory,
        paused: crate::writers::pause::current(fs, memory_dir, input.now_ms)?.is_some(),
        policy: resolved.switches.memory_writes.clone(),
        now_ms: input.now_ms,
        utc_offset_minutes: input.utc_offset_minutes,
    };
    let round = match begin(fs, &turn)? {
        Ok(round) => round,
        Err(skip) => {
            store_cursor(fs, memory_dir, input.conversation.as_deref(), seen)?;
            return Ok(Step::Done(ExtractResult {
                skipped: Some(skip),
                cursor: seen,
                ..ExtractResult::default()
            }));
        }
    };
    let state = State {
        memory_dir: memory_dir.to_string(),
        conversation_id: input.conversation.clone(),
        cursor: seen,
        now_ms: input.now_ms,
        utc_offset_minutes: input.utc_offset_minutes,
        candidates: round.candidates,
        conversation: round.conversation,
        read: None,
        policy: resolved.switches.memory_writes.clone(),
    };
    Ok(model::ask(round.request, &state, 1, 2))
}

/// Takes round 1's reply and asks round 2, or takes round 2's and applies the operations.
pub fn resume(fs: &dyn Fs, state: &str, reply: Reply) -> Result<Step<ExtractResult>> {
    let mut state: State = model::state("extraction", state)?;
    let round_number = if state.read.is_none() { 1 } else { 2 };
    let (read, mut diagnostics) = state.read.take().unwrap_or_default();
    let mut result = ExtractResult { cursor: state.cursor, read, ..ExtractResult::default() };
    let reply = match reply.into_text() {
        Ok(reply) => reply,
        Err(why) => {
            diagnostics.push(format!("round {round_number}: {why}; nothing changed"));
            result.diagnostics = diagnostics;
            store_cursor(fs, &state.memory_dir, state.conversation_id.as_deref(), state.cursor)?;
            return Ok(Step::Done(result));
        }
    };
    let turn = Turn {
        memory_dir: &state.memory_dir,
        now_ms: state.now_ms,
        utc_offset_minutes: state.utc_offset_minutes,
        policy: state.policy.clone(),
        ..Turn::default()
    };
    if round_number == 1 {
        let (request, read, diagnostics) =
            read_round(fs, &turn, &state.candidates, &state.conversation, &reply);
        state.read = Some((read, diagnostics));
        return Ok(model::ask(request, &state, 2, 2));
    }
    // A pause begun while the model thought holds too: nothing is applied.
    if crate::writers::pause::current(fs, &state.memory_dir, state.now_ms)?.is_some() {
        result.skipped = Some(Skip::Paused);
        result.diagnostics = diagnostics;
        store_cursor(fs, &state.memory_dir, state.conversation_id.as_deref(), state.cursor)?;
        return Ok(Step::Done(result));
    }
    let (operations, applied_diagnostics) = apply(fs, &turn, &reply);
    diagnostics.extend(applied_diagnostics);
    result.operations = operations;
    result.diagnostics = diagnostics;
    store_cursor(fs, &state.memory_dir, state.conversation_id.as_deref(), state.cursor)?;
    Ok(Step::Done(result))
}

/// A conversation id names a file in `.cursors/`: letters, digits, `.`, `_`, `-`, not a dot
/// name.
fn valid_conversation_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 200
        && id.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!("conversation id {id:?}: use letters, digits, `.`, `_`, `-`")))
    }
}

fn cursor_path(memory_dir: &str, id: &str) -> String {
    join(memory_dir, &format!("{CURSORS_DIR}/{id}"))
}

/// The stored cursor of a conversation; 0 when none was stored or it does not read as a number.
fn read_cursor(fs: &dyn Fs, memory_dir: &str, id: &str) -> Result<u32> {
    let path = cursor_path(memory_dir, id);
    // The host may let the core read far beyond the memory directory; a cursor that leads out
    // of it (a link) is refused before anything else happens (issue 18).
    if let Ok(real) = fs.real_path(&path)
        && !crate::base::fs::is_within(&real, &fs.real_path(memory_dir)?)
    {
        return Err(Error::InvalidInput(format!(
            "{path} leads out of the memory directory; remove it and extract again"
        )));
    }
    match fs.read_file(&path, 64) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).trim().parse().unwrap_or(0)),
        Err(crate::base::fs::FsError::NotFound(_)) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

/// Stores a conversation's cursor through the host filesystem (atomically, confined).
fn store_cursor(fs: &dyn Fs, memory_dir: &str, id: Option<&str>, cursor: u32) -> Result<()> {
    let Some(id) = id else { return Ok(()) };
    fs.create_dir_all(&join(memory_dir, CURSORS_DIR))?;
    fs.write_file(&cursor_path(memory_dir, id), format!("{cursor}\n").as_bytes())?;
    Ok(())
}

/// One extraction as the rounds below see it, with the target resolved.
#[derive(Debug, Clone, Default)]
struct Turn<'a> {
    /// The memory directory.
    pub memory_dir: &'a str,
    /// The user-wide and group memories: the agent's own saves there count as its writes.
    pub shared: &'a [String],
    /// The whole conversation so far.
    pub messages: &'a [Message],
    /// Messages already processed (the cursor).
    pub cursor: usize,
    /// Paths the host knows the main agent wrote this turn (besides those in the transcript).
    pub written: &'a [String],
    /// False for a subagent: extraction runs on the main agent only.
    pub main_agent: bool,
    /// Auto memory is on (R4.2).
    pub auto_memory: bool,
    /// Automatic writes are paused for the project (`memdir pause`, issue 28).
    pub paused: bool,
    /// Who may write each type (issue 28).
    pub policy: WritePolicy,
    /// "Now", for dates in project memories.
    pub now_ms: i64,
    /// The user's UTC offset in minutes.
    pub utc_offset_minutes: i32,
}

/// Why extraction did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Skip {
    /// Not the main agent.
    Subagent,
    /// Auto memory is off.
    Disabled,
    /// No new messages since the cursor.
    NothingNew,
    /// The main agent wrote memory itself since the cursor (R9.3).
    MainAgentWrote,
    /// Automatic writes are paused for the project (issue 28): the turn is passed over.
    Paused,
}

impl Skip {
    /// `subagent`, `disabled`, `nothing-new`, `main-agent-wrote` or `paused`.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Subagent => "subagent",
            Skip::Disabled => "disabled",
            Skip::NothingNew => "nothing-new",
            Skip::MainAgentWrote => "main-agent-wrote",
            Skip::Paused => "paused",
        }
    }
}

/// The first round: the request and what it offered.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Round {
    /// The model request.
    pub request: ModelRequest,
    /// Existing memories offered.
    pub candidates: Vec<MemoryHeader>,
    /// The new conversation as shown to the model.
    pub conversation: String,
}

/// Decides whether to extract, and builds round 1.
fn begin(fs: &dyn Fs, input: &Turn<'_>) -> Result<std::result::Result<Round, Skip>> {
    if !input.main_agent {
        return Ok(Err(Skip::Subagent));
    }
    if !input.auto_memory {
        return Ok(Err(Skip::Disabled));
    }
    if input.paused {
        return Ok(Err(Skip::Paused));
    }
    let new = input.messages.get(input.cursor.min(input.messages.len())..).unwrap_or(&[]);
    if new.iter().all(|m| m.text.trim().is_empty()) {
        return Ok(Err(Skip::NothingNew));
    }
    let inside = |p: &str| {
        std::iter::once(input.memory_dir).chain(input.shared.iter().map(String::as_str)).any(|dir| {
            let dir = dir.trim_end_matches('/');
            p.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
        })
    };
    if input.written.iter().any(|p| inside(p)) || new.iter().flat_map(|m| &m.wrote).any(|p| inside(p)) {
        return Ok(Err(Skip::MainAgentWrote));
    }
    let candidates = match scan::scan(fs, input.memory_dir, input.now_ms) {
        Ok(report) => report.headers,
        Err(crate::base::error::Error::Fs(crate::base::fs::FsError::NotFound(_))) => Vec::new(),
        Err(e) => return Err(e),
    };
    let conversation = render_conversation(new);
    let request = request_round1(&candidates, &conversation);
    Ok(Ok(Round { request, candidates, conversation }))
}

fn request_round1(candidates: &[MemoryHeader], conversation: &str) -> ModelRequest {
    ModelRequest {
        system: ROUND1.to_string(),
        user: format!(
            "Existing memories:\n{}\nNew conversation:\n{conversation}",
            if candidates.is_empty() { "(none yet)\n".to_string() } else { manifest::format(candidates) }
        ),
        schema: r#"{"type":"object","properties":{"read":{"type":"array","items":{"type":"string"}}},"required":["read"],"additionalProperties":false}"#.to_string(),
        max_tokens: 512,
        tier: Tier::Small,
    }
}

/// Round 2: reads the offered files the model named (no others, at most [`MAX_READ_FILES`],
/// each cut at [`MAX_READ_BYTES`]) and asks for the operations. Returns the request and the
/// files read; a reply that cannot be read counts as "read nothing", with a diagnostic.
fn read_round(
    fs: &dyn Fs,
    input: &Turn<'_>,
    candidates: &[MemoryHeader],
    conversation: &str,
    reply: &str,
) -> (ModelRequest, Vec<String>, Vec<String>) {
    let mut diagnostics = Vec::new();
    let names = match json_object(reply).and_then(|v| string_list(&v, "read")) {
        Ok(names) => names,
        Err(problem) => {
            diagnostics.push(format!("round 1 reply not used ({problem}); no memory was read"));
            Vec::new()
        }
    };
    let mut read = Vec::new();
    let mut shown = String::new();
    for name in names {
        if read.len() == MAX_READ_FILES || read.contains(&name) {
            continue;
        }
        if !candidates.iter().any(|c| c.path == name) {
            diagnostics.push(format!("round 1 named {name:?}, which was not offered; not read"));
            continue;
        }
        match fs.read_file(&join(input.memory_dir, &name), MAX_READ_BYTES) {
            Ok(bytes) => {
                shown.push_str(&format!("=== {name}\n{}\n", String::from_utf8_lossy(&bytes)));
                read.push(name);
            }
            Err(e) => diagnostics.push(format!("{name} could not be read: {e}")),
        }
    }
    let request = ModelRequest {
        system: ROUND2.to_string(),
        user: format!(
            "Existing memories:\n{}\nFiles you asked to read:\n{}\nNew conversation:\n{}",
            manifest::format(candidates),
            if shown.is_empty() { "(none)\n".to_string() } else { shown },
            conversation
        ),
        schema: OPERATIONS_SCHEMA.to_string(),
        max_tokens: 4096,
        tier: Tier::Small,
    };
    (request, read, diagnostics)
}

/// Validates and applies the round-2 operations; each stands or falls alone.
fn apply(fs: &dyn Fs, input: &Turn<'_>, reply: &str) -> (Vec<OpReport>, Vec<String>) {
    let target = Landing {
        memory_dir: input.memory_dir,
        now_ms: input.now_ms,
        utc_offset_minutes: input.utc_offset_minutes,
        policy: &input.policy,
        source: "extraction",
        by: "extraction",
        note: None,
    };
    let mut caps = RunCaps::for_dir(fs, input.memory_dir, input.now_ms);
    apply_operations(fs, &target, reply, "round 2", &mut caps)
}

fn render_conversation(messages: &[Message]) -> String {
    let mut text: String = messages
        .iter()
        .filter(|m| !m.text.trim().is_empty())
        .map(|m| format!("{}: {}\n", m.role.as_str(), m.text.trim()))
        .collect();
    if text.chars().count() > MAX_TRANSCRIPT_CHARS {
        let skip = text.chars().count() - MAX_TRANSCRIPT_CHARS;
        text = format!("[earlier messages cut]\n{}", text.chars().skip(skip).collect::<String>());
    }
    text
}

fn string_list(value: &Value, key: &str) -> std::result::Result<Vec<String>, String> {
    match value.get(key) {
        Some(Value::Array(items)) => Ok(items.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        _ => Err(format!("it has no `{key}` list")),
    }
}

const ROUND1: &str = "You keep an AI coding agent's long-term memory. Read the new part of a conversation \
and decide which existing memories might need to change because of it. Reply with JSON only: \
{\"read\": [\"file.md\", ...]} naming at most ten files from the list; an empty list is fine.";

const ROUND2: &str = "You keep an AI coding agent's long-term memory. From the new part of the \
conversation, save only what a future conversation cannot learn from the code or git: who the \
user is (user), how they want work done — corrections and confirmed approaches, with the reason \
(feedback), ongoing work, decisions and deadlines with absolute dates (project), and where \
outside information lives (reference). Never save code patterns, architecture, file layout, git \
history, debugging recipes, what instruction files already say, the state of the current task, \
or secrets — even if asked. Prefer updating an existing memory to creating a near-duplicate; \
delete memories the conversation shows are wrong. Feedback and project bodies are the rule or \
fact, then a `**Why:**` line, then a `**How to apply:**` line. One fact per file; a new file is \
named after the memory, whose name is a short kebab-case slug (`testing-real-db.md`, name \
`testing-real-db`); an update keeps the file's path, and an update under a new name replaces \
the memory (it is saved under the new name; links to the old one follow). Link related memories in a body with \
`[[name]]`. Reply with JSON only: {\"operations\": [{\"op\": \"create\"|\"update\"|\"delete\", \
\"path\": \"testing-real-db.md\", \"type\", \"name\", \"description\", \"body\"}]} (delete needs only \
path). No operations is a good answer when nothing is worth keeping.";

const OPERATIONS_SCHEMA: &str = r#"{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","properties":{"op":{"enum":["create","update","delete"]},"path":{"type":"string"},"type":{"enum":["user","feedback","project","reference"]},"name":{"type":"string"},"description":{"type":"string"},"body":{"type":"string"}},"required":["op","path"]}}},"required":["operations"],"additionalProperties":false}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_transcript_shapes_are_read_and_memory_writes_are_seen() {
        let text = r#"{"type":"user","message":{"role":"user","content":"don't mock the db"}}
{"type":"summary","summary":"x"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Write","input":{"file_path":"/m/feedback_db.md"}}]}}
{"role":"tool","content":"written"}
"#;
        let messages = parse_transcript(text).unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1].text, "ok\n[used Write on /m/feedback_db.md]");
        assert_eq!(messages[1].wrote, ["/m/feedback_db.md"]);
        assert!(parse_transcript("{not json").unwrap_err().contains("line 1"));
    }
}
