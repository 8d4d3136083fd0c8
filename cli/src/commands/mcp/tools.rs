//! What `memdir mcp` offers: the tools (their schemas and descriptions are written for a model),
//! the memories as resources, and the memory part of the system prompt as a prompt.

use super::Memory;
use super::answers::*;
use super::client::Progress;
use crate::ops::recall::{Query, recall};
use crate::ops::whole_tree;
use crate::{Failure, read_root};
use memdir_core::prompt::Options;
use memdir_core::scan::INDEX_FILE;
use memdir_core::switches::TeamSync;
use memdir_core::team::{Action, Which};
use memdir_core::writer::{self, Save, Scope};
use memdir_core::{Fs, MemoryType};
use rmcp::ErrorData as McpError;
use rmcp::handler::server::common::schema_for_input;
use rmcp::model::{JsonObject, Resource, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// What the server tells a client about itself at the handshake.
pub const INSTRUCTIONS: &str = "memdir is this project's persistent memory, shared with the \
user's other agents and editors. At the start of a task call memory_index to see what is \
remembered; call memory_recall with the user's request to get the memories worth reading in \
full. When the user tells you who they are, corrects you or confirms an approach, decides \
something about the project, or points you to where something lives, call memory_save. Call \
memory_forget when a memory turns out to be wrong. Verify a memory against the code before \
acting on it: it is a note from the past.";

/// The one prompt: the memory part of the system prompt.
pub const PROMPT_NAME: &str = "memory";
/// Its description.
pub const PROMPT_DESCRIPTION: &str = "The memory part of the system prompt for this project: \
how to use and save memories, then MEMORY.md as loaded.";

const INDEX: &str = "memory_index";
const RECALL: &str = "memory_recall";
const SAVE: &str = "memory_save";
const FORGET: &str = "memory_forget";
const LIST: &str = "memory_list";
const LOG: &str = "memory_log";
const INSTRUCTIONS_TOOL: &str = "memory_instructions";
const CHECK: &str = "memory_check";
const TEAM_SYNC: &str = "memory_team_sync";
const DREAM: &str = "memory_dream";
const EXTRACT: &str = "memory_extract";

/// Tools that take no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct NoArgs {}

/// `memory_recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct RecallArgs {
    /// The user's request, in their words. Memories relevant to it are returned in full.
    pub query: String,
    /// Tools you used in the last few turns (e.g. "Bash", "cargo"): memories that only explain
    /// how to use them are left out, warnings about them are kept.
    #[serde(default)]
    pub recent_tools: Vec<String>,
    /// Memory files already in your context (the paths earlier recalls showed): not sent again.
    #[serde(default)]
    pub already_read: Vec<String>,
}

/// The four memory types.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum TypeArg {
    /// Who the user is: role, expertise, preferences.
    User,
    /// How the user wants work done: a correction or a confirmed approach.
    Feedback,
    /// What the work is in the middle of: goals, decisions, deadlines (absolute dates).
    Project,
    /// Where things live outside the code: dashboards, tickets, documents.
    Reference,
}

/// Private or shared.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum ScopeArg {
    /// Only this user's memory.
    Private,
    /// The team's shared memory (when team memory is on).
    Team,
    /// The user's memory for every project (when the user turned it on).
    User,
    /// The memory this project shares with its group of projects (when it is in one).
    Group,
}

/// `memory_save`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct SaveArgs {
    /// user, feedback, project or reference.
    #[serde(rename = "type")]
    pub memory_type: TypeArg,
    /// The memory's name: a short kebab-case slug, e.g. "real-db-in-tests" (other text is made
    /// one). Other memories link to it as [[real-db-in-tests]]; saving the same name again
    /// updates it.
    pub name: String,
    /// One line saying when this memory is relevant; recall matches requests against it.
    pub description: String,
    /// The memory itself. For feedback and project memories: the rule or fact, then a line
    /// starting "**Why:**" and a line starting "**How to apply:**". Write dates as YYYY-MM-DD;
    /// never include secrets.
    pub body: String,
    /// The file to write, e.g. "real-db-in-tests.md". Default: the memory already named so,
    /// else `<name>.md`. An existing file given with a new name is renamed, and [[links]] to
    /// the old name follow.
    #[serde(default)]
    pub file: Option<String>,
    /// A memory this one supersedes, e.g. "old-fact.md": removed in the same step, its
    /// MEMORY.md line becomes this one's, and [[links]] to it name this one. Use it instead of
    /// saving beside a memory that is no longer true.
    #[serde(default)]
    pub replaces: Option<String>,
    /// private, team, user (the user's memory for every project) or group (shared with this
    /// project's group). By default a user memory goes to the user's memory for every project
    /// when that is on; feedback is private; project and reference memories go to the team when
    /// team memory is on.
    #[serde(default)]
    pub scope: Option<ScopeArg>,
}

/// `memory_forget`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct ForgetArgs {
    /// The memory file, relative to the memory directory, as memory_list or memory_index show it
    /// (e.g. "feedback_testing.md" or "team/project_release.md"); for a user-wide or group
    /// memory, the absolute path memory_recall or memory_save gave for it.
    pub path: String,
}

