//! Where an operation's memory directory is, and the filesystem it may use there.

use super::whole_tree;
use crate::context::{Context, Failure, absolute};
use memdir_harness::Core;
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::target::Target as CoreTarget;
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
    /// The core's target for these arguments, and a core opened on it for a writer of the
    /// project's memory: the core plans the grant (the memory directory, created when missing)
    /// and the same instance runs on with it. Returns the memory directory too.
    pub fn open<'c>(&self, ctx: &'c Context) -> Result<(CoreTarget, String, Box<dyn Core + 'c>), Failure> {
        self.open_for(ctx, Operation::Write)
    }

    /// [`Target::open`] for a save or a forget, which may also write the user-wide and group
    /// memories the user turned on (issue 28).
    pub fn open_to_share<'c>(
        &self,
        ctx: &'c Context,
    ) -> Result<(CoreTarget, String, Box<dyn Core + 'c>), Failure> {
        self.open_for(ctx, Operation::WriteShared)
    }

    /// The core's target for these arguments, naming who asks.
    pub fn core_target(&self, ctx: &Context) -> Result<CoreTarget, Failure> {
        let cwd = absolute(&self.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
        let memory_dir = self.memory_dir.as_deref().map(absolute).transpose()?;
        Ok(CoreTarget { cwd, env: ctx.env().to_vec(), memory_dir, by: Some(ctx.by()) })
    }

    fn planned<'c>(
        &self,
        ctx: &'c Context,
        operation: Operation,
    ) -> Result<(CoreTarget, memdir_harness::contract::plan::Grant, Box<dyn Core + 'c>), Failure> {
        let target = self.core_target(ctx)?;
        let mut core = ctx.core(whole_tree()?)?;
        let grant = core.open(operation, &target)?;
        Ok((target, grant, core))
    }

    fn open_for<'c>(
        &self,
        ctx: &'c Context,
        operation: Operation,
    ) -> Result<(CoreTarget, String, Box<dyn Core + 'c>), Failure> {
        let (target, grant, core) = self.planned(ctx, operation)?;
        // A writer's plan names the directory it works in first.
        let dir = grant
            .write
            .first()
            .cloned()
            .ok_or_else(|| Failure::input("the core granted no memory directory"))?;
        Ok((target, dir, core))
    }
}
