//! The tool catalog: the names, descriptions and argument schemas every host that offers tools
//! shows a model. It is data (`tools.json`), kept here so that one text serves every client.
//! Which of them a project is offered, and what a server tells the model about them, are decided
//! here too (issue 47, item 3): every tool's text costs the agent context in every conversation.

use crate::context::switches::Switches;
use serde::{Deserialize, Serialize};

/// One tool, as a model is shown it (the WIT `tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Tool {
    /// What the model calls, e.g. `memory_save`.
    pub name: String,
    /// A short title, for people.
    pub title: String,
    /// What the tool does and when to call it, written for a model.
    pub description: String,
    /// Its arguments: a JSON Schema object, as JSON text.
    pub input_schema: String,
    /// Its structured answer: a JSON Schema object, as JSON text. An MCP client checks each
    /// answer against it.
    pub output_schema: String,
    /// It changes nothing.
    pub read_only: bool,
    /// It may remove or overwrite what a memory held.
    pub destructive: bool,
    /// Calling it again with the same arguments changes nothing further.
    pub idempotent: bool,
    /// It reaches beyond the memory directory (a git remote).
    pub open_world: bool,
}

/// The tools a project is offered, and the instructions that name each (the WIT `offer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Offer {
    /// In the catalog's order.
    pub tools: Vec<Tool>,
    /// What a server tells the model at the start: one sentence for each tool offered.
    pub instructions: String,
}

/// When a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Offered {
    /// In every project: what an agent uses every day.
    Always,
    /// Where team memory is on and its sync is not off.
    Team,
    /// In daily-log mode, where alone it does anything.
    DailyLog,
    /// Only when the person asks for every tool: maintenance that the CLI and the editor serve
    /// people better, and that a model rarely needs.
    Asked,
}

/// A tool as `tools.json` writes it: the schema as JSON, not yet as text.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Entry {
    name: String,
    title: String,
    description: String,
    input_schema: serde_json::Value,
    output_schema: serde_json::Value,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
    offered: Offered,
    /// The sentence the instructions say about it.
    instruction: String,
}

/// What the instructions say before the tools' sentences.
const INTRO: &str =
    "memdir is this project's persistent memory, shared with the user's other agents and editors.";
/// And after them.
const OUTRO: &str = "Verify a memory against the code before acting on it: it is a note from the past.";

fn entries() -> Vec<Entry> {
    serde_json::from_str(include_str!("tools.json")).expect("tools.json is checked by the tests")
}

/// Every tool, in the order a client lists them.
pub fn catalog() -> Vec<Tool> {
    entries().into_iter().map(tool).collect()
}

/// The tools a project with these switches is offered, with the instructions naming each;
/// `all`: every tool of the catalog, as a person may ask for.
pub fn offer(switches: &Switches, all: bool) -> Offer {
    let team = switches.team_memory && switches.team_sync != crate::context::switches::TeamSync::Off;
    let chosen: Vec<Entry> = entries()
        .into_iter()
        .filter(|e| {
            all || match e.offered {
                Offered::Always => true,
                Offered::Team => team,
                Offered::DailyLog => switches.daily_log,
                Offered::Asked => false,
            }
        })
        .collect();
    let sentences = chosen.iter().map(|e| e.instruction.as_str());
    let instructions = std::iter::once(INTRO).chain(sentences).chain([OUTRO]).collect::<Vec<_>>().join(" ");
    Offer { tools: chosen.into_iter().map(tool).collect(), instructions }
}

