//! The memory core as a component in wasmtime: loading (with the compiled-component cache and
//! the import allow-list), instances that are replaced after a trap, and the [`Core`] API.

use crate::bindings::MemoryCore;
use crate::bindings::exports::memdir::memory as ex;
use crate::bindings::memdir::memory::types as wit;
use crate::error::{Error, Result};
use crate::fs::SharedFs;
use crate::{Core, cache, host_fs};
use memdir_core::budget::Limits;
use memdir_core::budget::Session;
use memdir_core::dates::Conversion;
use memdir_core::index::{LoadedIndex, Truncation};
use memdir_core::instructions::{FileType, InstructionFile, Loaded, Request};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::prompt::Options;
use memdir_core::recall::{Attachment, Input, ModelRequest, Outcome, Pending, Skip};
use memdir_core::scan::{MemoryHeader, ScanReport, Skipped};
use memdir_core::switches::{DecidedBy, Switches};
use memdir_core::writer::{ForgetReport, SaveReport, SaveRequest, Scope};
use memdir_core::{dailylog, extract};
use std::path::Path;
use wasmtime::component::{HasSelf, Linker, ResourceAny, ResourceTable};
use wasmtime::{Config, Engine, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// The component built from `guest/` by `build.rs` (or taken from `MEMDIR_CORE_WASM`).
pub const CORE_WASM: &[u8] = include_bytes!(env!("MEMDIR_CORE_WASM"));

/// What the component may import: its own host interface, and the WASI interfaces that Rust's
/// standard library links for its stdio and process exit (given closed stdin, discarded stdout
/// and a captured stderr). No filesystem, sockets, clocks or random numbers: the host supplies
/// the world through `host-fs` alone (R0.2). Versions of WASI 0.2 may differ by patch.
pub const ALLOWED_IMPORTS: &[&str] = &[
    "memdir:memory/types@0.1.0",
    "memdir:memory/host-fs@0.1.0",
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

/// A compiled component ready to be instantiated: load it once, make a [`ComponentCore`] per
/// set of granted roots.
pub struct ComponentRuntime {
    engine: Engine,
    component: wasmtime::component::Component,
    linker: Linker<HostState>,
    memory_limit: usize,
}

impl ComponentRuntime {
    /// Loads the embedded component, with the compiled-component cache that `env` names
    /// (see [`cache::dir_from_env`]).
    pub fn load(env: &[(String, String)]) -> Result<Self> {
        Self::from_wasm(CORE_WASM, cache::dir_from_env(env).as_deref())
    }

    /// Loads a component from bytes, caching its compiled form in `cache_dir` when given.
    /// Refuses a component whose imports go beyond [`ALLOWED_IMPORTS`].
    pub fn from_wasm(wasm: &[u8], cache_dir: Option<&Path>) -> Result<Self> {
        let engine = Engine::new(&Config::new()).map_err(|e| Error::Load(format!("{e:#}")))?;
        let component = cache::load(&engine, wasm, cache_dir).map_err(|e| Error::Load(format!("{e:#}")))?;
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
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|e| Error::Load(format!("{e:#}")))?;
        MemoryCore::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state)
            .map_err(|e| Error::Load(format!("{e:#}")))?;
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
    fn instantiate(&self) -> Result<Live> {
        let stderr = MemoryOutputPipe::new(STDERR_CAPTURE);
        let wasi = WasiCtx::builder().stderr(stderr.clone()).build();
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.runtime.memory_limit)
            .trap_on_grow_failure(true)
            .build();
        let state = HostState { fs: self.fs.clone(), wasi, table: ResourceTable::new(), limits };
        let mut store = Store::new(&self.runtime.engine, state);
        store.limiter(|state| &mut state.limits);
        let bindings = MemoryCore::instantiate(&mut store, &self.runtime.component, &self.runtime.linker)
            .map_err(|e| Error::Load(format!("{e:#}")))?;
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

    /// Runs `f` with `session` as a component resource, then reads it back: the session lives
    /// on the host, so a trap or a fresh instance never loses it.
    fn with_session<T>(
        &mut self,
        operation: &'static str,
        session: &mut Session,
        f: impl FnOnce(&MemoryCore, &mut Store<HostState>, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T> {
        let saved = session.to_json();
        let (value, json) = self.call(operation, |b, s| {
            let api = b.memdir_memory_budget().session();
            let handle = api.call_from_json(&mut *s, &saved)?.map_err(wasmtime::Error::msg)?;
            let value = f(b, s, handle)?;
            let json = api.call_to_json(&mut *s, handle)?;
            handle.resource_drop(&mut *s)?;
            Ok((value, json))
        })?;
        *session = Session::from_json(&json).map_err(|message| Error::Trap { operation, message })?;
        Ok(value)
    }
}

impl Core for ComponentCore<'_> {
    fn backend(&self) -> &'static str {
        "component"
    }

    fn scan(&mut self, dir: &str) -> Result<ScanReport> {
        let report =
            self.call("scan", |b, s| b.memdir_memory_scan().call_scan(s, dir))?.map_err(core_error)?;
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
        };
        let text = self.call("instructions.prompt", |b, s| {
            b.memdir_memory_instructions().call_prompt(s, &request, options)
        })?;
        text.map_err(core_error)
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
            index_bytes: l.index_bytes,
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
    fn recall_prepare(&mut self, input: &Input<'_>, session: &mut Session) -> Result<Result<Pending, Skip>> {
        let input = wit_input(input);
        let prepared = self.with_session("recall.prepare", session, |b, s, handle| {
            b.memdir_memory_recall().call_prepare(s, &input, handle)
        })?;
        Ok(match prepared.map_err(core_error)? {
            ex::recall::Prepared::Skipped(reason) => Err(match reason {
                ex::recall::SkipReason::SingleWord => Skip::SingleWord,
                ex::recall::SkipReason::Disabled => Skip::Disabled,
                ex::recall::SkipReason::Ignored => Skip::Ignored,
                ex::recall::SkipReason::Budget => Skip::Budget,
                ex::recall::SkipReason::NoMemories => Skip::NoMemories,
            }),
            ex::recall::Prepared::Ask(pending) => Ok(Pending {
                request: core_request(pending.request),
                candidates: pending.candidates.into_iter().map(core_header).collect(),
            }),
        })
    }

    fn recall_complete(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
        reply: &str,
    ) -> Result<Outcome> {
        let (input, pending) = (wit_input(input), wit_pending(pending));
        let result = self.with_session("recall.complete", session, |b, s, handle| {
            b.memdir_memory_recall().call_complete(s, &input, handle, &pending, reply)
        })?;
        Ok(core_outcome(result))
    }

    fn recall_offline(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
    ) -> Result<Outcome> {
        let (input, pending) = (wit_input(input), wit_pending(pending));
        let result = self.with_session("recall.offline", session, |b, s, handle| {
            b.memdir_memory_recall().call_offline(s, &input, handle, &pending)
        })?;
        Ok(core_outcome(result))
    }

    fn save(&mut self, r: &SaveRequest<'_>) -> Result<SaveReport> {
        let request = ex::writer::SaveRequest {
            memory_dir: r.memory_dir.to_string(),
            memory_type: wit_type(r.memory_type),
            name: r.name.to_string(),
            description: r.description.to_string(),
            topic: r.topic.map(str::to_string),
            body: r.body.to_string(),
            now_ms: r.now_ms,
            utc_offset_minutes: r.utc_offset_minutes,
            scope: r.scope.map(|s| match s {
                Scope::Private => ex::writer::MemoryScope::Private,
                Scope::Team => ex::writer::MemoryScope::Team,
            }),
            team_memory: r.team_memory,
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
        })
    }

    fn forget(&mut self, memory_dir: &str, path: &str) -> Result<ForgetReport> {
        let report =
            self.call("writer.forget", |b, s| b.memdir_memory_writer().call_forget(s, memory_dir, path))?;
        let report = report.map_err(core_error)?;
        Ok(ForgetReport { path: report.path, index_lines_removed: report.index_lines_removed as usize })
    }

    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        let parsed = self.call("extract.parse-transcript", |b, s| {
            b.memdir_memory_extract().call_parse_transcript(s, text)
        })?;
        let messages = parsed.map_err(core_error)?;
        Ok(messages
            .into_iter()
            .map(|m| extract::Message { role: m.role, text: m.text, wrote: m.wrote })
            .collect())
    }

    fn extract_begin(&mut self, input: &extract::Input<'_>) -> Result<extract::Begun> {
        let input = wit_extract_input(input);
        let begun = self.call("extract.begin", |b, s| b.memdir_memory_extract().call_begin(s, &input))?;
        Ok(match begun.map_err(core_error)? {
            ex::extract::Begun::Skipped(reason) => Err(match reason {
                ex::extract::SkipReason::Subagent => extract::Skip::Subagent,
                ex::extract::SkipReason::Disabled => extract::Skip::Disabled,
                ex::extract::SkipReason::NothingNew => extract::Skip::NothingNew,
                ex::extract::SkipReason::MainAgentWrote => extract::Skip::MainAgentWrote,
            }),
            ex::extract::Begun::Ask(round) => Ok(extract::Round {
                request: core_request(round.request),
                candidates: round.candidates.into_iter().map(core_header).collect(),
                conversation: round.conversation,
            }),
        })
    }

    fn extract_read(
        &mut self,
        input: &extract::Input<'_>,
        round: &extract::Round,
        reply: &str,
    ) -> Result<(ModelRequest, Vec<String>, Vec<String>)> {
        let input = wit_extract_input(input);
        let round = ex::extract::Round {
            request: wit_model_request(&round.request),
            candidates: round.candidates.iter().cloned().map(wit_header).collect(),
            conversation: round.conversation.clone(),
        };
        let r = self.call("extract.read-round", |b, s| {
            b.memdir_memory_extract().call_read_round(s, &input, &round, reply)
        })?;
        Ok((core_request(r.request), r.read, r.diagnostics))
    }

    fn extract_apply(
        &mut self,
        input: &extract::Input<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)> {
        let input = wit_extract_input(input);
        let r = self.call("extract.apply", |b, s| b.memdir_memory_extract().call_apply(s, &input, reply))?;
        Ok(core_apply_result(r))
    }

    fn log_append(
        &mut self,
        memory_dir: &str,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        let path = self.call("daily-log.append", |b, s| {
            b.memdir_memory_daily_log().call_append(s, memory_dir, text, now_ms, utc_offset_minutes)
        })?;
        path.map_err(core_error)
    }

    fn dream_plan(&mut self, memory_dir: &str) -> Result<Vec<dailylog::Chunk>> {
        let chunks =
            self.call("daily-log.plan", |b, s| b.memdir_memory_daily_log().call_plan(s, memory_dir))?;
        Ok(chunks
            .map_err(core_error)?
            .into_iter()
            .map(|c| dailylog::Chunk {
                request: core_request(c.request),
                logs: c
                    .logs
                    .into_iter()
                    .map(|p| dailylog::LogPosition { path: p.path, bytes: p.bytes })
                    .collect(),
            })
            .collect())
    }

    fn dream_apply(
        &mut self,
        t: &extract::Target<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)> {
        let r = self.call("daily-log.apply", |b, s| {
            b.memdir_memory_daily_log().call_apply(s, t.memory_dir, t.now_ms, t.utc_offset_minutes, reply)
        })?;
        Ok(core_apply_result(r))
    }

    fn dream_commit(&mut self, memory_dir: &str, logs: &[dailylog::LogPosition]) -> Result<()> {
        let logs: Vec<_> = logs
            .iter()
            .map(|p| ex::daily_log::LogPosition { path: p.path.clone(), bytes: p.bytes })
            .collect();
        let done = self
            .call("daily-log.commit", |b, s| b.memdir_memory_daily_log().call_commit(s, memory_dir, &logs))?;
        done.map_err(core_error)
    }
}

