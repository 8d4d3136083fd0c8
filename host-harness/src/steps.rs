//! The loops a host runs over the core's workflows. For recall, extraction and dream: while the
//! core asks, ask the model and resume with its reply or its failure. For check and team: while
//! it asks, run git and resume with the output. Everything else — what a failure means, what to
//! keep, when to stop — the core decides.

use crate::error::Result;
use crate::llm::{Embedder, Model};
use memdir_core::calls::{ToolAnswer, ToolStep};
use memdir_core::git::{GitCommand, GitOutput, GitStep};
use memdir_core::model::{EmbedCall, ModelCall, Reply, Step};

/// Runs a workflow from its first step to its result. `progress(call)` is told of each model
/// call before it is made.
///
/// ```no_run
/// use memdir_core::{recall, target::Target};
/// use memdir_harness::{ComponentRuntime, ConfinedFs, Core, llm, steps::drive};
///
/// let env: Vec<(String, String)> = vec![("HOME".into(), "/home/ana".into())];
/// let runtime = ComponentRuntime::load()?;
/// let mut core = runtime.core(ConfinedFs::new().grant_read("/")?);
/// let input = recall::Input {
///     target: Target::new("/home/ana/web", &env),
///     query: "how do we run the integration tests".into(),
///     now_ms: 1_770_000_000_000,
///     ..recall::Input::default()
/// };
/// let mut model = llm::from_spec("command:./my-model", &env)?.expect("a model");
/// let first = core.recall_start(&input)?;
/// let result = drive(first, &mut *model, |state, reply| core.recall_resume(state, reply), |_| {})?;
/// for attachment in &result.attachments {
///     println!("{}", attachment.text);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn drive<T>(
    first: Step<T>,
    model: &mut dyn Model,
    resume: impl FnMut(&str, Reply) -> Result<Step<T>>,
    progress: impl FnMut(&ModelCall),
) -> Result<T> {
    drive_with(first, Some(model), None, resume, progress)
}

/// [`drive`] for a workflow that may also ask an embeddings model (recall given
/// `embeddings`), or that has no model at all: a step nobody here can answer is resumed as a
/// failed call, which the core turns into a diagnostic.
pub fn drive_with<T>(
    first: Step<T>,
    mut model: Option<&mut dyn Model>,
    mut embedder: Option<&mut dyn Embedder>,
    mut resume: impl FnMut(&str, Reply) -> Result<Step<T>>,
    mut progress: impl FnMut(&ModelCall),
) -> Result<T> {
    let mut step = first;
    loop {
        step = match step {
            Step::Done(result) => return Ok(result),
            Step::Ask(call) => {
                progress(&call);
                resume(&call.state, ask_model(model.as_deref_mut(), &call))?
            }
            Step::Embed(call) => resume(&call.state, ask_embedder(embedder.as_deref_mut(), &call))?,
        };
    }
}

/// The model's reply to `call`, or its failure (the core decides what a failure means).
fn ask_model<'m>(model: Option<&mut (dyn Model + 'm)>, call: &ModelCall) -> Reply {
    match model {
        Some(model) => {
            model.complete(&call.request).map_or_else(|e| Reply::Failed(e.to_string()), Reply::Text)
        }
        None => Reply::Failed("no model is configured".into()),
    }
}

/// The embeddings model's vectors for `call`, or its failure.
fn ask_embedder<'e>(embedder: Option<&mut (dyn Embedder + 'e)>, call: &EmbedCall) -> Reply {
    match embedder {
        Some(embedder) => {
            let failed = |e| Reply::Failed(format!("embeddings: {e}"));
            embedder.embed(&call.texts).map_or_else(failed, Reply::Vectors)
        }
        None => Reply::Failed("no embeddings model is configured".into()),
    }
}

/// Who answers a tool call's steps: the model and the embeddings model (none: the step is
/// resumed as failed), git, and who hears of each model call.
pub struct Answerers<'a> {
    /// The model the dream, extraction and recall ask.
    pub model: Option<&'a mut dyn Model>,
    /// The embeddings model recall asks.
    pub embedder: Option<&'a mut dyn Embedder>,
    /// Runs a git command check or team sync asks for (usually [`crate::git::run_command`]).
    pub git: &'a mut dyn FnMut(&GitCommand) -> GitOutput,
    /// Told of each model call before it is made.
    pub progress: &'a mut dyn FnMut(&ModelCall),
}

/// Runs a tool call (`tools.call`) from its first step to the answer on `core`, which made it.
pub fn drive_tool(
    core: &mut dyn crate::api::Core,
    first: ToolStep,
    mut by: Answerers<'_>,
) -> Result<ToolAnswer> {
    let mut step = first;
    loop {
        step = match step {
            ToolStep::Done(answer) => return Ok(answer),
            ToolStep::Ask(call) => {
                (by.progress)(&call);
                core.tool_resume(&call.state, ask_model(by.model.as_deref_mut(), &call))?
            }
            ToolStep::Embed(call) => {
                core.tool_resume(&call.state, ask_embedder(by.embedder.as_deref_mut(), &call))?
            }
            ToolStep::Run(call) => core.tool_resume_git(&call.state, (by.git)(&call.command))?,
        };
    }
}

/// Runs a workflow that asks for git (check, team) from its first step to its result, running
/// each command the core asks for with `run` (usually [`crate::git::run_command`]).
pub fn drive_git<T>(
    first: GitStep<T>,
    mut resume: impl FnMut(&str, GitOutput) -> Result<GitStep<T>>,
    mut run: impl FnMut(&GitCommand) -> GitOutput,
) -> Result<T> {
    let mut step = first;
    loop {
        step = match step {
            GitStep::Done(result) => return Ok(result),
            GitStep::Run(call) => resume(&call.state, run(&call.command))?,
        };
    }
}

/// Runs a check in the project `target` names, asking `run` for each git command.
pub fn drive_check(
    core: &mut dyn crate::api::Core,
    target: &memdir_core::target::Target,
    now_ms: i64,
    run: impl FnMut(&GitCommand) -> GitOutput,
) -> Result<memdir_core::check::CheckReport> {
    let first = core.check_start(target, now_ms)?;
    drive_git(first, |state, output| core.check_resume(state, output), run)
}

/// Runs a team (or private) memory init, sync or status, asking `run` for each git command.
pub fn drive_team(
    core: &mut dyn crate::api::Core,
    input: &memdir_core::team::Input,
    run: impl FnMut(&GitCommand) -> GitOutput,
) -> Result<memdir_core::team::Report> {
    let first = core.team_start(input)?;
    drive_git(first, |state, output| core.team_resume(state, output), run)
}
