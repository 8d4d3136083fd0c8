//! A tool call as one operation (issue 45): the tool's name, its arguments as the catalog's
//! schema names them and whose memory in; the text a model reads, the same facts as
//! structured content (the catalog's `output-schema`) and the error flag out. Every host that
//! offers the tools (the MCP server, an editor's tools) hands the call over and shows the
//! answer; none parses arguments or words an answer.
//!
//! Every tool in the catalog is answered here. On the way a call may ask the host for a model
//! reply or embeddings (recall, the dream, extraction; [`resume`] goes on) or for a git command
//! (check, team sync; [`resume_git`]); recall's answer carries the recall session for the host
//! to keep.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, join};
use crate::base::git::{GitCall, GitOutput, GitStep};
use crate::base::model::{EmbedCall, ModelCall, Reply, Step};
use crate::context::plan::Operation;
use crate::context::scope::Scope;
use crate::context::target::Target;
use crate::format::memory_type::MemoryType;
use crate::format::scan::INDEX_FILE;
use crate::writers::writer;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod git_tools;
mod recall_tool;
mod workflows;

/// One call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ToolCall {
    /// The tool's name in the catalog.
    pub name: String,
    /// Its arguments: a JSON object, as the tool's input schema names them.
    pub args: String,
    /// Whose memory.
    pub target: Target,
    /// "Now", ms since the epoch.
    pub now_ms: i64,
    /// The user's UTC offset, for the dates a save writes.
    pub utc_offset_minutes: i32,
    /// The recall session the host keeps between calls, as the last answer returned it (empty:
    /// a new one).
    pub session: String,
    /// A model is at hand for recall to ask (else it ranks offline).
    pub model: bool,
    /// The user's embeddings model, named as its vectors are cached; with it, recall asks for
    /// vectors.
    pub embeddings: Option<String>,
    /// Whom a recall's receipt names (`mcp:codex`, `vscode:tool`); none keeps no receipt.
    pub given_to: Option<String>,
    /// What the host has to say about the call (an embeddings model it could not set up),
    /// passed on among a recall's notes.
    pub notes: Vec<String>,
    /// This machine's name, for a team sync's commit and conflict copies.
    pub host_name: String,
}

/// A tool's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ToolAnswer {
    /// What the model reads.
    pub text: String,
    /// The same facts as a JSON object, as the tool's output schema says; `{}` for a refusal.
    pub structured: String,
    /// The tool refused (a secret in the body, a missing **Why:**, a write policy): the text
    /// says why, so the model can try again.
    pub is_error: bool,
    /// The recall session to keep for the next call; none: keep the one you have.
    pub session: Option<String>,
}

/// One step of a call: the model, the embeddings model or git to ask, or the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum ToolStep {
    /// Ask the model, then [`resume`].
    Ask(ModelCall),
    /// Ask the embeddings model, then [`resume`].
    Embed(EmbedCall),
    /// Run git, then [`resume_git`] with its output.
    Run(GitCall),
    /// Finished.
    Done(ToolAnswer),
}

/// What a call of `name` may read and write, for `paths.plan`; `None` for a name that is no
/// tool.
pub fn operation_of(name: &str) -> Option<Operation> {
    match name {
        "memory_index" | "memory_list" | "memory_instructions" => Some(Operation::Read),
        "memory_save" | "memory_forget" => Some(Operation::WriteShared),
        "memory_log" => Some(Operation::Write),
        "memory_recall" => Some(Operation::Recall),
        "memory_dream" | "memory_extract" | "memory_team_sync" => Some(Operation::Write),
        "memory_check" => Some(Operation::Check),
        _ => None,
    }
}

