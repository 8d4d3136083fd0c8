//! Memory synced through git: team memory and the user's own between machines.

pub mod history;
pub mod team;