fn wit_extract_input(i: &extract::Input<'_>) -> ex::extract::ExtractInput {
    ex::extract::ExtractInput {
        memory_dir: i.memory_dir.to_string(),
        messages: i
            .messages
            .iter()
            .map(|m| ex::extract::Message {
                role: m.role.clone(),
                text: m.text.clone(),
                wrote: m.wrote.clone(),
            })
            .collect(),
        cursor: u32::try_from(i.cursor).unwrap_or(u32::MAX),
        written: i.written.to_vec(),
        main_agent: i.main_agent,
        auto_memory: i.auto_memory,
        now_ms: i.now_ms,
        utc_offset_minutes: i.utc_offset_minutes,
    }
}

fn core_apply_result(r: ex::extract::ApplyResult) -> (Vec<extract::OpReport>, Vec<String>) {
    let ops = r
        .operations
        .into_iter()
        .map(|o| extract::OpReport { op: o.op, path: o.path, rejected: o.rejected })
        .collect();
    (ops, r.diagnostics)
}

fn core_request(r: ex::recall::ModelRequest) -> ModelRequest {
    ModelRequest { system: r.system, user: r.user, schema: r.schema, max_tokens: r.max_tokens, tier: r.tier }
}

fn wit_model_request(r: &ModelRequest) -> ex::recall::ModelRequest {
    ex::recall::ModelRequest {
        system: r.system.clone(),
        user: r.user.clone(),
        schema: r.schema.clone(),
        max_tokens: r.max_tokens,
        tier: r.tier.clone(),
    }
}

