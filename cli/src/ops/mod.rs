//! The operations the `memdir` commands, the MCP tools and the hooks share. Each command sits
//! on this layer alone: no command imports another.

pub mod check;
pub mod diff;
pub mod dream;
pub mod extract;
pub mod index;
pub mod instructions;
pub mod recall;
pub mod session;
pub mod target;
pub mod team;
pub mod tool;

use crate::context::Failure;
use memdir_harness::ConfinedFs;
use std::path::Path;

/// Instruction files live anywhere from `/` down, plus the managed and configuration
/// directories and whatever `@imports` name: the whole tree is granted, read-only.
pub fn whole_tree() -> Result<ConfinedFs, Failure> {
    ConfinedFs::new().grant_read(Path::new("/")).map_err(|e| Failure::input(format!("/: {e}")))
}
