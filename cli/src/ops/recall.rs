//! One recall turn (R7, R8), whatever asked for it: `memdir recall`, the MCP tool, a hook.

use super::whole_tree;
use crate::context::{Context, Failure};
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::recall::{Input, RecallResult};
use memdir_harness::contract::target::Target;
use memdir_harness::llm;
use memdir_harness::steps::drive_with;

/// One recall request, whatever asked for it (this command or `memdir mcp`).
pub struct Query<'a> {
    /// The absolute working directory.
    pub cwd: &'a str,
    /// A memory directory to use instead of the working directory's.
    pub memory_dir: Option<String>,
    /// The user's request.
    pub query: &'a str,
    /// Tools the agent used recently.
    pub recent_tools: &'a [String],
    /// Files already in the context.
    pub already_read: &'a [String],
    /// The user said not to use memory.
    pub ignore_memory: bool,
    /// The embeddings model (a spec of [`llm::embeddings::from_spec`]); `None` reads
    /// `$MEMDIR_EMBEDDINGS`, and without it recall ranks and shortlists by words alone.
    pub embeddings: Option<&'a str>,
}

/// Runs one recall turn for `query` in `session` (JSON, empty for a new one), with `model` or
/// the offline selector. The result carries the session to keep.
pub fn recall(
    ctx: &Context,
    query: &Query<'_>,
    session: String,
    model: Option<&mut dyn llm::Model>,
) -> Result<RecallResult, Failure> {
    let target = Target {
        cwd: query.cwd.to_string(),
        env: ctx.env().to_vec(),
        memory_dir: query.memory_dir.clone(),
        by: None,
    };
    // Recall reads everything and keeps its index where the core's plan says (issue 27).
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Recall, &target)?;
    // A spec from the environment that does not parse costs the meaning, not the recall (a
    // hook runs on every prompt); one given on the command line is refused.
    let (mut embedder, note) = match recall_embedder(ctx, query.embeddings) {
        Ok(embedder) => (embedder, None),
        Err(e) if query.embeddings.is_none() => (None, Some(format!("MEMDIR_EMBEDDINGS: {}", e.message))),
        Err(e) => return Err(e),
    };
    let input = Input {
        target: target.clone(),
        query: query.query.to_string(),
        recent_tools: query.recent_tools.to_vec(),
        already_read: query.already_read.to_vec(),
        ignore_memory: query.ignore_memory,
        now_ms: ctx.now_ms(),
        session,
        offline: model.is_none(),
        embeddings: embedder.as_ref().map(|e| e.label()),
    };
    let first = core.recall_start(&input)?;
    let resume = |state: &str, reply| core.recall_resume(state, reply);
    let embedder = embedder.as_deref_mut().map(|e| e as &mut dyn llm::Embedder);
    let mut result = drive_with(first, model, embedder, resume, |_| {})?;
    result.diagnostics.extend(note);
    Ok(result)
}

/// The embeddings model recall uses: `spec`, else `$MEMDIR_EMBEDDINGS`, else none.
pub fn recall_embedder(ctx: &Context, spec: Option<&str>) -> Result<Option<Box<dyn llm::Embedder>>, Failure> {
    let spec = spec.or_else(|| ctx.var("MEMDIR_EMBEDDINGS")).unwrap_or("off");
    llm::embeddings::from_spec(spec, ctx.env()).map_err(Failure::input)
}

/// The model recall uses: `--llm`, else `$MEMDIR_LLM`, else none (the offline selector).
pub fn recall_model(ctx: &Context, spec: Option<&str>) -> Result<Option<Box<dyn llm::Model>>, Failure> {
    let spec = spec.or_else(|| ctx.var("MEMDIR_LLM")).unwrap_or("offline");
    llm::from_spec(spec, ctx.env()).map_err(Failure::input)
}
