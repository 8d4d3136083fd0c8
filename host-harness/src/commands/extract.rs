//! `memdir extract`: writer B over a transcript (R9.2, R9.3). The cursor — how many messages
//! were already processed — is kept per conversation in the memory directory's hidden
//! `.cursors/` folder, so a rerun only looks at what is new.

use super::save::Target;
use crate::cli::{Context, Failure, Outcome};
use memdir_core::extract::Input;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `memdir extract`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The conversation as JSON lines (the agent's transcript shape, or `{"role", "content"}`).
    #[arg(long)]
    pub transcript: PathBuf,
    /// The conversation's id, for its cursor (default: the transcript's file name).
    #[arg(long)]
    pub conversation: Option<String>,
    /// This transcript is a subagent's: extraction runs on the main agent only.
    #[arg(long)]
    pub subagent: bool,
    /// A path the main agent wrote this turn (extraction is skipped when one is in memory).
    #[arg(long, value_name = "PATH")]
    pub written: Vec<String>,
    /// The model: command:CMD, anthropic:MODEL or openai:MODEL (default: $MEMDIR_LLM).
    #[arg(long)]
    pub llm: Option<String>,
    /// The user's UTC offset in minutes (default: this machine's).
    #[arg(long, allow_hyphen_values = true)]
    pub utc_offset: Option<i32>,
    #[command(flatten)]
    pub target: Target,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    skipped: Option<&'static str>,
    cursor: usize,
    read: &'a [String],
    applied: Vec<Op<'a>>,
    rejected: Vec<Op<'a>>,
    diagnostics: &'a [String],
}

#[derive(Serialize)]
struct Op<'a> {
    op: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let mut model = ctx.model(args.llm.as_deref(), "extraction")?;
    let text = std::fs::read_to_string(&args.transcript)
        .map_err(|e| Failure::input(format!("{}: {e}", args.transcript.display())))?;
    let conversation = match &args.conversation {
        Some(id) => id.clone(),
        None => args.transcript.file_stem().and_then(|s| s.to_str()).unwrap_or("conversation").to_string(),
    };
    if conversation.is_empty()
        || !conversation.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(Failure::input(format!(
            "conversation id {conversation:?}: use letters, digits, `.`, `_`, `-`"
        )));
    }
    let (dir, fs) = args.target.open(ctx)?;
    let cursor_file = Path::new(&dir).join(".cursors").join(&conversation);
    let cursor: usize =
        std::fs::read_to_string(&cursor_file).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
    let mut core = ctx.core(fs)?;
    let messages = core
        .extract_parse(&text)
        .map_err(|e| Failure::input(format!("{}: {e}", args.transcript.display())))?;
    let cwd = crate::cli::absolute(Path::new("."))?;
    let (switches, _) = ctx.core(super::instructions::whole_tree()?)?.status(&cwd, ctx.env())?;
    let input = Input {
        memory_dir: &dir,
        messages: &messages,
        cursor,
        written: &args.written,
        main_agent: !args.subagent,
        auto_memory: switches.auto_memory,
        now_ms: ctx.now_ms(),
        utc_offset_minutes: ctx.utc_offset(args.utc_offset),
    };
    let report = crate::extraction::run(&mut *core, &input, &mut *model)?;
    std::fs::create_dir_all(cursor_file.parent().expect("has a parent"))?;
    std::fs::write(&cursor_file, format!("{}\n", report.cursor))?;

    fn op(o: &memdir_core::extract::OpReport) -> Op<'_> {
        Op { op: &o.op, path: &o.path, reason: None }
    }
    let applied: Vec<Op> = report.operations.iter().filter(|o| o.rejected.is_none()).map(op).collect();
    let rejected: Vec<Op> = report
        .operations
        .iter()
        .filter_map(|o| o.rejected.as_deref().map(|r| Op { reason: Some(r), ..op(o) }))
        .collect();
    if args.json {
        let json = Json {
            skipped: report.skipped.map(|s| s.as_str()),
            cursor: report.cursor,
            read: &report.read,
            applied,
            rejected,
            diagnostics: &report.diagnostics,
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    if let Some(skip) = report.skipped {
        writeln!(out, "skipped ({}); cursor at {}", skip.as_str(), report.cursor)?;
    }
    for o in &applied {
        writeln!(out, "{} {}", o.op, o.path)?;
    }
    for o in &rejected {
        writeln!(out, "rejected {} {}: {}", o.op, o.path, o.reason.unwrap_or(""))?;
    }
    for d in &report.diagnostics {
        writeln!(out, "note: {d}")?;
    }
    Ok(())
}
