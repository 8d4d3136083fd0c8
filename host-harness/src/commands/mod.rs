//! One file per `memdir` subcommand.

pub mod bench;
pub mod demo;
pub mod index;
pub mod manifest;
pub mod path;
pub mod scan;
