//! `memdir tools [--json]`: the tools memdir offers agents (through `memdir mcp` and the VS
//! Code extension), as the core's catalog writes them.

use crate::context::{Context, Outcome};
use memdir_harness::ConfinedFs;
use std::io::Write;

/// Arguments of `memdir tools`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the catalog as JSON: each tool's name, title, description, argument schema and
    /// hints.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let catalog = ctx.core(ConfinedFs::new())?.tool_catalog()?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &catalog).map_err(std::io::Error::other)?;
        writeln!(out)?;
        return Ok(());
    }
    for tool in &catalog {
        let access = if tool.read_only { "reads" } else { "writes" };
        writeln!(out, "{:<20} {access:<6} {}", tool.name, tool.title)?;
    }
    Ok(())
}
