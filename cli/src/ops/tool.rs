//! A tool call the core answers whole (issue 45), as the MCP server and `memdir tools --call`
//! make it: one core instance, granted what the core plans for the tool, asked once.

use super::target::Target;
use super::whole_tree;
use crate::context::{Context, Failure};
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::tools::{ToolAnswer, ToolCall};

/// What the core said of the call's arguments: they do not fit the tool's schema (the inner
/// error), or they did and this is the answer (a tool that refuses is one with `is_error`),
/// with what the call was granted.
pub type Answered = Result<(ToolAnswer, Operation), Failure>;

/// The answer to a call of `name` with `args` (a JSON object) on `target`'s memory; the outer
/// error is one of the host's or the core's own, before the tool ran.
pub fn answer(ctx: &Context, target: &Target, name: &str, args: String) -> Result<Answered, Failure> {
    let target = target.core_target(ctx)?;
    let mut core = ctx.core(whole_tree()?)?;
    let operation = core
        .tool_operation(name)?
        .ok_or_else(|| Failure::input(format!("{name} is not a tool answered in one call")))?;
    core.open(operation, &target)?;
    let call = ToolCall {
        name: name.to_string(),
        args,
        target,
        now_ms: ctx.now_ms(),
        utc_offset_minutes: ctx.utc_offset(None),
    };
    Ok(core.tool_call(&call).map(|answer| (answer, operation)).map_err(|e| Failure::input(e.to_string())))
}
