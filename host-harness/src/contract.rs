//! The contract's types as a Rust host names them: the records, enums and constants the [`Core`]
//! API takes and returns, and the few pure helpers a host prints them with. The memory core
//! defines them once; a host reaches them here, never through the core crate, so what a host
//! can call natively stays this list (issue 45, item 3). Each module is named after the core
//! module that defines its items.
//!
//! [`Core`]: crate::Core

pub use memdir_core::{Error, Fs, FsError, MemoryType};

/// `apply`: what landing a model's operations did.
pub mod apply {
    pub use memdir_core::apply::OpReport;
}
/// `budget`: a session's recall totals.
pub mod budget {
    pub use memdir_core::budget::Totals;
}
/// `check`: the report and its findings.
pub mod check {
    pub use memdir_core::check::{CheckReport, Finding, FindingKind, Severity};
}
/// `dream`: consolidation's input and result.
pub mod dream {
    pub use memdir_core::dream::{DreamResult, Input};
}
/// `extract`: extraction's input and result.
pub mod extract {
    pub use memdir_core::extract::{ExtractResult, Input};
}
/// `fs`: joining a path as the core does.
pub mod fs {
    pub use memdir_core::fs::join;
}
/// `hook`: the clients and their payloads, the hook events, and the common cap on what a hook
/// injects.
pub mod hook {
    pub use memdir_core::clients::{Client, HookEvent, MAX_PAYLOAD, Payload};
    pub use memdir_core::gate::Verdict;
    pub use memdir_core::hook::{COMMON_CAP, PromptEvent, StartEvent, StopEvent};
    pub use memdir_core::learning::{LearnedEvent, Learning};
    pub use memdir_core::receipts::{Receipt, Receipts, Usage};
}
/// `instructions`: what to load, and what was loaded.
pub mod instructions {
    pub use memdir_core::instructions::{Loaded, Request};
}
/// `links`: a memory's link to another.
pub mod links {
    pub use memdir_core::links::Link;
}
/// `model`: a sans-IO model call.
pub mod model {
    pub use memdir_core::model::{ModelCall, ModelRequest, Tier};
}
/// `paths`: where memory lives.
pub mod paths {
    pub use memdir_core::paths::{AgentScope, MemoryGroup};
}
/// `pause`: a paused memory.
pub mod pause {
    pub use memdir_core::pause::Pause;
}
/// `pending`: the review queue.
pub mod pending {
    pub use memdir_core::pending::{PENDING_DIR, Proposal};
}
/// `plan`: the operations a grant is planned for.
pub mod plan {
    pub use memdir_core::plan::{Grant, Operation};
}
/// `policy`: the write policy per memory type.
pub mod policy {
    pub use memdir_core::policy::TypePolicy;
}
/// `prompt`: the prompt's options.
pub mod prompt {
    pub use memdir_core::prompt::Options;
}
/// `recall`: recall's input and result.
pub mod recall {
    pub use memdir_core::recall::{Input, RecallResult};
}
/// `scan`: the files a memory directory holds besides memories.
pub mod scan {
    pub use memdir_core::scan::{INDEX_CACHE, INDEX_FILE, MemoryHeader};
}
/// `switches`: settings a host acts on.
pub mod switches {
    pub use memdir_core::switches::{DEFAULT_RECALL_SHORTLIST, TeamSync};
}
/// `target`: which memory an operation is about.
pub mod target {
    pub use memdir_core::target::Target;
}
/// `team`: team memory's actions, input and report, and when a host syncs on its own.
pub mod team {
    pub use memdir_core::history::{Commit, LogOptions};
    pub use memdir_core::team::{AUTO_SYNC, Action, InitOptions, Input, Report, Which};
}
/// `text`: printing text that may hold control characters.
pub mod text {
    pub use memdir_core::text::escape_controls;
}
/// `time`: ISO 8601 times as the core writes them.
pub mod time {
    pub use memdir_core::time::iso_millis;
}
/// `tools`: one tool of the catalog, and what a project is offered.
pub mod tools {
    pub use memdir_core::calls::{ToolAnswer, ToolCall, ToolStep};
    pub use memdir_core::tools::{Offer, Tool};
}
/// `writer`: a save.
pub mod writer {
    pub use memdir_core::timeline::Written;
    pub use memdir_core::writer::{Memory, Save, Scope};
}
