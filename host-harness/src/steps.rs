//! The one loop a host runs over the core's workflows (recall, extraction, dream): while the
//! core asks, ask the model and resume with its reply or its failure. Everything else — what a
//! failure means, what to keep, when to stop — the core decides.

use crate::error::Result;
use crate::llm::{Embedder, Model};
use memdir_core::model::{ModelCall, Reply, Step};

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
                let reply = match model.as_deref_mut() {
                    Some(model) => model
                        .complete(&call.request)
                        .map_or_else(|e| Reply::Failed(e.to_string()), Reply::Text),
                    None => Reply::Failed("no model is configured".into()),
                };
                resume(&call.state, reply)?
            }
            Step::Embed(call) => {
                let reply = match embedder.as_deref_mut() {
                    Some(embedder) => {
                        let failed = |e| Reply::Failed(format!("embeddings: {e}"));
                        embedder.embed(&call.texts).map_or_else(failed, Reply::Vectors)
                    }
                    None => Reply::Failed("no embeddings model is configured".into()),
                };
                resume(&call.state, reply)?
            }
        };
    }
}

/// Runs a check from its first step to its report, running each git command the core asks for
/// in the project with `run` (usually [`crate::git::run_command`]).
pub fn drive_check(
    core: &mut dyn crate::Core,
    target: &memdir_core::target::Target,
    now_ms: i64,
    mut run: impl FnMut(&memdir_core::git::GitCommand) -> memdir_core::git::GitOutput,
) -> Result<memdir_core::check::CheckReport> {
    use memdir_core::check::CheckStep;
    let mut step = core.check_start(target, now_ms)?;
    loop {
        match step {
            CheckStep::Done(report) => return Ok(report),
            CheckStep::Run(call) => {
                let output = run(&call.command);
                step = core.check_resume(&call.state, output)?;
            }
        }
    }
}

/// Runs a team (or private) memory init, sync or status from its first step to its report,
/// running each git command the core asks for with `run` (usually [`crate::git::run_command`]).
pub fn drive_team(
    core: &mut dyn crate::Core,
    input: &memdir_core::team::Input,
    mut run: impl FnMut(&memdir_core::git::GitCommand) -> memdir_core::git::GitOutput,
) -> Result<memdir_core::team::Report> {
    use memdir_core::team::TeamStep;
    let mut step = core.team_start(input)?;
    loop {
        match step {
            TeamStep::Done(report) => return Ok(report),
            TeamStep::Run(call) => {
                let output = run(&call.command);
                step = core.team_resume(&call.state, output)?;
            }
        }
    }
}
