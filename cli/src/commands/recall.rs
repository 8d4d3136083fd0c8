//! `memdir recall QUERY`: the memories worth injecting for one user request (R7, R8).

use crate::context::{Context, Outcome, absolute};
use crate::ops::recall::{Query, recall, recall_model};
use crate::ops::session::{load_session, save_session};
use memdir_harness::llm;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir recall`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The user's request.
    pub query: String,
    /// The working directory whose memory to use, and whose files the memories' citations are
    /// checked against (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Recall from this memory directory instead of the working directory's.
    #[arg(long)]
    pub memory_dir: Option<PathBuf>,
    /// A tool the agent used recently (its usage notes are skipped, its warnings kept).
    #[arg(long, value_name = "NAME")]
    pub recent_tool: Vec<String>,
    /// A file the agent already read: it is not injected again.
    #[arg(long, value_name = "PATH")]
    pub read: Vec<String>,
    /// Keep the session (what was surfaced, bytes injected) in this file across calls.
    #[arg(long)]
    pub session: Option<PathBuf>,
    /// The model: offline, command:CMD, anthropic:MODEL or openai:MODEL (default: $MEMDIR_LLM,
    /// else offline).
    #[arg(long)]
    pub llm: Option<String>,
    /// The embeddings model offline recall ranks by meaning with: off, openai:MODEL or
    /// command:CMD (default: $MEMDIR_EMBEDDINGS, else off).
    #[arg(long, value_name = "SPEC")]
    pub embeddings: Option<String>,
    /// The user said not to use memory for this request.
    #[arg(long)]
    pub ignore_memory: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    skipped: Option<&'static str>,
    selector: &'a str,
    selected: &'a [String],
    attachments: Vec<JsonAttachment<'a>>,
    turn_bytes: u32,
    session_bytes: u32,
    diagnostics: &'a [String],
}

#[derive(Serialize)]
struct JsonAttachment<'a> {
    path: &'a str,
    scope: &'static str,
    whole: bool,
    freshness: &'a str,
    stale: bool,
    bytes: u32,
    truncated: bool,
    text: &'a str,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let mut model = recall_model(ctx, args.llm.as_deref())?;
    let session = load_session(ctx, args.session.as_deref())?;
    let cwd = absolute(&args.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let query = Query {
        cwd: &cwd,
        memory_dir: args.memory_dir.as_deref().map(absolute).transpose()?,
        query: &args.query,
        recent_tools: &args.recent_tool,
        already_read: &args.read,
        ignore_memory: args.ignore_memory,
        embeddings: args.embeddings.as_deref(),
    };
    let label = model.as_ref().map_or_else(|| "offline".to_string(), |m| m.label());
    let outcome = recall(ctx, &query, session, model.as_deref_mut().map(|m| m as &mut dyn llm::Model))?;
    if let Some(path) = &args.session {
        save_session(path, &outcome.session)?;
    }
    if args.json {
        let json = Json {
            skipped: outcome.skipped.map(|s| s.as_str()),
            selector: &label,
            selected: &outcome.selected,
            attachments: outcome
                .attachments
                .iter()
                .map(|a| JsonAttachment {
                    path: &a.path,
                    scope: a.scope.as_str(),
                    whole: a.whole,
                    freshness: &a.freshness,
                    stale: a.stale,
                    bytes: a.bytes,
                    truncated: a.truncated,
                    text: &a.text,
                })
                .collect(),
            turn_bytes: outcome.turn_bytes,
            session_bytes: outcome.session_bytes,
            diagnostics: &outcome.diagnostics,
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    for d in &outcome.diagnostics {
        writeln!(err, "memdir: warning: {d}")?;
    }
    if let Some(skip) = outcome.skipped {
        writeln!(err, "memdir: nothing recalled ({})", skip.as_str())?;
    }
    for a in &outcome.attachments {
        writeln!(out, "{}\n", a.text)?;
    }
    Ok(())
}