/// `memory_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct LogArgs {
    /// What to remember, as one short entry; a later dream folds the day's entries into memories.
    pub text: String,
}

/// `memory_instructions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct InstructionsArgs {
    /// Files the work touches, relative to the project: rules whose `paths:` match them apply.
    #[serde(default)]
    pub touching: Vec<String>,
    /// Only when the user has explicitly asked for it: approve `@imports` that lead outside this
    /// project (`@~/…`, absolute paths, `@../`), recorded in ~/.claude.json as the terminal agent
    /// does. Until then they are listed as not loaded.
    #[serde(default)]
    pub approve_external: bool,
}

/// `memory_extract`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct ExtractArgs {
    /// The conversation so far, oldest first. Send the whole conversation each time: the
    /// server remembers how far it read (per `conversation`) and only looks at what is new.
    pub messages: Vec<ChatMessage>,
    /// An id for this conversation, so a later call reads only what is new.
    #[serde(default)]
    pub conversation: Option<String>,
}

/// One message of a conversation.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct ChatMessage {
    /// user or assistant.
    pub role: ChatRole,
    /// The message's text.
    pub content: String,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum ChatRole {
    User,
    Assistant,
}

/// `memory_team_sync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct TeamSyncArgs {
    /// Sync the user's private memory (between their machines) instead of the team's.
    #[serde(default)]
    pub private: bool,
}

/// A tool taking `In` and answering `Out` (its `outputSchema`).
fn tool<In: JsonSchema + 'static, Out: JsonSchema + 'static>(
    name: &'static str,
    title: &str,
    description: &'static str,
) -> Tool {
    let mut tool = Tool::new(name, description, JsonObject::new())
        .with_title(title)
        .with_input_schema::<In>()
        .with_output_schema::<Out>();
    // Every tool works on a project: the argument every tool takes, beside its own.
    let mut input = tool.input_schema.as_ref().clone();
    if let Some(properties) =
        input.entry("properties").or_insert_with(|| serde_json::json!({})).as_object_mut()
    {
        let project = serde_json::json!({ "type": "string", "description": PROJECT_DESCRIPTION });
        properties.insert(PROJECT.to_string(), project);
    }
    tool.input_schema = std::sync::Arc::new(input);
    if let Some(schema) = tool.output_schema.as_mut() {
        let mut schema = serde_json::Value::Object(schema.as_ref().clone());
        drop_rust_formats(&mut schema);
        if let serde_json::Value::Object(map) = schema {
            tool.output_schema = Some(std::sync::Arc::new(map));
        }
    }
    tool
}

/// Removes schemars' `uint32`-style formats, which JSON Schema does not define: a strict
/// validator refuses a schema that names an unknown format (the `minimum: 0` stays).
fn drop_rust_formats(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(map) => {
            if map
                .get("format")
                .and_then(|f| f.as_str())
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int"))
            {
                map.remove("format");
            }
            map.values_mut().for_each(drop_rust_formats);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_rust_formats),
        _ => {}
    }
}

