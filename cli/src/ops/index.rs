//! A missing MEMORY.md written when memory files exist (R6.5).

use super::whole_tree;
use crate::context::{Context, Outcome};
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::target::Target;
use std::io::Write;

/// Building the prompt writes a missing MEMORY.md (R6.5): the core decides whether and what,
/// under a check's plan (the memory directory writable when it exists, never created); this
/// says what happened.
pub fn rebuild_missing_index(ctx: &Context, cwd: &str, err: &mut dyn Write) -> Outcome {
    let target = Target::new(cwd, ctx.env());
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Check, &target)?;
    if let Some(rebuilt) = core.rebuild_index(&target, ctx.now_ms())? {
        writeln!(
            err,
            "memdir: MEMORY.md was missing: wrote {} with {} entries",
            rebuilt.path, rebuilt.entries
        )?;
    }
    Ok(())
}
