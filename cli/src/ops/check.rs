//! The memory checked against the project and its git (`memdir check`, MCP `memory_check`).

use super::whole_tree;
use crate::context::{Context, Failure};
use memdir_harness::contract::check::CheckReport;

/// Checks the memory of the project at `cwd` (or the directory `memory_dir`), running the git
/// commands the core asks for in the project: the CLI's and the MCP server's `check`.
pub fn inspect(ctx: &Context, cwd: &str, memory_dir: Option<String>) -> Result<CheckReport, Failure> {
    let location = ctx.core(whole_tree()?)?.locate(cwd, ctx.env())?;
    let dir = memory_dir.clone().unwrap_or_else(|| location.memory_dir.clone());
    // Writable only to finish a write a killed writer left half-done; never created.
    let mut fs = whole_tree()?;
    if std::path::Path::new(&dir).is_dir() {
        fs = fs.grant_write(&dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
    }
    let target = memdir_harness::contract::target::Target {
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        memory_dir,
        by: Some(ctx.by()),
    };
    let report = memdir_harness::steps::drive_check(
        &mut *ctx.core(fs)?,
        &target,
        ctx.now_ms(),
        memdir_harness::git::run_command,
    )?;
    Ok(report)
}
