//! One file per `memdir` subcommand.

#[cfg(feature = "bench")]
pub mod bench;
pub mod check;
pub mod demo;
pub mod extract;
pub mod history;
pub mod hook;
pub mod index;
pub mod instructions;
pub mod log;
pub mod manifest;
pub mod mcp;
pub mod path;
pub mod pause;
pub mod prompt;
pub mod recall;
pub mod release;
pub mod review;
pub mod save;
pub mod scan;
pub mod session;
pub mod setup;
pub mod status;
pub mod team;
pub mod tools;
pub mod ui;