/// Answers `call`, or asks the host's model on the way (only `memory_recall` does). An unknown
/// tool, one this module does not answer, or arguments that do not fit the tool's schema are
/// an error; a tool that refuses is an answer with `is_error`.
pub fn call(fs: &dyn Fs, call: &ToolCall) -> Result<ToolStep> {
    // Arguments that do not fit are the caller's error; what the tool then refuses is its answer.
    let answered = match call.name.as_str() {
        "memory_recall" => {
            let a = args::<RecallArgs>(call)?;
            return Ok(recall_tool::start(fs, call, a).unwrap_or_else(refused));
        }
        "memory_dream" => {
            args::<NoArgs>(call)?;
            return Ok(workflows::dream(fs, call).unwrap_or_else(refused));
        }
        "memory_extract" => {
            let a = args::<workflows::ExtractArgs>(call)?;
            return Ok(workflows::extract(fs, call, a).unwrap_or_else(refused));
        }
        "memory_check" => {
            args::<NoArgs>(call)?;
            return Ok(git_tools::check(fs, call).unwrap_or_else(refused));
        }
        "memory_team_sync" => {
            let a = args::<git_tools::TeamSyncArgs>(call)?;
            return Ok(git_tools::team_sync(fs, call, a).unwrap_or_else(refused));
        }
        "memory_index" => args::<NoArgs>(call).map(|_| index(fs, call))?,
        "memory_list" => args::<NoArgs>(call).map(|_| list(fs, call))?,
        "memory_save" => args::<SaveArgs>(call).map(|a| save(fs, call, a))?,
        "memory_forget" => args::<ForgetArgs>(call).map(|a| forget(fs, call, &a.path))?,
        "memory_log" => args::<LogArgs>(call).map(|a| log(fs, call, &a.text))?,
        "memory_instructions" => {
            args::<InstructionsArgs>(call).map(|a| instructions(fs, call, &a.touching))?
        }
        name => {
            return Err(Error::InvalidInput(format!(
                "{name:?} is not a tool answered in one call (it needs a model or git, or it does not exist)"
            )));
        }
    };
    Ok(ToolStep::Done(answered.unwrap_or_else(refusal)))
}

/// Goes on with a call that asked the host's model or embeddings model; `state` is the step's,
/// unchanged. What the workflow then fails on is the tool's refusal.
pub fn resume(fs: &dyn Fs, state: &str, reply: Reply) -> Result<ToolStep> {
    let step = match crate::base::model::state("tool call", state)? {
        Asked::Recall(state) => recall_tool::resume(fs, state, reply),
        Asked::Dream { state } => workflows::resume_dream(fs, &state, reply),
        Asked::Extract { state } => workflows::resume_extract(fs, &state, reply),
        Asked::Check { .. } | Asked::TeamSync { .. } => Err(Error::InvalidInput(
            "this call ran git: resume it with git's output (tools.resume-git)".into(),
        )),
    };
    Ok(step.unwrap_or_else(refused))
}

/// Goes on with a call that ran git; `state` is the step's, unchanged.
pub fn resume_git(fs: &dyn Fs, state: &str, output: GitOutput) -> Result<ToolStep> {
    let step = match crate::base::model::state("tool call", state)? {
        Asked::Check { state } => git_tools::resume_check(fs, &state, output),
        Asked::TeamSync { state } => git_tools::resume_team_sync(fs, &state, output),
        Asked::Recall(_) | Asked::Dream { .. } | Asked::Extract { .. } => Err(Error::InvalidInput(
            "this call asked a model: resume it with the model's reply (tools.resume)".into(),
        )),
    };
    Ok(step.unwrap_or_else(refused))
}

/// What a call that asked keeps: its tool, and the workflow's own state inside.
#[derive(Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
enum Asked {
    Recall(recall_tool::State),
    Dream { state: String },
    Extract { state: String },
    Check { state: String },
    TeamSync { state: String },
}

/// Passes a model workflow's question on with its state wrapped by `wrap`; once it is done,
/// `done` words the answer.
fn follow<T>(step: Step<T>, wrap: impl Fn(String) -> Asked, done: impl FnOnce(T) -> ToolAnswer) -> ToolStep {
    let state = |inner| serde_json::to_string(&wrap(inner)).expect("states always serialise");
    match step {
        Step::Ask(mut call) => {
            call.state = state(call.state);
            ToolStep::Ask(call)
        }
        Step::Embed(mut call) => {
            call.state = state(call.state);
            ToolStep::Embed(call)
        }
        Step::Done(result) => ToolStep::Done(done(result)),
    }
}

