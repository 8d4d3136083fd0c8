//! The memory checked against the project and its git (`memdir check`, MCP `memory_check`).

use super::whole_tree;
use crate::context::{Context, Failure};
use memdir_harness::contract::check::CheckReport;
use memdir_harness::contract::plan::Operation;

/// Checks the memory of the project at `cwd` (or the directory `memory_dir`), running the git
/// commands the core asks for in the project: the CLI's and the MCP server's `check`.
pub fn inspect(ctx: &Context, cwd: &str, memory_dir: Option<String>) -> Result<CheckReport, Failure> {
    let target = memdir_harness::contract::target::Target {
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        memory_dir,
        by: Some(ctx.by()),
    };
    // The core plans the grant (the memory directory writable only when it exists, to finish a
    // write a killed writer left half-done) and the same instance runs the check.
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Check, &target)?;
    let report = memdir_harness::steps::drive_check(
        &mut *core,
        &target,
        ctx.now_ms(),
        memdir_harness::git::run_command,
    )?;
    Ok(report)
}
