//! `memdir recall QUERY`: the memories worth injecting for one user request (R7, R8).

use super::instructions::whole_tree;
use super::session::{load_session, save_session};
use crate::cli::{Context, Failure, Outcome, absolute};
use crate::llm;
use crate::steps::drive;
use memdir_core::recall::{Input, RecallResult};
use memdir_core::target::Target;
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
    freshness: &'a str,
    stale: bool,
    bytes: u32,
    truncated: bool,
    text: &'a str,
}

/// One recall request, whatever asked for it (this command or `memdir mcp`).
pub struct Query<'a> {
    /// The absolute working directory.
    pub cwd: &'a str,
    /// A memory directory to use instead of the working directory's.
    pub memory_dir: Option<String>,
    /// The user's request.
    pub query: &'a str,
    /// Tools the agent used recently.
    pub recent_tools: &'a [String],
    /// Files already in the context.
    pub already_read: &'a [String],
    /// The user said not to use memory.
    pub ignore_memory: bool,
}

/// Runs one recall turn for `query` in `session` (JSON, empty for a new one), with `model` or
/// the offline selector. The result carries the session to keep.
pub fn recall(
    ctx: &Context,
    query: &Query<'_>,
    session: String,
    model: Option<&mut dyn llm::Model>,
) -> Result<RecallResult, Failure> {
    let mut core = ctx.core(whole_tree()?)?;
    let input = Input {
        target: Target {
            cwd: query.cwd.to_string(),
            env: ctx.env().to_vec(),
            memory_dir: query.memory_dir.clone(),
        },
        query: query.query.to_string(),
        recent_tools: query.recent_tools.to_vec(),
        already_read: query.already_read.to_vec(),
        ignore_memory: query.ignore_memory,
        now_ms: ctx.now_ms(),
        session,
        offline: model.is_none(),
    };
    let first = core.recall_start(&input)?;
    Ok(match model {
        Some(model) => drive(first, model, |state, reply| core.recall_resume(state, reply), |_| {})?,
        None => first.done().expect("an offline recall finishes in one step"),
    })
}

/// The model recall uses: `--llm`, else `$MEMDIR_LLM`, else none (the offline selector).
pub fn recall_model(ctx: &Context, spec: Option<&str>) -> Result<Option<Box<dyn llm::Model>>, Failure> {
    let spec = spec.or_else(|| ctx.var("MEMDIR_LLM")).unwrap_or("offline");
    llm::from_spec(spec, ctx.env()).map_err(Failure::input)
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
