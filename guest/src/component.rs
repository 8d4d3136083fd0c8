//! The WebAssembly component glue: the generated bindings, the `host-fs` import as an [`Fs`],
//! and the exports, with every conversion between core and WIT types in this one file.

use crate::fs::{DirEntry, EntryKind, FileHead, FileStat, Fs, FsError};
use crate::{
    budget, dailylog, extract, index, instructions, manifest, paths, prompt, recall, scan, switches, writer,
};
use std::cell::RefCell;

wit_bindgen::generate!({
    path: "../wit",
    world: "memory-core",
});

use exports::memdir::memory as ex;
use memdir::memory::{host_fs, types as wit};

/// The host filesystem, reached through the `host-fs` import.
struct HostFs;

impl Fs for HostFs {
    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        let entries = host_fs::list_dir(path).map_err(fs_error)?;
        Ok(entries
            .into_iter()
            .map(|e| DirEntry { name: e.name, kind: kind(e.kind), size: e.size, mtime_ms: e.mtime_ms })
            .collect())
    }

    fn read_head(&self, path: &str, max_lines: u32, max_bytes: u32) -> Result<FileHead, FsError> {
        let h = host_fs::read_head(path, max_lines, max_bytes).map_err(fs_error)?;
        Ok(FileHead { data: h.data, size: h.size, mtime_ms: h.mtime_ms, truncated: h.truncated })
    }

    fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        let s = host_fs::stat(path).map_err(fs_error)?;
        Ok(FileStat { kind: kind(s.kind), size: s.size, mtime_ms: s.mtime_ms })
    }

    fn real_path(&self, path: &str) -> Result<String, FsError> {
        host_fs::real_path(path).map_err(fs_error)
    }

    fn read_file(&self, path: &str, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        host_fs::read_file(path, max_bytes).map_err(fs_error)
    }

    fn write_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        host_fs::write_file(path, data).map_err(fs_error)
    }

    fn append_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        host_fs::append_file(path, data).map_err(fs_error)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        host_fs::rename(from, to).map_err(fs_error)
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        host_fs::remove_file(path).map_err(fs_error)
    }

    fn create_dir_all(&self, path: &str) -> Result<(), FsError> {
        host_fs::create_dir_all(path).map_err(fs_error)
    }

    fn lock(&self, path: &str, timeout_ms: u32) -> Result<(), FsError> {
        host_fs::lock(path, timeout_ms).map_err(fs_error)
    }

    fn unlock(&self, path: &str) -> Result<(), FsError> {
        host_fs::unlock(path).map_err(fs_error)
    }
}

fn kind(k: wit::EntryKind) -> EntryKind {
    match k {
        wit::EntryKind::File => EntryKind::File,
        wit::EntryKind::Dir => EntryKind::Dir,
        wit::EntryKind::Symlink => EntryKind::Symlink,
        wit::EntryKind::Other => EntryKind::Other,
    }
}

fn fs_error(e: wit::FsError) -> FsError {
    match e {
        wit::FsError::NotFound(m) => FsError::NotFound(m),
        wit::FsError::PermissionDenied(m) => FsError::PermissionDenied(m),
        wit::FsError::OutsideRoot(m) => FsError::OutsideRoot(m),
        wit::FsError::ReadOnly(m) => FsError::ReadOnly(m),
        wit::FsError::NotADirectory(m) => FsError::NotADirectory(m),
        wit::FsError::IsADirectory(m) => FsError::IsADirectory(m),
        wit::FsError::InvalidPath(m) => FsError::InvalidPath(m),
        wit::FsError::Other(m) => FsError::Other(m),
    }
}

