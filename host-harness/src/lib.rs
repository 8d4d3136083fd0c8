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

mod api;
mod bindings;
#[cfg(feature = "jit")]
pub mod cache;
pub mod calls;
mod component;
pub mod contract;
mod engine_config;
pub mod error;
pub mod fs;
pub mod git;
mod host_fs;
#[cfg(target_os = "linux")]
mod in_place;
pub mod llm;
pub mod lock;
#[cfg(feature = "native")]
pub mod native;
pub mod steps;
mod wasi;
mod wit_value;

pub use api::{Core, grant_fs};
pub use component::{ALLOWED_IMPORTS, CORE_WASM, ComponentCore, ComponentRuntime, WIT_VERSION};
pub use error::{Error, Result};
pub use fs::ConfinedFs;
#[cfg(feature = "native")]
pub use native::NativeCore;
pub use wit_value::{Arg, Returned};
