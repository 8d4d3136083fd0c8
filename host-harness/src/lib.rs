//! The memdir host library: runs the memdir memory core (a WebAssembly component) in wasmtime,
//! supplies its filesystem confined to granted roots, takes the writers' lock every host shares,
//! and offers a typed Rust API, the step driver, call scripts, the git runner and the model
//! adapters. The `memdir` CLI (crate `memdir`) is built on it; embedders need only this crate.
//!
//! The same [`Core`] API is implemented twice: by [`ComponentCore`] (the component in wasmtime,
//! what the CLI runs) and, with the `native` feature, by `NativeCore` (the core crate linked
//! natively), so every conformance case runs on both.
//!
//! ```no_run
//! use memdir_harness::{ComponentRuntime, ConfinedFs, Core};
//! let runtime = ComponentRuntime::load()?;
//! let fs = ConfinedFs::new().grant_read("/home/ana/.claude/projects/-home-ana-web/memory")?;
//! let mut core = runtime.core(fs);
//! let report = core.scan("/home/ana/.claude/projects/-home-ana-web/memory", 1_770_000_000_000)?;
//! print!("{}", core.manifest(&report.headers)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bindings;
#[cfg(feature = "jit")]
pub mod cache;
pub mod calls;
mod component;
mod engine_config;
pub mod error;
pub mod fs;
pub mod git;
mod host_fs;
pub mod llm;
pub mod lock;
#[cfg(feature = "native")]
mod native;
pub mod steps;

pub use component::{ALLOWED_IMPORTS, CORE_WASM, ComponentCore, ComponentRuntime};
pub use error::{Error, Result};
pub use fs::ConfinedFs;
#[cfg(feature = "native")]
pub use native::NativeCore;

use memdir_core::budget::{Limits, Totals};
use memdir_core::check::CheckReport;
use memdir_core::dream::{self, DreamResult};
use memdir_core::evidence::GitFacts;
use memdir_core::extract::{self, ExtractResult};
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::model::{Reply, Step};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::pause::Pause;
use memdir_core::pending::Proposal;
use memdir_core::prompt::Options;
use memdir_core::recall::{self, RecallResult};
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::target::Target;
use memdir_core::team::{self, GitOutput, TeamStep};
use memdir_core::trash::Trashed;
use memdir_core::writer::{ForgetReport, Rebuilt, Save, SaveReport};

