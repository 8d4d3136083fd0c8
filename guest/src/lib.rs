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

pub mod apply;
pub mod approval;
pub mod budget;
pub mod check;
pub mod conflict;
pub mod dailylog;
pub mod dates;
pub mod dream;
pub mod embeddings;
pub mod error;
pub mod evidence;
pub mod extract;
pub mod fnv;
pub mod freshness;
pub mod frontmatter;
pub mod fs;
pub mod git;
pub mod glob;
pub mod hook;
pub mod index;
pub mod instructions;
pub mod journal;
pub mod links;
pub mod manifest;
pub mod memory_path;
pub mod memory_type;
pub mod model;
pub mod paths;
pub mod pause;
pub mod pending;
pub mod plan;
pub mod policy;
pub mod prompt;
pub mod recall;
pub mod recall_index;
pub mod reserved;
pub mod scan;
pub mod scope;
pub mod secrets;
pub mod select;
pub mod similar;
pub mod switches;
pub mod target;
pub mod team;
pub mod text;
pub mod time;
pub mod tools;
pub mod trash;
pub mod wrapper;
pub mod writer;
pub mod yaml;

pub mod exports;

pub use error::{Error, Result};
pub use fs::{DirEntry, EntryKind, FileHead, FileStat, Fs, FsError};
pub use memory_type::MemoryType;
