//! What an operation may read and write (issue 45): the core decides where memory lives and
//! which of it an operation may change, and every host applies the plan as it is. Before this,
//! three hosts computed it each their own way, and one (the opencode plugin) never let recall
//! keep its index.

use crate::base::error::Result;
use crate::base::fs::{EntryKind, Fs};
use crate::context::scope;
use crate::context::target::Target;
use serde::{Deserialize, Serialize};

/// What an operation does with memory, as far as its grant goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    /// Reads only: instructions, status, the prompt, a scan.
    Read,
    /// Recall: reads everything, and keeps the recall index in each memory directory it
    /// searches that exists already. It creates none.
    Recall,
    /// Writes the project's memory directory, created when missing: extraction, check's fixes,
    /// the review queue, the daily log, pause.
    Write,
    /// A save or a forget, which may also write the user-wide and group memories the user
    /// turned on (issue 28).
    WriteShared,
    /// A lifecycle hook (a user prompt, a reset): recall, and the session files in the
    /// project's memory directory, which is created only when user-wide or group memory is on (a
    /// project with no memory of its own still recalls those).
    Hook,
    /// A check, or a missing MEMORY.md rebuilt (R6.5): the project's memory directory writable
    /// when it exists, to finish a write a killed writer left half-done or to write the index;
    /// never created.
    Check,
    /// Approving imports from outside the project (R3.4), which a person does and no tool
    /// offers: the folder of the agent's state file (`$CLAUDE_CONFIG_DIR`, else `$HOME`),
    /// where [`crate::context::approval::approve`] writes `.claude.json`.
    ApproveExternal,
}

/// The roots a host grants: `read` read-only, `write` read-write. The host creates each `write`
/// root that is missing before it grants it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Grant {
    /// Readable directories, with everything under them.
    pub read: Vec<String>,
    /// Readable and writable directories.
    pub write: Vec<String>,
}

/// The grant `operation` needs on `target`. Instruction files, settings and git metadata live
/// anywhere, so every operation reads the whole tree; what it writes is the point of the plan.
pub fn plan(fs: &dyn Fs, operation: Operation, target: &Target) -> Result<Grant> {
    let read = vec!["/".to_string()];
    match operation {
        Operation::Read => return Ok(Grant { read, write: Vec::new() }),
        Operation::ApproveExternal => {
            let file = crate::context::approval::state_file(&target.env);
            let write = file.as_deref().and_then(crate::base::fs::parent).map(str::to_string);
            return Ok(Grant { read, write: write.into_iter().collect() });
        }
        _ => {}
    }
    // A memory directory named outright is the only one written.
    let (own, shared) = match &target.memory_dir {
        Some(dir) => (dir.clone(), Vec::new()),
        None => {
            let location = crate::context::paths::memory_location(fs, &target.cwd, &target.env)?;
            let shared: Vec<String> = scope::shared(&location).into_iter().map(|s| s.dir).collect();
            (location.memory_dir, shared)
        }
    };
    let is_dir = |dir: &String| fs.stat(dir).is_ok_and(|s| s.kind == EntryKind::Dir);
    let write = match operation {
        Operation::Read | Operation::ApproveExternal => Vec::new(),
        Operation::Write => vec![own],
        Operation::WriteShared => std::iter::once(own).chain(shared).collect(),
        Operation::Recall => std::iter::once(own).chain(shared).filter(is_dir).collect(),
        Operation::Check => std::iter::once(own).filter(is_dir).collect(),
        Operation::Hook => {
            let keeps_sessions = is_dir(&own) || !shared.is_empty();
            let own = keeps_sessions.then_some(own);
            own.into_iter().chain(shared.into_iter().filter(is_dir)).collect()
        }
    };
    Ok(Grant { read, write })
}
