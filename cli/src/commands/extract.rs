//! `memdir extract`: writer B over a transcript (R9.2, R9.3). The core keeps the cursor — how
//! many messages were already processed — per conversation in the memory directory's hidden
//! `.cursors/` folder, so a rerun only looks at what is new.

use crate::context::{Context, Failure, Outcome};
use crate::ops::extract::{Extraction, extract};
use crate::ops::target::Target;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

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
    cursor: u32,
    read: &'a [String],
    applied: Vec<Op<'a>>,
    rejected: Vec<Op<'a>>,
    /// Under `memoryWrites: review`, what waits for the user (issue 28).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    proposed: Vec<Op<'a>>,
    diagnostics: &'a [String],
}

#[derive(Serialize)]
struct Op<'a> {
    op: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// The proposal's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
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
    let extraction = Extraction {
        transcript: &text,
        source: &args.transcript.display().to_string(),
        conversation: Some(conversation),
        written: &args.written,
        main_agent: !args.subagent,
        utc_offset_minutes: ctx.utc_offset(args.utc_offset),
    };
    let report = extract(ctx, &args.target, &extraction, &mut *model, |_| {})?;

    fn op(o: &memdir_harness::contract::apply::OpReport) -> Op<'_> {
        Op { op: o.op.as_str(), path: &o.path, reason: None, id: None }
    }
    let applied: Vec<Op> =
        report.operations.iter().filter(|o| o.rejected.is_none() && o.proposed.is_none()).map(op).collect();
    let proposed: Vec<Op> = report
        .operations
        .iter()
        .filter_map(|o| o.proposed.as_deref().map(|id| Op { id: Some(id), ..op(o) }))
        .collect();
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
            proposed,
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
    for o in &proposed {
        writeln!(out, "proposed {} {} for review ({}): memdir review", o.op, o.path, o.id.unwrap_or(""))?;
    }
    for d in &report.diagnostics {
        writeln!(out, "note: {d}")?;
    }
    Ok(())
}
