//! Writer B over one conversation (R9.2, R9.3), for the CLI, the MCP tool and the stop hook.

use super::target::Target;
use crate::context::{Context, Failure};
use memdir_harness::contract::extract::Input;
use memdir_harness::steps::drive;

/// One extraction's input, as the CLI and the MCP tool give it.
pub struct Extraction<'a> {
    /// The conversation as JSON lines (the transcript wire format the core parses).
    pub transcript: &'a str,
    /// Where it came from, for error messages.
    pub source: &'a str,
    /// The conversation's id, for its cursor.
    pub conversation: Option<String>,
    pub written: &'a [String],
    pub main_agent: bool,
    pub utc_offset_minutes: i32,
}

/// Runs writer B over a conversation with `model`; `progress` hears of each model call.
pub fn extract(
    ctx: &Context,
    target: &Target,
    extraction: &Extraction,
    model: &mut dyn memdir_harness::llm::Model,
    progress: impl FnMut(&memdir_harness::contract::model::ModelCall),
) -> Result<memdir_harness::contract::extract::ExtractResult, Failure> {
    let (target, _, mut core) = target.open(ctx)?;
    let messages = core
        .extract_parse(extraction.transcript)
        .map_err(|e| Failure::input(format!("{}: {e}", extraction.source)))?;
    let input = Input {
        target,
        messages,
        conversation: extraction.conversation.clone(),
        written: extraction.written.to_vec(),
        main_agent: extraction.main_agent,
        now_ms: ctx.now_ms(),
        utc_offset_minutes: extraction.utc_offset_minutes,
    };
    let first = core.extract_start(&input)?;
    Ok(drive(first, model, |state, reply| core.extract_resume(state, reply), progress)?)
}
