//! The memory core called natively: the same crate the component is built from, on the same
//! [`crate::ConfinedFs`]. The conformance runner checks that both backends agree.
//!
//! [`call`] is the native side of the contract, one line per export, kept by the core beside
//! the component's glue (`memdir_core::exports`). The typed API ([`Core`]) is written once over
//! it, and the component needs no table.

use crate::api::Core;
use crate::error::{Error, Result};
use crate::fs::SharedFs;
use crate::wit_value::{Arg, Returned};

pub use memdir_core::exports::call;

/// The core as a native library.
pub struct NativeCore {
    fs: SharedFs,
}

impl NativeCore {
    /// A native core whose filesystem is `fs` (usually a [`crate::ConfinedFs`]).
    pub fn new(fs: impl memdir_core::Fs + Send + Sync + 'static) -> Self {
        Self { fs: std::sync::Arc::new(fs) }
    }
}

impl Core for NativeCore {
    fn backend(&self) -> &'static str {
        "native"
    }

    fn call(&mut self, func: &str, args: &[Arg<'_>]) -> Result<Returned> {
        call(&*self.fs, func, &Arg::all_json(args)?).map(Returned::json).map_err(Error::Contract)
    }

    fn regrant(&mut self, fs: crate::fs::ConfinedFs) {
        self.fs = std::sync::Arc::new(fs);
    }
}

/// The core's functions called directly, without the [`Core`](crate::Core) API's values in
/// between: the floor `memdir bench` measures the contract against.
pub mod direct {
    pub use memdir_core::check::{resume as check_resume, start as check_start};
    pub use memdir_core::manifest::format as manifest;
    pub use memdir_core::scan::scan;
}