fn wit_input(i: &Input<'_>) -> ex::recall::RecallInput {
    ex::recall::RecallInput {
        memory_dir: i.memory_dir.to_string(),
        query: i.query.to_string(),
        recent_tools: i.recent_tools.to_vec(),
        already_read: i.already_read.to_vec(),
        auto_memory: i.auto_memory,
        ignore_memory: i.ignore_memory,
        now_ms: i.now_ms,
    }
}

fn wit_pending(p: &Pending) -> ex::recall::Pending {
    ex::recall::Pending {
        request: wit_model_request(&p.request),
        candidates: p.candidates.iter().cloned().map(wit_header).collect(),
    }
}

fn core_outcome(o: ex::recall::RecallResult) -> Outcome {
    Outcome {
        selected: o.selected,
        attachments: o
            .attachments
            .into_iter()
            .map(|a| Attachment {
                path: a.path,
                freshness: a.freshness,
                bytes: a.bytes,
                truncated: a.truncated,
                text: a.text,
            })
            .collect(),
        diagnostics: o.diagnostics,
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
    }
}

fn core_switches(s: ex::instructions::Switches) -> Switches {
    Switches {
        instructions: s.instructions,
        bare: s.bare,
        auto_memory: s.auto_memory,
        // The core only ever sends labels it made; anything else is reported as it came.
        decided_by: DecidedBy::from_label(&s.decided_by).unwrap_or(DecidedBy::Settings(s.decided_by)),
        team_memory: s.team_memory,
        daily_log: s.daily_log,
        diagnostics: s.diagnostics,
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
    }
}

