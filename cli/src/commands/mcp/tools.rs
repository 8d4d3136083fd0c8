//! What `memdir mcp` offers: the tools (their schemas and descriptions are written for a model),
//! the memories as resources, and the memory part of the system prompt as a prompt.

use super::Memory;
use super::client::Progress;
use crate::context::{Failure, read_root};
use crate::ops::whole_tree;
use memdir_harness::contract::Fs;
use memdir_harness::contract::plan::Operation as Plan;
use memdir_harness::contract::prompt::Options;
use memdir_harness::contract::scan::INDEX_FILE;
use memdir_harness::contract::tools::ToolAnswer;
use rmcp::ErrorData as McpError;
use rmcp::model::{JsonObject, Resource, Tool, ToolAnnotations};

/// The one prompt: the memory part of the system prompt.
pub const PROMPT_NAME: &str = "memory";
/// Its description.
pub const PROMPT_DESCRIPTION: &str = "The memory part of the system prompt for this project: \
how to use and save memories, then MEMORY.md as loaded.";

/// The status of a [`Failure`] whose call's arguments did not fit the tool's schema: the server
/// answers it as a protocol error.
pub const BAD_ARGUMENTS: i32 = 64;

/// The tools, as `tools/list` shows them: the core's catalog (one name and text for every
/// host), each with the `project` argument every call here may take, its annotations, and the
/// schema of its structured answer.
pub fn list(catalog: &[memdir_harness::contract::tools::Tool]) -> Vec<Tool> {
    catalog
        .iter()
        .filter_map(|entry| {
            let mut input: JsonObject = serde_json::from_str(&entry.input_schema).ok()?;
            if let Some(properties) = input.get_mut("properties").and_then(|p| p.as_object_mut()) {
                let project = serde_json::json!({ "type": "string", "description": PROJECT_DESCRIPTION });
                properties.insert(PROJECT.to_string(), project);
            }
            let annotations = ToolAnnotations::new()
                .read_only(entry.read_only)
                .destructive(entry.destructive)
                .idempotent(entry.idempotent)
                .open_world(entry.open_world);
            let tool = Tool::new(entry.name.clone(), entry.description.clone(), input)
                .with_title(entry.title.clone())
                .with_annotations(annotations);
            // The answer's schema is the catalog's too, written beside the arguments' once.
            let output: JsonObject = serde_json::from_str(&entry.output_schema).ok()?;
            let tool = tool.with_raw_output_schema(std::sync::Arc::new(output));
            Some(tool)
        })
        .collect()
}

/// A tool's answer as the core worded it: the text a model reads, and the same facts as
/// structured content (the catalog's output schema, which the MCP SDK test checks).
pub struct Answer {
    pub text: String,
    pub structured: serde_json::Value,
}

/// A call of a tool of the catalog, which the core answers whole (issue 45): its arguments as
/// sent, its schema (for a refusal that says what to send) and its title (what progress says).
pub struct Call {
    name: String,
    args: JsonObject,
    schema: JsonObject,
    title: String,
}

/// The argument that names the project a call is about.
pub const PROJECT: &str = "project";
const PROJECT_DESCRIPTION: &str =
    "Absolute path of the project this call is about (default: the one the server serves).";

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
    /// Checks a `tools/call`: an unknown tool is a protocol error that names the tools; the
    /// core checks the arguments.
    pub fn parse(name: &str, args: JsonObject, tools: &[Tool]) -> Result<Call, McpError> {
        let unknown = || {
            let names: Vec<_> = tools.iter().map(|t| t.name.as_ref()).collect();
            McpError::invalid_params(
                format!("no tool named {name:?}; the tools are {}", names.join(", ")),
                None,
            )
        };
        let tool = tools.iter().find(|t| t.name == name).ok_or_else(unknown)?;
        let title = tool.title.clone().unwrap_or_else(|| name.to_string());
        Ok(Call { name: name.to_string(), args, schema: (*tool.input_schema).clone(), title })
    }

    /// Runs the call on the worker: the tool's answer, or its refusal. `progress` hears the
    /// tool's title as it starts, and each model call a workflow makes.
    pub fn run(self, memory: &mut Memory, progress: &Progress) -> Result<Answer, Failure> {
        progress.report(0, None, self.title.clone());
        answered(memory, &self.name, self.args, &self.schema, progress)
    }
}

/// "an object with query (string, required), recent_tools (array)" from an input schema: the
/// tool's own arguments (`project` has been taken out already).
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
        .filter(|(name, _)| *name != PROJECT)
        .map(|(name, prop)| {
            let needed = if required.contains(&name.as_str()) { ", required" } else { "" };
            format!("{name} ({}{needed})", kind(prop))
        })
        .collect();
    if fields.is_empty() {
        "an empty object {}".into()
    } else {
        format!("an object with {}", fields.join(", "))
    }
}

/// A property's type in a few characters: `string`, `array`, or an enum's values `a|b|c`.
fn kind(prop: &serde_json::Value) -> String {
    if let Some(values) = prop.get("enum").and_then(|e| e.as_array()) {
        return values.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join("|");
    }
    prop.get("type").and_then(|t| t.as_str()).unwrap_or("value").to_string()
}

