//! Each client's hook contract: where its payload keeps the session, the working directory, the
//! prompt and the reply; how it takes injected text; how large that text may be. Taken from each
//! client's documentation and package (docs/agents.md lists the sources). A host hands the
//! payload's bytes to [`read`] and prints what [`answer`] returns, so every host with hooks
//! reads and answers the clients alike (issue 45).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The clients whose hooks memdir answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    /// The terminal agent (Claude Code), which keeps its memory itself.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// Cursor (IDE and `cursor-agent`).
    Cursor,
    /// GitHub Copilot's agent in VS Code: session start and stop only.
    Copilot,
    /// Cline.
    Cline,
    /// Continue's `cn`.
    Cn,
    /// Kiro CLI.
    Kiro,
    /// opencode, through memdir's plugin (packages/opencode), which recalls in-process and
    /// hands the stop hook the whole turn.
    Opencode,
}

/// The lifecycle events memdir acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookEvent {
    /// A session starts: the memory part of the system prompt (path A).
    SessionStart,
    /// The user submitted a prompt: recall for it (path B).
    Prompt,
    /// A turn stopped: writer B over what is new, detached.
    Stop,
    /// The conversation is about to be compacted: the recall session starts again.
    PreCompact,
    /// The conversation was compacted.
    PostCompact,
}

impl Client {
    /// Every client, in the order help lists them.
    pub const ALL: [Client; 9] = [
        Client::Claude,
        Client::Codex,
        Client::Gemini,
        Client::Cursor,
        Client::Copilot,
        Client::Cline,
        Client::Cn,
        Client::Kiro,
        Client::Opencode,
    ];

    /// The client's name on a command line and in session files (`codex`).
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Cursor => "cursor",
            Client::Copilot => "copilot",
            Client::Cline => "cline",
            Client::Cn => "cn",
            Client::Kiro => "kiro",
            Client::Opencode => "opencode",
        }
    }

    /// The most injected text this client takes whole, in bytes. Codex cuts hook text past 2,500
    /// tokens, the terminal agent, Cursor and `cn` move text past 10,000 characters to a file,
    /// Cline takes 50 KB; the others document no limit and get the common one.
    pub fn cap(self) -> u32 {
        match self {
            // About 2,000 tokens of English, fewer bytes per token elsewhere.
            Client::Codex => 8_000,
            Client::Cline => 48_000,
            _ => crate::agents::hook::COMMON_CAP as u32,
        }
    }

    /// Whether the client takes text at prompt time. Copilot's prompt hook has the common
    /// output only.
    pub fn injects_at_prompt(self) -> bool {
        self != Client::Copilot
    }

    /// The client that really sent `payload`. Several clients also run the hooks in the terminal
    /// agent's `~/.claude/settings.json`, so the name on the command line may not be the one
    /// that fired; each payload has fields only its client writes.
    fn sender(self, payload: &Value) -> Client {
        let has = |k: &str| payload.get(k).is_some();
        let transcript = payload.get("transcript_path").and_then(Value::as_str).unwrap_or("");
        if has("cursor_version") {
            Client::Cursor
        } else if has("clineVersion") {
            Client::Cline
        } else if has("sessionId") && has("hookEventName") {
            Client::Copilot
        } else if has("turn_id") || transcript.contains("/.codex/") {
            Client::Codex
        } else if transcript.contains("/.gemini/") {
            Client::Gemini
        } else if transcript.contains("/.claude/projects/") && has("permission_mode") {
            Client::Claude
        } else {
            self
        }
    }
}

impl HookEvent {
    /// Every event, in the order help lists them.
    pub const ALL: [HookEvent; 5] = [
        HookEvent::SessionStart,
        HookEvent::Prompt,
        HookEvent::Stop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
    ];

    /// The event's name on a command line (`session-start`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::Prompt => "prompt",
            HookEvent::Stop => "stop",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::PostCompact => "post-compact",
        }
    }
}

