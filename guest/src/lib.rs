//! The memdir memory core.
//!
//! Persistent, file-based memory for AI coding agents, compatible with the terminal agent's
//! on-disk format. This crate is the pure core: it performs no I/O of its own. The filesystem
//! comes in through the [`Fs`] trait (the `host-fs` WIT import when built as a component),
//! "now" and the environment come in as parameters, and it never reads a clock.
//!
//! Built natively it is an ordinary library; built for `wasm32-wasip2` it is the component
//! that exports the `memdir:memory` WIT world (the glue lives in a wasm-only module).
//!
//! ```
//! use memdir_core::{manifest, scan::MemoryHeader, MemoryType};
//! let header = MemoryHeader {
//!     path: "feedback_testing.md".into(),
//!     mtime_ms: 1_770_711_202_000,
//!     name: Some("Testing".into()),
//!     description: Some("integration tests hit a real database".into()),
//!     memory_type: Some(MemoryType::Feedback),
//!     diagnostics: vec![],
//!     freshness: Default::default(),
//!     links: vec![],
//!     backlinks: vec![],
//! };
//! assert_eq!(
//!     manifest::format(&[header]),
//!     "- [feedback] feedback_testing.md (2026-02-10T08:13:22.000Z): integration tests hit a real database\n"
//! );
//! ```

// The core in wings (issue 45, item 3), each layer importing only those before it:
// base < format < context < retrieval, writers < sync, hygiene < agents < exports.
mod agents;
mod base;
mod context;
mod format;
mod hygiene;
mod retrieval;
mod sync;
mod writers;

pub mod exports;

// What a host reaches: the modules the contract's types and the native table's functions live
// in (the host library, its tests), and four the fuzz targets read. The rest is the core's own:
// approval, conflict, dailylog, dates, embeddings, error, fnv, freshness, journal, memory_path,
// memory_type, recall_index, reserved, similar, yaml (their types are re-exported below).
pub use agents::{calls, clients, hook, learning, tools};
pub use base::{fs, git, glob, model, secrets, text, time};
pub use context::{instructions, paths, plan, policy, prompt, scope, switches, target};
pub use format::{evidence, frontmatter, index, links, manifest, scan, wrapper};
pub use hygiene::check;
pub use retrieval::{budget, recall, receipts, select};
pub use sync::{history, team};
pub use writers::{apply, dream, extract, gate, pause, pending, timeline, trash, writer};

pub use base::error::{Error, Result};
pub use base::fs::{DirEntry, EntryKind, FileHead, FileStat, Fs, FsError};
pub use format::memory_type::MemoryType;