/// The tools, as `tools/list` shows them.
pub fn list() -> Vec<Tool> {
    // Every hint stated. Idempotent: a repeat has no further effect on the memory (a repeated
    // recall answers differently, as the session skips what was shown, but changes nothing).
    let read_only =
        ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false);
    let writes = |destructive, idempotent| {
        ToolAnnotations::new()
            .read_only(false)
            .destructive(destructive)
            .idempotent(idempotent)
            .open_world(false)
    };
    vec![
        tool::<NoArgs, IndexAnswer>(
            INDEX,
            "Show the memory index",
            "Returns MEMORY.md, the index of this project's memories (one line each: title, file, \
             what it is for), exactly as it is loaded into a prompt, with a warning when it was cut. \
             Call it at the start of a task.",
        )
        .with_annotations(read_only.clone()),
        tool::<RecallArgs, RecallAnswer>(
            RECALL,
            "Recall memories",
            "Given the user's request, returns the full text of the (at most five) memories worth \
             reading for it, each with how old it is. Memories already returned in this \
             conversation are not repeated, and a budget keeps the total small; an empty answer \
             means nothing relevant (or nothing new).",
        )
        .with_annotations(read_only.clone()),
        tool::<SaveArgs, SaveAnswer>(
            SAVE,
            "Save a memory",
            "Saves one memory (one fact) and its MEMORY.md line in one step; saving the same name \
             again updates it. Link related memories in the body with [[name]]. Save what a future conversation needs and cannot read from the \
             code: who the user is, how they want work done (corrections and confirmed approaches), \
             what the project is doing and why, where things live. Do not save code structure, \
             git history, secrets or what is already in CLAUDE.md. The answer names the file; a \
             refusal says what to change.",
        )
        .with_annotations(writes(false, true)),
        tool::<ForgetArgs, ForgetAnswer>(
            FORGET,
            "Forget a memory",
            "Deletes one memory file and its MEMORY.md line. Use it when a memory is wrong or no \
             longer true (to change one, save it again instead).",
        )
        .with_annotations(writes(true, true)),
        tool::<NoArgs, ListAnswer>(
            LIST,
            "List memories",
            "Lists every memory file, newest first: type, path, age and description. Use it to find \
             a memory's path, or when MEMORY.md seems incomplete.",
        )
        .with_annotations(read_only.clone()),
        tool::<NoArgs, CheckAnswer>(
            CHECK,
            "Check the memories",
            "Checks every memory against the project and against each other: index lines whose \
             file is gone, memories without an index line, broken frontmatter, secrets, what a \
             memory cites that is gone or changed (files, Make targets, flags, functions), near \
             duplicates and contradictions. Use it before relying on an old memory, or to tidy \
             up; fix what it reports by saving or forgetting memories.",
        )
        .with_annotations(read_only.clone()),
        tool::<TeamSyncArgs, TeamSyncAnswer>(
            TEAM_SYNC,
            "Sync team memory",
            "Shares team memory through git: commits this machine's changes (refusing anything \
             secret-shaped), takes the team's, and pushes. A memory both sides changed is kept \
             twice (memory_check lists the copy). Use it when the user asks to share or update \
             team memory.",
        )
        .with_annotations(
            ToolAnnotations::new().read_only(false).destructive(false).idempotent(true).open_world(true),
        ),
        tool::<NoArgs, DreamAnswer>(
            DREAM,
            "Fold the daily logs into memories",
            "In daily-log mode, reads what is new in the daily logs and folds it into topic memories \
             (creating, updating or removing them), asking a model: the client's own when it offers \
             sampling, else the one memdir was started with. Use it when the user asks to tidy up \
             or consolidate what was logged. Reports progress per chunk of log.",
        )
        .with_annotations(
            ToolAnnotations::new().read_only(false).destructive(true).idempotent(true).open_world(false),
        ),
        tool::<ExtractArgs, ExtractAnswer>(
            EXTRACT,
            "Extract memories from the conversation",
            "Reads the conversation (what is new since the last call with the same `conversation` \
             id) and saves what a future conversation should remember: who the user is, their \
             corrections and confirmed approaches, project decisions, where things live. Asks a \
             model in two rounds: the client's own when it offers sampling, else the one memdir \
             was started with. Use it at the end of a task instead of saving memories one by one; \
             it skips a turn in which you already saved memories yourself.",
        )
        .with_annotations(writes(false, true)),
        tool::<LogArgs, LogAnswer>(
            LOG,
            "Log to today's memory log",
            "In daily-log mode, appends one entry to today's log instead of saving a memory; a \
             later dream turns the logs into memories. Outside daily-log mode it refuses: use \
             memory_save.",
        )
        .with_annotations(writes(false, false)),
        tool::<InstructionsArgs, InstructionsAnswer>(
            INSTRUCTIONS_TOOL,
            "Show the instruction files",
            "Returns the project's instruction files (CLAUDE.md and rules, from the managed and \
             user ones down to the project's) in load order, as a prompt would contain them. \
             Imports from outside the project load only once the user approves them \
             (`approve_external`, which only the user may ask for).",
        )
        .with_annotations(writes(false, true)),
    ]
}

/// A tool call whose arguments have been checked.
pub enum Call {
    Index,
    Recall(RecallArgs),
    Save(SaveArgs),
    Forget(ForgetArgs),
    List,
    Log(LogArgs),
    Instructions(InstructionsArgs),
    Check,
    TeamSync(TeamSyncArgs),
    Dream,
    Extract(ExtractArgs),
}

/// The argument that names the project a call is about.
pub const PROJECT: &str = "project";
const PROJECT_DESCRIPTION: &str = "The absolute path of the project (the folder you work in) whose memory \
this call is about. Send it with every call when the server was not started for one project: \
without it the server uses the last project a call named, else the one it was started for or the \
client's first root.";

/// The `project` argument of a call, taken out of `args` (the tools' own arguments stay): an
/// absolute path to a folder, or a protocol error that says what to send.
pub fn project(name: &str, args: &mut JsonObject) -> Result<Option<String>, McpError> {
    let Some(value) = args.remove(PROJECT) else { return Ok(None) };
    let bad = |why: &str| McpError::invalid_params(format!("{name}: \"project\" {why}"), None);
    let path = value.as_str().ok_or_else(|| bad("must be a string: the project folder's absolute path"))?;
    if !std::path::Path::new(path).is_absolute() {
        return Err(bad("must be an absolute path"));
    }
    if !std::path::Path::new(path).is_dir() {
        return Err(bad(&format!("names no folder: {path}")));
    }
    Ok(Some(path.to_string()))
}

