//! `memory_recall` as a tool call: recall for the model's request within the host's session,
//! the model or embeddings model asked through the host on the way, the receipt kept, and the
//! answer worded once for every host (the MCP server, the editor's tool).

use super::{Asked, RecallArgs, ToolAnswer, ToolCall, ToolStep, follow};
use crate::base::error::Result;
use crate::base::fs::Fs;
use crate::base::model::{Reply, Step};
use crate::context::target::Target;
use crate::retrieval::recall::{self, RecallResult};
use crate::retrieval::receipts::{Receipt, record_for};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// What a recall call keeps while recall asks: recall's own state inside.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct State {
    recall: String,
    target: Target,
    now_ms: i64,
    given_to: Option<String>,
    notes: Vec<String>,
}

pub(super) fn start(fs: &dyn Fs, call: &ToolCall, args: RecallArgs) -> Result<ToolStep> {
    let input = recall::Input {
        target: call.target.clone(),
        query: args.query,
        recent_tools: args.recent_tools,
        already_read: args.already_read,
        ignore_memory: false,
        now_ms: call.now_ms,
        session: call.session.clone(),
        offline: !call.model,
        embeddings: call.embeddings.clone(),
    };
    let step = recall::start(fs, &input)?;
    let state = State {
        recall: String::new(),
        target: call.target.clone(),
        now_ms: call.now_ms,
        given_to: call.given_to.clone(),
        notes: call.notes.clone(),
    };
    Ok(next(fs, step, state))
}

pub(super) fn resume(fs: &dyn Fs, state: State, reply: Reply) -> Result<ToolStep> {
    let step = recall::resume(fs, &state.recall, reply)?;
    Ok(next(fs, step, state))
}

/// Passes recall's questions on with the call's state around theirs; once it is done, keeps
/// the receipt and words the answer.
fn next(fs: &dyn Fs, step: Step<RecallResult>, state: State) -> ToolStep {
    let wrap = |recall| Asked::Recall(State { recall, ..state.clone() });
    follow(step, wrap, |mut result| {
        result.diagnostics.extend(state.notes.iter().cloned());
        if let Some(client) = &state.given_to {
            let receipt = Receipt {
                at_ms: state.now_ms,
                client: client.clone(),
                session: None,
                kind: "tool".into(),
                memories: result.attachments.iter().map(|a| a.path.clone()).collect(),
                bytes: result.attachments.iter().map(|a| a.text.len() as u32).sum(),
            };
            if let Err(e) = record_for(fs, &state.target, &receipt) {
                result.diagnostics.push(format!("the receipt could not be kept: {e}"));
            }
        }
        word(result)
    })
}

/// The memories as the model reads them, each in its wrapper, or why there are none; then the
/// notes. The structured content carries the same, as `memory_recall`'s output schema says.
fn word(result: RecallResult) -> ToolAnswer {
    let mut parts: Vec<String> = result.attachments.iter().map(|a| a.text.clone()).collect();
    if let Some(skip) = result.skipped {
        parts.push(format!("Nothing recalled ({}).", skip.as_str()));
    } else if parts.is_empty() {
        parts.push("No memory is relevant to this request (or the relevant ones were already shown).".into());
    }
    parts.extend(result.diagnostics.iter().map(|d| format!("note: {d}")));
    let memories: Vec<_> = result
        .attachments
        .iter()
        .map(|a| {
            json!({ "path": a.path, "age": a.freshness, "stale": a.stale, "truncated": a.truncated, "text": a.text })
        })
        .collect();
    let mut facts = json!({ "memories": memories, "notes": result.diagnostics });
    if let Some(skip) = result.skipped {
        facts["skipped"] = json!(skip.as_str());
    }
    ToolAnswer {
        text: parts.join("\n\n"),
        structured: facts.to_string(),
        is_error: false,
        session: Some(result.session),
    }
}
