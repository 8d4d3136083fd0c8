//! How each export reaches the core, written once in this file for both builds: for the
//! component, the glue (the generated bindings, the `host-fs` import as an [`Fs`], each export
//! with its conversions between core and WIT types); natively, [`call`], the same exports over
//! their JSON form (the harness's native backend, and the call scripts' replay). Adding an
//! export is its WIT, its core function, and here its glue and its line in [`call`], side by side.

// Generated bindings are full of `unsafe` and undocumented items; they stay in this module.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code, missing_docs)]
mod component {

    use crate::base::fs::{DirEntry, EntryKind, FileHead, FileStat, Fs, FsError};
    use crate::base::model::{ModelCall, Reply, Step};
    use crate::context::target::Target;
    use crate::{
        agents::clients, agents::hook, agents::tools, base::model, context::approval, context::instructions,
        context::paths, context::plan, context::policy, context::prompt, context::switches, format::evidence,
        format::freshness, format::index, format::manifest, format::scan, hygiene::check, retrieval::budget,
        retrieval::recall, sync::team, writers::apply, writers::dailylog, writers::dream, writers::extract,
        writers::pause, writers::pending, writers::trash, writers::writer,
    };

    wit_bindgen::generate!({
        path: "wit",
        world: "memory-core",
        // A core type that matches its WIT record field for field is used as it is: no conversion.
        with: {
            "memdir:memory/tools@0.3.0/tool": crate::agents::tools::Tool,
            "memdir:memory/tools@0.3.0/offer": crate::agents::tools::Offer,
            "memdir:memory/types@0.3.0/git-command": crate::base::git::GitCommand,
            "memdir:memory/types@0.3.0/git-output": crate::base::git::GitOutput,
            "memdir:memory/types@0.3.0/git-call": crate::base::git::GitCall,
            "memdir:memory/paths@0.3.0/grant": crate::context::plan::Grant,
            "memdir:memory/hook@0.3.0/client": crate::agents::clients::Client,
            "memdir:memory/hook@0.3.0/hook-event": crate::agents::clients::HookEvent,
            "memdir:memory/hook@0.3.0/payload": crate::agents::clients::Payload,
            "memdir:memory/hook@0.3.0/prompt-event": crate::agents::hook::PromptEvent,
            "memdir:memory/hook@0.3.0/injected": crate::agents::hook::Injected,
            "memdir:memory/hook@0.3.0/start-event": crate::agents::hook::StartEvent,
            "memdir:memory/hook@0.3.0/started": crate::agents::hook::Started,
            "memdir:memory/hook@0.3.0/stop-event": crate::agents::hook::StopEvent,
            "memdir:memory/hook@0.3.0/job": crate::agents::hook::Job,
            "memdir:memory/hook@0.3.0/verdict": crate::writers::gate::Verdict,
            "memdir:memory/hook@0.3.0/learned-event": crate::agents::learning::LearnedEvent,
            "memdir:memory/hook@0.3.0/learning": crate::agents::learning::Learning,
            "memdir:memory/hook@0.3.0/receipt": crate::retrieval::receipts::Receipt,
            "memdir:memory/hook@0.3.0/usage": crate::retrieval::receipts::Usage,
            "memdir:memory/hook@0.3.0/receipts": crate::retrieval::receipts::Receipts,
            "memdir:memory/writer@0.3.0/written": crate::writers::timeline::Written,
            "memdir:memory/tools@0.3.0/tool-answer": crate::agents::calls::ToolAnswer,
            "memdir:memory/team@0.3.0/log-options": crate::sync::history::LogOptions,
            "memdir:memory/team@0.3.0/commit": crate::sync::history::Commit,
        },
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

    fn wit_error(e: crate::base::error::Error) -> wit::Error {
        match e {
            crate::base::error::Error::Fs(e) => wit::Error::Fs(wit_fs_error(e)),
            crate::base::error::Error::InvalidInput(m) => wit::Error::InvalidInput(m),
            crate::base::error::Error::Other(m) => wit::Error::Other(m),
        }
    }

    fn wit_type(t: crate::format::memory_type::MemoryType) -> wit::MemoryType {
        match t {
            crate::format::memory_type::MemoryType::User => wit::MemoryType::User,
            crate::format::memory_type::MemoryType::Feedback => wit::MemoryType::Feedback,
            crate::format::memory_type::MemoryType::Project => wit::MemoryType::Project,
            crate::format::memory_type::MemoryType::Reference => wit::MemoryType::Reference,
        }
    }

    fn core_type(t: wit::MemoryType) -> crate::format::memory_type::MemoryType {
        match t {
            wit::MemoryType::User => crate::format::memory_type::MemoryType::User,
            wit::MemoryType::Feedback => crate::format::memory_type::MemoryType::Feedback,
            wit::MemoryType::Project => crate::format::memory_type::MemoryType::Project,
            wit::MemoryType::Reference => crate::format::memory_type::MemoryType::Reference,
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
            freshness: ex::scan::Freshness {
                days: h.freshness.days,
                text: h.freshness.text,
                stale: h.freshness.stale,
            },
            links: h.links.into_iter().map(|l| ex::scan::MemoryLink { name: l.name, path: l.path }).collect(),
            backlinks: h.backlinks,
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
            freshness: freshness::Freshness {
                days: h.freshness.days,
                text: h.freshness.text,
                stale: h.freshness.stale,
            },
            links: h
                .links
                .into_iter()
                .map(|l| crate::format::links::Link { name: l.name, path: l.path })
                .collect(),
            backlinks: h.backlinks,
        }
    }

    fn wit_index(i: index::LoadedIndex) -> ex::index::LoadedIndex {
        ex::index::LoadedIndex {
            text: i.text,
            truncated: i.truncated.map(|t| match t {
                index::Truncation::Lines => ex::index::Truncation::Lines,
                index::Truncation::Size => ex::index::Truncation::Size,
                index::Truncation::LinesAndSize => ex::index::Truncation::LinesAndSize,
            }),
            lines: saturate(i.lines),
            bytes: saturate(i.bytes),
            chars: saturate(i.chars),
            dropped_entries: saturate(i.dropped_entries),
            warning: i.warning,
            diagnostics: i.diagnostics,
        }
    }

    fn saturate(n: usize) -> u32 {
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// A model workflow's step as its WIT variant (recall, extraction, the dream, the prompt
    /// hook): the model call to make, the texts to embed (only where the variant has `embed`),
    /// or the result through `$done`. The four variants are one shape; this is their one glue.
    macro_rules! model_step {
        ($variant:ty, $step:expr, $done:expr) => {
            match $step {
                Step::Ask(call) => <$variant>::Ask(wit_call(call)),
                Step::Embed(_) => unreachable!("only recall and the prompt hook ask for vectors"),
                Step::Done(r) => <$variant>::Done($done(r)),
            }
        };
        ($variant:ty, $step:expr, $done:expr, embeds) => {
            match $step {
                Step::Ask(call) => <$variant>::Ask(wit_call(call)),
                Step::Embed(c) => {
                    <$variant>::Embed(ex::model::EmbedCall { texts: c.texts, state: c.state, call: c.call })
                }
                Step::Done(r) => <$variant>::Done($done(r)),
            }
        };
    }

    /// A git workflow's step as its WIT variant (check, team sync): the command to run, or the
    /// result through `$done`.
    macro_rules! git_step {
        ($variant:ty, $step:expr, $done:expr) => {
            match $step {
                crate::base::git::GitStep::Run(call) => <$variant>::Run(call),
                crate::base::git::GitStep::Done(r) => <$variant>::Done($done(r)),
            }
        };
    }

    /// The exported component.
    struct Component;

    impl ex::scan::Guest for Component {
        fn scan(dir: String, now_ms: i64) -> Result<ex::scan::ScanReport, wit::Error> {
            let report = scan::scan(&HostFs, &dir, now_ms).map_err(wit_error)?;
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

        fn of_dir(dir: String, now_ms: i64) -> Result<String, wit::Error> {
            manifest::of_dir(&HostFs, &dir, now_ms).map_err(wit_error)
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

        fn project_of(slug: String) -> Option<String> {
            paths::project_of(&HostFs, &slug)
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

        fn plan(operation: ex::paths::Operation, target: wit::Target) -> Result<plan::Grant, wit::Error> {
            use ex::paths::Operation as W;
            let operation = match operation {
                W::Read => plan::Operation::Read,
                W::Recall => plan::Operation::Recall,
                W::Write => plan::Operation::Write,
                W::WriteShared => plan::Operation::WriteShared,
                W::Hook => plan::Operation::Hook,
                W::Check => plan::Operation::Check,
                W::ApproveExternal => plan::Operation::ApproveExternal,
            };
            plan::plan(&HostFs, operation, &core_target(target)).map_err(wit_error)
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
            memory_dir_setting: loc.memory_dir_setting,
            user_memory_dir: loc.user_memory_dir,
            group: loc.group.map(|g| ex::paths::MemoryGroup { name: g.name, dir: g.dir }),
        }
    }

    fn wit_scope(scope: writer::Scope) -> ex::writer::MemoryScope {
        use ex::writer::MemoryScope as W;
        match scope {
            writer::Scope::Private => W::Private,
            writer::Scope::Team => W::Team,
            writer::Scope::User => W::User,
            writer::Scope::Group => W::Group,
        }
    }

    fn core_scope(scope: ex::writer::MemoryScope) -> writer::Scope {
        use ex::writer::MemoryScope as W;
        match scope {
            W::Private => writer::Scope::Private,
            W::Team => writer::Scope::Team,
            W::User => writer::Scope::User,
            W::Group => writer::Scope::Group,
        }
    }

    fn wit_switches(s: switches::Switches) -> ex::instructions::Switches {
        ex::instructions::Switches {
            instructions: s.instructions,
            bare: s.bare,
            auto_memory: s.auto_memory,
            decided_by: match s.decided_by {
                switches::DecidedBy::Env => ex::instructions::DecidedBy::Env,
                switches::DecidedBy::Bare => ex::instructions::DecidedBy::Bare,
                switches::DecidedBy::Remote => ex::instructions::DecidedBy::Remote,
                switches::DecidedBy::Settings(path) => ex::instructions::DecidedBy::Settings(path),
                switches::DecidedBy::Default => ex::instructions::DecidedBy::Default,
            },
            team_memory: s.team_memory,
            daily_log: s.daily_log,
            team_sync: match s.team_sync {
                switches::TeamSync::Off => ex::instructions::TeamSync::Off,
                switches::TeamSync::Manual => ex::instructions::TeamSync::Manual,
                switches::TeamSync::Auto => ex::instructions::TeamSync::Auto,
            },
            recall_shortlist: s.recall_shortlist,
            memory_writes: s.memory_writes.0.into_iter().map(wit_type_policy).collect(),
            diagnostics: s.diagnostics,
        }
    }

    fn wit_type_policy(p: policy::TypePolicy) -> ex::instructions::TypePolicy {
        use ex::instructions::WriteMode as W;
        ex::instructions::TypePolicy {
            memory_type: wit_type(p.memory_type),
            mode: match p.mode {
                policy::WriteMode::Auto => W::Auto,
                policy::WriteMode::Review => W::Review,
                policy::WriteMode::Off => W::Off,
            },
            decided_by: p.decided_by,
        }
    }

    fn wit_proposal(p: pending::Proposal) -> ex::writer::Proposal {
        ex::writer::Proposal {
            id: p.id,
            created_ms: p.created_ms,
            source: p.source,
            batch: p.batch,
            batch_summary: p.batch_summary,
            op: p.op,
            path: p.path,
            memory_type: p.memory_type.map(wit_type),
            name: p.name,
            description: p.description,
            body: p.body,
            current: p.current,
        }
    }

    fn wit_file(f: instructions::InstructionFile) -> ex::instructions::InstructionFile {
        use ex::instructions::FileType as W;
        use instructions::FileType as C;
        ex::instructions::InstructionFile {
            file_type: match f.file_type {
                C::Managed => W::Managed,
                C::User => W::User,
                C::Project => W::Project,
                C::Local => W::Local,
                C::AutoMem => W::AutoMem,
                C::TeamMem => W::TeamMem,
                C::UserMem => W::UserMem,
                C::GroupMem => W::GroupMem,
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

    fn core_file(f: ex::instructions::InstructionFile) -> instructions::InstructionFile {
        use ex::instructions::FileType as W;
        use instructions::FileType as C;
        instructions::InstructionFile {
            file_type: match f.file_type {
                W::Managed => C::Managed,
                W::User => C::User,
                W::Project => C::Project,
                W::Local => C::Local,
                W::AutoMem => C::AutoMem,
                W::TeamMem => C::TeamMem,
                W::UserMem => C::UserMem,
                W::GroupMem => C::GroupMem,
            },
            path: f.path,
            content: f.content,
            chars: f.chars as usize,
            truncated: f.truncated,
            imports: f.imports,
            imported_by: f.imported_by,
            diagnostics: f.diagnostics,
        }
    }

    /// Runs `f` on the core's view of a WIT load request.
    fn with_request<T>(
        r: ex::instructions::LoadRequest,
        f: impl FnOnce(&instructions::Request<'_>) -> crate::base::error::Result<T>,
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
            let options = prompt::Options {
                index_step: options.index_step,
                ignore_memory: options.ignore_memory,
                instruction_files: options.instruction_files,
            };
            let loaded = with_request(request, |r| instructions::load(&HostFs, r))?;
            Ok(prompt::render(&loaded, options))
        }

        fn render_file(file: ex::instructions::InstructionFile) -> String {
            prompt::render_file(&core_file(file))
        }

        fn guidance(memory_dir: String, index_step: bool) -> String {
            prompt::guidance(&memory_dir, index_step)
        }

        fn approve_external(cwd: String, env: Vec<(String, String)>) -> Result<String, wit::Error> {
            approval::approve(&HostFs, &cwd, &env).map_err(wit_error)
        }

        fn status(
            cwd: String,
            env: Vec<(String, String)>,
        ) -> Result<ex::instructions::MemoryStatus, wit::Error> {
            let (switches, location) = instructions::status(&HostFs, &cwd, &env).map_err(wit_error)?;
            Ok(ex::instructions::MemoryStatus {
                switches: wit_switches(switches),
                location: wit_location(location),
            })
        }
    }

    impl ex::budget::Guest for Component {
        fn limits() -> ex::budget::BudgetLimits {
            let l = budget::LIMITS;
            ex::budget::BudgetLimits {
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
            }
        }

        fn session_totals(session: String) -> Result<ex::budget::Totals, wit::Error> {
            let t = budget::totals(&session).map_err(wit_error)?;
            Ok(ex::budget::Totals {
                surfaced: t.surfaced,
                turn_bytes: t.turn_bytes,
                session_bytes: t.session_bytes,
            })
        }
    }

    fn core_target(t: wit::Target) -> Target {
        Target { cwd: t.cwd, env: t.env, memory_dir: t.memory_dir, by: t.by }
    }

    fn core_reply(r: ex::model::ModelReply) -> Reply {
        match r {
            ex::model::ModelReply::Text(text) => Reply::Text(text),
            ex::model::ModelReply::Failed(why) => Reply::Failed(why),
            ex::model::ModelReply::Vectors(vectors) => Reply::Vectors(vectors),
        }
    }

    fn wit_call(c: ModelCall) -> ex::model::ModelCall {
        let r = c.request;
        ex::model::ModelCall {
            request: ex::model::ModelRequest {
                system: r.system,
                user: r.user,
                schema: r.schema,
                max_tokens: r.max_tokens,
                tier: match r.tier {
                    model::Tier::Small => ex::model::Tier::Small,
                },
            },
            state: c.state,
            call: c.call,
            calls: c.calls,
        }
    }

    impl ex::recall::Guest for Component {
        fn start(input: ex::recall::RecallInput) -> Result<ex::recall::RecallStep, wit::Error> {
            let input = recall::Input {
                target: core_target(input.target),
                query: input.query,
                recent_tools: input.recent_tools,
                already_read: input.already_read,
                ignore_memory: input.ignore_memory,
                now_ms: input.now_ms,
                session: input.session,
                offline: input.offline,
                embeddings: input.embeddings,
            };
            recall::start(&HostFs, &input).map(wit_recall_step).map_err(wit_error)
        }

        fn resume(state: String, reply: ex::model::ModelReply) -> Result<ex::recall::RecallStep, wit::Error> {
            recall::resume(&HostFs, &state, core_reply(reply)).map(wit_recall_step).map_err(wit_error)
        }
    }

    fn wit_recall_step(step: Step<recall::RecallResult>) -> ex::recall::RecallStep {
        model_step!(ex::recall::RecallStep, step, wit_recall_result, embeds)
    }

    fn wit_recall_result(r: recall::RecallResult) -> ex::recall::RecallResult {
        use ex::recall::SkipReason as W;
        ex::recall::RecallResult {
            skipped: r.skipped.map(|s| match s {
                recall::Skip::SingleWord => W::SingleWord,
                recall::Skip::Disabled => W::Disabled,
                recall::Skip::Ignored => W::Ignored,
                recall::Skip::Budget => W::Budget,
                recall::Skip::NoMemories => W::NoMemories,
            }),
            selector: match r.selector {
                recall::Selector::Model => ex::recall::Selector::Model,
                recall::Selector::Offline => ex::recall::Selector::Offline,
            },
            selected: r.selected,
            attachments: r
                .attachments
                .into_iter()
                .map(|a| ex::recall::Attachment {
                    path: a.path,
                    scope: wit_scope(a.scope),
                    whole: a.whole,
                    freshness: a.freshness,
                    stale: a.stale,
                    bytes: a.bytes,
                    truncated: a.truncated,
                    text: a.text,
                    matched: a.matched,
                })
                .collect(),
            diagnostics: r.diagnostics,
            session: r.session,
            turn_bytes: r.turn_bytes,
            session_bytes: r.session_bytes,
        }
    }

    impl ex::check::Guest for Component {
        fn fix(target: wit::Target, now_ms: i64) -> Result<Vec<String>, wit::Error> {
            check::fix(&HostFs, &core_target(target), now_ms).map_err(wit_error)
        }

        fn propose_retiring(target: wit::Target, now_ms: i64) -> Result<Vec<String>, wit::Error> {
            check::propose_retiring(&HostFs, &core_target(target), now_ms).map_err(wit_error)
        }

        fn start(target: wit::Target, now_ms: i64) -> Result<ex::check::CheckStep, wit::Error> {
            check::start(&HostFs, &core_target(target), now_ms).map(check_step).map_err(wit_error)
        }

        fn resume(
            state: String,
            output: crate::base::git::GitOutput,
        ) -> Result<ex::check::CheckStep, wit::Error> {
            check::resume(&HostFs, &state, output).map(check_step).map_err(wit_error)
        }
    }

    fn check_step(step: check::CheckStep) -> ex::check::CheckStep {
        git_step!(ex::check::CheckStep, step, wit_check_report)
    }

    fn wit_check_report(report: check::CheckReport) -> ex::check::CheckReport {
        use ex::check as c;
        c::CheckReport {
            memory_dir: report.memory_dir,
            memories: report.memories,
            findings: report
                .findings
                .into_iter()
                .map(|f| c::Finding {
                    kind: wit_finding_kind(f.kind),
                    severity: match f.severity {
                        check::Severity::Error => c::Severity::Error,
                        check::Severity::Warning => c::Severity::Warning,
                        check::Severity::Note => c::Severity::Note,
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
                .map(|e| c::MemoryEvidence {
                    path: e.path,
                    verdict: match e.verdict {
                        evidence::Verdict::Verified => c::Verdict::Verified,
                        evidence::Verdict::Changed => c::Verdict::Changed,
                        evidence::Verdict::Missing => c::Verdict::Missing,
                        evidence::Verdict::Unchecked => c::Verdict::Unchecked,
                    },
                    citations: e
                        .citations
                        .into_iter()
                        .map(|x| c::Citation {
                            kind: match x.kind {
                                evidence::ClaimKind::Path => c::ClaimKind::Path,
                                evidence::ClaimKind::MakeTarget => c::ClaimKind::MakeTarget,
                                evidence::ClaimKind::Flag => c::ClaimKind::Flag,
                                evidence::ClaimKind::Symbol => c::ClaimKind::Symbol,
                            },
                            text: x.text,
                            status: match x.status {
                                evidence::Status::Found => c::CitationStatus::Found,
                                evidence::Status::Changed => c::CitationStatus::Changed,
                                evidence::Status::Missing => c::CitationStatus::Missing,
                                evidence::Status::Unchecked => c::CitationStatus::Unchecked,
                            },
                            detail: x.detail,
                        })
                        .collect(),
                })
                .collect(),
            text: report.text,
        }
    }

    fn wit_finding_kind(kind: check::FindingKind) -> ex::check::FindingKind {
        use check::FindingKind as F;
        use ex::check::FindingKind as K;
        match kind {
            F::DanglingIndexLine => K::DanglingIndexLine,
            F::DuplicateIndexLine => K::DuplicateIndexLine,
            F::NotInIndex => K::NotInIndex,
            F::MissingIndex => K::MissingIndex,
            F::IndexOverLimit => K::IndexOverLimit,
            F::Frontmatter => K::Frontmatter,
            F::JournalSetAside => K::JournalSetAside,
            F::SecretAtRest => K::SecretAtRest,
            F::MissingCitation => K::MissingCitation,
            F::ChangedCitation => K::ChangedCitation,
            F::NearDuplicate => K::NearDuplicate,
            F::Contradiction => K::Contradiction,
            F::LinkNotWrittenYet => K::LinkNotWrittenYet,
            F::SyncConflict => K::SyncConflict,
            F::PastDates => K::PastDates,
            F::Unused => K::Unused,
        }
    }

    impl ex::writer::Guest for Component {
        fn save(request: ex::writer::SaveRequest) -> Result<ex::writer::SaveReport, wit::Error> {
            let target = core_target(request.target);
            let save = writer::Save {
                target: &target,
                memory: writer::Memory {
                    memory_type: core_type(request.memory_type),
                    name: &request.name,
                    description: &request.description,
                    file: request.file.as_deref(),
                    replaces: request.replaces.as_deref(),
                    body: &request.body,
                    now_ms: request.now_ms,
                    utc_offset_minutes: request.utc_offset_minutes,
                    scope: request.scope.map(core_scope),
                },
            };
            let report = writer::save(&HostFs, &save).map_err(wit_error)?;
            Ok(ex::writer::SaveReport {
                path: report.path,
                created: report.created,
                index_line: report.index_line,
                conversions: report
                    .conversions
                    .into_iter()
                    .map(|c| ex::writer::DateConversion { from: c.from, to: c.to })
                    .collect(),
                renamed_from: report.renamed_from,
                links_rewritten: report.links_rewritten,
                replaced: report.replaced,
                summary: report.summary,
            })
        }

        fn rebuild_index(
            target: wit::Target,
            now_ms: i64,
        ) -> Result<Option<ex::writer::Rebuilt>, wit::Error> {
            let rebuilt = writer::rebuild_index(&HostFs, &core_target(target), now_ms).map_err(wit_error)?;
            Ok(rebuilt.map(|r| ex::writer::Rebuilt { path: r.path, entries: r.entries }))
        }

        fn trash(target: wit::Target) -> Result<Vec<ex::writer::Trashed>, wit::Error> {
            let items = trash::list_for(&HostFs, &core_target(target)).map_err(wit_error)?;
            Ok(items.into_iter().map(wit_trashed).collect())
        }

        fn timeline(
            target: wit::Target,
            path: Option<String>,
            limit: u32,
        ) -> Result<Vec<crate::writers::timeline::Written>, wit::Error> {
            crate::writers::timeline::of_target(&HostFs, &core_target(target), path.as_deref(), limit)
                .map_err(wit_error)
        }

        fn pending(target: wit::Target) -> Result<Vec<ex::writer::Proposal>, wit::Error> {
            let items = pending::list_for(&HostFs, &core_target(target)).map_err(wit_error)?;
            Ok(items.into_iter().map(wit_proposal).collect())
        }

        fn accept(
            target: wit::Target,
            id: String,
            now_ms: i64,
            utc_offset_minutes: i32,
        ) -> Result<Vec<ex::writer::Proposal>, wit::Error> {
            let accepted = apply::accept_for(&HostFs, &core_target(target), &id, now_ms, utc_offset_minutes);
            Ok(accepted.map_err(wit_error)?.into_iter().map(wit_proposal).collect())
        }

        fn reject(target: wit::Target, id: String) -> Result<Vec<ex::writer::Proposal>, wit::Error> {
            let gone = pending::reject_for(&HostFs, &core_target(target), &id).map_err(wit_error)?;
            Ok(gone.into_iter().map(wit_proposal).collect())
        }

        fn pause(
            target: wit::Target,
            now_ms: i64,
            until_ms: Option<i64>,
        ) -> Result<ex::writer::PauseState, wit::Error> {
            pause::pause_for(&HostFs, &core_target(target), now_ms, until_ms)
                .map(wit_pause)
                .map_err(wit_error)
        }

        fn resume(target: wit::Target, now_ms: i64) -> Result<bool, wit::Error> {
            pause::resume_for(&HostFs, &core_target(target), now_ms).map_err(wit_error)
        }

        fn paused(target: wit::Target, now_ms: i64) -> Result<Option<ex::writer::PauseState>, wit::Error> {
            Ok(pause::state_for(&HostFs, &core_target(target), now_ms).map_err(wit_error)?.map(wit_pause))
        }

        fn restore(target: wit::Target, id: String, now_ms: i64) -> Result<ex::writer::Trashed, wit::Error> {
            trash::restore_for(&HostFs, &core_target(target), &id, now_ms).map(wit_trashed).map_err(wit_error)
        }

        fn forget(
            target: wit::Target,
            path: String,
            now_ms: i64,
        ) -> Result<ex::writer::ForgetReport, wit::Error> {
            let report = writer::forget(&HostFs, &core_target(target), &path, now_ms).map_err(wit_error)?;
            Ok(ex::writer::ForgetReport {
                path: report.path,
                index_lines_removed: saturate(report.index_lines_removed),
            })
        }
    }

    fn wit_pause(p: pause::Pause) -> ex::writer::PauseState {
        ex::writer::PauseState { since_ms: p.since_ms, until_ms: p.until_ms }
    }

    fn wit_trashed(t: trash::Trashed) -> ex::writer::Trashed {
        ex::writer::Trashed { id: t.id, path: t.path, trashed_ms: t.trashed_ms }
    }

    fn wit_op(o: apply::OpReport) -> ex::extract::OpReport {
        use ex::extract::Op as W;
        let op = match o.op {
            apply::Op::Create => W::Create,
            apply::Op::Update => W::Update,
            apply::Op::Delete => W::Delete,
            apply::Op::Other(name) => W::Other(name),
        };
        ex::extract::OpReport { op, path: o.path, rejected: o.rejected, proposed: o.proposed }
    }

    fn wit_role(r: extract::Role) -> ex::extract::Role {
        match r {
            extract::Role::User => ex::extract::Role::User,
            extract::Role::Assistant => ex::extract::Role::Assistant,
            extract::Role::Tool => ex::extract::Role::Tool,
        }
    }

    fn core_role(r: ex::extract::Role) -> extract::Role {
        match r {
            ex::extract::Role::User => extract::Role::User,
            ex::extract::Role::Assistant => extract::Role::Assistant,
            ex::extract::Role::Tool => extract::Role::Tool,
        }
    }

    impl ex::extract::Guest for Component {
        fn parse_transcript(text: String) -> Result<Vec<ex::extract::Message>, wit::Error> {
            let messages = extract::parse_transcript(&text).map_err(wit::Error::InvalidInput)?;
            Ok(messages
                .into_iter()
                .map(|m| ex::extract::Message { role: wit_role(m.role), text: m.text, wrote: m.wrote })
                .collect())
        }

        fn start(input: ex::extract::ExtractInput) -> Result<ex::extract::ExtractStep, wit::Error> {
            let input = extract::Input {
                target: core_target(input.target),
                messages: input
                    .messages
                    .into_iter()
                    .map(|m| extract::Message { role: core_role(m.role), text: m.text, wrote: m.wrote })
                    .collect(),
                conversation: input.conversation,
                written: input.written,
                main_agent: input.main_agent,
                now_ms: input.now_ms,
                utc_offset_minutes: input.utc_offset_minutes,
            };
            extract::start(&HostFs, &input).map(wit_extract_step).map_err(wit_error)
        }

        fn resume(
            state: String,
            reply: ex::model::ModelReply,
        ) -> Result<ex::extract::ExtractStep, wit::Error> {
            extract::resume(&HostFs, &state, core_reply(reply)).map(wit_extract_step).map_err(wit_error)
        }
    }

    fn wit_extract_step(step: Step<extract::ExtractResult>) -> ex::extract::ExtractStep {
        model_step!(ex::extract::ExtractStep, step, wit_extract_result)
    }

    fn wit_extract_result(r: extract::ExtractResult) -> ex::extract::ExtractResult {
        use ex::extract::SkipReason as W;
        ex::extract::ExtractResult {
            skipped: r.skipped.map(|s| match s {
                extract::Skip::Subagent => W::Subagent,
                extract::Skip::Disabled => W::Disabled,
                extract::Skip::NothingNew => W::NothingNew,
                extract::Skip::MainAgentWrote => W::MainAgentWrote,
                extract::Skip::Paused => W::Paused,
            }),
            cursor: r.cursor,
            read: r.read,
            operations: r.operations.into_iter().map(wit_op).collect(),
            diagnostics: r.diagnostics,
        }
    }

    impl ex::daily_log::Guest for Component {
        fn append(
            target: wit::Target,
            text: String,
            now_ms: i64,
            utc_offset_minutes: i32,
        ) -> Result<String, wit::Error> {
            dailylog::append_to(&HostFs, &core_target(target), &text, now_ms, utc_offset_minutes)
                .map_err(wit_error)
        }
    }

    impl ex::dream::Guest for Component {
        fn start(input: ex::dream::DreamInput) -> Result<ex::dream::DreamStep, wit::Error> {
            let input = dream::Input {
                target: core_target(input.target),
                now_ms: input.now_ms,
                utc_offset_minutes: input.utc_offset_minutes,
            };
            dream::start(&HostFs, &input).map(wit_dream_step).map_err(wit_error)
        }

        fn resume(state: String, reply: ex::model::ModelReply) -> Result<ex::dream::DreamStep, wit::Error> {
            dream::resume(&HostFs, &state, core_reply(reply)).map(wit_dream_step).map_err(wit_error)
        }
    }

    fn wit_dream_step(step: Step<dream::DreamResult>) -> ex::dream::DreamStep {
        model_step!(ex::dream::DreamStep, step, |r: dream::DreamResult| ex::dream::DreamResult {
            chunks: r.chunks,
            committed: r.committed,
            operations: r.operations.into_iter().map(wit_op).collect(),
            diagnostics: r.diagnostics,
        })
    }

    export!(Component);

    impl ex::hook::Guest for Component {
        fn recall_context(
            session: String,
            attachments: Vec<ex::recall::Attachment>,
            cap_bytes: Option<u32>,
        ) -> Result<ex::hook::HookRecall, wit::Error> {
            let attachments: Vec<recall::Attachment> = attachments
                .into_iter()
                .map(|a| recall::Attachment {
                    path: a.path,
                    scope: core_scope(a.scope),
                    whole: a.whole,
                    freshness: a.freshness,
                    stale: a.stale,
                    bytes: a.bytes,
                    truncated: a.truncated,
                    text: a.text,
                    matched: a.matched,
                })
                .collect();
            let got = hook::recall_context(&session, &attachments, hook_cap(cap_bytes)).map_err(wit_error)?;
            Ok(ex::hook::HookRecall { text: got.text, session: got.session })
        }

        fn fit(text: String, cap_bytes: Option<u32>) -> String {
            hook::fit(&text, hook_cap(cap_bytes))
        }

        fn session_name(client: String, session: Option<String>) -> String {
            hook::session_name(&client, session.as_deref())
        }

        fn read(named: clients::Client, payload: String) -> Result<clients::Payload, wit::Error> {
            clients::read(named, &payload).map_err(wit_error)
        }

        fn answer(client: clients::Client, event: clients::HookEvent, context: Option<String>) -> String {
            clients::answer(client, event, context.as_deref())
        }

        fn prompt(event: hook::PromptEvent) -> Result<ex::hook::PromptStep, wit::Error> {
            hook::prompt(&HostFs, &event).map(wit_prompt_step).map_err(wit_error)
        }

        fn resume(state: String, reply: ex::model::ModelReply) -> Result<ex::hook::PromptStep, wit::Error> {
            hook::resume(&HostFs, &state, core_reply(reply)).map(wit_prompt_step).map_err(wit_error)
        }

        fn session_start(event: hook::StartEvent) -> Result<hook::Started, wit::Error> {
            hook::session_start(&HostFs, &event).map_err(wit_error)
        }

        fn stop(event: hook::StopEvent) -> Result<Option<String>, wit::Error> {
            hook::stop(&HostFs, &event).map_err(wit_error)
        }

        fn take_job(path: String) -> Result<hook::Job, wit::Error> {
            hook::take_job(&HostFs, &path).map_err(wit_error)
        }

        fn written_since(
            cwd: String,
            env: Vec<(String, String)>,
            since_ms: i64,
        ) -> Result<Vec<String>, wit::Error> {
            hook::written_since(&HostFs, &cwd, &env, since_ms).map_err(wit_error)
        }

        fn judge_turn(messages: Vec<String>) -> crate::writers::gate::Verdict {
            crate::writers::gate::judge(&messages)
        }

        fn learned(event: crate::agents::learning::LearnedEvent) -> Result<bool, wit::Error> {
            crate::agents::learning::learned(&HostFs, &event).map_err(wit_error)
        }

        fn list_receipts(
            target: wit::Target,
            limit: u32,
        ) -> Result<crate::retrieval::receipts::Receipts, wit::Error> {
            crate::retrieval::receipts::of_target(&HostFs, &core_target(target), limit).map_err(wit_error)
        }

        fn record_receipt(
            target: wit::Target,
            receipt: crate::retrieval::receipts::Receipt,
        ) -> Result<bool, wit::Error> {
            crate::retrieval::receipts::record_for(&HostFs, &core_target(target), &receipt).map_err(wit_error)
        }

        fn learning_summary(
            cwd: String,
            env: Vec<(String, String)>,
            now_ms: i64,
        ) -> Result<crate::agents::learning::Learning, wit::Error> {
            crate::agents::learning::summary(&HostFs, &cwd, &env, now_ms).map_err(wit_error)
        }

        fn reset(
            client: String,
            session: Option<String>,
            cwd: String,
            env: Vec<(String, String)>,
        ) -> Result<bool, wit::Error> {
            hook::reset(&HostFs, &client, session.as_deref(), &cwd, &env).map_err(wit_error)
        }
    }

    // The contract's enums, lifted as wit-bindgen lifts its own: the WIT cases are declared in
    // the order of `ALL`, which the native table's names test checks against the WIT.
    impl clients::Client {
        #[doc(hidden)]
        pub unsafe fn _lift(val: u8) -> clients::Client {
            Self::ALL[usize::from(val)]
        }
    }

    impl clients::HookEvent {
        #[doc(hidden)]
        pub unsafe fn _lift(val: u8) -> clients::HookEvent {
            Self::ALL[usize::from(val)]
        }
    }

    fn wit_prompt_step(step: Step<hook::Injected>) -> ex::hook::PromptStep {
        model_step!(ex::hook::PromptStep, step, std::convert::identity, embeds)
    }

    fn hook_cap(cap_bytes: Option<u32>) -> usize {
        cap_bytes.map_or(hook::COMMON_CAP, |c| c as usize)
    }

    impl ex::team::Guest for Component {
        fn auto_sync() -> ex::team::AutoSyncSchedule {
            let team::AutoSync { session_interval_ms, write_delay_ms } = team::AUTO_SYNC;
            ex::team::AutoSyncSchedule { session_interval_ms, write_delay_ms }
        }

        fn start(input: ex::team::TeamInput) -> Result<ex::team::TeamStep, wit::Error> {
            use ex::team as t;
            let action = match input.action {
                t::Action::Init(o) => team::Action::Init(team::InitOptions {
                    remote: o.remote,
                    branch: o.branch,
                    merge_driver: o.merge_driver,
                }),
                t::Action::Sync => team::Action::Sync,
                t::Action::Status => team::Action::Status,
                t::Action::Log(o) => team::Action::Log(o),
            };
            let input = team::Input {
                target: core_target(input.target),
                which: match input.which {
                    t::Which::Team => team::Which::Team,
                    t::Which::Private => team::Which::Private,
                },
                action,
                now_ms: input.now_ms,
                host_name: input.host_name,
                min_interval_ms: input.min_interval_ms,
            };
            team::start(&HostFs, input).map(team_step).map_err(wit_error)
        }

        fn resume(
            state: String,
            output: crate::base::git::GitOutput,
        ) -> Result<ex::team::TeamStep, wit::Error> {
            team::resume(&HostFs, &state, output).map(team_step).map_err(wit_error)
        }

        fn merge_index(base: String, ours: String, theirs: String) -> String {
            index::merge(&base, &ours, &theirs)
        }
    }

    fn team_step(step: team::TeamStep) -> ex::team::TeamStep {
        git_step!(ex::team::TeamStep, step, wit_team_report)
    }

    fn wit_team_report(r: team::Report) -> ex::team::TeamReport {
        use ex::team as t;
        t::TeamReport {
            dir: r.dir,
            remote: r.remote,
            branch: r.branch,
            skipped: r.skipped.map(|s| match s {
                team::Skip::SyncedRecently(ago_ms) => t::SkipReason::SyncedRecently(ago_ms),
            }),
            committed: r.committed,
            added: r.added,
            changed: r.changed,
            removed: r.removed,
            received: r.received,
            conflicts: r
                .conflicts
                .into_iter()
                .map(|c| t::Conflict { path: c.path, kept_as: c.kept_as, message: c.message })
                .collect(),
            pushed: r.pushed,
            ahead: r.ahead,
            behind: r.behind,
            dirty: r.dirty,
            last_sync_ms: r.last_sync_ms,
            history: r.history,
            text: r.text,
        }
    }

    impl ex::tools::Guest for Component {
        fn catalog() -> Vec<tools::Tool> {
            tools::catalog()
        }

        fn offered(cwd: String, env: Vec<(String, String)>, all: bool) -> Result<tools::Offer, wit::Error> {
            let (switches, _) = instructions::status(&HostFs, &cwd, &env).map_err(wit_error)?;
            Ok(tools::offer(&switches, all))
        }

        fn operation_of(name: String) -> Option<ex::paths::Operation> {
            use ex::paths::Operation as W;
            crate::agents::calls::operation_of(&name).map(|o| match o {
                plan::Operation::Read => W::Read,
                plan::Operation::Recall => W::Recall,
                plan::Operation::Write => W::Write,
                plan::Operation::WriteShared => W::WriteShared,
                plan::Operation::Hook => W::Hook,
                plan::Operation::Check => W::Check,
                plan::Operation::ApproveExternal => W::ApproveExternal,
            })
        }

        fn call(call: ex::tools::ToolCall) -> Result<ex::tools::ToolStep, wit::Error> {
            let call = crate::agents::calls::ToolCall {
                name: call.name,
                args: call.args,
                target: core_target(call.target),
                now_ms: call.now_ms,
                utc_offset_minutes: call.utc_offset_minutes,
                session: call.session,
                model: call.model,
                embeddings: call.embeddings,
                given_to: call.given_to,
                notes: call.notes,
                host_name: call.host_name,
            };
            crate::agents::calls::call(&HostFs, &call).map(wit_tool_step).map_err(wit_error)
        }

        fn resume(state: String, reply: ex::model::ModelReply) -> Result<ex::tools::ToolStep, wit::Error> {
            crate::agents::calls::resume(&HostFs, &state, core_reply(reply))
                .map(wit_tool_step)
                .map_err(wit_error)
        }

        fn resume_git(
            state: String,
            output: crate::base::git::GitOutput,
        ) -> Result<ex::tools::ToolStep, wit::Error> {
            crate::agents::calls::resume_git(&HostFs, &state, output).map(wit_tool_step).map_err(wit_error)
        }
    }

    fn wit_tool_step(step: crate::agents::calls::ToolStep) -> ex::tools::ToolStep {
        use crate::agents::calls::ToolStep as S;
        use ex::tools::ToolStep as W;
        match step {
            S::Ask(call) => W::Ask(wit_call(call)),
            S::Embed(c) => W::Embed(ex::model::EmbedCall { texts: c.texts, state: c.state, call: c.call }),
            S::Run(call) => W::Run(call),
            S::Done(answer) => W::Done(answer),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use table::call;

// The native side: each export over its JSON form.
#[cfg(not(target_arch = "wasm32"))]
mod table {
    use crate::context::instructions::Request;
    use crate::context::prompt::Options;
    use crate::context::target::Target;
    use crate::format::scan::MemoryHeader;
    use crate::retrieval::budget::LIMITS;
    use crate::retrieval::recall::Attachment;
    use crate::writers::writer::{Memory, Save, Scope};
    use crate::{
        agents::hook, base::fs::Fs, context::instructions, context::paths, context::prompt, format::index,
        format::manifest, format::memory_type::MemoryType, format::scan, retrieval::budget,
        retrieval::recall, sync::team, writers::apply, writers::dailylog, writers::dream, writers::extract,
        writers::pause, writers::pending, writers::trash, writers::writer,
    };
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use serde_json::{Value, json};

    /// Calls an exported function on the native core, arguments and result in the JSON form of
    /// the harness's call scripts. Fails (with a message) only when the call itself is malformed,
    /// as the component refuses it: an unknown function, arguments that do not fit its
    /// parameters, or more arguments than it takes.
    pub fn call(fs: &dyn Fs, func: &str, args: &[Value]) -> std::result::Result<Value, String> {
        // How many arguments the export read: the rest were too many.
        let read = std::cell::Cell::new(0);
        let arg = |i: usize| {
            read.set(read.get().max(i + 1));
            args.get(i).cloned().ok_or_else(|| format!("{func}: argument {i} is missing"))
        };
        fn de<T: DeserializeOwned>(
            func: &str,
            v: std::result::Result<Value, String>,
        ) -> std::result::Result<T, String> {
            serde_json::from_value(v?).map_err(|e| format!("{func}: {e}"))
        }
        fn wit<T: Serialize>(r: crate::base::error::Result<T>) -> Value {
            match r {
                Ok(v) => json!({"tag": "ok", "val": v}),
                Err(e) => json!({"tag": "err", "val": e}),
            }
        }
        let s = |i| de::<String>(func, arg(i));
        let env = |i| de::<Vec<(String, String)>>(func, arg(i));
        let cap = |i| de::<Option<u32>>(func, arg(i)).map(|c| c.map_or(hook::COMMON_CAP, |c| c as usize));
        let result = match func {
            "scan.scan" => wit(scan::scan(fs, &s(0)?, de(func, arg(1))?)),
            "manifest.format" => json!(manifest::format(&de::<Vec<MemoryHeader>>(func, arg(0))?)),
            "manifest.of-dir" => wit(manifest::of_dir(fs, &s(0)?, de(func, arg(1))?)),
            "index.load" => wit(index::load(fs, &s(0)?)),
            "index.truncate" => json!(index::truncate(&s(0)?)),
            "paths.slug" => json!(paths::slug(&s(0)?)),
            "paths.project-of" => json!(paths::project_of(fs, &s(0)?)),
            "paths.locate" => wit(paths::memory_location(fs, &s(0)?, &env(1)?)),
            "paths.plan" => wit(crate::context::plan::plan(fs, de(func, arg(0))?, &de(func, arg(1))?)),
            "paths.agent-dir" => {
                wit(paths::agent_memory_dir(fs, &s(0)?, &env(1)?, &s(2)?, de(func, arg(3))?))
            }
            "budget.limits" => json!(LIMITS),
            "budget.session-totals" => wit(budget::totals(&s(0)?)),
            "instructions.load" | "instructions.prompt" => {
                let r: LoadRequest = de(func, arg(0))?;
                let request =
                    Request { cwd: &r.cwd, env: &r.env, touching: &r.touching, add_dirs: &r.add_dirs };
                let loaded = instructions::load(fs, &request);
                match func {
                    "instructions.load" => wit(loaded),
                    _ => {
                        let options: Options = de(func, arg(1))?;
                        wit(loaded.map(|l| prompt::render(&l, options)))
                    }
                }
            }
            "instructions.render-file" => json!(prompt::render_file(&de(func, arg(0))?)),
            "instructions.guidance" => json!(prompt::guidance(&s(0)?, de(func, arg(1))?)),
            "instructions.approve-external" => wit(crate::context::approval::approve(fs, &s(0)?, &env(1)?)),
            "instructions.status" => wit(instructions::status(fs, &s(0)?, &env(1)?)
                .map(|(switches, location)| json!({"switches": switches, "location": location}))),
            "recall.start" => wit(recall::start(fs, &de(func, arg(0))?)),
            "recall.resume" => wit(recall::resume(fs, &s(0)?, de(func, arg(1))?)),
            "writer.save" => {
                let r: SaveRequest = de(func, arg(0))?;
                wit(writer::save(fs, &Save { target: &r.target, memory: r.memory() }))
            }
            "writer.forget" => wit(writer::forget(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?)),
            "check.fix" => wit(crate::hygiene::check::fix(fs, &de(func, arg(0))?, de(func, arg(1))?)),
            "check.propose-retiring" => {
                wit(crate::hygiene::check::propose_retiring(fs, &de(func, arg(0))?, de(func, arg(1))?))
            }
            "check.start" => wit(crate::hygiene::check::start(fs, &de(func, arg(0))?, de(func, arg(1))?)),
            "check.resume" => wit(crate::hygiene::check::resume(fs, &s(0)?, de(func, arg(1))?)),
            "writer.rebuild-index" => wit(writer::rebuild_index(fs, &de(func, arg(0))?, de(func, arg(1))?)),
            "writer.trash" => wit(trash::list_for(fs, &de(func, arg(0))?)),
            "writer.restore" => wit(trash::restore_for(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?)),
            "writer.pending" => wit(pending::list_for(fs, &de(func, arg(0))?)),
            "writer.timeline" => {
                let path: Option<String> = de(func, arg(1))?;
                wit(crate::writers::timeline::of_target(
                    fs,
                    &de(func, arg(0))?,
                    path.as_deref(),
                    de(func, arg(2))?,
                ))
            }
            "writer.accept" => {
                wit(apply::accept_for(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?, de(func, arg(3))?))
            }
            "writer.reject" => wit(pending::reject_for(fs, &de(func, arg(0))?, &s(1)?)),
            "writer.pause" => {
                wit(pause::pause_for(fs, &de(func, arg(0))?, de(func, arg(1))?, de(func, arg(2))?))
            }
            "writer.resume" => wit(pause::resume_for(fs, &de(func, arg(0))?, de(func, arg(1))?)),
            "writer.paused" => wit(pause::state_for(fs, &de(func, arg(0))?, de(func, arg(1))?)),
            "extract.parse-transcript" => {
                wit(extract::parse_transcript(&s(0)?).map_err(crate::base::error::Error::InvalidInput))
            }
            "extract.start" => wit(extract::start(fs, &de(func, arg(0))?)),
            "extract.resume" => wit(extract::resume(fs, &s(0)?, de(func, arg(1))?)),
            "daily-log.append" => {
                wit(dailylog::append_to(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?, de(func, arg(3))?))
            }
            "dream.start" => wit(dream::start(fs, &de(func, arg(0))?)),
            "dream.resume" => wit(dream::resume(fs, &s(0)?, de(func, arg(1))?)),
            "team.start" => wit(team::start(fs, de(func, arg(0))?)),
            "team.resume" => wit(team::resume(fs, &s(0)?, de(func, arg(1))?)),
            "team.auto-sync" => json!(team::AUTO_SYNC),
            "team.merge-index" => json!(index::merge(&s(0)?, &s(1)?, &s(2)?)),
            "hook.recall-context" => {
                wit(hook::recall_context(&s(0)?, &de::<Vec<Attachment>>(func, arg(1))?, cap(2)?))
            }
            "hook.fit" => json!(hook::fit(&s(0)?, cap(1)?)),
            "hook.session-name" => {
                json!(hook::session_name(&s(0)?, de::<Option<String>>(func, arg(1))?.as_deref()))
            }
            "hook.read" => wit(crate::agents::clients::read(de(func, arg(0))?, &s(1)?)),
            "hook.answer" => {
                let context: Option<String> = de(func, arg(2))?;
                json!(crate::agents::clients::answer(
                    de(func, arg(0))?,
                    de(func, arg(1))?,
                    context.as_deref()
                ))
            }
            "hook.prompt" => wit(hook::prompt(fs, &de(func, arg(0))?)),
            "hook.resume" => wit(hook::resume(fs, &s(0)?, de(func, arg(1))?)),
            "hook.session-start" => wit(hook::session_start(fs, &de(func, arg(0))?)),
            "hook.stop" => wit(hook::stop(fs, &de(func, arg(0))?)),
            "hook.take-job" => wit(hook::take_job(fs, &s(0)?)),
            "hook.written-since" => wit(hook::written_since(fs, &s(0)?, &env(1)?, de(func, arg(2))?)),
            "hook.judge-turn" => json!(crate::writers::gate::judge(&de::<Vec<String>>(func, arg(0))?)),
            "hook.learned" => wit(crate::agents::learning::learned(fs, &de(func, arg(0))?)),
            "hook.record-receipt" => {
                wit(crate::retrieval::receipts::record_for(fs, &de(func, arg(0))?, &de(func, arg(1))?))
            }
            "hook.list-receipts" => {
                let limit: u32 = de(func, arg(1))?;
                wit(crate::retrieval::receipts::of_target(fs, &de(func, arg(0))?, limit))
            }
            "hook.learning-summary" => {
                let now: i64 = de(func, arg(2))?;
                wit(crate::agents::learning::summary(fs, &s(0)?, &env(1)?, now))
            }
            "hook.reset" => {
                let session: Option<String> = de(func, arg(1))?;
                wit(hook::reset(fs, &s(0)?, session.as_deref(), &s(2)?, &env(3)?))
            }
            "tools.catalog" => json!(crate::agents::tools::catalog()),
            "tools.operation-of" => json!(crate::agents::calls::operation_of(&s(0)?)),
            "tools.call" => wit(crate::agents::calls::call(fs, &de(func, arg(0))?)),
            "tools.resume" => wit(crate::agents::calls::resume(fs, &s(0)?, de(func, arg(1))?)),
            "tools.resume-git" => wit(crate::agents::calls::resume_git(fs, &s(0)?, de(func, arg(1))?)),
            "tools.offered" => {
                let all: bool = de(func, arg(2))?;
                wit(instructions::status(fs, &s(0)?, &de::<Vec<(String, String)>>(func, arg(1))?)
                    .map(|(switches, _)| crate::agents::tools::offer(&switches, all)))
            }
            other => return Err(format!("no exported function {other:?}")),
        };
        if args.len() > read.get() {
            return Err(format!("{func}: takes {} argument(s), was given {}", read.get(), args.len()));
        }
        Ok(result)
    }

    /// The WIT `load-request`, owned. A field it does not know is an error, so a field added to the
    /// WIT but not here cannot be dropped unseen.
    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields)]
    struct LoadRequest {
        cwd: String,
        env: Vec<(String, String)>,
        touching: Vec<String>,
        add_dirs: Vec<String>,
    }

    /// The WIT `save-request`, owned; unknown fields are refused, as above.
    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields)]
    struct SaveRequest {
        target: Target,
        memory_type: MemoryType,
        name: String,
        description: String,
        file: Option<String>,
        replaces: Option<String>,
        body: String,
        now_ms: i64,
        utc_offset_minutes: i32,
        scope: Option<Scope>,
    }

    impl SaveRequest {
        fn memory(&self) -> Memory<'_> {
            Memory {
                memory_type: self.memory_type,
                name: &self.name,
                description: &self.description,
                file: self.file.as_deref(),
                replaces: self.replaces.as_deref(),
                body: &self.body,
                now_ms: self.now_ms,
                utc_offset_minutes: self.utc_offset_minutes,
                scope: self.scope,
            }
        }
    }
}
