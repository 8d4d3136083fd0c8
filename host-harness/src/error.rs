//! The harness's error type: a domain error from the core, or a failure of the host itself.

use thiserror::Error;

/// An error from a harness operation.
#[derive(Debug, Error)]
pub enum Error {
    /// The core refused the operation (bad input, a filesystem error, ...). Same on both backends.
    #[error(transparent)]
    Core(#[from] memdir_core::Error),
    /// The component trapped (a guest panic, an exhausted resource). The instance is discarded
    /// and the next call gets a fresh one.
    #[error("the memory core failed during `{operation}`: {message}")]
    Trap {
        /// The exported operation that was running.
        operation: String,
        /// What wasmtime and the guest said.
        message: String,
    },
    /// The component could not be compiled, loaded or instantiated.
    #[error("could not load the memory core: {0:#}")]
    Load(#[source] wasmtime::Error),
    /// A call that fits no export, or a result the host cannot read: the host and the core
    /// disagree about the contract (a bug, or a core from another memdir version).
    #[error("the memory core's contract was broken: {0}")]
    Contract(String),
    /// The component implements another version of the contract (`memdir:memory@found`).
    #[error(
        "the memory core implements memdir:memory@{found}, but this host speaks memdir:memory@{expected}; \
         use the core that ships with this memdir, or a memdir of the core's version"
    )]
    OtherVersion {
        /// The version the component's imports and exports name.
        found: String,
        /// [`crate::WIT_VERSION`].
        expected: String,
    },
    /// The component imports something memdir does not grant (R0.2).
    #[error("the memory core imports `{0}`, which memdir does not grant; refusing to run it")]
    ForbiddenImport(String),
}

/// `Result` with the harness [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;
