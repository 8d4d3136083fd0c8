//! The memory core as a component in wasmtime: loading (precompiled, or compiled with the cache and
//! the import allow-list), instances that are replaced after a trap, and the [`Core`] API.

use crate::api::Core;
use crate::bindings::{MemoryCore, MemoryCorePre};
use crate::engine_config::engine_config;
use crate::error::{Error, Result};
use crate::fs::SharedFs;
use crate::wit_value::{Arg, Returned, Shape};
use serde_json::Value;
use std::collections::HashMap;
#[cfg(feature = "jit")]
use std::path::Path;
use std::sync::{Arc, Mutex};
use wasmtime::component::{
    Component, ComponentExportIndex, Func, HasSelf, Instance, InstancePre, Linker, Val,
};
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder};

/// The component built from `guest/` by `build.rs` (or taken from `MEMDIR_CORE_WASM`): what
/// other hosts load, and what [`ComponentRuntime::from_wasm`] compiles.
pub const CORE_WASM: &[u8] = include_bytes!(env!("MEMDIR_CORE_WASM"));

/// [`CORE_WASM`] compiled for this target by `build.rs`; on Linux a page-aligned static that
/// runs in place (`in_place`).
#[cfg(not(target_os = "linux"))]
const CORE_CWASM: &[u8] = include_bytes!(env!("MEMDIR_CORE_CWASM"));
#[cfg(target_os = "linux")]
use crate::in_place::CORE_CWASM;

/// What the component may import: its own host interface, and the WASI interfaces that Rust's
/// standard library links for its stdio and process exit (given closed stdin, discarded stdout
/// and a captured stderr). No filesystem, sockets, clocks or random numbers: the host supplies
/// the world through `host-fs` alone (R0.2). Versions of WASI 0.2 may differ by patch.
pub const ALLOWED_IMPORTS: &[&str] = &[
    "memdir:memory/types@0.3.0",
    "memdir:memory/host-fs@0.3.0",
    "wasi:cli/environment@0.2.",
    "wasi:cli/exit@0.2.",
    "wasi:cli/stdin@0.2.",
    "wasi:cli/stdout@0.2.",
    "wasi:cli/stderr@0.2.",
    "wasi:cli/terminal-input@0.2.",
    "wasi:cli/terminal-output@0.2.",
    "wasi:cli/terminal-stdin@0.2.",
    "wasi:cli/terminal-stdout@0.2.",
    "wasi:cli/terminal-stderr@0.2.",
    "wasi:io/error@0.2.",
    "wasi:io/poll@0.2.",
    "wasi:io/streams@0.2.",
];

/// How much of the guest's stderr (its panic message) is kept for an error.
const STDERR_CAPTURE: usize = 16 * 1024;

/// The default cap on an instance's linear memory: far above what 200 headers and a 25 KB
/// index need, low enough that hostile input cannot take the host's memory.
pub const DEFAULT_MEMORY_LIMIT: usize = 512 * 1024 * 1024;

/// Store data of one instance.
pub struct HostState {
    pub(crate) fs: SharedFs,
    stdio: crate::wasi::Stdio,
    limits: StoreLimits,
}

/// The version of the WIT package this harness embeds.
pub const WIT_VERSION: &str = "0.3.0";

/// A compiled component ready to be instantiated: load it once, make a [`ComponentCore`] per
/// set of granted roots.
pub struct ComponentRuntime {
    engine: Engine,
    component: Component,
    /// The component with its imports resolved, its exports checked against `wit/` at load.
    pre: InstancePre<HostState>,
    memory_limit: usize,
    /// Each export's place, parameter shapes and result count, made on its first call.
    signatures: Mutex<HashMap<String, Arc<Signature>>>,
}

/// The contract version an import or export name carries: `0.2.0` of
/// `memdir:memory/host-fs@0.2.0`; `None` for WASI's names.
fn contract_version(name: &str) -> Option<&str> {
    name.strip_prefix("memdir:memory/")?.split_once('@').map(|(_, version)| version)
}

/// What a call needs to know of an export: where it is, and its type.
struct Signature {
    index: ComponentExportIndex,
    params: Vec<(String, Shape)>,
    results: usize,
}

