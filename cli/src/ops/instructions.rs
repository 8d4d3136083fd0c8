//! What to load for instructions and the prompt (R3, R12.1), and the warnings that belong to no
//! single file.

use crate::context::{Failure, absolute};
use memdir_harness::contract::instructions::{Loaded, Request};
use std::io::Write;
use std::path::PathBuf;

/// What to load, shared with `memdir prompt`.
#[derive(Debug, clap::Args)]
pub struct LoadArgs {
    /// The working directory (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// A file the work touches (relative to --cwd): rules with `paths:` apply when one matches.
    #[arg(long, value_name = "PATH")]
    pub touching: Vec<PathBuf>,
    /// A directory to load instructions from as well (the only ones in bare mode).
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
}

/// The absolute forms of the load arguments.
pub struct Resolved {
    cwd: String,
    touching: Vec<String>,
    add_dirs: Vec<String>,
}

impl LoadArgs {
    /// Makes every path absolute: `--touching` relative to `--cwd`.
    pub fn resolve(&self) -> Result<Resolved, Failure> {
        let cwd = self.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        let cwd_path =
            std::path::absolute(&cwd).map_err(|e| Failure::input(format!("{}: {e}", cwd.display())))?;
        let touching = self.touching.iter().map(|t| absolute(&cwd_path.join(t))).collect::<Result<_, _>>()?;
        let add_dirs = self.add_dir.iter().map(|d| absolute(d)).collect::<Result<_, _>>()?;
        Ok(Resolved { cwd: absolute(&cwd)?, touching, add_dirs })
    }
}

impl Resolved {
    /// The core's request over these paths.
    pub fn request<'a>(&'a self, env: &'a [(String, String)]) -> Request<'a> {
        Request { cwd: &self.cwd, env, touching: &self.touching, add_dirs: &self.add_dirs }
    }
}

/// Prints problems that belong to no single file.
pub fn warn(loaded: &Loaded, err: &mut dyn Write) -> std::io::Result<()> {
    for d in loaded.switches.diagnostics.iter().chain(&loaded.diagnostics) {
        writeln!(err, "memdir: warning: {d}")?;
    }
    Ok(())
}
