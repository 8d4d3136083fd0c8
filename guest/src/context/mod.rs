//! Where memory lives and what is in force there: paths, switches, the write policy, shared
//! scopes, an operation's target and grant plan, the instruction files and the prompt.

pub mod approval;
pub mod instructions;
pub mod paths;
pub mod plan;
pub mod policy;
pub mod prompt;
pub mod scope;
pub mod switches;
pub mod target;
