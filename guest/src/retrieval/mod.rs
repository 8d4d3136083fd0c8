//! Recall: choosing the memories worth injecting (offline, with embeddings or a model) within
//! the session's budgets.

pub mod budget;
pub mod embeddings;
pub mod recall;
pub mod receipts;
pub mod select;
