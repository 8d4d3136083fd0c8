//! `memdir manifest DIR`: the manifest on stdout, one line per memory, nothing else.

use crate::context::{Context, Outcome, absolute, read_root};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir manifest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory directory.
    pub dir: PathBuf,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let dir = absolute(&args.dir)?;
    let mut core = ctx.core(read_root(&args.dir)?)?;
    out.write_all(core.manifest_of_dir(&dir, ctx.now_ms())?.as_bytes())?;
    Ok(())
}
