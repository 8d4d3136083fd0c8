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
    let report = core.scan(&dir, ctx.now_ms())?;
    out.write_all(core.manifest(&report.headers)?.as_bytes())?;
    Ok(())
}