/// [`follow`] for a workflow that runs git.
fn follow_git<T>(
    step: GitStep<T>,
    wrap: impl Fn(String) -> Asked,
    done: impl FnOnce(T) -> ToolAnswer,
) -> ToolStep {
    match step {
        GitStep::Run(mut call) => {
            call.state = serde_json::to_string(&wrap(call.state)).expect("states always serialise");
            ToolStep::Run(call)
        }
        GitStep::Done(result) => ToolStep::Done(done(result)),
    }
}

/// A workflow asked for where the host has no model to ask.
struct NoModel {
    what: &'static str,
    instead: &'static str,
}

impl From<NoModel> for Error {
    fn from(NoModel { what, instead }: NoModel) -> Error {
        Error::InvalidInput(format!(
            "{what} needs a model: the client offers no sampling, and memdir was given no model (--llm){instead}"
        ))
    }
}

/// What the tool refused, as its answer: the model reads why and may try again.
fn refusal(e: Error) -> ToolAnswer {
    ToolAnswer { text: e.to_string(), structured: "{}".into(), is_error: true, session: None }
}

/// [`refusal`], as the call's last step.
fn refused(e: Error) -> ToolStep {
    ToolStep::Done(refusal(e))
}

fn args<T: DeserializeOwned>(call: &ToolCall) -> Result<T> {
    let text = if call.args.trim().is_empty() { "{}" } else { &call.args };
    serde_json::from_str(text)
        .map_err(|e| Error::InvalidInput(format!("invalid arguments for {}: {e}", call.name)))
}

fn answer(text: String, facts: Value) -> Result<ToolAnswer> {
    Ok(ToolAnswer { text, structured: facts.to_string(), is_error: false, session: None })
}