/// What one payload says, whichever client wrote it, and how that client takes text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Payload {
    /// The client that fired, which may not be the one named on the command line.
    pub client: Client,
    /// memdir acts on this event: not for the terminal agent, which does all three paths itself
    /// on the same directory (R14.3).
    pub acts: bool,
    /// The client's session id.
    pub session: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// What the user wrote, without text a client put before it.
    pub prompt: Option<String>,
    /// The agent's last reply, where the stop payload carries it.
    pub reply: Option<String>,
    /// Why a session started (`startup`, `resume`, `clear`, `compact`).
    pub source: Option<String>,
    /// The turn's prompts, from a plugin that keeps them itself (opencode's `prompts`).
    pub turn: Option<Vec<String>>,
    /// When that turn began, ms since the epoch (`turn_began_ms`).
    pub turn_began_ms: Option<i64>,
    /// The most hook text the client takes whole, in bytes.
    pub cap_bytes: u32,
    /// The client takes text at a prompt.
    pub inject: bool,
}

/// The largest payload read: a client sends a few kilobytes.
pub const MAX_PAYLOAD: usize = 4 << 20;

/// Reads a hook's payload for the client `named` on the command line. Blank input is an empty
/// payload (some clients send none for some events); anything else must be a JSON object.
pub fn read(named: Client, payload: &str) -> crate::base::error::Result<Payload> {
    let invalid = |why: String| crate::base::error::Error::InvalidInput(format!("the hook payload {why}"));
    if payload.len() > MAX_PAYLOAD {
        return Err(invalid(format!("is over {} bytes", MAX_PAYLOAD)));
    }
    let value: Value = if payload.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(payload).map_err(|e| invalid(format!("is not JSON: {e}")))?
    };
    if !value.is_object() {
        return Err(invalid("is not a JSON object".to_string()));
    }
    let client = named.sender(&value);
    Ok(fields(client, &value))
}

/// The fields memdir uses, from `client`'s payload.
fn fields(client: Client, payload: &Value) -> Payload {
    let text = |path: &[&str]| -> Option<String> {
        let mut v = payload;
        for key in path {
            v = v.get(key)?;
        }
        v.as_str().filter(|s| !s.is_empty()).map(str::to_string)
    };
    let first = |key: &str| -> Option<String> {
        payload.get(key)?.as_array()?.first()?.as_str().filter(|s| !s.is_empty()).map(str::to_string)
    };
    let none = Payload {
        client,
        acts: client != Client::Claude,
        session: None,
        cwd: None,
        prompt: None,
        reply: None,
        source: None,
        turn: None,
        turn_began_ms: None,
        cap_bytes: client.cap(),
        inject: client.injects_at_prompt(),
    };
    match client {
        Client::Cursor => Payload {
            session: text(&["conversation_id"]),
            cwd: first("workspace_roots"),
            prompt: text(&["prompt"]),
            ..none
        },
        Client::Copilot => Payload {
            session: text(&["sessionId"]),
            cwd: text(&["cwd"]),
            prompt: text(&["prompt"]),
            source: text(&["source"]),
            ..none
        },
        Client::Cline => Payload {
            session: text(&["taskId"]),
            cwd: first("workspaceRoots"),
            prompt: text(&["userPromptSubmit", "prompt"])
                .or_else(|| text(&["taskStart", "taskMetadata", "initialTask"])),
            ..none
        },
        Client::Opencode => Payload {
            session: text(&["session_id"]),
            cwd: text(&["cwd"]),
            reply: text(&["last_assistant_message"]),
            turn: payload.get("prompts").and_then(Value::as_array).map(|prompts| {
                prompts
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            }),
            turn_began_ms: payload.get("turn_began_ms").and_then(Value::as_i64),
            ..none
        },
        _ => Payload {
            session: text(&["session_id"]),
            cwd: text(&["cwd"]),
            prompt: text(&["prompt"]).map(|p| without_hook_context(&p)),
            reply: text(&["last_assistant_message"]).or_else(|| text(&["prompt_response"])),
            source: text(&["source"]),
            ..none
        },
    }
}

/// What the hook prints: `context` in the client's own shape, or its "carry on". Nothing here
/// blocks, retries or continues a turn (R14.2).
pub fn answer(client: Client, event: HookEvent, context: Option<&str>) -> String {
    let name = match (client, event) {
        (_, HookEvent::SessionStart) => "SessionStart",
        (Client::Gemini, HookEvent::Prompt) => "BeforeAgent",
        (_, HookEvent::Prompt) => "UserPromptSubmit",
        _ => "",
    };
    let prompt = event == HookEvent::Prompt;
    let context =
        context.filter(|c| !c.is_empty() && matches!(event, HookEvent::SessionStart | HookEvent::Prompt));
    let value = match (client, context) {
        (Client::Kiro, Some(text)) => return text.to_string(),
        (Client::Kiro, None) => return String::new(),
        (Client::Cline, Some(text)) => json!({ "cancel": false, "contextModification": text }),
        (Client::Cline, None) => json!({ "cancel": false }),
        (Client::Cursor, Some(text)) if prompt => json!({ "continue": true, "additional_context": text }),
        (Client::Cursor, Some(text)) => json!({ "additional_context": text }),
        (Client::Cursor, None) if prompt => json!({ "continue": true }),
        (Client::Copilot, Some(_)) if prompt => json!({}),
        (_, Some(text)) => {
            json!({ "hookSpecificOutput": { "hookEventName": name, "additionalContext": text } })
        }
        (_, None) => json!({}),
    };
    format!("{value}\n")
}