fn wit_fs_error(e: FsError) -> wit::FsError {
    match e {
        FsError::NotFound(m) => wit::FsError::NotFound(m),
        FsError::PermissionDenied(m) => wit::FsError::PermissionDenied(m),
        FsError::OutsideRoot(m) => wit::FsError::OutsideRoot(m),
        FsError::ReadOnly(m) => wit::FsError::ReadOnly(m),
        FsError::NotADirectory(m) => wit::FsError::NotADirectory(m),
        FsError::IsADirectory(m) => wit::FsError::IsADirectory(m),
        FsError::InvalidPath(m) => wit::FsError::InvalidPath(m),
        FsError::Other(m) => wit::FsError::Other(m),
    }
}

fn wit_error(e: crate::Error) -> wit::Error {
    match e {
        crate::Error::Fs(e) => wit::Error::Fs(wit_fs_error(e)),
        crate::Error::InvalidInput(m) => wit::Error::InvalidInput(m),
        crate::Error::Other(m) => wit::Error::Other(m),
    }
}

fn wit_type(t: crate::MemoryType) -> wit::MemoryType {
    match t {
        crate::MemoryType::User => wit::MemoryType::User,
        crate::MemoryType::Feedback => wit::MemoryType::Feedback,
        crate::MemoryType::Project => wit::MemoryType::Project,
        crate::MemoryType::Reference => wit::MemoryType::Reference,
    }
}

fn core_type(t: wit::MemoryType) -> crate::MemoryType {
    match t {
        wit::MemoryType::User => crate::MemoryType::User,
        wit::MemoryType::Feedback => crate::MemoryType::Feedback,
        wit::MemoryType::Project => crate::MemoryType::Project,
        wit::MemoryType::Reference => crate::MemoryType::Reference,
    }
}

fn wit_header(h: scan::MemoryHeader) -> ex::scan::MemoryHeader {
    ex::scan::MemoryHeader {
        path: h.path,
        mtime_ms: h.mtime_ms,
        name: h.name,
        description: h.description,
        memory_type: h.memory_type.map(wit_type),
        diagnostics: h.diagnostics,
    }
}

fn core_header(h: ex::scan::MemoryHeader) -> scan::MemoryHeader {
    scan::MemoryHeader {
        path: h.path,
        mtime_ms: h.mtime_ms,
        name: h.name,
        description: h.description,
        memory_type: h.memory_type.map(core_type),
        diagnostics: h.diagnostics,
    }
}

