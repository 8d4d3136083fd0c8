//! `memdir history`: what was written to the memory, when, and who asked (issue 48).

use crate::context::{Context, Outcome};
use crate::ops::whole_tree;
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::time::iso_millis;
use std::io::Write;

/// Arguments of `memdir history`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this memory's changes (its path in the memory directory, `team/…` for team memory).
    pub path: Option<String>,
    #[command(flatten)]
    pub target: crate::ops::target::Target,
    /// At most this many changes, newest first.
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `memdir history`: the timeline of writes, newest first.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    // A reader: nobody asks for a write.
    let target = memdir_harness::contract::target::Target { by: None, ..args.target.core_target(ctx)? };
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Read, &target)?;
    let written = core.timeline(&target, args.path.as_deref(), args.limit)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &written).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    if written.is_empty() {
        writeln!(out, "nothing written yet")?;
    }
    for w in &written {
        write!(out, "{}  {:<8}  {}  by {}", iso_millis(w.at_ms), w.action, w.path, w.by)?;
        if let Some(note) = &w.note {
            write!(out, "  ({note})")?;
        }
        if let Some(before) = &w.before {
            write!(out, "  [before: restore {before}]")?;
        }
        writeln!(out)?;
    }
    Ok(())
}
