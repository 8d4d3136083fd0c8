//! `memory_dream` and `memory_extract` as tool calls: the workflow's model rounds asked through
//! the host, and the operations it applied or refused worded once.

use super::{Asked, NoModel, ToolAnswer, ToolCall, ToolStep, follow};
use crate::base::error::{Error, Result};
use crate::base::fs::Fs;
use crate::base::model::Reply;
use crate::writers::apply::OpReport;
use crate::writers::dream::{self, DreamResult};
use crate::writers::extract::{self, ExtractResult, Message, Role};
use serde::Deserialize;
use serde_json::{Value, json};

/// `memory_extract`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExtractArgs {
    messages: Vec<ChatMessage>,
    #[serde(default)]
    conversation: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatMessage {
    role: ChatRole,
    content: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ChatRole {
    User,
    Assistant,
}

/// Folds what is new in the daily logs into memories, with the host's model.
pub(super) fn dream(fs: &dyn Fs, call: &ToolCall) -> Result<ToolStep> {
    if !call.target.resolve(fs)?.switches.daily_log {
        return Err(Error::InvalidInput(
            "daily-log mode is off for this project: there are no logs to fold (memories are saved \
             directly with memory_save)"
                .into(),
        ));
    }
    if !call.model {
        return Err(NoModel { what: "a dream", instead: "" }.into());
    }
    let input = dream::Input {
        target: call.target.clone(),
        now_ms: call.now_ms,
        utc_offset_minutes: call.utc_offset_minutes,
    };
    Ok(follow(dream::start(fs, &input)?, |state| Asked::Dream { state }, word_dream))
}

pub(super) fn resume_dream(fs: &dyn Fs, state: &str, reply: Reply) -> Result<ToolStep> {
    Ok(follow(dream::resume(fs, state, reply)?, |state| Asked::Dream { state }, word_dream))
}

/// Writer B over the messages the agent hands over, with the host's model.
pub(super) fn extract(fs: &dyn Fs, call: &ToolCall, args: ExtractArgs) -> Result<ToolStep> {
    if !call.model {
        return Err(NoModel {
            what: "extraction",
            instead: ". Save memories one by one with memory_save instead",
        }
        .into());
    }
    let messages = args
        .messages
        .into_iter()
        .map(|m| Message {
            role: match m.role {
                ChatRole::User => Role::User,
                ChatRole::Assistant => Role::Assistant,
            },
            text: m.content,
            wrote: Vec::new(),
        })
        .collect();
    let input = extract::Input {
        target: call.target.clone(),
        messages,
        conversation: args.conversation,
        written: Vec::new(),
        main_agent: true,
        now_ms: call.now_ms,
        utc_offset_minutes: call.utc_offset_minutes,
    };
    Ok(follow(extract::start(fs, &input)?, |state| Asked::Extract { state }, word_extract))
}

pub(super) fn resume_extract(fs: &dyn Fs, state: &str, reply: Reply) -> Result<ToolStep> {
    Ok(follow(extract::resume(fs, state, reply)?, |state| Asked::Extract { state }, word_extract))
}

fn word_dream(r: DreamResult) -> ToolAnswer {
    let first = (r.chunks == 0).then(|| "Nothing new in the logs.".to_string());
    let facts = json!({
        "chunks": r.chunks, "folded": r.committed,
        "operations": operations(&r.operations), "notes": r.diagnostics,
    });
    answered(first, &r.operations, &r.diagnostics, facts)
}

fn word_extract(r: ExtractResult) -> ToolAnswer {
    let skipped = r.skipped.map(|s| s.as_str());
    let first = match (skipped, r.operations.is_empty()) {
        (Some(why), _) => Some(format!("Nothing extracted ({why}).")),
        (None, true) => Some("Nothing worth remembering in what is new.".to_string()),
        (None, false) => None,
    };
    let mut facts =
        json!({ "cursor": r.cursor, "operations": operations(&r.operations), "notes": r.diagnostics });
    if let Some(why) = skipped {
        facts["skipped"] = json!(why);
    }
    answered(first, &r.operations, &r.diagnostics, facts)
}

/// A workflow's answer: a first line, then each operation, then the notes.
fn answered(first: Option<String>, ops: &[OpReport], notes: &[String], facts: Value) -> ToolAnswer {
    let lines = first.into_iter().chain(ops.iter().map(line));
    let text = lines.chain(notes.iter().map(|d| format!("note: {d}"))).collect::<Vec<_>>().join("\n");
    ToolAnswer { text, structured: facts.to_string(), is_error: false, session: None }
}

/// `create feedback_x.md`, `proposed create x.md for the user's review (id)`, or
/// `rejected create ../x.md: why`.
fn line(o: &OpReport) -> String {
    match (&o.rejected, &o.proposed) {
        (Some(why), _) => format!("rejected {} {}: {why}", o.op, o.path),
        (None, Some(id)) => format!("proposed {} {} for the user's review ({id})", o.op, o.path),
        (None, None) => format!("{} {}", o.op, o.path),
    }
}

/// The operations as the output schema names them.
fn operations(ops: &[OpReport]) -> Vec<Value> {
    ops.iter()
        .map(|o| {
            let mut v = json!({ "op": o.op.as_str(), "path": o.path });
            if let Some(why) = &o.rejected {
                v["rejected"] = json!(why);
            }
            if let Some(id) = &o.proposed {
                v["proposed"] = json!(id);
            }
            v
        })
        .collect()
}