fn wit_index(i: index::LoadedIndex) -> ex::index::LoadedIndex {
    ex::index::LoadedIndex {
        text: i.text,
        truncated: i.truncated.map(|t| match t {
            index::Truncation::Lines => ex::index::Truncation::Lines,
            index::Truncation::Bytes => ex::index::Truncation::Bytes,
            index::Truncation::LinesAndBytes => ex::index::Truncation::LinesAndBytes,
        }),
        lines: saturate(i.lines),
        bytes: saturate(i.bytes),
        dropped_entries: saturate(i.dropped_entries),
        warning: i.warning,
        diagnostics: i.diagnostics,
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The exported component.
struct Component;

impl ex::scan::Guest for Component {
    fn scan(dir: String) -> Result<ex::scan::ScanReport, wit::Error> {
        let report = scan::scan(&HostFs, &dir).map_err(wit_error)?;
        Ok(ex::scan::ScanReport {
            headers: report.headers.into_iter().map(wit_header).collect(),
            found: saturate(report.found),
            skipped: report
                .skipped
                .into_iter()
                .map(|s| ex::scan::SkippedEntry { path: s.path, reason: s.reason })
                .collect(),
        })
    }
}

impl ex::manifest::Guest for Component {
    fn format(headers: Vec<ex::scan::MemoryHeader>) -> String {
        let headers: Vec<_> = headers.into_iter().map(core_header).collect();
        manifest::format(&headers)
    }
}

impl ex::index::Guest for Component {
    fn truncate(content: String) -> ex::index::LoadedIndex {
        wit_index(index::truncate(&content))
    }

    fn load(path: String) -> Result<ex::index::LoadedIndex, wit::Error> {
        index::load(&HostFs, &path).map(wit_index).map_err(wit_error)
    }
}

impl ex::paths::Guest for Component {
    fn slug(project_root: String) -> String {
        paths::slug(&project_root)
    }

    fn locate(cwd: String, env: Vec<(String, String)>) -> Result<ex::paths::MemoryLocation, wit::Error> {
        paths::memory_location(&HostFs, &cwd, &env).map(wit_location).map_err(wit_error)
    }

    fn agent_dir(
        cwd: String,
        env: Vec<(String, String)>,
        agent_type: String,
        scope: ex::paths::AgentScope,
    ) -> Result<String, wit::Error> {
        let scope = match scope {
            ex::paths::AgentScope::User => paths::AgentScope::User,
            ex::paths::AgentScope::Project => paths::AgentScope::Project,
            ex::paths::AgentScope::Local => paths::AgentScope::Local,
        };
        paths::agent_memory_dir(&HostFs, &cwd, &env, &agent_type, scope).map_err(wit_error)
    }
}

fn wit_location(loc: paths::MemoryLocation) -> ex::paths::MemoryLocation {
    ex::paths::MemoryLocation {
        project_root: loc.project_root,
        work_tree: loc.work_tree,
        from_git: loc.from_git,
        config_dir: loc.config_dir,
        slug: loc.slug,
        memory_dir: loc.memory_dir,
    }
}

fn wit_switches(s: switches::Switches) -> ex::instructions::Switches {
    ex::instructions::Switches {
        instructions: s.instructions,
        bare: s.bare,
        auto_memory: s.auto_memory,
        decided_by: s.decided_by.label(),
        team_memory: s.team_memory,
        daily_log: s.daily_log,
        diagnostics: s.diagnostics,
    }
}

fn wit_file(f: instructions::InstructionFile) -> ex::instructions::InstructionFile {
    use ex::instructions::FileType as W;
    use instructions::FileType as C;
    ex::instructions::InstructionFile {
        suffix: f.file_type.suffix().to_string(),
        file_type: match f.file_type {
            C::Managed => W::Managed,
            C::User => W::User,
            C::Project => W::Project,
            C::Local => W::Local,
            C::AutoMem => W::AutoMem,
            C::TeamMem => W::TeamMem,
        },
        path: f.path,
        content: f.content,
        chars: saturate(f.chars),
        truncated: f.truncated,
        imports: f.imports,
        imported_by: f.imported_by,
        diagnostics: f.diagnostics,
    }
}

/// Runs `f` on the core's view of a WIT load request.
fn with_request<T>(
    r: ex::instructions::LoadRequest,
    f: impl FnOnce(&instructions::Request<'_>) -> crate::Result<T>,
) -> Result<T, wit::Error> {
    let request =
        instructions::Request { cwd: &r.cwd, env: &r.env, touching: &r.touching, add_dirs: &r.add_dirs };
    f(&request).map_err(wit_error)
}

impl ex::instructions::Guest for Component {
    fn load(request: ex::instructions::LoadRequest) -> Result<ex::instructions::Loaded, wit::Error> {
        let loaded = with_request(request, |r| instructions::load(&HostFs, r))?;
        Ok(ex::instructions::Loaded {
            files: loaded.files.into_iter().map(wit_file).collect(),
            switches: wit_switches(loaded.switches),
            location: wit_location(loaded.location),
            diagnostics: loaded.diagnostics,
        })
    }

    fn prompt(
        request: ex::instructions::LoadRequest,
        options: ex::instructions::PromptOptions,
    ) -> Result<String, wit::Error> {
        let options =
            prompt::Options { index_step: options.index_step, ignore_memory: options.ignore_memory };
        let loaded = with_request(request, |r| instructions::load(&HostFs, r))?;
        Ok(prompt::render(&loaded, options))
    }

    fn guidance(memory_dir: String, index_step: bool) -> String {
        prompt::guidance(&memory_dir, index_step)
    }

    fn status(cwd: String, env: Vec<(String, String)>) -> Result<ex::instructions::MemoryStatus, wit::Error> {
        let (switches, location) = instructions::status(&HostFs, &cwd, &env).map_err(wit_error)?;
        Ok(ex::instructions::MemoryStatus {
            switches: wit_switches(switches),
            location: wit_location(location),
        })
    }
}

/// The `session` resource: a core session behind a `RefCell`, as resource methods take `&self`.
struct SessionResource(RefCell<budget::Session>);

impl ex::budget::Guest for Component {
    type Session = SessionResource;

    fn limits() -> ex::budget::BudgetLimits {
        let l = budget::LIMITS;
        ex::budget::BudgetLimits {
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
        }
    }
}

impl ex::budget::GuestSession for SessionResource {
    fn new() -> Self {
        SessionResource(RefCell::new(budget::Session::new()))
    }

    fn from_json(text: String) -> Result<ex::budget::Session, String> {
        let session = budget::Session::from_json(&text)?;
        Ok(ex::budget::Session::new(SessionResource(RefCell::new(session))))
    }

    fn to_json(&self) -> String {
        self.0.borrow().to_json()
    }

    fn begin_turn(&self) {
        self.0.borrow_mut().begin_turn();
    }

    fn can_inject(&self, path: String, bytes: u32) -> bool {
        self.0.borrow().can_inject(&path, bytes)
    }

    fn record_injection(&self, path: String, bytes: u32) {
        self.0.borrow_mut().record_injection(&path, bytes);
    }

    fn surfaced(&self) -> Vec<String> {
        self.0.borrow().surfaced().to_vec()
    }

    fn turn_bytes(&self) -> u32 {
        self.0.borrow().turn_bytes()
    }

    fn session_bytes(&self) -> u32 {
        self.0.borrow().session_bytes()
    }

    fn compact(&self) {
        self.0.borrow_mut().compact();
    }
}

/// Runs `f` on the core's view of a WIT recall input.
fn with_input<T>(i: &ex::recall::RecallInput, f: impl FnOnce(&recall::Input<'_>) -> T) -> T {
    f(&recall::Input {
        memory_dir: &i.memory_dir,
        query: &i.query,
        recent_tools: &i.recent_tools,
        already_read: &i.already_read,
        auto_memory: i.auto_memory,
        ignore_memory: i.ignore_memory,
        now_ms: i.now_ms,
    })
}

fn core_pending(p: ex::recall::Pending) -> recall::Pending {
    recall::Pending {
        request: core_request(p.request),
        candidates: p.candidates.into_iter().map(core_header).collect(),
    }
}

fn core_request(r: ex::recall::ModelRequest) -> recall::ModelRequest {
    recall::ModelRequest {
        system: r.system,
        user: r.user,
        schema: r.schema,
        max_tokens: r.max_tokens,
        tier: r.tier,
    }
}

fn wit_outcome(o: recall::Outcome) -> ex::recall::RecallResult {
    ex::recall::RecallResult {
        selected: o.selected,
        attachments: o
            .attachments
            .into_iter()
            .map(|a| ex::recall::Attachment {
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

impl ex::recall::Guest for Component {
    fn prepare(
        input: ex::recall::RecallInput,
        session: ex::budget::SessionBorrow<'_>,
    ) -> Result<ex::recall::Prepared, wit::Error> {
        let mut session = session.get::<SessionResource>().0.borrow_mut();
        let prepared =
            with_input(&input, |i| recall::prepare(&HostFs, i, &mut session)).map_err(wit_error)?;
        Ok(match prepared {
            Err(skip) => ex::recall::Prepared::Skipped(match skip {
                recall::Skip::SingleWord => ex::recall::SkipReason::SingleWord,
                recall::Skip::Disabled => ex::recall::SkipReason::Disabled,
                recall::Skip::Ignored => ex::recall::SkipReason::Ignored,
                recall::Skip::Budget => ex::recall::SkipReason::Budget,
                recall::Skip::NoMemories => ex::recall::SkipReason::NoMemories,
            }),
            Ok(pending) => ex::recall::Prepared::Ask(ex::recall::Pending {
                request: wit_request(pending.request),
                candidates: pending.candidates.into_iter().map(wit_header).collect(),
            }),
        })
    }

    fn complete(
        input: ex::recall::RecallInput,
        session: ex::budget::SessionBorrow<'_>,
        pending: ex::recall::Pending,
        reply: String,
    ) -> ex::recall::RecallResult {
        let mut session = session.get::<SessionResource>().0.borrow_mut();
        let pending = core_pending(pending);
        wit_outcome(with_input(&input, |i| recall::complete(&HostFs, i, &mut session, &pending, &reply)))
    }

    fn offline(
        input: ex::recall::RecallInput,
        session: ex::budget::SessionBorrow<'_>,
        pending: ex::recall::Pending,
    ) -> ex::recall::RecallResult {
        let mut session = session.get::<SessionResource>().0.borrow_mut();
        let pending = core_pending(pending);
        wit_outcome(with_input(&input, |i| recall::offline(&HostFs, i, &mut session, &pending)))
    }
}

impl ex::writer::Guest for Component {
    fn save(r: ex::writer::SaveRequest) -> Result<ex::writer::SaveReport, wit::Error> {
        let request = writer::SaveRequest {
            memory_dir: &r.memory_dir,
            memory_type: core_type(r.memory_type),
            name: &r.name,
            description: &r.description,
            topic: r.topic.as_deref(),
            body: &r.body,
            now_ms: r.now_ms,
            utc_offset_minutes: r.utc_offset_minutes,
            scope: r.scope.map(|s| match s {
                ex::writer::MemoryScope::Private => writer::Scope::Private,
                ex::writer::MemoryScope::Team => writer::Scope::Team,
            }),
            team_memory: r.team_memory,
        };
        let report = writer::save(&HostFs, &request).map_err(wit_error)?;
        Ok(ex::writer::SaveReport {
            path: report.path,
            created: report.created,
            index_line: report.index_line,
            conversions: report
                .conversions
                .into_iter()
                .map(|c| ex::writer::DateConversion { from: c.from, to: c.to })
                .collect(),
        })
    }

    fn forget(memory_dir: String, path: String) -> Result<ex::writer::ForgetReport, wit::Error> {
        let report = writer::forget(&HostFs, &memory_dir, &path).map_err(wit_error)?;
        Ok(ex::writer::ForgetReport {
            path: report.path,
            index_lines_removed: saturate(report.index_lines_removed),
        })
    }
}

fn core_messages(messages: Vec<ex::extract::Message>) -> Vec<extract::Message> {
    messages.into_iter().map(|m| extract::Message { role: m.role, text: m.text, wrote: m.wrote }).collect()
}

fn wit_request(r: recall::ModelRequest) -> ex::recall::ModelRequest {
    ex::recall::ModelRequest {
        system: r.system,
        user: r.user,
        schema: r.schema,
        max_tokens: r.max_tokens,
        tier: r.tier,
    }
}

/// Runs `f` on the core's view of a WIT extraction input.
fn with_extract_input<T>(i: ex::extract::ExtractInput, f: impl FnOnce(&extract::Input<'_>) -> T) -> T {
    let messages = core_messages(i.messages);
    f(&extract::Input {
        memory_dir: &i.memory_dir,
        messages: &messages,
        cursor: i.cursor as usize,
        written: &i.written,
        main_agent: i.main_agent,
        auto_memory: i.auto_memory,
        now_ms: i.now_ms,
        utc_offset_minutes: i.utc_offset_minutes,
    })
}

impl ex::extract::Guest for Component {
    fn parse_transcript(text: String) -> Result<Vec<ex::extract::Message>, wit::Error> {
        let messages = extract::parse_transcript(&text).map_err(wit::Error::InvalidInput)?;
        Ok(messages
            .into_iter()
            .map(|m| ex::extract::Message { role: m.role, text: m.text, wrote: m.wrote })
            .collect())
    }

    fn begin(input: ex::extract::ExtractInput) -> Result<ex::extract::Begun, wit::Error> {
        let begun = with_extract_input(input, |i| extract::begin(&HostFs, i)).map_err(wit_error)?;
        Ok(match begun {
            Err(skip) => ex::extract::Begun::Skipped(match skip {
                extract::Skip::Subagent => ex::extract::SkipReason::Subagent,
                extract::Skip::Disabled => ex::extract::SkipReason::Disabled,
                extract::Skip::NothingNew => ex::extract::SkipReason::NothingNew,
                extract::Skip::MainAgentWrote => ex::extract::SkipReason::MainAgentWrote,
            }),
            Ok(round) => ex::extract::Begun::Ask(ex::extract::Round {
                request: wit_request(round.request),
                candidates: round.candidates.into_iter().map(wit_header).collect(),
                conversation: round.conversation,
            }),
        })
    }

    fn read_round(
        input: ex::extract::ExtractInput,
        round: ex::extract::Round,
        reply: String,
    ) -> ex::extract::ReadResult {
        let round = extract::Round {
            request: core_request(round.request),
            candidates: round.candidates.into_iter().map(core_header).collect(),
            conversation: round.conversation,
        };
        let (request, read, diagnostics) =
            with_extract_input(input, |i| extract::read_round(&HostFs, i, &round, &reply));
        ex::extract::ReadResult { request: wit_request(request), read, diagnostics }
    }

    fn apply(input: ex::extract::ExtractInput, reply: String) -> ex::extract::ApplyResult {
        let (ops, diagnostics) = with_extract_input(input, |i| extract::apply(&HostFs, i, &reply));
        wit_apply_result(ops, diagnostics)
    }
}

impl ex::daily_log::Guest for Component {
    fn append(
        memory_dir: String,
        text: String,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String, wit::Error> {
        dailylog::append(&HostFs, &memory_dir, &text, now_ms, utc_offset_minutes).map_err(wit_error)
    }

    fn plan(memory_dir: String) -> Result<Vec<ex::daily_log::Chunk>, wit::Error> {
        let chunks = dailylog::plan(&HostFs, &memory_dir).map_err(wit_error)?;
        Ok(chunks
            .into_iter()
            .map(|c| ex::daily_log::Chunk {
                request: wit_request(c.request),
                logs: c
                    .logs
                    .into_iter()
                    .map(|p| ex::daily_log::LogPosition { path: p.path, bytes: p.bytes })
                    .collect(),
            })
            .collect())
    }

    fn apply(
        memory_dir: String,
        now_ms: i64,
        utc_offset_minutes: i32,
        reply: String,
    ) -> ex::extract::ApplyResult {
        let target = extract::Target { memory_dir: &memory_dir, now_ms, utc_offset_minutes };
        let (ops, diagnostics) = extract::apply_operations(&HostFs, &target, &reply, "dream");
        wit_apply_result(ops, diagnostics)
    }

    fn commit(memory_dir: String, logs: Vec<ex::daily_log::LogPosition>) -> Result<(), wit::Error> {
        let logs: Vec<_> =
            logs.into_iter().map(|p| dailylog::LogPosition { path: p.path, bytes: p.bytes }).collect();
        dailylog::commit(&HostFs, &memory_dir, &logs).map_err(wit_error)
    }
}

fn wit_apply_result(ops: Vec<extract::OpReport>, diagnostics: Vec<String>) -> ex::extract::ApplyResult {
    ex::extract::ApplyResult {
        operations: ops
            .into_iter()
            .map(|o| ex::extract::OpReport { op: o.op, path: o.path, rejected: o.rejected })
            .collect(),
        diagnostics,
    }
}

export!(Component);
