//! Drives a dream through a [`Core`] and a model: plan the chunks, then for each one ask, apply
//! and commit. A chunk whose model call fails is not committed, so the next dream retries it.

use crate::Core;
use crate::error::Result;
use crate::llm::Model;
use memdir_core::extract::{OpReport, Target};

/// What a dream did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Chunks planned.
    pub chunks: usize,
    /// Chunks folded and committed.
    pub committed: usize,
    /// Every operation, applied or rejected.
    pub operations: Vec<OpReport>,
    /// Model failures, unusable replies.
    pub diagnostics: Vec<String>,
}

/// Dreams over `target`'s logs; `progress(done, total)` is called after each chunk.
pub fn run(
    core: &mut dyn Core,
    target: &Target<'_>,
    model: &mut dyn Model,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Report> {
    let chunks = core.dream_plan(target.memory_dir)?;
    let mut report = Report { chunks: chunks.len(), ..Report::default() };
    for (i, chunk) in chunks.iter().enumerate() {
        match model.complete(&chunk.request) {
            Ok(reply) => {
                let (ops, diagnostics) = core.dream_apply(target, &reply)?;
                report.operations.extend(ops);
                report.diagnostics.extend(diagnostics);
                core.dream_commit(target.memory_dir, &chunk.logs)?;
                report.committed += 1;
            }
            Err(e) => report.diagnostics.push(format!("chunk {}: {e}; it will be retried next time", i + 1)),
        }
        progress(i + 1, chunks.len());
    }
    Ok(report)
}