fn tool(e: Entry) -> Tool {
    Tool {
        name: e.name,
        title: e.title,
        description: e.description,
        input_schema: e.input_schema.to_string(),
        output_schema: e.output_schema.to_string(),
        read_only: e.read_only,
        destructive: e.destructive,
        idempotent: e.idempotent,
        open_world: e.open_world,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Every schema is an object schema that refuses what it does not name, and everything it
    /// requires it names; names are unique, and a read-only tool destroys nothing.
    /// Issue 47, item 3: a fresh project is offered the four everyday tools within about 1,200
    /// tokens (4,800 bytes of text a model reads); the team's and the daily log's arrive with
    /// their switches; every tool offered is named in the instructions, and asking gets all.
    /// A fresh project's switches: nothing beyond auto memory on.
    fn fresh() -> Switches {
        Switches {
            instructions: true,
            bare: false,
            auto_memory: true,
            decided_by: crate::context::switches::DecidedBy::Default,
            team_memory: false,
            daily_log: false,
            team_sync: crate::context::switches::TeamSync::default(),
            recall_shortlist: 60,
            memory_writes: crate::context::policy::WritePolicy::default(),
            diagnostics: Vec::new(),
        }
    }

    #[test]
    fn a_project_is_offered_what_it_can_use_and_told_about_each() {
        let fresh = fresh();
        let offer = offer(&fresh, false);
        let names: Vec<&str> = offer.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["memory_index", "memory_recall", "memory_save", "memory_forget"]);
        let text: usize =
            offer.tools.iter().map(|t| t.name.len() + t.description.len() + t.input_schema.len()).sum();
        assert!(text <= 4_000, "{text} bytes of tool text (the MCP server adds its `project` argument)");
        let with = |team_memory, daily_log| Switches { team_memory, daily_log, ..self::fresh() };
        let names = |s: &Switches, all| -> Vec<String> {
            super::offer(s, all).tools.into_iter().map(|t| t.name).collect()
        };
        assert!(names(&with(true, false), false).contains(&"memory_team_sync".to_string()));
        let off = Switches { team_sync: crate::context::switches::TeamSync::Off, ..with(true, false) };
        assert!(
            !names(&off, false).contains(&"memory_team_sync".to_string()),
            "a sync that is off is not offered"
        );
        let logs = names(&with(false, true), false);
        assert!(logs.contains(&"memory_log".to_string()) && logs.contains(&"memory_dream".to_string()));
        assert_eq!(names(&fresh, true).len(), catalog().len());
        for switches in [fresh, with(true, true)] {
            for all in [false, true] {
                let offer = super::offer(&switches, all);
                for tool in &offer.tools {
                    assert!(
                        offer.instructions.contains(&tool.name),
                        "{} is named: {}",
                        tool.name,
                        offer.instructions
                    );
                }
                for tool in catalog().iter().filter(|t| !offer.tools.contains(t)) {
                    assert!(
                        !offer.instructions.contains(&tool.name),
                        "{} is not offered: {}",
                        tool.name,
                        offer.instructions
                    );
                }
            }
        }
    }

    /// A schema (JSON text) for an object whose every field is described and which names every
    /// field it requires; `what` says whose it is in a failure.
    fn described_object(text: &str, what: &str) -> Value {
        let schema: Value = serde_json::from_str(text).unwrap();
        assert_eq!(schema["type"], "object", "{what}");
        let fields = schema["properties"].as_object().unwrap();
        for required in schema["required"].as_array().into_iter().flatten() {
            assert!(fields.contains_key(required.as_str().unwrap()), "{what}: {required}");
        }
        for (name, field) in fields {
            assert!(field["description"].as_str().is_some_and(|d| !d.is_empty()), "{what}.{name}");
        }
        schema
    }

    #[test]
    fn the_catalog_is_well_formed() {
        let tools = catalog();
        assert_eq!(tools.len(), 11);
        let mut names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len());
        for tool in &tools {
            assert!(tool.name.starts_with("memory_"), "{}", tool.name);
            assert!(!(tool.read_only && tool.destructive), "{}", tool.name);
            let schema = described_object(&tool.input_schema, &tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            // The answer's schema too: an MCP client checks each answer against it.
            described_object(&tool.output_schema, &format!("{} answer", tool.name));
        }
    }
}
