//! Where an operation's memory directory is, and the filesystem it may use there.

use super::whole_tree;
use crate::context::{Context, Failure, absolute};
use memdir_harness::ConfinedFs;
use std::path::PathBuf;

/// Where the memory directory is: the working directory's, or one named.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// The working directory: its memory, its project and its settings (default: the current
    /// one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Use this memory directory instead of the working directory's.
    #[arg(long)]
    pub memory_dir: Option<PathBuf>,
}

impl Target {
    /// The core's target for these arguments, and a filesystem that reads everything (settings
    /// and git metadata live anywhere) and writes the memory directory alone, created when
    /// missing. Returns the memory directory too.
    pub fn open(&self, ctx: &Context) -> Result<(memdir_core::target::Target, String, ConfinedFs), Failure> {
        self.open_granting(ctx, false)
    }

    /// [`Target::open`] for a save or a forget, which may also write the user-wide and group
    /// memories the user turned on (issue 28). Every other operation writes the project's alone.
    pub fn open_to_share(
        &self,
        ctx: &Context,
    ) -> Result<(memdir_core::target::Target, String, ConfinedFs), Failure> {
        self.open_granting(ctx, true)
    }

    fn open_granting(
        &self,
        ctx: &Context,
        shared: bool,
    ) -> Result<(memdir_core::target::Target, String, ConfinedFs), Failure> {
        let cwd = absolute(&self.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
        let explicit = self.memory_dir.as_deref().map(absolute).transpose()?;
        // A memory directory named outright is the only one written.
        let (dir, shared) = match &explicit {
            Some(dir) => (dir.clone(), Vec::new()),
            None => {
                let location = ctx.core(whole_tree()?)?.locate(&cwd, ctx.env())?;
                let shared: Vec<String> = match shared {
                    true => memdir_core::scope::shared(&location).into_iter().map(|s| s.dir).collect(),
                    false => Vec::new(),
                };
                (location.memory_dir, shared)
            }
        };
        let mut fs = whole_tree()?;
        for dir in std::iter::once(&dir).chain(&shared) {
            std::fs::create_dir_all(dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
            fs = fs.grant_write(dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
        }
        let target = memdir_core::target::Target { cwd, env: ctx.env().to_vec(), memory_dir: explicit };
        Ok((target, dir, fs))
    }
}