/// The memory core's operations, whichever backend runs them. The three workflows that need a
/// model are step machines: [`steps::drive`] is the whole loop a host runs over them.
pub trait Core {
    /// `component` or `native`.
    fn backend(&self) -> &'static str;
    /// Scans a memory directory (R5.1), dating each header's freshness at `now_ms`.
    fn scan(&mut self, dir: &str, now_ms: i64) -> Result<ScanReport>;
    /// Formats headers as the manifest (R5.3).
    fn manifest(&mut self, headers: &[MemoryHeader]) -> Result<String>;
    /// Reads MEMORY.md at `path` and cuts it for the prompt (R6.2, R6.3).
    fn load_index(&mut self, path: &str) -> Result<LoadedIndex>;
    /// Cuts index text already in hand.
    fn truncate_index(&mut self, content: &str) -> Result<LoadedIndex>;
    /// The memory location of a working directory (R2.1, R2.2).
    fn locate(&mut self, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation>;
    /// The budget limits (R8.1).
    fn limits(&mut self) -> Result<Limits>;
    /// What a recall session (JSON; empty: new) holds (R8.2).
    fn session_totals(&mut self, session: &str) -> Result<Totals>;
    /// The memory directory of a subagent type in one scope (R11.1).
    fn agent_dir(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        agent: &str,
        scope: AgentScope,
    ) -> Result<String>;
    /// The instruction files of a working directory, in load order (R3).
    fn load_instructions(&mut self, request: &Request<'_>) -> Result<Loaded>;
    /// The memory part of a system prompt (R12.1).
    fn prompt(&mut self, request: &Request<'_>, options: Options) -> Result<String>;
    /// Approves imports from outside the project of `cwd` in `~/.claude.json`; returns the file.
    fn approve_external(&mut self, cwd: &str, env: &[(String, String)]) -> Result<String>;
    /// The switches and the memory location of a working directory (R4).
    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)>;
    /// Starts a recall turn (R7): skip, offline ranking, or a model call.
    fn recall_start(&mut self, input: &recall::Input) -> Result<Step<RecallResult>>;
    /// Resumes a recall with the model's reply or failure.
    fn recall_resume(&mut self, state: &str, reply: Reply) -> Result<Step<RecallResult>>;
    /// Saves a memory and its index line in one step (R9.1).
    fn save(&mut self, request: &Save<'_>) -> Result<SaveReport>;
    /// Removes a memory and its index lines (R6.4).
    fn forget(&mut self, target: &Target, path: &str) -> Result<ForgetReport>;
    /// What has drifted in the memory directory, after finishing any interrupted write.
    fn check(&mut self, target: &Target, now_ms: i64, git: &GitFacts) -> Result<CheckReport>;
    /// Repairs the index: dangling and duplicate lines out, missing lines in; each change.
    fn check_fix(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>>;
    /// Writes MEMORY.md when memory files exist and it does not (R6.5).
    fn rebuild_index(&mut self, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>>;
    /// What the trash holds: background writers' deletions and overwrites, oldest first.
    fn trash(&mut self, target: &Target) -> Result<Vec<Trashed>>;
    /// Puts a trashed memory back with its index lines.
    fn restore(&mut self, target: &Target, id: &str, now_ms: i64) -> Result<Trashed>;
    /// The proposals waiting under `memoryWrites: review`, oldest first (issue 28).
    fn pending(&mut self, target: &Target) -> Result<Vec<Proposal>>;
    /// Applies a waiting proposal through the background writer's checks and takes it off the queue.
    fn accept(
        &mut self,
        target: &Target,
        id: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<Vec<Proposal>>;
    /// Takes a proposal off the queue and remembers it, so it is not proposed again.
    fn reject(&mut self, target: &Target, id: &str) -> Result<Vec<Proposal>>;
    /// Pauses automatic writes (extraction, the dream) until `until_ms` or `resume` (issue 28).
    fn pause(&mut self, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause>;
    /// Ends the pause; whether one was in force.
    fn resume(&mut self, target: &Target, now_ms: i64) -> Result<bool>;
    /// The pause in force at `now_ms`.
    fn paused(&mut self, target: &Target, now_ms: i64) -> Result<Option<Pause>>;
    /// Parses a transcript (R9.2 wire format).
    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>>;
    /// Starts extraction (R9.2, R9.3): skip, or round 1's model call.
    fn extract_start(&mut self, input: &extract::Input) -> Result<Step<ExtractResult>>;
    /// Resumes extraction with a round's reply or failure.
    fn extract_resume(&mut self, state: &str, reply: Reply) -> Result<Step<ExtractResult>>;
    /// Appends to today's daily log (R9.4); returns the log's path.
    fn log_append(
        &mut self,
        target: &Target,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String>;
    /// Starts a dream (R9.4): nothing new, or the first chunk's model call.
    fn dream_start(&mut self, input: &dream::Input) -> Result<Step<DreamResult>>;
    /// Resumes a dream with a chunk's reply or failure.
    fn dream_resume(&mut self, state: &str, reply: Reply) -> Result<Step<DreamResult>>;
    /// Starts a team (or private) memory init, sync or status (R10): the first git command.
    fn team_start(&mut self, input: &team::Input) -> Result<TeamStep>;
    /// Resumes it with the output of the git command the last step asked for.
    fn team_resume(&mut self, state: &str, output: GitOutput) -> Result<TeamStep>;
    /// MEMORY.md merged from three versions (git's merge driver for it).
    fn merge_index(&mut self, base: &str, ours: &str, theirs: &str) -> Result<String>;
}
