//! What agents meet: the hook events and the tool catalog.

pub mod hook;
pub mod learning;
mod sessions;
pub mod tools;
