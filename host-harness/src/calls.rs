//! Call scripts: the core's contract exercised at the WIT boundary, the same way in every
//! language that embeds it.
//!
//! A script is a list of calls, each naming an exported function (`recall.start`), its
//! arguments and its result as JSON, and the filesystem the host granted for it. Every WIT value
//! has one JSON form: a record is an object with the WIT field names, an enum its case name, a
//! variant (and a `result`) `{"tag": case, "val": payload}` (no `val` without a payload), an
//! option `null` or the value, a tuple an array. Model replies are arguments like any other
//! (`recall.resume`'s `model-reply`), so a script replays a workflow without a model.
//!
//! The conformance runner records scripts from the CLI ([`Recording`]) and replays them here on
//! the native core ([`crate::native::call`]) and on the component through wasmtime's dynamic API
//! ([`crate::ComponentRuntime::call_json`]); the VS Code extension and the Python host replay the
//! same files through jco and wasmtime-py.

use crate::api::Core;
use crate::error::Result;
use crate::fs::ConfinedFs;
use crate::wit_value::{Arg, Returned};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The roots a host granted for a call: the core's own plan type ([`crate::Core::plan`]), so a
/// recorded grant and a planned one are one shape.
pub use memdir_core::plan::Grant;

/// The roots of `fs`, as a grant.
pub fn grant_of(fs: &ConfinedFs) -> Grant {
    let mut grant = Grant::default();
    for (path, writable) in fs.roots() {
        let path = path.to_string_lossy().into_owned();
        if writable { grant.write.push(path) } else { grant.read.push(path) }
    }
    grant
}

/// One call of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The filesystem granted.
    pub grant: Grant,
    /// `interface.function`, with WIT names: `scan.scan`, `recall.resume`, `daily-log.append`.
    #[serde(rename = "fn")]
    pub func: String,
    /// The arguments, in order.
    pub args: Vec<Value>,
    /// What the function returned.
    pub result: Value,
    /// Which core made the call, numbered per process: calls with one number ran on one
    /// instance (the tests count them, issue 45). Not part of a script.
    #[serde(skip)]
    pub instance: u64,
}

/// The calls a run made, shared by every core it created.
pub type Log = Arc<Mutex<Vec<Call>>>;

/// A [`Core`] that records every call it forwards, with its arguments and its result.
pub struct Recording<'a> {
    inner: Box<dyn Core + 'a>,
    grant: Grant,
    log: Log,
    instance: u64,
}

impl<'a> Recording<'a> {
    /// Records the calls made on `inner`, whose filesystem grants `grant`, into `log`.
    pub fn new(inner: Box<dyn Core + 'a>, grant: Grant, log: Log) -> Self {
        static CORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let instance = CORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Recording { inner, grant, log, instance }
    }
}

impl Core for Recording<'_> {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }

    fn regrant(&mut self, fs: ConfinedFs) {
        self.grant = grant_of(&fs);
        self.inner.regrant(fs);
    }

    /// Forwards the call and records what it returned; a trap is not part of the contract.
    fn call(&mut self, func: &str, args: &[Arg<'_>]) -> Result<Returned> {
        let result = self.inner.call(func, args)?.into_json();
        let args = Arg::all_json(args)?;
        let call = Call {
            grant: self.grant.clone(),
            func: func.to_string(),
            args,
            result: result.clone(),
            instance: self.instance,
        };
        self.log.lock().expect("the log is never poisoned").push(call);
        Ok(Returned::json(result))
    }
}
