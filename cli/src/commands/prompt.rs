//! `memdir prompt`: the whole memory part of a system prompt (R12.1).

use crate::context::{Context, Outcome};
use crate::ops::index::rebuild_missing_index;
use crate::ops::instructions::{LoadArgs, warn};
use crate::ops::whole_tree;
use memdir_harness::contract::prompt::Options;
use std::io::Write;

/// Arguments of `memdir prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Teach saving without the MEMORY.md step (for hosts that do not keep the index).
    #[arg(long)]
    pub no_index_step: bool,
    /// The user asked not to use memory for this request.
    #[arg(long)]
    pub ignore_memory: bool,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let resolved = args.load.resolve()?;
    let request = resolved.request(ctx.env());
    rebuild_missing_index(ctx, request.cwd, err)?;
    let mut core = ctx.core(whole_tree()?)?;
    // Loaded once for the warnings; the prompt itself is rendered by the core.
    warn(&core.load_instructions(&request)?, err)?;
    let options = Options {
        index_step: !args.no_index_step,
        ignore_memory: args.ignore_memory,
        instruction_files: true,
    };
    out.write_all(core.prompt(&request, options)?.as_bytes())?;
    Ok(())
}