// The arguments, as the catalog's schemas (`tools.json`) name them; a field the schema does not
// name is refused.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveArgs {
    #[serde(rename = "type")]
    memory_type: MemoryType,
    name: String,
    description: String,
    body: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    replaces: Option<String>,
    #[serde(default)]
    scope: Option<Scope>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    #[serde(default)]
    recent_tools: Vec<String>,
    #[serde(default)]
    already_read: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgetArgs {
    path: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogArgs {
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InstructionsArgs {
    #[serde(default)]
    touching: Vec<String>,
}

fn index(fs: &dyn Fs, call: &ToolCall) -> Result<ToolAnswer> {
    let dir = call.target.resolve(fs)?.memory_dir;
    if fs.stat(&dir).is_err() {
        let facts = json!({ "exists": false, "index": "" });
        return answer("No memories yet: MEMORY.md does not exist.".into(), facts);
    }
    let loaded = crate::format::index::load(fs, &join(&dir, INDEX_FILE))?;
    let mut text = if loaded.text.is_empty() {
        "MEMORY.md is empty: nothing saved yet.".to_string()
    } else {
        loaded.text.clone()
    };
    if let Some(warning) = &loaded.warning {
        text = format!("{text}\n\n{warning}");
    }
    let mut facts = json!({ "exists": true, "index": loaded.text });
    if let Some(warning) = loaded.warning {
        facts["warning"] = json!(warning);
    }
    answer(text, facts)
}

fn list(fs: &dyn Fs, call: &ToolCall) -> Result<ToolAnswer> {
    let nothing = || answer("No memories yet.".into(), json!({ "memories": [] }));
    let dir = call.target.resolve(fs)?.memory_dir;
    if fs.stat(&dir).is_err() {
        return nothing();
    }
    let report = crate::format::scan::scan(fs, &dir, call.now_ms)?;
    if report.headers.is_empty() {
        return nothing();
    }
    // The manifest, each stale memory marked with what the core found (R1.6, R7.6), and the
    // links between memories under it (R1.7).
    let manifest = crate::format::manifest::format(&report.headers);
    let mut text = String::new();
    for (line, h) in manifest.lines().zip(&report.headers) {
        text.push_str(line);
        if h.freshness.stale {
            text.push_str(&format!(
                " [may be stale: saved {}; check it before relying on it]",
                h.freshness.text
            ));
        }
        text.push('\n');
        if !h.links.is_empty() {
            let links: Vec<String> = h
                .links
                .iter()
                .map(|l| match &l.path {
                    Some(path) => format!("[[{}]] → {path}", l.name),
                    None => format!("[[{}]] (not written yet)", l.name),
                })
                .collect();
            text.push_str(&format!("  links: {}\n", links.join(", ")));
        }
        if !h.backlinks.is_empty() {
            text.push_str(&format!("  linked from: {}\n", h.backlinks.join(", ")));
        }
    }
    let memories: Vec<Value> = report
        .headers
        .into_iter()
        .map(|h| {
            json!({
                "path": h.path, "type": h.memory_type.map(|t| t.as_str()), "name": h.name,
                "description": h.description, "age": h.freshness.text, "stale": h.freshness.stale,
                "links": h.links, "linked_from": h.backlinks,
            })
        })
        .collect();
    answer(text, json!({ "memories": memories }))
}

fn save(fs: &dyn Fs, call: &ToolCall, a: SaveArgs) -> Result<ToolAnswer> {
    let memory = writer::Memory {
        memory_type: a.memory_type,
        name: &a.name,
        description: &a.description,
        file: a.file.as_deref(),
        replaces: a.replaces.as_deref(),
        body: &a.body,
        now_ms: call.now_ms,
        utc_offset_minutes: call.utc_offset_minutes,
        scope: a.scope,
    };
    let report = writer::save(fs, &writer::Save { target: &call.target, memory })?;
    let mut facts = json!({
        "path": report.path, "created": report.created, "index_line": report.index_line,
        "dates_converted": report.conversions.iter().map(|c| json!({ "from": c.from, "to": c.to })).collect::<Vec<_>>(),
        "links_rewritten": report.links_rewritten,
    });
    if let Some(old) = &report.renamed_from {
        facts["renamed_from"] = json!(old);
    }
    if let Some(replaced) = &report.replaced {
        facts["replaced"] = json!(replaced);
    }
    answer(report.summary, facts)
}

fn forget(fs: &dyn Fs, call: &ToolCall, path: &str) -> Result<ToolAnswer> {
    let report = writer::forget(fs, &call.target, path, call.now_ms)?;
    let text = format!("forgot {} ({} MEMORY.md line(s) removed)", report.path, report.index_lines_removed);
    answer(text, json!({ "path": report.path, "index_lines_removed": report.index_lines_removed }))
}

fn log(fs: &dyn Fs, call: &ToolCall, text: &str) -> Result<ToolAnswer> {
    if !call.target.resolve(fs)?.switches.daily_log {
        return Err(Error::InvalidInput(
            "daily-log mode is off for this project (MEMDIR_DAILY_LOG or dailyLogEnabled turns it on): \
             save the memory with memory_save instead"
                .into(),
        ));
    }
    let path =
        crate::writers::dailylog::append_to(fs, &call.target, text, call.now_ms, call.utc_offset_minutes)?;
    answer(format!("logged to {path}"), json!({ "path": path }))
}

/// The instruction files that apply to the working directory (and to the files the work
/// touches, relative to it), as the model reads them. Approving imports from outside the
/// project is the person's act, never an argument a model sets (issue 44): there is none.
fn instructions(fs: &dyn Fs, call: &ToolCall, touching: &[String]) -> Result<ToolAnswer> {
    let cwd = call.target.cwd.as_str();
    let touching: Vec<String> = touching
        .iter()
        .map(|t| if crate::base::fs::is_absolute(t) { t.clone() } else { join(cwd, t) })
        .collect();
    let request = crate::context::instructions::Request {
        cwd,
        env: &call.target.env,
        touching: &touching,
        add_dirs: &[],
    };
    let loaded = crate::context::instructions::load(fs, &request)?;
    if loaded.files.is_empty() {
        return answer("No instruction files apply here.".into(), json!({ "files": [] }));
    }
    let not_loaded: String = loaded
        .files
        .iter()
        .flat_map(|f| f.diagnostics.iter().map(move |d| format!("note: {}: {d}\n", f.path)))
        .collect();
    let files: String = loaded.files.iter().map(crate::context::prompt::render_file).collect();
    let facts: Vec<Value> = loaded
        .files
        .into_iter()
        .map(|f| json!({ "path": f.path, "content": f.content, "truncated": f.truncated, "notes": f.diagnostics }))
        .collect();
    answer(format!("{files}{not_loaded}"), json!({ "files": facts }))
}