impl Call {
    /// Checks a `tools/call`: an unknown tool or arguments that do not fit the schema are a
    /// protocol error that says what to send.
    pub fn parse(name: &str, args: JsonObject) -> Result<Call, McpError> {
        Ok(match name {
            INDEX => parse::<NoArgs>(name, args).map(|_| Call::Index)?,
            RECALL => Call::Recall(parse(name, args)?),
            SAVE => Call::Save(parse(name, args)?),
            FORGET => Call::Forget(parse(name, args)?),
            LIST => parse::<NoArgs>(name, args).map(|_| Call::List)?,
            LOG => Call::Log(parse(name, args)?),
            INSTRUCTIONS_TOOL => Call::Instructions(parse(name, args)?),
            CHECK => parse::<NoArgs>(name, args).map(|_| Call::Check)?,
            TEAM_SYNC => Call::TeamSync(parse(name, args)?),
            DREAM => parse::<NoArgs>(name, args).map(|_| Call::Dream)?,
            EXTRACT => Call::Extract(parse(name, args)?),
            _ => {
                let names: Vec<_> = list().into_iter().map(|t| t.name).collect();
                return Err(McpError::invalid_params(
                    format!("no tool named {name:?}; the tools are {}", names.join(", ")),
                    None,
                ));
            }
        })
    }

    /// Runs the call on the worker: the tool's answer, or its refusal.
    /// Long calls (check, sync, dream) report `progress`.
    pub fn run(self, memory: &mut Memory, progress: &Progress) -> Result<Answer, Failure> {
        match self {
            Call::Index => index(memory),
            Call::Recall(args) => recall_tool(memory, args),
            Call::Save(args) => save(memory, args).inspect(|_| memory.wrote()),
            Call::Forget(args) => {
                let (target, fs) = memory.open_to_share()?;
                let report = memory.ctx.core(fs)?.forget(&target, &args.path)?;
                memory.wrote();
                let text = format!(
                    "forgot {} ({} MEMORY.md line(s) removed)",
                    report.path, report.index_lines_removed
                );
                let facts =
                    ForgetAnswer { path: report.path, index_lines_removed: report.index_lines_removed };
                Ok(Answer::new(text, &facts))
            }
            Call::List => list_memories(memory),
            Call::Log(args) => log(memory, args).inspect(|_| memory.wrote()),
            Call::TeamSync(args) => {
                progress.report(0, None, "syncing team memory through git");
                team_sync(memory, args)
            }
            Call::Dream => dream(memory, progress).inspect(|_| memory.wrote()),
            Call::Extract(args) => extract(memory, args, progress).inspect(|_| memory.wrote()),
            Call::Instructions(args) => instructions(memory, args),
            Call::Check => {
                use crate::ops::check;
                progress.report(0, None, "checking every memory against the project");
                let report = check::inspect(&memory.ctx, &memory.cwd, None)?;
                let findings = report
                    .findings
                    .iter()
                    .map(|f| CheckFinding {
                        path: f.path.clone(),
                        line: f.line,
                        severity: check::name(f.severity),
                        kind: check::name(f.kind),
                        message: f.message.clone(),
                    })
                    .collect();
                Ok(Answer::new(check::render(&report), &CheckAnswer { memories: report.memories, findings }))
            }
        }
    }
}

fn parse<T: DeserializeOwned + JsonSchema + 'static>(tool: &str, args: JsonObject) -> Result<T, McpError> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        let schema = schema_for_input::<T>().ok();
        let expected = schema.as_deref().map(describe).unwrap_or_default();
        McpError::invalid_params(
            format!("invalid arguments for {tool}: {e}. Send {expected}"),
            schema.map(|s| serde_json::json!({ "inputSchema": *s })),
        )
    })
}

/// "an object with query (string, required), recent_tools (array)" from an input schema.
fn describe(schema: &JsonObject) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let props = schema.get("properties").and_then(|p| p.as_object());
    let fields: Vec<String> = props
        .into_iter()
        .flatten()
        .map(|(name, prop)| {
            let needed = if required.contains(&name.as_str()) { ", required" } else { "" };
            format!("{name} ({}{needed})", kind(schema, prop))
        })
        .collect();
    if fields.is_empty() {
        "an empty object {}".into()
    } else {
        format!("an object with {}", fields.join(", "))
    }
}

/// A property's type in a few characters: `string`, `array`, or an enum's values `a|b|c`.
fn kind(schema: &JsonObject, prop: &serde_json::Value) -> String {
    // Enums are `$ref`s into `$defs`, wrapped in `anyOf` with null when optional.
    let target = |p: &serde_json::Value| {
        let name = p.get("$ref")?.as_str()?.rsplit('/').next()?;
        schema.get("$defs")?.get(name).cloned()
    };
    let variants =
        prop.get("anyOf").and_then(|a| a.as_array()).cloned().unwrap_or_else(|| vec![prop.clone()]);
    for variant in &variants {
        let resolved = target(variant).unwrap_or_else(|| variant.clone());
        let consts: Vec<&str> = resolved
            .get("oneOf")
            .and_then(|o| o.as_array())
            .map(|o| o.iter().filter_map(|v| v.get("const")?.as_str()).collect())
            .or_else(|| {
                resolved
                    .get("enum")
                    .and_then(|e| e.as_array())
                    .map(|e| e.iter().filter_map(|v| v.as_str()).collect())
            })
            .unwrap_or_default();
        if !consts.is_empty() {
            return consts.join("|");
        }
    }
    match prop.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(serde_json::Value::Array(types)) => {
            types.iter().filter_map(|t| t.as_str()).find(|t| *t != "null").unwrap_or("null").to_string()
        }
        _ => "value".into(),
    }
}