/// A call of a tool the core answers whole: one core instance, granted what the core plans for
/// the tool, asked once. Arguments that do not fit are a protocol error saying what to send; a
/// refusal is the tool's error result.
fn answered(
    memory: &mut Memory,
    name: &str,
    args: JsonObject,
    schema: &JsonObject,
    progress: &Progress,
) -> Result<Answer, Failure> {
    let args = serde_json::Value::Object(args).to_string();
    let target = memory.target();
    // A recall's receipt names the client the server is talking to (its `initialize`).
    let given_to = match memory.client_name.as_deref() {
        Some(name) if !name.is_empty() => format!("mcp:{name}"),
        _ => "mcp".to_string(),
    };
    let session = std::mem::take(&mut memory.session);
    // A workflow's model calls (the dream's chunks, extraction's rounds) are reported as they go.
    let mut asked = None;
    let mut on_call = |call: &memdir_harness::contract::model::ModelCall| {
        asked = Some(call.calls);
        let message = format!("asking the model, {} of {}", call.call, call.calls);
        progress.report(call.call.saturating_sub(1), Some(call.calls), message);
    };
    let asking = crate::ops::tool::Asking {
        session: session.clone(),
        model: super::model(&mut memory.sampling, &mut memory.model),
        given_to: Some(given_to),
        progress: Some(&mut on_call),
    };
    let answered = crate::ops::tool::answer(&memory.ctx, &target, name, args, asking);
    memory.session = match &answered {
        Ok(Ok((ToolAnswer { session: Some(kept), .. }, _))) => kept.clone(),
        _ => session,
    };
    if let Some(calls) = asked {
        progress.report(calls, Some(calls), "done");
    }
    let (answer, operation) = answered?.map_err(|e| Failure {
        status: BAD_ARGUMENTS,
        message: format!("{}. Send {}", e.message, describe(schema)),
    })?;
    if answer.is_error {
        return Err(Failure::input(answer.text));
    }
    if matches!(operation, Plan::Write | Plan::WriteShared) {
        memory.wrote();
    }
    let structured = serde_json::from_str(&answer.structured).unwrap_or_default();
    Ok(Answer { text: answer.text, structured })
}

/// The memory part of the system prompt, with the MEMORY.md step.
pub fn system_prompt(memory: &mut Memory) -> Result<String, Failure> {
    let request = memdir_harness::contract::instructions::Request {
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

/// The proposals waiting for the user under `memoryWrites: review` (issue 28), read-only: an
/// agent can see what it proposed, never accept it (no tool does).
pub const PENDING_URI: &str = "memdir://pending";

/// The waiting proposals as JSON, oldest first.
pub fn read_pending(memory: &mut Memory) -> Result<String, McpError> {
    let internal = |f: Failure| McpError::internal_error(f.message, None);
    let target = memdir_harness::contract::target::Target {
        cwd: memory.cwd.clone(),
        env: memory.ctx.env().to_vec(),
        memory_dir: None,
        by: None,
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
    let waiting = std::path::Path::new(&dir).join(memdir_harness::contract::pending::PENDING_DIR).is_dir();
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
    let bytes =
        fs.read_file(&memdir_harness::contract::fs::join(&dir, path), MAX_BYTES).map_err(|_| missing())?;
    String::from_utf8(bytes).map_err(|_| McpError::internal_error(format!("{path} is not UTF-8 text"), None))
}

#[cfg(test)]
mod tests {
    use super::{Call, PROJECT, list};
    use serde_json::{Value, json};

    /// A value its schema accepts: the first of an enum, else one of its type.
    fn sample(schema: &Value) -> Value {
        if let Some(first) = schema["enum"].get(0) {
            return first.clone();
        }
        match schema["type"].as_str() {
            Some("string") => json!("x"),
            Some("boolean") => json!(true),
            Some("array") => json!([sample(&schema["items"])]),
            Some("object") => Value::Object(
                schema["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(name, _)| *name != PROJECT)
                    .map(|(name, property)| (name.clone(), sample(property)))
                    .collect(),
            ),
            other => panic!("a schema type the tools do not use: {other:?}"),
        }
    }

    /// The server offers every tool of the core's catalog, and takes every argument its schema
    /// names, and no call with only the required ones fails: the catalog and the argument types
    /// here cannot drift apart unseen.
    #[test]
    fn every_catalog_tool_is_offered_and_takes_what_its_schema_names() {
        use memdir_harness::Core as _;
        let fs = memdir_harness::ConfinedFs::new();
        let catalog = memdir_harness::ComponentRuntime::load().unwrap().core(fs).tool_catalog().unwrap();
        let tools = list(&catalog);
        assert_eq!(tools.len(), catalog.len());
        for tool in &tools {
            let schema = Value::Object(tool.input_schema.as_ref().clone());
            let Value::Object(all) = sample(&schema) else { unreachable!() };
            Call::parse(&tool.name, all, &tools).unwrap_or_else(|e| panic!("{}: {e:?}", tool.name));
            let required: serde_json::Map<String, Value> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|name| {
                    (
                        name.as_str().unwrap().to_string(),
                        sample(&schema["properties"][name.as_str().unwrap()]),
                    )
                })
                .collect();
            Call::parse(&tool.name, required, &tools).unwrap_or_else(|e| panic!("{}: {e:?}", tool.name));
        }
    }
}
