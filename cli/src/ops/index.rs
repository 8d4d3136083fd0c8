//! A missing MEMORY.md written when memory files exist (R6.5).

use super::whole_tree;
use crate::context::{Context, Failure, Outcome};
use memdir_harness::contract::target::Target;
use std::io::Write;

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