fn index(memory: &Memory) -> Result<Answer, Failure> {
    let dir = memory.memory_dir()?;
    if !std::path::Path::new(&dir).is_dir() {
        let facts = IndexAnswer { exists: false, index: String::new(), warning: None };
        return Ok(Answer::new("No memories yet: MEMORY.md does not exist.".into(), &facts));
    }
    let loaded =
        memory.ctx.core(read_root(dir.as_ref())?)?.load_index(&memdir_core::fs::join(&dir, INDEX_FILE))?;
    let mut text = if loaded.text.is_empty() {
        "MEMORY.md is empty: nothing saved yet.".to_string()
    } else {
        loaded.text.clone()
    };
    if let Some(warning) = &loaded.warning {
        text = format!("{text}\n\n{warning}");
    }
    Ok(Answer::new(text, &IndexAnswer { exists: true, index: loaded.text, warning: loaded.warning }))
}

fn recall_tool(memory: &mut Memory, args: RecallArgs) -> Result<Answer, Failure> {
    let query = Query {
        cwd: &memory.cwd,
        memory_dir: None,
        query: &args.query,
        recent_tools: &args.recent_tools,
        already_read: &args.already_read,
        ignore_memory: false,
        embeddings: None,
    };
    let session = std::mem::take(&mut memory.session);
    let model = super::model(&mut memory.sampling, &mut memory.model);
    let report = recall(&memory.ctx, &query, session, model)?;
    memory.session = report.session.clone();
    let mut parts: Vec<String> = report.attachments.iter().map(|a| a.text.clone()).collect();
    if let Some(skip) = report.skipped {
        parts.push(format!("Nothing recalled ({}).", skip.as_str()));
    } else if parts.is_empty() {
        parts.push("No memory is relevant to this request (or the relevant ones were already shown).".into());
    }
    parts.extend(report.diagnostics.iter().map(|d| format!("note: {d}")));
    let facts = RecallAnswer {
        memories: report
            .attachments
            .into_iter()
            .map(|a| Recalled {
                path: a.path,
                age: a.freshness,
                stale: a.stale,
                truncated: a.truncated,
                text: a.text,
            })
            .collect(),
        skipped: report.skipped.map(|s| s.as_str().to_string()),
        notes: report.diagnostics,
    };
    Ok(Answer::new(parts.join("\n\n"), &facts))
}

fn save(memory: &Memory, args: SaveArgs) -> Result<Answer, Failure> {
    let (target, fs) = memory.open_to_share()?;
    let ctx = &memory.ctx;
    let memory_type = match args.memory_type {
        TypeArg::User => MemoryType::User,
        TypeArg::Feedback => MemoryType::Feedback,
        TypeArg::Project => MemoryType::Project,
        TypeArg::Reference => MemoryType::Reference,
    };
    let request = Save {
        target: &target,
        memory: writer::Memory {
            memory_type,
            name: &args.name,
            description: &args.description,
            file: args.file.as_deref(),
            replaces: args.replaces.as_deref(),
            body: &args.body,
            now_ms: ctx.now_ms(),
            utc_offset_minutes: ctx.utc_offset(None),
            scope: args.scope.map(|s| match s {
                ScopeArg::Private => Scope::Private,
                ScopeArg::Team => Scope::Team,
                ScopeArg::User => Scope::User,
                ScopeArg::Group => Scope::Group,
            }),
        },
    };
    let report = ctx.core(fs)?.save(&request)?;
    let mut text = format!(
        "{} {}\nMEMORY.md: {}",
        if report.created { "saved" } else { "updated" },
        report.path,
        report.index_line
    );
    for c in &report.conversions {
        text.push_str(&format!("\ndate: \"{}\" written as {}", c.from, c.to));
    }
    if let Some(note) = crate::ops::save::rename_note(&report) {
        text.push('\n');
        text.push_str(&note);
    }
    let facts = SaveAnswer {
        dates_converted: report
            .conversions
            .into_iter()
            .map(|c| DateConversion { from: c.from, to: c.to })
            .collect(),
        path: report.path,
        created: report.created,
        index_line: report.index_line,
        renamed_from: report.renamed_from,
        links_rewritten: report.links_rewritten,
        replaced: report.replaced,
    };
    Ok(Answer::new(text, &facts))
}

fn team_sync(memory: &Memory, args: TeamSyncArgs) -> Result<Answer, Failure> {
    if memory.team_sync() == Some(TeamSync::Off) {
        return Err(Failure::input(
            "team sync is off (teamSync in the user's settings, or MEMDIR_TEAM_SYNC)",
        ));
    }
    let which = if args.private { Which::Private } else { Which::Team };
    let report = crate::ops::team::drive(&memory.ctx, &memory.target(), which, Action::Sync, None)?;
    let text = crate::ops::team::render(&report);
    let facts = TeamSyncAnswer {
        dir: report.dir,
        committed: report.committed,
        received: report.received,
        conflicts: report.conflicts.into_iter().map(|c| c.kept_as.unwrap_or(c.path)).collect(),
        pushed: report.pushed,
    };
    Ok(Answer::new(text, &facts))
}

