//! The memory core as a component in wasmtime: loading (precompiled, or compiled with the cache and
//! the import allow-list), instances that are replaced after a trap, and the [`Core`] API.

use crate::bindings::MemoryCore;
use crate::bindings::exports::memdir::memory as ex;
use crate::bindings::memdir::memory::types as wit;
use crate::engine_config::engine_config;
use crate::error::{Error, Result};
use crate::fs::SharedFs;
use crate::{Core, host_fs};
use memdir_core::budget::{Limits, Totals};
use memdir_core::check::{CheckReport, Finding, FindingKind, MemoryEvidence, Severity};
use memdir_core::dates::Conversion;
use memdir_core::dream::{self, DreamResult};
use memdir_core::evidence::{Citation, ClaimKind, GitFacts, Status, Verdict};
use memdir_core::extract::{self, ExtractResult, Op, OpReport, Role};
use memdir_core::freshness::Freshness;
use memdir_core::index::{LoadedIndex, Truncation};
use memdir_core::instructions::{FileType, InstructionFile, Loaded, Request};
use memdir_core::model::{EmbedCall, ModelCall, ModelRequest, Reply, Step, Tier};
use memdir_core::paths::{AgentScope, MemoryGroup, MemoryLocation};
use memdir_core::pause::Pause;
use memdir_core::pending::Proposal;
use memdir_core::policy::{TypePolicy, WriteMode, WritePolicy};
use memdir_core::prompt::Options;
use memdir_core::recall::{self, Attachment, RecallResult, Selector, Skip};
use memdir_core::scan::{MemoryHeader, ScanReport, Skipped};
use memdir_core::switches::{DecidedBy, Switches, TeamSync};
use memdir_core::target::Target;
use memdir_core::team::{self, GitOutput, TeamStep};
use memdir_core::trash::Trashed;
use memdir_core::writer::{ForgetReport, Rebuilt, Save, SaveReport, Scope};
#[cfg(feature = "jit")]
use std::path::Path;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// The component built from `guest/` by `build.rs` (or taken from `MEMDIR_CORE_WASM`): what
/// other hosts load, and what [`ComponentRuntime::from_wasm`] compiles.
pub const CORE_WASM: &[u8] = include_bytes!(env!("MEMDIR_CORE_WASM"));

/// [`CORE_WASM`] compiled for this target by `build.rs`.
const CORE_CWASM: &[u8] = include_bytes!(env!("MEMDIR_CORE_CWASM"));

