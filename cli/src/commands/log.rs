//! `memdir log TEXT` and `memdir dream`: daily-log mode (R9.4).

use crate::context::{Context, Outcome};
use crate::ops::dream::run_dream;
use crate::ops::target::Target;
use memdir_harness::contract::model::ModelCall;
use std::io::{IsTerminal, Write};

/// Arguments of `memdir log`.
#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// The entry to append to today's log.
    pub text: String,
    /// The user's UTC offset in minutes, for which day "today" is (default: this machine's).
    #[arg(long, allow_hyphen_values = true)]
    pub utc_offset: Option<i32>,
    #[command(flatten)]
    pub target: Target,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `memdir dream`.
#[derive(Debug, clap::Args)]
pub struct DreamArgs {
    /// The model: command:CMD, anthropic:MODEL or openai:MODEL (default: $MEMDIR_LLM).
    #[arg(long)]
    pub llm: Option<String>,
    /// The user's UTC offset in minutes, for dates in project memories (default: this machine's).
    #[arg(long, allow_hyphen_values = true)]
    pub utc_offset: Option<i32>,
    #[command(flatten)]
    pub target: Target,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

/// Runs `memdir log`.
pub fn log(ctx: &Context, args: LogArgs, out: &mut dyn Write) -> Outcome {
    let (target, _, mut core) = args.target.open(ctx)?;
    let path = core.log_append(&target, &args.text, ctx.now_ms(), ctx.utc_offset(args.utc_offset))?;
    if args.json {
        writeln!(out, "{}", serde_json::json!({ "path": path }))?;
    } else {
        writeln!(out, "logged to {path}")?;
    }
    Ok(())
}

/// Runs `memdir dream`; on a terminal, progress goes to stderr.
pub fn dream(ctx: &Context, args: DreamArgs, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let mut model = ctx.model(args.llm.as_deref(), "a dream")?;
    let on_terminal = std::io::stderr().is_terminal();
    let progress = |call: &ModelCall| {
        if on_terminal {
            let _ = write!(err, "\rdreaming: chunk {}/{}", call.call, call.calls);
        }
    };
    let report = run_dream(ctx, &args.target, ctx.utc_offset(args.utc_offset), &mut *model, progress)?;
    if on_terminal && report.chunks > 0 {
        writeln!(err)?;
    }
    if args.json {
        let ops: Vec<_> = report
            .operations
            .iter()
            .map(|o| {
                let mut op = serde_json::json!({"op": o.op.as_str(), "path": o.path, "rejected": o.rejected});
                // Under `memoryWrites: review` (issue 28): the proposal waiting instead.
                if let Some(id) = &o.proposed {
                    op["proposed"] = serde_json::json!(id);
                }
                op
            })
            .collect();
        let json = serde_json::json!({
            "chunks": report.chunks, "committed": report.committed, "operations": ops, "diagnostics": report.diagnostics,
        });
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    if report.chunks == 0 {
        writeln!(out, "nothing new in the logs")?;
    }
    for o in &report.operations {
        match (&o.rejected, &o.proposed) {
            (Some(why), _) => writeln!(out, "rejected {} {}: {why}", o.op, o.path)?,
            (None, Some(id)) => {
                writeln!(out, "proposed {} {} for review ({id}): memdir review", o.op, o.path)?
            }
            (None, None) => writeln!(out, "{} {}", o.op, o.path)?,
        }
    }
    for d in &report.diagnostics {
        writeln!(out, "note: {d}")?;
    }
    Ok(())
}
