//! Drives one recall through a [`Core`]: prepare, ask the model (or rank offline), complete.
//! A model that fails, times out or says nonsense costs the turn its attachments, never more.

use crate::Core;
use crate::error::Result;
use crate::llm::Model;
use memdir_core::budget::Session;
use memdir_core::recall::{Input, Outcome, Skip};

/// What one recall did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Why nothing was recalled, when it was skipped.
    pub skipped: Option<Skip>,
    /// `model:<spec>` or `offline`.
    pub selector: String,
    /// Selection, attachments and diagnostics.
    pub outcome: Outcome,
}

/// Runs a recall for `input`, updating `session`. With no `model`, the offline selector ranks.
pub fn recall(
    core: &mut dyn Core,
    input: &Input<'_>,
    session: &mut Session,
    model: Option<&mut dyn Model>,
) -> Result<Report> {
    let selector = model.as_ref().map_or_else(|| "offline".to_string(), |m| m.label());
    let pending = match core.recall_prepare(input, session)? {
        Ok(pending) => pending,
        Err(skip) => return Ok(Report { skipped: Some(skip), selector, outcome: Outcome::default() }),
    };
    let outcome = match model {
        None => core.recall_offline(input, session, &pending)?,
        Some(model) => match model.complete(&pending.request) {
            Ok(reply) => core.recall_complete(input, session, &pending, &reply)?,
            Err(e) => Outcome {
                diagnostics: vec![format!("{e}; nothing recalled this turn")],
                ..Outcome::default()
            },
        },
    };
    Ok(Report { skipped: None, selector, outcome })
}