fn list_memories(memory: &Memory) -> Result<Answer, Failure> {
    let nothing = || Answer::new("No memories yet.".into(), &ListAnswer { memories: Vec::new() });
    let dir = memory.memory_dir()?;
    if !std::path::Path::new(&dir).is_dir() {
        return Ok(nothing());
    }
    let mut core = memory.ctx.core(read_root(dir.as_ref())?)?;
    let report = core.scan(&dir, memory.ctx.now_ms())?;
    if report.headers.is_empty() {
        return Ok(nothing());
    }
    // The manifest, each stale memory marked with what the core found (R1.6, R7.6), and the
    // links between memories under it (R1.7).
    let manifest = core.manifest(&report.headers)?;
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
    let memories = report
        .headers
        .into_iter()
        .map(|h| Listed {
            path: h.path,
            r#type: h.memory_type.map(|t| t.as_str().to_string()),
            name: h.name,
            description: h.description,
            age: h.freshness.text,
            stale: h.freshness.stale,
            links: h.links.into_iter().map(|l| Link { name: l.name, path: l.path }).collect(),
            linked_from: h.backlinks,
        })
        .collect();
    Ok(Answer::new(text, &ListAnswer { memories }))
}

fn log(memory: &Memory, args: LogArgs) -> Result<Answer, Failure> {
    let ctx = &memory.ctx;
    let (switches, _) = ctx.core(whole_tree()?)?.status(&memory.cwd, ctx.env())?;
    if !switches.daily_log {
        return Err(Failure::input(
            "daily-log mode is off for this project (MEMDIR_DAILY_LOG or dailyLogEnabled turns it on): \
             save the memory with memory_save instead",
        ));
    }
    let (target, fs) = memory.open_for_writing()?;
    let path = ctx.core(fs)?.log_append(&target, &args.text, ctx.now_ms(), ctx.utc_offset(None))?;
    Ok(Answer::new(format!("logged to {path}"), &LogAnswer { path }))
}

fn instructions(memory: &Memory, args: InstructionsArgs) -> Result<Answer, Failure> {
    let mut approved = String::new();
    let mut approved_in = None;
    if args.approve_external {
        // The core picks the file; the grant covers both places it may be.
        let mut fs = whole_tree()?;
        for dir in ["CLAUDE_CONFIG_DIR", "HOME"].iter().filter_map(|v| memory.ctx.var(v)) {
            fs = fs.grant_write(dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
        }
        let file = memory.ctx.core(fs)?.approve_external(&memory.cwd, memory.ctx.env())?;
        approved = format!("Imports from outside this project are now approved ({file}).\n\n");
        approved_in = Some(file);
    }
    let cwd = std::path::Path::new(&memory.cwd);
    let touching: Vec<String> =
        args.touching.iter().map(|t| crate::absolute(&cwd.join(t))).collect::<Result<_, _>>()?;
    let request = memdir_core::instructions::Request {
        cwd: &memory.cwd,
        env: memory.ctx.env(),
        touching: &touching,
        add_dirs: &[],
    };
    let loaded = memory.ctx.core(whole_tree()?)?.load_instructions(&request)?;
    if loaded.files.is_empty() {
        let facts = InstructionsAnswer { approved_in, files: Vec::new() };
        return Ok(Answer::new(format!("{approved}No instruction files apply here."), &facts));
    }
    let not_loaded: String = loaded
        .files
        .iter()
        .flat_map(|f| f.diagnostics.iter().map(move |d| format!("note: {}: {d}\n", f.path)))
        .collect();
    let files: String = loaded.files.iter().map(memdir_core::prompt::render_file).collect();
    let facts = InstructionsAnswer {
        approved_in,
        files: loaded
            .files
            .into_iter()
            .map(|f| InstructionFile {
                path: f.path,
                content: f.content,
                truncated: f.truncated,
                notes: f.diagnostics,
            })
            .collect(),
    };
    Ok(Answer::new(format!("{approved}{files}{not_loaded}"), &facts))
}

fn dream(memory: &mut Memory, progress: &Progress) -> Result<Answer, Failure> {
    let ctx = &memory.ctx;
    let (switches, _) = ctx.core(whole_tree()?)?.status(&memory.cwd, ctx.env())?;
    if !switches.daily_log {
        return Err(Failure::input(
            "daily-log mode is off for this project: there are no logs to fold (memories are saved \
             directly with memory_save)",
        ));
    }
    let target = memory.target();
    let model = workflow_model(&mut memory.sampling, &mut memory.model, "a dream", "")?;
    let ctx = &memory.ctx;
    let on_chunk = per_call(progress, "folding chunk");
    let report = crate::ops::dream::run_dream(ctx, &target, ctx.utc_offset(None), model, on_chunk)?;
    progress.report(report.chunks, Some(report.chunks), "done");
    let operations: Vec<Operation> = report.operations.into_iter().map(Operation::from_report).collect();
    let first = (report.chunks == 0).then(|| "Nothing new in the logs.".to_string());
    let text = operations_text(first, &operations, &report.diagnostics);
    let facts = DreamAnswer {
        chunks: report.chunks,
        folded: report.committed,
        operations,
        notes: report.diagnostics,
    };
    Ok(Answer::new(text, &facts))
}

/// The model a workflow cannot run without (the client's, else `--llm`'s), or the refusal.
fn workflow_model<'a>(
    sampling: &'a mut Option<super::client::Sampling>,
    model: &'a mut Option<Box<dyn memdir_harness::llm::Model>>,
    what: &str,
    instead: &str,
) -> Result<&'a mut dyn memdir_harness::llm::Model, Failure> {
    super::model(sampling, model).ok_or_else(|| {
        Failure::input(format!(
            "{what} needs a model: this client offers no sampling, and memdir mcp was started without \
             --llm{instead}"
        ))
    })
}