/// What the component may import: its own host interface, and the WASI interfaces that Rust's
/// standard library links for its stdio and process exit (given closed stdin, discarded stdout
/// and a captured stderr). No filesystem, sockets, clocks or random numbers: the host supplies
/// the world through `host-fs` alone (R0.2). Versions of WASI 0.2 may differ by patch.
pub const ALLOWED_IMPORTS: &[&str] = &[
    "memdir:memory/types@0.2.0",
    "memdir:memory/host-fs@0.2.0",
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
    wasi: WasiCtx,
    table: ResourceTable,
    limits: StoreLimits,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// The version of the WIT package this harness embeds.
pub const WIT_VERSION: &str = "0.2.0";

/// A compiled component ready to be instantiated: load it once, make a [`ComponentCore`] per
/// set of granted roots.
pub struct ComponentRuntime {
    engine: Engine,
    component: Component,
    linker: Linker<HostState>,
    memory_limit: usize,
}

impl ComponentRuntime {
    /// Loads the embedded component, compiled to native code when memdir was built: nothing
    /// is compiled or hashed here, and no cache is read. Refuses a component whose imports go
    /// beyond [`ALLOWED_IMPORTS`].
    pub fn load() -> Result<Self> {
        let engine = Engine::new(&engine_config(cfg!(windows))).map_err(Error::Load)?;
        // SAFETY: the bytes are build.rs's `precompile_component` output for this target,
        // made by the same wasmtime with the same settings ([`engine_config`]) and embedded in this
        // binary; wasmtime still checks their header, version and settings against `engine`
        // and the CPU it runs on, and fails rather than running mismatched code.
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
        let forbidden: Vec<&str> = component_type
            .imports(&engine)
            .map(|(name, _)| name)
            .filter(|name| !ALLOWED_IMPORTS.iter().any(|allowed| name.starts_with(allowed)))
            .collect();
        if !forbidden.is_empty() {
            return Err(Error::ForbiddenImport(forbidden.join("`, `")));
        }
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(Error::Load)?;
        MemoryCore::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state).map_err(Error::Load)?;
        Ok(Self { engine, component, linker, memory_limit: DEFAULT_MEMORY_LIMIT })
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

    /// Calls an export by name through wasmtime's dynamic API, in a fresh instance whose
    /// filesystem is `fs`: arguments and result in the JSON form of [`crate::calls`]. This is
    /// the component's side of the call scripts; it knows no type but the component's own.
    pub fn call_json(
        &self,
        fs: impl memdir_core::Fs + Send + Sync + 'static,
        func: &str,
        args: &[serde_json::Value],
    ) -> std::result::Result<serde_json::Value, String> {
        let (interface, name) =
            func.split_once('.').ok_or_else(|| format!("{func:?}: name a function as interface.function"))?;
        let (mut store, _) = self.core(fs).store();
        let store = &mut store;
        let instance = self.linker.instantiate(&mut *store, &self.component).map_err(|e| format!("{e:#}"))?;
        let missing = || format!("the component exports no {func}");
        let exported = instance
            .get_export_index(&mut *store, None, &format!("memdir:memory/{interface}@{WIT_VERSION}"))
            .ok_or_else(missing)?;
        let index = instance.get_export_index(&mut *store, Some(&exported), name).ok_or_else(missing)?;
        let f = instance.get_func(&mut *store, index).ok_or_else(missing)?;
        let ty = f.ty(&*store);
        if ty.params().len() != args.len() {
            return Err(format!("{func} takes {} argument(s), not {}", ty.params().len(), args.len()));
        }
        let params = ty
            .params()
            .zip(args)
            .map(|((param, t), v)| crate::calls::to_val(&t, v).map_err(|e| format!("{func}({param}): {e}")))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let mut results = vec![wasmtime::component::Val::Bool(false); ty.results().len()];
        f.call(&mut *store, &params, &mut results).map_err(|e| format!("{func} trapped: {e:#}"))?;
        Ok(results.first().map_or(serde_json::Value::Null, crate::calls::from_val))
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

/// An instance and its store, plus the pipe that holds the guest's stderr.
struct Live {
    store: Store<HostState>,
    bindings: MemoryCore,
    stderr: MemoryOutputPipe,
}

impl ComponentCore<'_> {
    /// A store for one instance: the granted filesystem, WASI with stderr captured, the memory cap.
    fn store(&self) -> (Store<HostState>, MemoryOutputPipe) {
        let stderr = MemoryOutputPipe::new(STDERR_CAPTURE);
        let wasi = WasiCtx::builder().stderr(stderr.clone()).build();
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.runtime.memory_limit)
            .trap_on_grow_failure(true)
            .build();
        let state = HostState { fs: self.fs.clone(), wasi, table: ResourceTable::new(), limits };
        let mut store = Store::new(&self.runtime.engine, state);
        store.limiter(|state| &mut state.limits);
        (store, stderr)
    }

    fn instantiate(&self) -> Result<Live> {
        let (mut store, stderr) = self.store();
        let bindings = MemoryCore::instantiate(&mut store, &self.runtime.component, &self.runtime.linker)
            .map_err(Error::Load)?;
        Ok(Live { store, bindings, stderr })
    }

    /// Runs one export; a trap discards the instance so the next call starts clean.
    fn call<T>(
        &mut self,
        operation: &'static str,
        f: impl FnOnce(&MemoryCore, &mut Store<HostState>) -> wasmtime::Result<T>,
    ) -> Result<T> {
        if self.live.is_none() {
            self.live = Some(self.instantiate()?);
        }
        let live = self.live.as_mut().expect("instantiated above");
        match f(&live.bindings, &mut live.store) {
            Ok(value) => Ok(value),
            Err(err) => {
                let said = String::from_utf8_lossy(&live.stderr.contents()).trim().to_string();
                self.live = None;
                let message = if said.is_empty() {
                    format!("{err:#}")
                } else {
                    format!("{err:#}; the core said: {said}")
                };
                Err(Error::Trap { operation, message })
            }
        }
    }
}

impl Core for ComponentCore<'_> {
    fn backend(&self) -> &'static str {
        "component"
    }

    fn scan(&mut self, dir: &str, now_ms: i64) -> Result<ScanReport> {
        let report = self
            .call("scan", |b, s| b.memdir_memory_scan().call_scan(s, dir, now_ms))?
            .map_err(core_error)?;
        Ok(ScanReport {
            headers: report.headers.into_iter().map(core_header).collect(),
            found: report.found as usize,
            skipped: report.skipped.into_iter().map(|s| Skipped { path: s.path, reason: s.reason }).collect(),
        })
    }

    fn manifest(&mut self, headers: &[MemoryHeader]) -> Result<String> {
        let headers: Vec<_> = headers.iter().cloned().map(wit_header).collect();
        self.call("manifest", |b, s| b.memdir_memory_manifest().call_format(s, &headers))
    }

    fn load_index(&mut self, path: &str) -> Result<LoadedIndex> {
        let loaded = self.call("index.load", |b, s| b.memdir_memory_index().call_load(s, path))?;
        loaded.map(core_index).map_err(core_error)
    }

    fn truncate_index(&mut self, content: &str) -> Result<LoadedIndex> {
        let loaded = self.call("index.truncate", |b, s| b.memdir_memory_index().call_truncate(s, content))?;
        Ok(core_index(loaded))
    }

    fn locate(&mut self, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation> {
        let env = env.to_vec();
        let loc = self.call("paths.locate", |b, s| b.memdir_memory_paths().call_locate(s, cwd, &env))?;
        loc.map(core_location).map_err(core_error)
    }

    fn agent_dir(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        agent: &str,
        scope: AgentScope,
    ) -> Result<String> {
        let env = env.to_vec();
        let scope = match scope {
            AgentScope::User => ex::paths::AgentScope::User,
            AgentScope::Project => ex::paths::AgentScope::Project,
            AgentScope::Local => ex::paths::AgentScope::Local,
        };
        let dir = self.call("paths.agent-dir", |b, s| {
            b.memdir_memory_paths().call_agent_dir(s, cwd, &env, agent, scope)
        })?;
        dir.map_err(core_error)
    }

    fn load_instructions(&mut self, request: &Request<'_>) -> Result<Loaded> {
        let request = wit_request(request);
        let loaded =
            self.call("instructions.load", |b, s| b.memdir_memory_instructions().call_load(s, &request))?;
        let loaded = loaded.map_err(core_error)?;
        Ok(Loaded {
            files: loaded.files.into_iter().map(core_file).collect(),
            switches: core_switches(loaded.switches),
            location: core_location(loaded.location),
            diagnostics: loaded.diagnostics,
        })
    }

    fn prompt(&mut self, request: &Request<'_>, options: Options) -> Result<String> {
        let request = wit_request(request);
        let options = ex::instructions::PromptOptions {
            index_step: options.index_step,
            ignore_memory: options.ignore_memory,
            instruction_files: options.instruction_files,
        };
        let text = self.call("instructions.prompt", |b, s| {
            b.memdir_memory_instructions().call_prompt(s, &request, options)
        })?;
        text.map_err(core_error)
    }

    fn approve_external(&mut self, cwd: &str, env: &[(String, String)]) -> Result<String> {
        let env = env.to_vec();
        let file = self.call("instructions.approve-external", |b, s| {
            b.memdir_memory_instructions().call_approve_external(s, cwd, &env)
        })?;
        file.map_err(core_error)
    }

    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
        let env = env.to_vec();
        let status = self
            .call("instructions.status", |b, s| b.memdir_memory_instructions().call_status(s, cwd, &env))?;
        let status = status.map_err(core_error)?;
        Ok((core_switches(status.switches), core_location(status.location)))
    }

    fn limits(&mut self) -> Result<Limits> {
        let l = self.call("budget.limits", |b, s| b.memdir_memory_budget().call_limits(s))?;
        Ok(Limits {
            index_lines: l.index_lines,
            index_chars: l.index_chars,
            scan_files: l.scan_files,
            scan_lines: l.scan_lines,
            select_count: l.select_count,
            select_reply_tokens: l.select_reply_tokens,
            memory_lines: l.memory_lines,
            memory_bytes: l.memory_bytes,
            turn_bytes: l.turn_bytes,
            session_bytes: l.session_bytes,
        })
    }
    fn session_totals(&mut self, session: &str) -> Result<Totals> {
        let t = self
            .call("budget.session-totals", |b, s| b.memdir_memory_budget().call_session_totals(s, session))?;
        let t = t.map_err(core_error)?;
        Ok(Totals { surfaced: t.surfaced, turn_bytes: t.turn_bytes, session_bytes: t.session_bytes })
    }

    fn recall_start(&mut self, i: &recall::Input) -> Result<Step<RecallResult>> {
        let input = ex::recall::RecallInput {
            target: wit_target(&i.target),
            query: i.query.clone(),
            recent_tools: i.recent_tools.clone(),
            already_read: i.already_read.clone(),
            ignore_memory: i.ignore_memory,
            now_ms: i.now_ms,
            session: i.session.clone(),
            offline: i.offline,
            embeddings: i.embeddings.clone(),
        };
        let step = self.call("recall.start", |b, s| b.memdir_memory_recall().call_start(s, &input))?;
        step.map(core_recall_step).map_err(core_error)
    }

    fn recall_resume(&mut self, state: &str, reply: Reply) -> Result<Step<RecallResult>> {
        let reply = wit_reply(reply);
        let step =
            self.call("recall.resume", |b, s| b.memdir_memory_recall().call_resume(s, state, &reply))?;
        step.map(core_recall_step).map_err(core_error)
    }

    fn save(&mut self, save: &Save<'_>) -> Result<SaveReport> {
        let r = &save.memory;
        let request = ex::writer::SaveRequest {
            target: wit_target(save.target),
            memory_type: wit_type(r.memory_type),
            name: r.name.to_string(),
            description: r.description.to_string(),
            file: r.file.map(str::to_string),
            replaces: r.replaces.map(str::to_string),
            body: r.body.to_string(),
            now_ms: r.now_ms,
            utc_offset_minutes: r.utc_offset_minutes,
            scope: r.scope.map(wit_scope),
        };
        let report = self.call("writer.save", |b, s| b.memdir_memory_writer().call_save(s, &request))?;
        let report = report.map_err(core_error)?;
        Ok(SaveReport {
            path: report.path,
            created: report.created,
            index_line: report.index_line,
            conversions: report
                .conversions
                .into_iter()
                .map(|c| Conversion { from: c.from, to: c.to })
                .collect(),
            renamed_from: report.renamed_from,
            links_rewritten: report.links_rewritten,
            replaced: report.replaced,
        })
    }

    fn forget(&mut self, target: &Target, path: &str) -> Result<ForgetReport> {
        let target = wit_target(target);
        let report =
            self.call("writer.forget", |b, s| b.memdir_memory_writer().call_forget(s, &target, path))?;
        let report = report.map_err(core_error)?;
        Ok(ForgetReport { path: report.path, index_lines_removed: report.index_lines_removed as usize })
    }

    fn rebuild_index(&mut self, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
        let target = wit_target(target);
        let rebuilt = self.call("writer.rebuild-index", |b, s| {
            b.memdir_memory_writer().call_rebuild_index(s, &target, now_ms)
        })?;
        Ok(rebuilt.map_err(core_error)?.map(|r| Rebuilt { path: r.path, entries: r.entries }))
    }

    fn check_fix(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>> {
        let target = wit_target(target);
        let changes = self.call("check.fix", |b, s| b.memdir_memory_check().call_fix(s, &target, now_ms))?;
        changes.map_err(core_error)
    }

    fn check(&mut self, target: &Target, now_ms: i64, git: &GitFacts) -> Result<CheckReport> {
        use ex::check as c;
        let target = wit_target(target);
        let facts = c::GitFacts { ls_files: git.ls_files.clone(), log: git.log.clone() };
        let report =
            self.call("check.check", |b, s| b.memdir_memory_check().call_check(s, &target, now_ms, &facts))?;
        let report = report.map_err(core_error)?;
        Ok(CheckReport {
            memory_dir: report.memory_dir,
            memories: report.memories,
            findings: report
                .findings
                .into_iter()
                .map(|f| Finding {
                    kind: core_finding_kind(f.kind),
                    severity: match f.severity {
                        c::Severity::Error => Severity::Error,
                        c::Severity::Warning => Severity::Warning,
                        c::Severity::Note => Severity::Note,
                    },
                    path: f.path,
                    line: f.line,
                    message: f.message,
                })
                .collect(),
            recovered: report.recovered,
            evidence: report
                .evidence
                .into_iter()
                .map(|e| MemoryEvidence {
                    path: e.path,
                    verdict: match e.verdict {
                        c::Verdict::Verified => Verdict::Verified,
                        c::Verdict::Changed => Verdict::Changed,
                        c::Verdict::Missing => Verdict::Missing,
                        c::Verdict::Unchecked => Verdict::Unchecked,
                    },
                    citations: e
                        .citations
                        .into_iter()
                        .map(|x| Citation {
                            kind: match x.kind {
                                c::ClaimKind::Path => ClaimKind::Path,
                                c::ClaimKind::MakeTarget => ClaimKind::MakeTarget,
                                c::ClaimKind::Flag => ClaimKind::Flag,
                                c::ClaimKind::Symbol => ClaimKind::Symbol,
                            },
                            text: x.text,
                            status: match x.status {
                                c::CitationStatus::Found => Status::Found,
                                c::CitationStatus::Changed => Status::Changed,
                                c::CitationStatus::Missing => Status::Missing,
                                c::CitationStatus::Unchecked => Status::Unchecked,
                            },
                            detail: x.detail,
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    fn trash(&mut self, target: &Target) -> Result<Vec<Trashed>> {
        let target = wit_target(target);
        let items = self.call("writer.trash", |b, s| b.memdir_memory_writer().call_trash(s, &target))?;
        Ok(items.map_err(core_error)?.into_iter().map(core_trashed).collect())
    }

    fn pending(&mut self, target: &Target) -> Result<Vec<Proposal>> {
        let target = wit_target(target);
        let items = self.call("writer.pending", |b, s| b.memdir_memory_writer().call_pending(s, &target))?;
        Ok(items.map_err(core_error)?.into_iter().map(core_proposal).collect())
    }

    fn accept(
        &mut self,
        target: &Target,
        id: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<Vec<Proposal>> {
        let target = wit_target(target);
        let p = self.call("writer.accept", |b, s| {
            b.memdir_memory_writer().call_accept(s, &target, id, now_ms, utc_offset_minutes)
        })?;
        Ok(p.map_err(core_error)?.into_iter().map(core_proposal).collect())
    }

    fn reject(&mut self, target: &Target, id: &str) -> Result<Vec<Proposal>> {
        let target = wit_target(target);
        let p = self.call("writer.reject", |b, s| b.memdir_memory_writer().call_reject(s, &target, id))?;
        Ok(p.map_err(core_error)?.into_iter().map(core_proposal).collect())
    }

    fn pause(&mut self, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause> {
        let target = wit_target(target);
        let p = self
            .call("writer.pause", |b, s| b.memdir_memory_writer().call_pause(s, &target, now_ms, until_ms))?;
        p.map(core_pause).map_err(core_error)
    }

    fn resume(&mut self, target: &Target, now_ms: i64) -> Result<bool> {
        let target = wit_target(target);
        let was =
            self.call("writer.resume", |b, s| b.memdir_memory_writer().call_resume(s, &target, now_ms))?;
        was.map_err(core_error)
    }

    fn paused(&mut self, target: &Target, now_ms: i64) -> Result<Option<Pause>> {
        let target = wit_target(target);
        let p =
            self.call("writer.paused", |b, s| b.memdir_memory_writer().call_paused(s, &target, now_ms))?;
        Ok(p.map_err(core_error)?.map(core_pause))
    }

    fn restore(&mut self, target: &Target, id: &str, now_ms: i64) -> Result<Trashed> {
        let target = wit_target(target);
        let item = self
            .call("writer.restore", |b, s| b.memdir_memory_writer().call_restore(s, &target, id, now_ms))?;
        item.map(core_trashed).map_err(core_error)
    }

    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        let parsed = self.call("extract.parse-transcript", |b, s| {
            b.memdir_memory_extract().call_parse_transcript(s, text)
        })?;
        let messages = parsed.map_err(core_error)?;
        Ok(messages
            .into_iter()
            .map(|m| extract::Message { role: core_role(m.role), text: m.text, wrote: m.wrote })
            .collect())
    }

    fn extract_start(&mut self, i: &extract::Input) -> Result<Step<ExtractResult>> {
        let input = ex::extract::ExtractInput {
            target: wit_target(&i.target),
            messages: i
                .messages
                .iter()
                .map(|m| ex::extract::Message {
                    role: wit_role(m.role),
                    text: m.text.clone(),
                    wrote: m.wrote.clone(),
                })
                .collect(),
            conversation: i.conversation.clone(),
            written: i.written.clone(),
            main_agent: i.main_agent,
            now_ms: i.now_ms,
            utc_offset_minutes: i.utc_offset_minutes,
        };
        let step = self.call("extract.start", |b, s| b.memdir_memory_extract().call_start(s, &input))?;
        step.map(core_extract_step).map_err(core_error)
    }

    fn extract_resume(&mut self, state: &str, reply: Reply) -> Result<Step<ExtractResult>> {
        let reply = wit_reply(reply);
        let step =
            self.call("extract.resume", |b, s| b.memdir_memory_extract().call_resume(s, state, &reply))?;
        step.map(core_extract_step).map_err(core_error)
    }

    fn log_append(
        &mut self,
        target: &Target,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        let target = wit_target(target);
        let path = self.call("daily-log.append", |b, s| {
            b.memdir_memory_daily_log().call_append(s, &target, text, now_ms, utc_offset_minutes)
        })?;
        path.map_err(core_error)
    }

    fn dream_start(&mut self, i: &dream::Input) -> Result<Step<DreamResult>> {
        let input = ex::dream::DreamInput {
            target: wit_target(&i.target),
            now_ms: i.now_ms,
            utc_offset_minutes: i.utc_offset_minutes,
        };
        let step = self.call("dream.start", |b, s| b.memdir_memory_dream().call_start(s, &input))?;
        step.map(core_dream_step).map_err(core_error)
    }

    fn dream_resume(&mut self, state: &str, reply: Reply) -> Result<Step<DreamResult>> {
        let reply = wit_reply(reply);
        let step = self.call("dream.resume", |b, s| b.memdir_memory_dream().call_resume(s, state, &reply))?;
        step.map(core_dream_step).map_err(core_error)
    }

    fn team_start(&mut self, i: &team::Input) -> Result<TeamStep> {
        use ex::team as t;
        let action = match &i.action {
            team::Action::Init(o) => t::Action::Init(t::InitOptions {
                remote: o.remote.clone(),
                branch: o.branch.clone(),
                merge_driver: o.merge_driver.clone(),
            }),
            team::Action::Sync => t::Action::Sync,
            team::Action::Status => t::Action::Status,
        };
        let input = t::TeamInput {
            target: wit_target(&i.target),
            which: match i.which {
                team::Which::Team => t::Which::Team,
                team::Which::Private => t::Which::Private,
            },
            action,
            now_ms: i.now_ms,
            host_name: i.host_name.clone(),
            min_interval_ms: i.min_interval_ms,
        };
        let step = self.call("team.start", |b, s| b.memdir_memory_team().call_start(s, &input))?;
        step.map(core_team_step).map_err(core_error)
    }

    fn team_resume(&mut self, state: &str, output: GitOutput) -> Result<TeamStep> {
        let output =
            ex::team::GitOutput { status: output.status, stdout: output.stdout, stderr: output.stderr };
        let step = self.call("team.resume", |b, s| b.memdir_memory_team().call_resume(s, state, &output))?;
        step.map(core_team_step).map_err(core_error)
    }

    fn merge_index(&mut self, base: &str, ours: &str, theirs: &str) -> Result<String> {
        self.call("team.merge-index", |b, s| b.memdir_memory_team().call_merge_index(s, base, ours, theirs))
    }
}

fn core_team_step(step: ex::team::TeamStep) -> TeamStep {
    use ex::team as t;
    match step {
        t::TeamStep::Run(call) => TeamStep::Run(team::GitCall {
            command: team::GitCommand {
                args: call.command.args,
                cwd: call.command.cwd,
                stdin: call.command.stdin,
                network: call.command.network,
            },
            state: call.state,
        }),
        t::TeamStep::Done(r) => TeamStep::Done(team::Report {
            dir: r.dir,
            remote: r.remote,
            branch: r.branch,
            skipped: r.skipped.map(|s| match s {
                t::SkipReason::SyncedRecently(ago_ms) => team::Skip::SyncedRecently(ago_ms),
            }),
            committed: r.committed,
            added: r.added,
            changed: r.changed,
            removed: r.removed,
            received: r.received,
            conflicts: r
                .conflicts
                .into_iter()
                .map(|c| team::Conflict { path: c.path, kept_as: c.kept_as, message: c.message })
                .collect(),
            pushed: r.pushed,
            ahead: r.ahead,
            behind: r.behind,
            dirty: r.dirty,
            last_sync_ms: r.last_sync_ms,
        }),
    }
}

fn core_finding_kind(kind: ex::check::FindingKind) -> FindingKind {
    use ex::check::FindingKind as K;
    match kind {
        K::DanglingIndexLine => FindingKind::DanglingIndexLine,
        K::DuplicateIndexLine => FindingKind::DuplicateIndexLine,
        K::NotInIndex => FindingKind::NotInIndex,
        K::MissingIndex => FindingKind::MissingIndex,
        K::IndexOverLimit => FindingKind::IndexOverLimit,
        K::Frontmatter => FindingKind::Frontmatter,
        K::JournalSetAside => FindingKind::JournalSetAside,
        K::SecretAtRest => FindingKind::SecretAtRest,
        K::MissingCitation => FindingKind::MissingCitation,
        K::ChangedCitation => FindingKind::ChangedCitation,
        K::NearDuplicate => FindingKind::NearDuplicate,
        K::Contradiction => FindingKind::Contradiction,
        K::LinkNotWrittenYet => FindingKind::LinkNotWrittenYet,
        K::SyncConflict => FindingKind::SyncConflict,
        K::PastDates => FindingKind::PastDates,
    }
}

fn core_pause(p: ex::writer::PauseState) -> Pause {
    Pause { since_ms: p.since_ms, until_ms: p.until_ms }
}

fn core_trashed(t: ex::writer::Trashed) -> Trashed {
    Trashed { id: t.id, path: t.path, trashed_ms: t.trashed_ms }
}

fn wit_target(t: &Target) -> wit::Target {
    wit::Target { cwd: t.cwd.clone(), env: t.env.clone(), memory_dir: t.memory_dir.clone() }
}

fn wit_reply(r: Reply) -> ex::model::ModelReply {
    match r {
        Reply::Text(text) => ex::model::ModelReply::Text(text),
        Reply::Failed(why) => ex::model::ModelReply::Failed(why),
        Reply::Vectors(vectors) => ex::model::ModelReply::Vectors(vectors),
    }
}

fn core_call(c: ex::model::ModelCall) -> ModelCall {
    let r = c.request;
    ModelCall {
        request: ModelRequest {
            system: r.system,
            user: r.user,
            schema: r.schema,
            max_tokens: r.max_tokens,
            tier: match r.tier {
                ex::model::Tier::Small => Tier::Small,
            },
        },
        state: c.state,
        call: c.call,
        calls: c.calls,
    }
}

fn core_recall_step(step: ex::recall::RecallStep) -> Step<RecallResult> {
    use ex::recall::SkipReason as W;
    let r = match step {
        ex::recall::RecallStep::Ask(call) => return Step::Ask(core_call(call)),
        ex::recall::RecallStep::Embed(c) => {
            return Step::Embed(EmbedCall { texts: c.texts, state: c.state, call: c.call });
        }
        ex::recall::RecallStep::Done(r) => r,
    };
    Step::Done(RecallResult {
        skipped: r.skipped.map(|s| match s {
            W::SingleWord => Skip::SingleWord,
            W::Disabled => Skip::Disabled,
            W::Ignored => Skip::Ignored,
            W::Budget => Skip::Budget,
            W::NoMemories => Skip::NoMemories,
        }),
        selector: match r.selector {
            ex::recall::Selector::Model => Selector::Model,
            ex::recall::Selector::Offline => Selector::Offline,
        },
        selected: r.selected,
        attachments: r
            .attachments
            .into_iter()
            .map(|a| Attachment {
                path: a.path,
                scope: core_scope(a.scope),
                whole: a.whole,
                freshness: a.freshness,
                stale: a.stale,
                bytes: a.bytes,
                truncated: a.truncated,
                text: a.text,
            })
            .collect(),
        diagnostics: r.diagnostics,
        session: r.session,
        turn_bytes: r.turn_bytes,
        session_bytes: r.session_bytes,
    })
}

fn core_ops(ops: Vec<ex::extract::OpReport>) -> Vec<OpReport> {
    ops.into_iter()
        .map(|o| {
            let op = match o.op {
                ex::extract::Op::Create => Op::Create,
                ex::extract::Op::Update => Op::Update,
                ex::extract::Op::Delete => Op::Delete,
                ex::extract::Op::Other(name) => Op::Other(name),
            };
            OpReport { op, path: o.path, rejected: o.rejected, proposed: o.proposed }
        })
        .collect()
}

fn core_extract_step(step: ex::extract::ExtractStep) -> Step<ExtractResult> {
    use ex::extract::SkipReason as W;
    let r = match step {
        ex::extract::ExtractStep::Ask(call) => return Step::Ask(core_call(call)),
        ex::extract::ExtractStep::Done(r) => r,
    };
    Step::Done(ExtractResult {
        skipped: r.skipped.map(|s| match s {
            W::Subagent => extract::Skip::Subagent,
            W::Disabled => extract::Skip::Disabled,
            W::NothingNew => extract::Skip::NothingNew,
            W::MainAgentWrote => extract::Skip::MainAgentWrote,
            W::Paused => extract::Skip::Paused,
        }),
        cursor: r.cursor,
        read: r.read,
        operations: core_ops(r.operations),
        diagnostics: r.diagnostics,
    })
}

fn core_dream_step(step: ex::dream::DreamStep) -> Step<DreamResult> {
    match step {
        ex::dream::DreamStep::Ask(call) => Step::Ask(core_call(call)),
        ex::dream::DreamStep::Done(r) => Step::Done(DreamResult {
            chunks: r.chunks,
            committed: r.committed,
            operations: core_ops(r.operations),
            diagnostics: r.diagnostics,
        }),
    }
}

fn core_role(r: ex::extract::Role) -> Role {
    match r {
        ex::extract::Role::User => Role::User,
        ex::extract::Role::Assistant => Role::Assistant,
        ex::extract::Role::Tool => Role::Tool,
    }
}

fn wit_role(r: Role) -> ex::extract::Role {
    match r {
        Role::User => ex::extract::Role::User,
        Role::Assistant => ex::extract::Role::Assistant,
        Role::Tool => ex::extract::Role::Tool,
    }
}

fn core_error(e: wit::Error) -> Error {
    Error::Core(match e {
        wit::Error::Fs(e) => memdir_core::Error::Fs(host_fs::from_wit(e)),
        wit::Error::InvalidInput(m) => memdir_core::Error::InvalidInput(m),
        wit::Error::Other(m) => memdir_core::Error::Other(m),
    })
}

fn wit_request(r: &Request<'_>) -> ex::instructions::LoadRequest {
    ex::instructions::LoadRequest {
        cwd: r.cwd.to_string(),
        env: r.env.to_vec(),
        touching: r.touching.to_vec(),
        add_dirs: r.add_dirs.to_vec(),
    }
}

fn core_location(l: ex::paths::MemoryLocation) -> MemoryLocation {
    MemoryLocation {
        project_root: l.project_root,
        work_tree: l.work_tree,
        from_git: l.from_git,
        config_dir: l.config_dir,
        slug: l.slug,
        memory_dir: l.memory_dir,
        memory_dir_setting: l.memory_dir_setting,
        user_memory_dir: l.user_memory_dir,
        group: l.group.map(|g| MemoryGroup { name: g.name, dir: g.dir }),
    }
}

fn wit_scope(scope: Scope) -> ex::writer::MemoryScope {
    use ex::writer::MemoryScope as W;
    match scope {
        Scope::Private => W::Private,
        Scope::Team => W::Team,
        Scope::User => W::User,
        Scope::Group => W::Group,
    }
}

fn core_scope(scope: ex::writer::MemoryScope) -> Scope {
    use ex::writer::MemoryScope as W;
    match scope {
        W::Private => Scope::Private,
        W::Team => Scope::Team,
        W::User => Scope::User,
        W::Group => Scope::Group,
    }
}

fn core_switches(s: ex::instructions::Switches) -> Switches {
    Switches {
        instructions: s.instructions,
        bare: s.bare,
        auto_memory: s.auto_memory,
        decided_by: match s.decided_by {
            ex::instructions::DecidedBy::Env => DecidedBy::Env,
            ex::instructions::DecidedBy::Bare => DecidedBy::Bare,
            ex::instructions::DecidedBy::Remote => DecidedBy::Remote,
            ex::instructions::DecidedBy::Settings(path) => DecidedBy::Settings(path),
            ex::instructions::DecidedBy::Default => DecidedBy::Default,
        },
        team_memory: s.team_memory,
        daily_log: s.daily_log,
        team_sync: match s.team_sync {
            ex::instructions::TeamSync::Off => TeamSync::Off,
            ex::instructions::TeamSync::Manual => TeamSync::Manual,
            ex::instructions::TeamSync::Auto => TeamSync::Auto,
        },
        recall_shortlist: s.recall_shortlist,
        memory_writes: WritePolicy(s.memory_writes.into_iter().map(core_type_policy).collect()),
        diagnostics: s.diagnostics,
    }
}

fn core_type_policy(p: ex::instructions::TypePolicy) -> TypePolicy {
    use ex::instructions::WriteMode as W;
    TypePolicy {
        memory_type: core_type(p.memory_type),
        mode: match p.mode {
            W::Auto => WriteMode::Auto,
            W::Review => WriteMode::Review,
            W::Off => WriteMode::Off,
        },
        decided_by: p.decided_by,
    }
}

fn core_proposal(p: ex::writer::Proposal) -> Proposal {
    Proposal {
        id: p.id,
        created_ms: p.created_ms,
        source: p.source,
        batch: p.batch,
        batch_summary: p.batch_summary,
        op: p.op,
        path: p.path,
        memory_type: p.memory_type.map(core_type),
        name: p.name,
        description: p.description,
        body: p.body,
        current: p.current,
    }
}

fn core_file(f: ex::instructions::InstructionFile) -> InstructionFile {
    use ex::instructions::FileType as W;
    InstructionFile {
        path: f.path,
        file_type: match f.file_type {
            W::Managed => FileType::Managed,
            W::User => FileType::User,
            W::Project => FileType::Project,
            W::Local => FileType::Local,
            W::AutoMem => FileType::AutoMem,
            W::TeamMem => FileType::TeamMem,
            W::UserMem => FileType::UserMem,
            W::GroupMem => FileType::GroupMem,
        },
        content: f.content,
        chars: f.chars as usize,
        truncated: f.truncated,
        imports: f.imports,
        imported_by: f.imported_by,
        diagnostics: f.diagnostics,
    }
}

fn core_type(t: wit::MemoryType) -> memdir_core::MemoryType {
    match t {
        wit::MemoryType::User => memdir_core::MemoryType::User,
        wit::MemoryType::Feedback => memdir_core::MemoryType::Feedback,
        wit::MemoryType::Project => memdir_core::MemoryType::Project,
        wit::MemoryType::Reference => memdir_core::MemoryType::Reference,
    }
}

fn wit_type(t: memdir_core::MemoryType) -> wit::MemoryType {
    match t {
        memdir_core::MemoryType::User => wit::MemoryType::User,
        memdir_core::MemoryType::Feedback => wit::MemoryType::Feedback,
        memdir_core::MemoryType::Project => wit::MemoryType::Project,
        memdir_core::MemoryType::Reference => wit::MemoryType::Reference,
    }
}

fn core_header(h: ex::scan::MemoryHeader) -> MemoryHeader {
    MemoryHeader {
        path: h.path,
        mtime_ms: h.mtime_ms,
        name: h.name,
        description: h.description,
        memory_type: h.memory_type.map(core_type),
        diagnostics: h.diagnostics,
        freshness: Freshness { days: h.freshness.days, text: h.freshness.text, stale: h.freshness.stale },
        links: h.links.into_iter().map(|l| memdir_core::links::Link { name: l.name, path: l.path }).collect(),
        backlinks: h.backlinks,
    }
}

fn wit_header(h: MemoryHeader) -> ex::scan::MemoryHeader {
    ex::scan::MemoryHeader {
        path: h.path,
        mtime_ms: h.mtime_ms,
        name: h.name,
        description: h.description,
        memory_type: h.memory_type.map(wit_type),
        diagnostics: h.diagnostics,
        freshness: ex::scan::Freshness {
            days: h.freshness.days,
            text: h.freshness.text,
            stale: h.freshness.stale,
        },
        links: h.links.into_iter().map(|l| ex::scan::MemoryLink { name: l.name, path: l.path }).collect(),
        backlinks: h.backlinks,
    }
}

fn core_index(i: ex::index::LoadedIndex) -> LoadedIndex {
    LoadedIndex {
        text: i.text,
        truncated: i.truncated.map(|t| match t {
            ex::index::Truncation::Lines => Truncation::Lines,
            ex::index::Truncation::Size => Truncation::Size,
            ex::index::Truncation::LinesAndSize => Truncation::LinesAndSize,
        }),
        lines: i.lines as usize,
        bytes: i.bytes as usize,
        chars: i.chars as usize,
        dropped_entries: i.dropped_entries as usize,
        warning: i.warning,
        diagnostics: i.diagnostics,
    }
}
