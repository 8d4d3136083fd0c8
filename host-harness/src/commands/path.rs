//! `memdir path [--cwd DIR]`: the auto-memory directory of a working directory.

use crate::ConfinedFs;
use crate::cli::{Context, Failure, Outcome, absolute};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir path`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The working directory (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Print JSON with the project root, slug and configuration directory too.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    memory_dir: &'a str,
    project_root: &'a str,
    from_git: bool,
    slug: &'a str,
    config_dir: &'a str,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = args.cwd.unwrap_or_else(|| PathBuf::from("."));
    let cwd_abs = absolute(&cwd)?;
    // Finding the repository means reading `.git` entries in any parent, and a linked
    // worktree's git dir may live anywhere: the whole tree is granted, read-only.
    let fs = ConfinedFs::new().grant_read("/").map_err(|e| Failure::input(format!("/: {e}")))?;
    let loc = ctx.core(fs)?.locate(&cwd_abs, ctx.env())?;
    if args.json {
        let json = Json {
            memory_dir: &loc.memory_dir,
            project_root: &loc.project_root,
            from_git: loc.from_git,
            slug: &loc.slug,
            config_dir: &loc.config_dir,
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", loc.memory_dir)?;
    }
    Ok(())
}
