//! Whose memory an operation works on: a working directory and the environment the host lets
//! the core see. The core locates the memory directory (R2) and resolves the switches (R4)
//! itself, so no host decides them.

use crate::base::error::Result;
use crate::base::fs::Fs;
use crate::context::instructions;
use crate::context::paths::MemoryLocation;
use crate::context::switches::Switches;
use serde::{Deserialize, Serialize};

/// A working directory, its environment, and optionally an explicit memory directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Target {
    /// The working directory, absolute.
    pub cwd: String,
    /// The environment the core may consult.
    pub env: Vec<(String, String)>,
    /// Use this memory directory instead of the one `cwd` locates; switches still come from `cwd`.
    pub memory_dir: Option<String>,
    /// Who asks, as the timeline of writes names them (issue 48): `person:cli`,
    /// `person:editor`, `person:workbench`, or `agent:<client>` for an agent through a tool.
    /// Extraction, the dream and team sync name themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// A target, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The memory directory operations work in.
    pub memory_dir: String,
    /// The switches in force for the working directory.
    pub switches: Switches,
    /// Where the working directory's memory lives.
    pub location: MemoryLocation,
}

impl Target {
    /// A target for `cwd` with `env`, in the memory directory `cwd` locates.
    pub fn new(cwd: &str, env: &[(String, String)]) -> Self {
        Target { cwd: cwd.to_string(), env: env.to_vec(), memory_dir: None, by: None }
    }

    /// Who asks, as the timeline records it: one line of at most 64 characters, with no
    /// control characters; `unknown` when the host did not say.
    pub fn asker(&self) -> String {
        let line = self.by.as_deref().unwrap_or("").lines().next().unwrap_or("");
        // Bidi overrides and zero-width marks would let a name read as another.
        let invisible = |c: &char| matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
        let by: String = line.chars().filter(|c| !c.is_control() && !invisible(c)).take(64).collect();
        match by.trim() {
            "" => "unknown".to_string(),
            by => by.to_string(),
        }
    }

    /// Locates the memory and resolves the switches, reading settings files and git metadata
    /// through `fs`.
    pub fn resolve(&self, fs: &dyn Fs) -> Result<Resolved> {
        let (switches, location) = instructions::status(fs, &self.cwd, &self.env)?;
        let memory_dir = self.memory_dir.clone().unwrap_or_else(|| location.memory_dir.clone());
        Ok(Resolved { memory_dir, switches, location })
    }
}
