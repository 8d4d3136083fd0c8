//! The git commands the core asks a host to run, and what they did. The core decides every
//! argument and reads every output; the host only runs `git` (team sync, and `check` reading
//! the project's history).

use serde::{Deserialize, Serialize};

/// A git command for the host to run: `git <args>` in `cwd`, with `stdin` as its input, `env`
/// over the host's environment, no terminal prompts, for at most `timeout_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct GitCommand {
    /// The arguments after `git`.
    pub args: Vec<String>,
    /// The directory it runs in.
    pub cwd: String,
    /// Its standard input.
    pub stdin: Option<String>,
    /// It talks to the remote (the core has released the writers' lock for it).
    pub network: bool,
    /// Variables set for it, over the host's environment.
    pub env: Vec<(String, String)>,
    /// How long it may run, in milliseconds; past it the host stops it.
    pub timeout_ms: u32,
}

/// How long a team sync's local git command may run.
pub const LOCAL_TIMEOUT_MS: u32 = 60_000;
/// How long one that talks to the remote may run.
pub const NETWORK_TIMEOUT_MS: u32 = 300_000;

/// What a git command did. A command the host could not start, or that ended without an exit
/// status (killed at its deadline), has none, with the reason in `stderr`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct GitOutput {
    /// Its exit status.
    pub status: Option<i32>,
    /// Its standard output (invalid UTF-8 replaced).
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

impl GitOutput {
    /// It ran and exited 0.
    pub fn ok(&self) -> bool {
        self.status == Some(0)
    }
}

/// One step of a workflow that runs git (`check`, `team`): a command for the host to run in
/// the project, or the workflow's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum GitStep<T> {
    /// Run git, then resume the workflow with its output.
    Run(GitCall),
    /// Finished.
    Done(T),
}

/// A command to run, and the state to resume with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct GitCall {
    /// Run this.
    pub command: GitCommand,
    /// Pass this back to the step machine's `resume` with the output.
    pub state: String,
}
