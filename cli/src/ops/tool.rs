//! A tool call the core answers (issue 45), as the MCP server and `memdir tools --call` make
//! it: one core instance, granted what the core plans for the tool; what the call asks on the
//! way (the model, the embeddings model, git) answered here.

use super::recall::recall_embedder;
use super::target::Target;
use super::whole_tree;
use crate::context::{Context, Failure};
use memdir_harness::contract::model::ModelCall;
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::tools::{ToolAnswer, ToolCall};
use memdir_harness::llm;
use memdir_harness::steps::{Answerers, drive_tool};

/// What the core said of the call's arguments: they do not fit the tool's schema (the inner
/// error), or they did and this is the answer (a tool that refuses is one with `is_error`),
/// with what the call was granted.
pub type Answered = Result<(ToolAnswer, Operation), Failure>;

/// What a call brings besides its name and arguments: the recall session kept between calls,
/// the model a workflow may ask, whom a recall's receipt names, and who hears of each model
/// call.
#[derive(Default)]
pub struct Asking<'m> {
    pub session: String,
    pub model: Option<&'m mut dyn llm::Model>,
    pub given_to: Option<String>,
    pub progress: Option<&'m mut dyn FnMut(&ModelCall)>,
}

/// The answer to a call of `name` with `args` (a JSON object) on `target`'s memory; the outer
/// error is one of the host's or the core's own, before the tool ran.
pub fn answer(
    ctx: &Context,
    target: &Target,
    name: &str,
    args: String,
    asking: Asking<'_>,
) -> Result<Answered, Failure> {
    let target = target.core_target(ctx)?;
    let mut core = ctx.core(whole_tree()?)?;
    let operation = core.tool_operation(name)?.ok_or_else(|| {
        Failure::input(format!("no tool is named {name:?} (memdir tools --all lists them)"))
    })?;
    core.open(operation, &target)?;
    // A spec that does not parse costs the meaning, not the recall; the answer says so.
    let (mut embedder, notes) = match recall_embedder(ctx, None) {
        Ok(embedder) => (embedder, Vec::new()),
        Err(e) => (None, vec![format!("MEMDIR_EMBEDDINGS: {}", e.message)]),
    };
    let call = ToolCall {
        name: name.to_string(),
        args,
        target,
        now_ms: ctx.now_ms(),
        utc_offset_minutes: ctx.utc_offset(None),
        session: asking.session,
        model: asking.model.is_some(),
        embeddings: embedder.as_ref().map(|e| e.label()),
        given_to: asking.given_to,
        notes,
        host_name: super::team::host_name(ctx),
    };
    let first = match core.tool_call(&call) {
        Ok(step) => step,
        Err(e) => return Ok(Err(Failure::input(e.to_string()))),
    };
    let mut git = memdir_harness::git::run_command;
    let mut told = asking.progress;
    let mut progress = |call: &ModelCall| {
        if let Some(tell) = told.as_mut() {
            tell(call)
        }
    };
    let mut model = asking.model;
    let answerers = Answerers {
        model: model.as_mut().map(|m| &mut **m as &mut dyn llm::Model),
        embedder: embedder.as_deref_mut().map(|e| e as &mut dyn llm::Embedder),
        git: &mut git,
        progress: &mut progress,
    };
    let answer = drive_tool(&mut *core, first, answerers)?;
    Ok(Ok((answer, operation)))
}