/// The user's prompt without the `<hook_context>` blocks Gemini CLI puts before it under `-p`
/// (the session start's own text, which recall must not search).
fn without_hook_context(prompt: &str) -> String {
    let mut rest = prompt.trim_start();
    while let Some(after) = rest.strip_prefix("<hook_context>") {
        match after.find("</hook_context>") {
            Some(end) => rest = after[end + "</hook_context>".len()..].trim_start(),
            None => break,
        }
    }
    rest.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payloads as each client's documentation shows them (docs/agents.md names the sources).
    fn fixture(client: Client) -> Value {
        match client {
            Client::Claude => json!({
                "session_id": "abc", "transcript_path": "/home/ana/.claude/projects/-w/abc.jsonl",
                "cwd": "/w", "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
                "prompt": "why is the build red?"
            }),
            Client::Codex => json!({
                "session_id": "019a", "transcript_path": "/home/ana/.codex/sessions/2026/12/02/rollout-x.jsonl",
                "cwd": "/w", "hook_event_name": "UserPromptSubmit", "model": "gpt-5",
                "permission_mode": "default", "turn_id": "t1", "prompt": "why is the build red?"
            }),
            Client::Gemini => json!({
                "session_id": "g1", "transcript_path": "/home/ana/.gemini/tmp/h/chats/session-1.jsonl",
                "cwd": "/w", "hook_event_name": "BeforeAgent", "timestamp": "2026-12-02T10:00:00Z",
                "prompt": "why is the build red?"
            }),
            Client::Cursor => json!({
                "conversation_id": "c1", "generation_id": "g", "model": "m", "hook_event_name": "beforeSubmitPrompt",
                "cursor_version": "3.20.17", "workspace_roots": ["/w"], "prompt": "why is the build red?"
            }),
            Client::Copilot => json!({
                "timestamp": "2026-12-02T10:00:00Z", "cwd": "/w", "sessionId": "s1",
                "hookEventName": "UserPromptSubmit", "transcript_path": "/tmp/t.json",
                "prompt": "why is the build red?"
            }),
            Client::Cline => json!({
                "clineVersion": "3.51.0", "hookName": "UserPromptSubmit", "timestamp": "1", "taskId": "k1",
                "workspaceRoots": ["/w"], "userId": "u", "userPromptSubmit": { "prompt": "why is the build red?" }
            }),
            Client::Cn => json!({
                "session_id": "n1", "transcript_path": "", "cwd": "/w",
                "hook_event_name": "UserPromptSubmit", "prompt": "why is the build red?"
            }),
            Client::Kiro => {
                json!({ "hook_event_name": "userPromptSubmit", "cwd": "/w", "prompt": "why is the build red?" })
            }
            // What memdir's own plugin sends at a stop (packages/opencode/src/index.ts).
            Client::Opencode => json!({
                "session_id": "ses_1", "cwd": "/w", "prompts": ["why is the build red?", "", 7],
                "turn_began_ms": 1_767_225_600_000_i64, "last_assistant_message": "a flaky test"
            }),
        }
    }

    fn read_value(named: Client, value: &Value) -> Payload {
        read(named, &value.to_string()).expect("a payload")
    }

    #[test]
    fn opencodes_plugin_hands_over_the_whole_turn() {
        let payload = read_value(Client::Opencode, &fixture(Client::Opencode));
        assert_eq!(payload.client, Client::Opencode);
        assert_eq!(payload.turn, Some(vec!["why is the build red?".to_string()]));
        assert_eq!(payload.turn_began_ms, Some(1_767_225_600_000));
        assert_eq!(payload.reply.as_deref(), Some("a flaky test"));
        assert_eq!((payload.session.as_deref(), payload.cwd.as_deref()), (Some("ses_1"), Some("/w")));
        // Another client's payload is never taken for a whole turn.
        assert_eq!(read_value(Client::Codex, &fixture(Client::Opencode)).turn, None);
    }

    /// The clients whose own hooks send a payload (opencode's is memdir's plugin).
    fn hooked() -> impl Iterator<Item = Client> {
        Client::ALL.into_iter().filter(|c| *c != Client::Opencode)
    }

    #[test]
    fn each_payload_is_told_apart_and_read() {
        for client in hooked() {
            // Installed for another client (or in the terminal agent's settings, which several
            // read), the payload still says who fired.
            let named = if client == Client::Cn || client == Client::Kiro { client } else { Client::Kiro };
            let read = read_value(named, &fixture(client));
            assert_eq!(read.client, client, "{client:?}");
            assert_eq!(read.acts, client != Client::Claude, "{client:?}");
            assert_eq!(read.cwd.as_deref(), Some("/w"), "{client:?}");
            assert_eq!(read.prompt.as_deref(), Some("why is the build red?"), "{client:?}");
            assert_eq!((read.cap_bytes, read.inject), (client.cap(), client.injects_at_prompt()));
        }
    }

    #[test]
    fn a_payload_that_is_not_an_object_is_refused_and_blank_is_empty() {
        for bad in ["[1]", "\"prompt\"", "{\"prompt\": ", "null"] {
            let err = read(Client::Codex, bad).expect_err(bad);
            assert!(err.to_string().contains("the hook payload"), "{err}");
        }
        let blank = read(Client::Codex, " \n").expect("blank");
        assert_eq!((blank.client, blank.prompt, blank.cwd), (Client::Codex, None, None));
        let huge = format!("{{\"prompt\": \"{}\"}}", "x".repeat(MAX_PAYLOAD));
        assert!(read(Client::Codex, &huge).is_err());
    }

    #[test]
    fn geminis_session_context_is_not_taken_for_the_prompt() {
        let payload = json!({
            "session_id": "g", "cwd": "/w", "hook_event_name": "BeforeAgent", "timestamp": "t",
            "prompt": "<hook_context># Memory\n- [a](a.md) — deploys</hook_context>\n\nwhy is the build red?"
        });
        assert_eq!(read_value(Client::Gemini, &payload).prompt.as_deref(), Some("why is the build red?"));
        let open = json!({ "prompt": "<hook_context>never closed" });
        assert_eq!(read_value(Client::Gemini, &open).prompt.as_deref(), Some("<hook_context>never closed"));
    }

    #[test]
    fn each_answer_is_the_clients_own_shape_and_carry_on_without_context() {
        for client in hooked() {
            for event in HookEvent::ALL {
                let none = answer(client, event, None);
                let some = answer(client, event, Some("remembered"));
                if client == Client::Kiro {
                    assert_eq!(none, "");
                    let expected = if matches!(event, HookEvent::SessionStart | HookEvent::Prompt) {
                        "remembered"
                    } else {
                        ""
                    };
                    assert_eq!(some, expected);
                    continue;
                }
                let none: Value = serde_json::from_str(&none).expect("JSON");
                let some: Value = serde_json::from_str(&some).expect("JSON");
                // Nothing that blocks, retries or continues a turn.
                for v in [&none, &some] {
                    assert!(v.get("decision").is_none() && v.get("followup_message").is_none(), "{v}");
                    assert_ne!(v.get("cancel"), Some(&json!(true)));
                    assert_ne!(v.get("continue"), Some(&json!(false)));
                }
                let carried = some.to_string().contains("remembered");
                let should = matches!(event, HookEvent::SessionStart)
                    || (event == HookEvent::Prompt && client.injects_at_prompt());
                assert_eq!(carried, should, "{client:?} {event:?}: {some}");
            }
        }
        let gemini: Value =
            serde_json::from_str(&answer(Client::Gemini, HookEvent::Prompt, Some("m"))).unwrap();
        assert_eq!(gemini["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
        assert_eq!(answer(Client::Codex, HookEvent::Stop, None), "{}\n");
    }

    #[test]
    fn names_round_trip_as_the_contract_spells_them() {
        for client in Client::ALL {
            assert_eq!(serde_json::to_value(client).unwrap(), json!(client.as_str()));
        }
        for event in HookEvent::ALL {
            assert_eq!(serde_json::to_value(event).unwrap(), json!(event.as_str()));
        }
    }
}