impl ComponentRuntime {
    /// Loads the embedded component, compiled to native code when memdir was built: nothing
    /// is compiled or hashed here, and no cache is read. Refuses a component whose imports go
    /// beyond [`ALLOWED_IMPORTS`].
    pub fn load() -> Result<Self> {
        // Where the system allows it, the image runs where it lies; else it is copied.
        #[cfg(target_os = "linux")]
        if let Some((engine, component)) = crate::in_place::shared(|| engine_config(false)) {
            return Self::with_component(engine, component);
        }
        let engine = Engine::new(&engine_config(cfg!(windows))).map_err(Error::Load)?;
        // SAFETY: the bytes are build.rs's `precompile_component` output for this target, made
        // by the same wasmtime with the same settings ([`engine_config`]) and embedded in this
        // binary; wasmtime still checks their header, version and settings against `engine` and
        // the CPU it runs on, and fails rather than running mismatched code.
        #[allow(unsafe_code)]
        let component = unsafe { Component::deserialize(&engine, CORE_CWASM) }.map_err(Error::Load)?;
        Self::with_component(engine, component)
    }

    /// Loads a component from bytes, compiling it (with Cranelift, the `jit` feature) or
    /// taking its compiled form from `cache_dir` when given.
    /// Refuses a component whose imports go beyond [`ALLOWED_IMPORTS`].
    #[cfg(feature = "jit")]
    pub fn from_wasm(wasm: &[u8], cache_dir: Option<&Path>) -> Result<Self> {
        let engine = Engine::new(&engine_config(cfg!(windows))).map_err(Error::Load)?;
        let component = crate::cache::load(&engine, wasm, cache_dir).map_err(Error::Load)?;
        Self::with_component(engine, component)
    }

    fn with_component(engine: Engine, component: Component) -> Result<Self> {
        let component_type = component.component_type();
        // A core of another contract version is named as such, before its imports are judged
        // (issue 45): "exports no scan.scan" would not tell anyone what to do.
        let names = component_type
            .imports(&engine)
            .map(|(name, _)| name)
            .chain(component_type.exports(&engine).map(|(name, _)| name));
        if let Some(found) = names.filter_map(contract_version).find(|v| *v != WIT_VERSION) {
            return Err(Error::OtherVersion { found: found.to_string(), expected: WIT_VERSION.to_string() });
        }
        let forbidden: Vec<&str> = component_type
            .imports(&engine)
            .map(|(name, _)| name)
            .filter(|name| !ALLOWED_IMPORTS.iter().any(|allowed| name.starts_with(allowed)))
            .collect();
        if !forbidden.is_empty() {
            return Err(Error::ForbiddenImport(forbidden.join("`, `")));
        }
        let mut linker = Linker::new(&engine);
        crate::wasi::add_to_linker(&mut linker, |state: &mut HostState| &mut state.stdio)
            .map_err(Error::Load)?;
        MemoryCore::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state).map_err(Error::Load)?;
        let pre = linker.instantiate_pre(&component).map_err(Error::Load)?;
        // Checks every export's type against the WIT this host was built with, so a core from
        // another version is refused here rather than at its first call.
        MemoryCorePre::new(pre.clone()).map_err(Error::Load)?;
        Ok(Self { engine, component, pre, memory_limit: DEFAULT_MEMORY_LIMIT, signatures: Mutex::default() })
    }

    /// Caps each instance's linear memory at `bytes`; growing past it traps the call.
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// The names of the component's imports, for the interface-drift test.
    pub fn import_names(&self) -> Vec<String> {
        self.component.component_type().imports(&self.engine).map(|(name, _)| name.to_string()).collect()
    }

    /// The component's exported functions, as `interface.function`.
    pub fn export_names(&self) -> Vec<String> {
        use wasmtime::component::types::ComponentItem;
        let mut names = Vec::new();
        for (interface, item) in self.component.component_type().exports(&self.engine) {
            let short = interface.trim_start_matches("memdir:memory/");
            let short = short.split('@').next().unwrap_or(short);
            if let ComponentItem::ComponentInstance(instance) = item.ty {
                for (name, item) in instance.exports(&self.engine) {
                    if matches!(item.ty, ComponentItem::ComponentFunc(_)) {
                        names.push(format!("{short}.{name}"));
                    }
                }
            }
        }
        names
    }

    /// Calls an export by name in a fresh instance whose filesystem is `fs`: the component's
    /// side of the call scripts. Errors are messages, as in every replaying host.
    pub fn call_json(
        &self,
        fs: impl memdir_core::Fs + Send + Sync + 'static,
        func: &str,
        args: &[Value],
    ) -> std::result::Result<Value, String> {
        let args: Vec<Arg<'_>> = args.iter().map(Arg::new).collect();
        self.core(fs).call(func, &args).map(Returned::into_json).map_err(|e| e.to_string())
    }

    /// A core whose filesystem is `fs` (usually a [`crate::ConfinedFs`]; tests wrap it to
    /// inject faults).
    pub fn core(&self, fs: impl memdir_core::Fs + Send + Sync + 'static) -> ComponentCore<'_> {
        ComponentCore { runtime: self, fs: std::sync::Arc::new(fs), live: None }
    }
}

