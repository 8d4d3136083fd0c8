//! The dream (R9.4): what is new in the daily logs folded into memories.

use super::target::Target;
use crate::context::{Context, Failure};
use memdir_harness::contract::dream;
use memdir_harness::contract::model::ModelCall;
use memdir_harness::steps::drive;

/// Folds what is new in the daily logs into memories with `model`; `progress` hears of each
/// chunk before it is asked for. The CLI and the MCP tool share it.
pub fn run_dream(
    ctx: &Context,
    target: &Target,
    utc_offset_minutes: i32,
    model: &mut dyn memdir_harness::llm::Model,
    progress: impl FnMut(&ModelCall),
) -> Result<dream::DreamResult, Failure> {
    let (target, _, mut core) = target.open(ctx)?;
    let input = dream::Input { target, now_ms: ctx.now_ms(), utc_offset_minutes };
    let first = core.dream_start(&input)?;
    Ok(drive(first, model, |state, reply| core.dream_resume(state, reply), progress)?)
}
