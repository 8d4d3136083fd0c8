//! The core's error type: one enum for every exported operation.

use crate::base::fs::FsError;
use thiserror::Error;

/// An error from a core operation.
#[derive(Debug, Clone, PartialEq, Eq, Error, serde::Serialize, serde::Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum Error {
    /// The host filesystem failed for a path the operation needed.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// An argument was not acceptable.
    #[error("{0}")]
    InvalidInput(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// `Result` with the core's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
