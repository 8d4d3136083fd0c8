//! Drives background extraction through a [`Core`] and a model: begin, round 1, round 2, apply.
//! A model that fails costs the run its changes, never the memory directory.

use crate::Core;
use crate::error::Result;
use crate::llm::Model;
use memdir_core::extract::{Input, OpReport, Skip};

/// What one extraction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Why it did not run.
    pub skipped: Option<Skip>,
    /// The cursor to store: every message seen, whatever happened (R9.3).
    pub cursor: usize,
    /// Files round 1 asked for and round 2 was shown.
    pub read: Vec<String>,
    /// Every operation of round 2, applied or rejected.
    pub operations: Vec<OpReport>,
    /// Model failures and replies that could not be used.
    pub diagnostics: Vec<String>,
}

/// Runs extraction over `input` with `model`.
pub fn run(core: &mut dyn Core, input: &Input<'_>, model: &mut dyn Model) -> Result<Report> {
    let mut report = Report {
        skipped: None,
        cursor: input.messages.len(),
        read: Vec::new(),
        operations: Vec::new(),
        diagnostics: Vec::new(),
    };
    let round = match core.extract_begin(input)? {
        Ok(round) => round,
        Err(skip) => {
            report.skipped = Some(skip);
            return Ok(report);
        }
    };
    let reply = match model.complete(&round.request) {
        Ok(reply) => reply,
        Err(e) => {
            report.diagnostics.push(format!("round 1: {e}; nothing changed"));
            return Ok(report);
        }
    };
    let (request, read, diagnostics) = core.extract_read(input, &round, &reply)?;
    report.read = read;
    report.diagnostics.extend(diagnostics);
    let reply = match model.complete(&request) {
        Ok(reply) => reply,
        Err(e) => {
            report.diagnostics.push(format!("round 2: {e}; nothing changed"));
            return Ok(report);
        }
    };
    let (operations, diagnostics) = core.extract_apply(input, &reply)?;
    report.operations = operations;
    report.diagnostics.extend(diagnostics);
    Ok(report)
}
