//! `memdir prompt`: the whole memory part of a system prompt (R12.1).

use super::instructions::{LoadArgs, warn, whole_tree};
use crate::cli::{Context, Failure, Outcome};
use memdir_core::prompt::Options;
use memdir_core::target::Target;
use std::io::Write;

/// Arguments of `memdir prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Teach saving without the MEMORY.md step (for hosts that do not keep the index).
    #[arg(long)]
    pub no_index_step: bool,
    /// The user asked not to use memory for this request (R4.3).
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
    let options = Options { index_step: !args.no_index_step, ignore_memory: args.ignore_memory };
    out.write_all(core.prompt(&request, options)?.as_bytes())?;
    Ok(())
}

/// Building the prompt writes a missing MEMORY.md (R6.5): the core decides whether and what;
/// this grants it the memory directory and says what happened.
pub fn rebuild_missing_index(ctx: &Context, cwd: &str, err: &mut dyn Write) -> Outcome {
    let dir = ctx.core(whole_tree()?)?.locate(cwd, ctx.env())?.memory_dir;
    if !std::path::Path::new(&dir).is_dir() {
        return Ok(());
    }
    let fs = whole_tree()?.grant_write(&dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
    let target = Target::new(cwd, ctx.env());
    if let Some(rebuilt) = ctx.core(fs)?.rebuild_index(&target, ctx.now_ms())? {
        writeln!(
            err,
            "memdir: MEMORY.md was missing: wrote {} with {} entries",
            rebuilt.path, rebuilt.entries
        )?;
    }
    Ok(())
}
