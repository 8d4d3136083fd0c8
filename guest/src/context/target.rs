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
        Target { cwd: cwd.to_string(), env: env.to_vec(), memory_dir: None }
    }

    /// Locates the memory and resolves the switches, reading settings files and git metadata
    /// through `fs`.
    pub fn resolve(&self, fs: &dyn Fs) -> Result<Resolved> {
        let (switches, location) = instructions::status(fs, &self.cwd, &self.env)?;
        let memory_dir = self.memory_dir.clone().unwrap_or_else(|| location.memory_dir.clone());
        Ok(Resolved { memory_dir, switches, location })
    }
}