/// The memory core running as a component, with its granted filesystem.
pub struct ComponentCore<'a> {
    runtime: &'a ComponentRuntime,
    fs: SharedFs,
    live: Option<Live>,
}

/// An instance and its store (which holds the guest's stderr).
struct Live {
    store: Store<HostState>,
    instance: Instance,
}

impl ComponentCore<'_> {
    /// A store for one instance: the granted filesystem, stderr captured, the memory cap.
    fn store(&self) -> Store<HostState> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.runtime.memory_limit)
            .trap_on_grow_failure(true)
            .build();
        let state = HostState { fs: self.fs.clone(), stdio: crate::wasi::Stdio::new(STDERR_CAPTURE), limits };
        let mut store = Store::new(&self.runtime.engine, state);
        store.limiter(|state| &mut state.limits);
        store
    }

    fn instantiate(&self) -> Result<Live> {
        let mut store = self.store();
        let instance = self.runtime.pre.instantiate(&mut store).map_err(Error::Load)?;
        Ok(Live { store, instance })
    }

    /// The export `interface.function`: found, and its type made into shapes, on its first call.
    fn signature(&self, live: &mut Live, func: &str) -> Result<Arc<Signature>> {
        let runtime = self.runtime;
        let mut signatures = runtime.signatures.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(signature) = signatures.get(func) {
            return Ok(signature.clone());
        }
        let missing = || Error::Contract(format!("the memory core exports no {func}"));
        let (interface, name) = func.split_once('.').ok_or_else(missing)?;
        let exported = runtime
            .component
            .get_export_index(None, format!("memdir:memory/{interface}@{WIT_VERSION}"))
            .ok_or_else(missing)?;
        let index = runtime.component.get_export_index(Some(&exported), name).ok_or_else(missing)?;
        let ty = live.instance.get_func(&mut live.store, index).ok_or_else(missing)?.ty(&live.store);
        let params = ty
            .params()
            .map(|(name, t)| Ok((name.to_string(), Shape::of(&t).map_err(Error::Contract)?)))
            .collect::<Result<_>>()?;
        let signature = Arc::new(Signature { index, params, results: ty.results().len() });
        signatures.insert(func.to_string(), signature.clone());
        Ok(signature)
    }

    /// The export, its arguments as WIT values, and how many results it has.
    fn prepare(&self, live: &mut Live, func: &str, args: &[Arg<'_>]) -> Result<(Func, Vec<Val>, usize)> {
        let signature = self.signature(live, func)?;
        let f = live
            .instance
            .get_func(&mut live.store, signature.index)
            .ok_or_else(|| Error::Contract(format!("the memory core exports no {func}")))?;
        if signature.params.len() != args.len() {
            let message = format!("{func} takes {} argument(s), not {}", signature.params.len(), args.len());
            return Err(Error::Contract(message));
        }
        let params = signature
            .params
            .iter()
            .zip(args)
            .map(|((param, shape), arg)| {
                arg.wit(shape).map_err(|e| Error::Contract(format!("{func}({param}): {e}")))
            })
            .collect::<Result<Vec<Val>>>()?;
        Ok((f, params, signature.results))
    }
}

impl Core for ComponentCore<'_> {
    fn backend(&self) -> &'static str {
        "component"
    }

    /// The live instance, if any, runs on with the new filesystem.
    fn regrant(&mut self, fs: crate::fs::ConfinedFs) {
        self.fs = std::sync::Arc::new(fs);
        if let Some(live) = &mut self.live {
            live.store.data_mut().fs = self.fs.clone();
        }
    }

    /// Runs one export through wasmtime's dynamic API; a trap discards the instance so the next
    /// call starts clean.
    fn call(&mut self, func: &str, args: &[Arg<'_>]) -> Result<Returned> {
        let mut live = match self.live.take() {
            Some(live) => live,
            None => self.instantiate()?,
        };
        // A call that fits no export leaves the instance as it was.
        let prepared = self.prepare(&mut live, func, args);
        let (f, params, results) = match prepared {
            Ok(prepared) => prepared,
            Err(e) => {
                self.live = Some(live);
                return Err(e);
            }
        };
        let mut results = vec![Val::Bool(false); results];
        match f.call(&mut live.store, &params, &mut results) {
            Ok(()) => {
                self.live = Some(live);
                Ok(results.pop().map_or(Returned::json(Value::Null), Returned::wit))
            }
            Err(err) => {
                let said = String::from_utf8_lossy(live.store.data().stdio.stderr()).trim().to_string();
                let message = if said.is_empty() {
                    format!("{err:#}")
                } else {
                    format!("{err:#}; the core said: {said}")
                };
                Err(Error::Trap { operation: func.to_string(), message })
            }
        }
    }
}