/// Progress for each model call of a workflow: "<doing> 2 of 3".
fn per_call<'a>(progress: &'a Progress, doing: &'a str) -> impl FnMut(&memdir_core::model::ModelCall) + 'a {
    move |call| {
        let message = format!("{doing} {} of {}", call.call, call.calls);
        progress.report(call.call.saturating_sub(1), Some(call.calls), message);
    }
}

/// A workflow's answer as text: a first line, then each operation, then the notes.
fn operations_text(first: Option<String>, operations: &[Operation], notes: &[String]) -> String {
    let lines = first.into_iter().chain(operations.iter().map(Operation::line));
    lines.chain(notes.iter().map(|d| format!("note: {d}"))).collect::<Vec<_>>().join("\n")
}

fn extract(memory: &mut Memory, args: ExtractArgs, progress: &Progress) -> Result<Answer, Failure> {
    use crate::ops::extract::{Extraction, extract};
    let target = memory.target();
    let instead = ". Save memories one by one with memory_save instead";
    let model = workflow_model(&mut memory.sampling, &mut memory.model, "extraction", instead)?;
    // The transcript wire format, which the core parses (one message per JSON line).
    let transcript: String = args
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                ChatRole::User => "user",
                ChatRole::Assistant => "assistant",
            };
            format!("{}\n", serde_json::json!({ "role": role, "content": m.content }))
        })
        .collect();
    let extraction = Extraction {
        transcript: &transcript,
        source: "the messages",
        conversation: args.conversation,
        written: &[],
        main_agent: true,
        utc_offset_minutes: memory.ctx.utc_offset(None),
    };
    let on_call = per_call(progress, "asking the model, round");
    let report = extract(&memory.ctx, &target, &extraction, model, on_call)?;
    let operations: Vec<Operation> = report.operations.into_iter().map(Operation::from_report).collect();
    let skipped = report.skipped.map(|s| s.as_str().to_string());
    let first = match (&skipped, operations.is_empty()) {
        (Some(why), _) => Some(format!("Nothing extracted ({why}).")),
        (None, true) => Some("Nothing worth remembering in what is new.".to_string()),
        (None, false) => None,
    };
    let text = operations_text(first, &operations, &report.diagnostics);
    let facts = ExtractAnswer { skipped, cursor: report.cursor, operations, notes: report.diagnostics };
    Ok(Answer::new(text, &facts))
}

/// The memory part of the system prompt, with the MEMORY.md step.
pub fn system_prompt(memory: &mut Memory) -> Result<String, Failure> {
    let request = memdir_core::instructions::Request {
        cwd: &memory.cwd,
        env: memory.ctx.env(),
        touching: &[],
        add_dirs: &[],
    };
    Ok(memory.ctx.core(whole_tree()?)?.prompt(&request, Options::default())?)
}

/// The memory resources' URIs: `memdir://memory/<path>`.
pub const SCHEME: &str = "memdir://memory/";

/// The template of every memory's URI (`resources/templates/list`).
pub fn resource_template() -> rmcp::model::ResourceTemplate {
    rmcp::model::ResourceTemplate::new(format!("{SCHEME}{{+path}}"), "memory")
        .with_title("A memory")
        .with_description(
            "One memory file, by its path relative to the memory directory (as memory_list shows it), \
             or MEMORY.md",
        )
        .with_mime_type("text/markdown")
}

/// The local directory a `file://` root names (percent-escapes decoded); None for any other.
pub fn file_uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///home/ana` or `file://localhost/home/ana`; a root on another host is not ours.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(path.len());
    let mut raw = path.bytes();
    while let Some(b) = raw.next() {
        if b == b'%' {
            let hex = [raw.next()?, raw.next()?];
            bytes.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            bytes.push(b);
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    if path.contains('\0') {
        return None;
    }
    // `file:///C:/work` is `C:/work` on Windows.
    let drive =
        path.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) && path.as_bytes().get(2) == Some(&b':');
    let windows_drive = cfg!(windows) && drive;
    Some(if windows_drive { path[1..].to_string() } else { path })
}

/// The proposals waiting for the user under `memoryWrites: review` (issue 28), read-only: an
/// agent can see what it proposed, never accept it (no tool does).
pub const PENDING_URI: &str = "memdir://pending";