fn core_index(i: ex::index::LoadedIndex) -> LoadedIndex {
    LoadedIndex {
        text: i.text,
        truncated: i.truncated.map(|t| match t {
            ex::index::Truncation::Lines => Truncation::Lines,
            ex::index::Truncation::Bytes => Truncation::Bytes,
            ex::index::Truncation::LinesAndBytes => Truncation::LinesAndBytes,
        }),
        lines: i.lines as usize,
        bytes: i.bytes as usize,
        dropped_entries: i.dropped_entries as usize,
        warning: i.warning,
        diagnostics: i.diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_resource_counts_dedupes_and_resets_through_the_component() {
        let runtime = ComponentRuntime::from_wasm(CORE_WASM, None).unwrap();
        let mut core = runtime.core(crate::ConfinedFs::new());
        let (budget, surfaced, json) = core
            .call("budget.session", |b, s| {
                let session = b.memdir_memory_budget().session();
                let handle = session.call_constructor(&mut *s)?;
                session.call_record_injection(&mut *s, handle, "feedback_a.md", 4096)?;
                let again = session.call_can_inject(&mut *s, handle, "feedback_a.md", 1)?;
                let other = session.call_can_inject(&mut *s, handle, "user_b.md", 4096)?;
                let json = session.call_to_json(&mut *s, handle)?;
                let restored = session.call_from_json(&mut *s, &json)?.expect("its own JSON restores");
                let surfaced = session.call_surfaced(&mut *s, restored)?;
                session.call_compact(&mut *s, restored)?;
                let after = session.call_session_bytes(&mut *s, restored)?;
                let bad = session.call_from_json(&mut *s, "{not json")?;
                handle.resource_drop(&mut *s)?;
                restored.resource_drop(&mut *s)?;
                Ok(((again, other, after, bad.is_err()), surfaced, json))
            })
            .unwrap();
        assert_eq!(budget, (false, true, 0, true));
        assert_eq!(surfaced, ["feedback_a.md"]);
        assert_eq!(memdir_core::budget::Session::from_json(&json).unwrap().session_bytes(), 4096);
    }
}
