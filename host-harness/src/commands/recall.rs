//! `memdir recall QUERY`: the memories worth injecting for one user request (R7, R8).

use super::instructions::whole_tree;
use super::session::{load_session, save_session};
use crate::cli::{Context, Failure, Outcome, absolute};
use crate::llm;
use memdir_core::budget::Session;
use memdir_core::recall::{Input, Skip};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir recall`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The user's request.
    pub query: String,
    /// The working directory whose memory to use (default: the current one).
    #[arg(long, conflicts_with = "memory_dir")]
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

/// Runs one recall turn for `query` against `session`, with `model` or the offline selector.
pub fn recall(
    ctx: &Context,
    query: &Query<'_>,
    session: &mut Session,
    model: Option<&mut dyn llm::Model>,
) -> Result<crate::recall::Report, Failure> {
    let mut core = ctx.core(whole_tree()?)?;
    let (switches, location) = core.status(query.cwd, ctx.env())?;
    let memory_dir = query.memory_dir.clone().unwrap_or(location.memory_dir);
    let input = Input {
        memory_dir: &memory_dir,
        query: query.query,
        recent_tools: query.recent_tools,
        already_read: query.already_read,
        auto_memory: switches.auto_memory,
        ignore_memory: query.ignore_memory,
        now_ms: ctx.now_ms(),
    };
    let selector = model.as_ref().map_or_else(|| "offline".to_string(), |m| m.label());
    match crate::recall::recall(&mut *core, &input, session, model) {
        // A memory directory that does not exist yet simply has nothing to recall.
        Err(crate::Error::Core(memdir_core::Error::Fs(memdir_core::FsError::NotFound(_)))) => {
            Ok(crate::recall::Report {
                skipped: Some(Skip::NoMemories),
                selector,
                outcome: Default::default(),
            })
        }
        other => Ok(other?),
    }
}

/// The model recall uses: `--llm`, else `$MEMDIR_LLM`, else none (the offline selector).
pub fn recall_model(ctx: &Context, spec: Option<&str>) -> Result<Option<Box<dyn llm::Model>>, Failure> {
    let spec = spec.or_else(|| ctx.var("MEMDIR_LLM")).unwrap_or("offline");
    llm::from_spec(spec, ctx.env()).map_err(Failure::input)
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let mut model = recall_model(ctx, args.llm.as_deref())?;
    let mut session = load_session(args.session.as_deref())?;
    let cwd = absolute(&args.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let query = Query {
        cwd: &cwd,
        memory_dir: args.memory_dir.as_deref().map(absolute).transpose()?,
        query: &args.query,
        recent_tools: &args.recent_tool,
        already_read: &args.read,
        ignore_memory: args.ignore_memory,
    };
    let report = recall(ctx, &query, &mut session, model.as_deref_mut().map(|m| m as &mut dyn llm::Model))?;
    if let Some(path) = &args.session {
        save_session(path, &session)?;
    }
    let outcome = &report.outcome;
    if args.json {
        let json = Json {
            skipped: report.skipped.map(|s| s.as_str()),
            selector: &report.selector,
            selected: &outcome.selected,
            attachments: outcome
                .attachments
                .iter()
                .map(|a| JsonAttachment {
                    path: &a.path,
                    freshness: &a.freshness,
                    bytes: a.bytes,
                    truncated: a.truncated,
                    text: &a.text,
                })
                .collect(),
            turn_bytes: session.turn_bytes(),
            session_bytes: session.session_bytes(),
            diagnostics: &outcome.diagnostics,
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    for d in &outcome.diagnostics {
        writeln!(err, "memdir: warning: {d}")?;
    }
    if let Some(skip) = report.skipped {
        writeln!(err, "memdir: nothing recalled ({})", skip.as_str())?;
    }
    for a in &outcome.attachments {
        writeln!(out, "{}\n", a.text)?;
    }
    Ok(())
}
