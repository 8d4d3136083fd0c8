//! `memdir check`: what has drifted in a memory directory (issue 14 item 3, issue 18).

use crate::context::{Context, Failure, Outcome, absolute};
use crate::ops::check::inspect;
use crate::ops::target::Target;
use memdir_harness::contract::check::{CheckReport, Severity};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project (whose files the citations name) and its memory.
    #[command(flatten)]
    pub target: Target,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// First make the safe repairs to MEMORY.md (dangling and duplicate lines out, missing
    /// lines in), listing each; memory files are never touched. Memories no agent was given in
    /// 90 days are proposed for retiring, in the review queue.
    #[arg(long)]
    pub fix: bool,
}

/// Runs the command: exit 0 when nothing but notes was found, 1 for an error or a warning.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.target.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let explicit = args.target.memory_dir.as_deref().map(absolute).transpose()?;
    let (fixed, proposed) = match args.fix {
        true => {
            let (target, _, mut core) = args.target.open(ctx)?;
            (core.check_fix(&target, ctx.now_ms())?, core.propose_retiring(&target, ctx.now_ms())?)
        }
        false => (Vec::new(), Vec::new()),
    };
    let report = inspect(ctx, &cwd, explicit)?;
    if args.json {
        #[derive(serde::Serialize)]
        struct Fixed<'a> {
            fixed: &'a [String],
            proposed: &'a [String],
            #[serde(flatten)]
            report: &'a CheckReport,
        }
        serde_json::to_writer_pretty(
            &mut *out,
            &Fixed { fixed: &fixed, proposed: &proposed, report: &report },
        )
        .map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        for change in &fixed {
            writeln!(out, "fixed: {change}")?;
        }
        for proposal in &proposed {
            writeln!(out, "review: {proposal}")?;
        }
        write!(out, "{}", report.text)?;
    }
    if !report.failed() {
        return Ok(());
    }
    let n = report.findings.iter().filter(|f| f.severity != Severity::Note).count();
    let what = if n == 1 { "error or warning" } else { "errors or warnings" };
    Err(Failure { status: 1, message: format!("{n} {what} in {}", report.memory_dir) })
}