/// The waiting proposals as JSON, oldest first.
pub fn read_pending(memory: &mut Memory) -> Result<String, McpError> {
    let internal = |f: Failure| McpError::internal_error(f.message, None);
    let target = memdir_core::target::Target {
        cwd: memory.cwd.clone(),
        env: memory.ctx.env().to_vec(),
        memory_dir: None,
    };
    // Read-only, and the settings that locate the memory live outside it.
    let fs = crate::ops::whole_tree().map_err(internal)?;
    let core_error = |e: memdir_harness::Error| internal(e.into());
    let proposals = memory.ctx.core(fs).map_err(core_error)?.pending(&target).map_err(core_error)?;
    serde_json::to_string_pretty(&proposals).map_err(|e| McpError::internal_error(e.to_string(), None))
}

/// Every memory (and MEMORY.md) as a resource, `memdir://memory/<path>`; and the review
/// queue, `memdir://pending`, while proposals wait.
pub fn resources(memory: &mut Memory) -> Result<Vec<Resource>, Failure> {
    let dir = memory.memory_dir()?;
    if !std::path::Path::new(&dir).is_dir() {
        return Ok(Vec::new());
    }
    let waiting = std::path::Path::new(&dir).join(memdir_core::pending::PENDING_DIR).is_dir();
    let report = memory.ctx.core(read_root(dir.as_ref())?)?.scan(&dir, memory.ctx.now_ms())?;
    let index = Resource::new(format!("{SCHEME}{INDEX_FILE}"), INDEX_FILE)
        .with_description("The index of this project's memories, one line each")
        .with_mime_type("text/markdown");
    let memories = report.headers.into_iter().map(|h| {
        let resource = Resource::new(format!("{SCHEME}{}", h.path), h.name.unwrap_or_else(|| h.path.clone()))
            .with_mime_type("text/markdown");
        // The core's staleness verdict (R1.6) travels with the description.
        let stale = h.freshness.stale.then(|| format!("may be stale: saved {}", h.freshness.text));
        match (h.description, stale) {
            (Some(d), Some(s)) => resource.with_description(format!("{d} ({s})")),
            (Some(d), None) => resource.with_description(d),
            (None, Some(s)) => resource.with_description(s),
            (None, None) => resource,
        }
    });
    let pending = waiting.then(|| {
        Resource::new(PENDING_URI, "pending proposals")
            .with_description("Changes to memory waiting for the user's review (memoryWrites: review); only the user accepts them, with memdir review")
            .with_mime_type("application/json")
    });
    Ok(std::iter::once(index).chain(memories).chain(pending).collect())
}

/// The memory path a resource URI names; anything else is a protocol error.
pub fn resource_path(uri: &str) -> Result<String, McpError> {
    let not_ours = || {
        McpError::invalid_params(
            format!(
                "{uri:?} is not a memory: memdir resources are {SCHEME}<path> as resources/list shows them"
            ),
            None,
        )
    };
    let path = uri.strip_prefix(SCHEME).ok_or_else(not_ours)?;
    let bad = path.is_empty()
        || !path.ends_with(".md")
        || path.split('/').any(|part| part.is_empty() || part == "." || part == "..")
        || path.contains(['\\', '\0', '%']);
    if bad { Err(not_ours()) } else { Ok(path.to_string()) }
}

/// A memory's text. Only files the scan lists (and MEMORY.md) are served, through a filesystem
/// that grants the memory directory alone, so a symlink cannot lead out.
pub fn read_resource(memory: &mut Memory, path: &str) -> Result<String, McpError> {
    const MAX_BYTES: u64 = 1 << 20;
    let internal = |f: Failure| McpError::internal_error(f.message, None);
    let dir = memory.memory_dir().map_err(internal)?;
    let missing = || McpError::resource_not_found(format!("no memory at {SCHEME}{path}"), None);
    if !std::path::Path::new(&dir).is_dir() {
        return Err(missing());
    }
    let fs = read_root(dir.as_ref()).map_err(internal)?;
    if path != INDEX_FILE {
        let core_error = |e: memdir_harness::Error| internal(e.into());
        let listed = memory
            .ctx
            .core(fs.clone())
            .map_err(core_error)?
            .scan(&dir, memory.ctx.now_ms())
            .map_err(core_error)?;
        if !listed.headers.iter().any(|h| h.path == path) {
            return Err(missing());
        }
    }
    let bytes = fs.read_file(&memdir_core::fs::join(&dir, path), MAX_BYTES).map_err(|_| missing())?;
    String::from_utf8(bytes).map_err(|_| McpError::internal_error(format!("{path} is not UTF-8 text"), None))
}

#[cfg(test)]
mod tests {
    use super::file_uri_path;

    #[test]
    fn a_root_is_a_local_directory_or_nothing() {
        assert_eq!(file_uri_path("file:///home/ana/web%20app").as_deref(), Some("/home/ana/web app"));
        assert_eq!(file_uri_path("file://localhost/srv/x").as_deref(), Some("/srv/x"));
        let drive = if cfg!(windows) { "C:/work/x" } else { "/C:/work/x" };
        assert_eq!(file_uri_path("file:///C:/work/x").as_deref(), Some(drive));
        for not_ours in ["https://x/y", "file://server/share", "file:///a%2", "file:///a%00b", "file:///%ff"]
        {
            assert_eq!(file_uri_path(not_ours), None, "{not_ours}");
        }
    }
}
