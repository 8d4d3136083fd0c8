//! What agents meet: the hook events and the tool catalog.

pub mod calls;
pub mod clients;
pub mod hook;
pub mod learning;
pub mod tools;
