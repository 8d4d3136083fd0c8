//! The memdir host harness: runs the memdir memory core (a WebAssembly component) in wasmtime,
//! supplies its filesystem confined to granted roots, and offers a typed Rust API and the
//! `memdir` CLI.
//!
//! It is the headless host the tests drive. The same [`Core`] API is implemented twice: by
//! [`ComponentCore`] (the component in wasmtime, what the CLI uses) and by [`NativeCore`] (the
//! core crate linked natively), so every conformance case runs on both.
//!
//! ```no_run
//! use memdir_harness::{ComponentRuntime, ConfinedFs, Core};
//! let runtime = ComponentRuntime::load(&[])?;
//! let fs = ConfinedFs::new().grant_read("/home/ana/.claude/projects/-home-ana-web/memory")?;
//! let mut core = runtime.core(fs);
//! let report = core.scan("/home/ana/.claude/projects/-home-ana-web/memory")?;
//! print!("{}", core.manifest(&report.headers)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bindings;
pub mod cache;
pub mod cli;
mod component;
pub mod dream;
pub mod error;
pub mod extraction;
pub mod fs;
mod host_fs;
pub mod llm;
mod native;
pub mod recall;

pub use component::{ALLOWED_IMPORTS, CORE_WASM, ComponentCore, ComponentRuntime};
pub use error::{Error, Result};
pub use fs::ConfinedFs;
pub use native::NativeCore;

use memdir_core::budget::Limits;
use memdir_core::budget::Session;
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::prompt::Options;
use memdir_core::recall::{Input, ModelRequest, Outcome, Pending, Skip};
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::writer::{ForgetReport, SaveReport, SaveRequest};
use memdir_core::{dailylog, extract};

/// The memory core's operations, whichever backend runs them.
pub trait Core {
    /// `component` or `native`.
    fn backend(&self) -> &'static str;
    /// Scans a memory directory (R5.1).
    fn scan(&mut self, dir: &str) -> Result<ScanReport>;
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
    /// The switches and the memory location of a working directory (R4).
    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)>;
    /// Starts a recall: skip, or a model request (R7.2). See [`recall::recall`] for the loop.
    fn recall_prepare(&mut self, input: &Input<'_>, session: &mut Session) -> Result<Result<Pending, Skip>>;
    /// Finishes a recall with the model's reply (R7.3–R7.6).
    fn recall_complete(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
        reply: &str,
    ) -> Result<Outcome>;
    /// Finishes a recall with the offline selector (R7.7).
    fn recall_offline(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
    ) -> Result<Outcome>;

    /// Saves a memory and its index line in one step (R9.1).
    fn save(&mut self, request: &SaveRequest<'_>) -> Result<SaveReport>;
    /// Removes a memory and its index lines (R6.4).
    fn forget(&mut self, memory_dir: &str, path: &str) -> Result<ForgetReport>;
    /// Parses a transcript (R9.2 wire format).
    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>>;
    /// Starts extraction: skip, or the round-1 request (R9.2, R9.3).
    fn extract_begin(&mut self, input: &extract::Input<'_>) -> Result<extract::Begun>;
    /// Reads what round 1 asked for; returns the round-2 request, files read, diagnostics.
    fn extract_read(
        &mut self,
        input: &extract::Input<'_>,
        round: &extract::Round,
        reply: &str,
    ) -> Result<(ModelRequest, Vec<String>, Vec<String>)>;
    /// Validates and applies round 2's operations.
    fn extract_apply(
        &mut self,
        input: &extract::Input<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)>;
    /// Appends to today's daily log (R9.4); returns the log's path.
    fn log_append(
        &mut self,
        memory_dir: &str,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String>;
    /// The dream's chunks over what the logs gained since the last dream.
    fn dream_plan(&mut self, memory_dir: &str) -> Result<Vec<dailylog::Chunk>>;
    /// Applies a dream reply's operations.
    fn dream_apply(
        &mut self,
        target: &extract::Target<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)>;
    /// Records a chunk as read.
    fn dream_commit(&mut self, memory_dir: &str, logs: &[dailylog::LogPosition]) -> Result<()>;
}
