//! What each tool returns as `structuredContent`, next to its text. Their schemas are the
//! catalog's (`output-schema` in `guest/src/agents/tools.json`, beside the arguments'), and the
//! MCP SDK test checks every answer against them. Field names are snake_case like the tools'
//! arguments. These are views for clients: the core's reports stay the source, and only what an
//! agent acts on is carried over.

use serde::Serialize;

/// A tool's answer: the text a model reads and the same facts as structured content.
pub struct Answer {
    pub text: String,
    pub structured: serde_json::Value,
}

impl Answer {
    pub fn new(text: String, facts: &impl Serialize) -> Answer {
        // Serializing these plain structs cannot fail.
        Answer { text, structured: serde_json::to_value(facts).unwrap_or_default() }
    }
}

/// `memory_check`.
#[derive(Debug, Serialize)]
pub struct CheckAnswer {
    /// Memory files checked.
    pub memories: u32,
    /// What was found; empty when everything holds.
    pub findings: Vec<CheckFinding>,
}

/// One thing `memory_check` found.
#[derive(Debug, Serialize)]
pub struct CheckFinding {
    /// The file, relative to the memory directory.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// error, warning or info.
    pub severity: String,
    /// What kind of drift, e.g. missing-file, duplicate, stale-evidence.
    pub kind: String,
    /// What was found, in words a person can act on.
    pub message: String,
}

/// `memory_team_sync`.
#[derive(Debug, Serialize)]
pub struct TeamSyncAnswer {
    /// The synced directory.
    pub dir: String,
    /// The commit this sync made, when it made one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed: Option<String>,
    /// Files the team's new commits changed here.
    pub received: Vec<String>,
    /// Memories both sides changed: each kept twice (memory_check lists the copy).
    pub conflicts: Vec<String>,
    /// This machine's changes reached the remote.
    pub pushed: bool,
}
