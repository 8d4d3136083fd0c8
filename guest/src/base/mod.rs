//! The building blocks, with no memory rule in them: errors and the filesystem trait, text and
//! time, globs, the YAML subset, git's and a model's sans-IO calls, secret scanning, dates.

pub mod conflict;
pub mod dates;
pub mod error;
pub mod fnv;
pub mod fs;
pub mod git;
pub mod glob;
pub mod model;
pub mod reserved;
pub mod secrets;
pub mod text;
pub mod time;
pub mod yaml;
