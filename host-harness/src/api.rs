//! The typed API every backend shares: [`Core`], written once over each backend's one method.

use crate::error::{Error, Result};
use crate::fs::ConfinedFs;
use crate::wit_value::{Arg, Returned};
use memdir_core::budget::{Limits, Totals};
use memdir_core::check::CheckStep;
use memdir_core::dream::{self, DreamResult};
use memdir_core::extract::{self, ExtractResult};
use memdir_core::git::GitOutput;
use memdir_core::hook::{Injected, Job, PromptEvent, RecallContext, StartEvent, Started, StopEvent};
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::model::{Reply, Step};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::pause::Pause;
use memdir_core::pending::Proposal;
use memdir_core::plan::{self, Operation};
use memdir_core::prompt::Options;
use memdir_core::recall::{self, Attachment, RecallResult};
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::target::Target;
use memdir_core::team::{self, AutoSync, TeamStep};
use memdir_core::trash::Trashed;
use memdir_core::writer::{ForgetReport, Rebuilt, Save, SaveReport};
use serde::de::DeserializeOwned;

/// The arguments of a call, each any value whose serde form is its WIT JSON form.
macro_rules! args {
    ($($arg:expr),* $(,)?) => {
        &[$(Arg::new(&$arg)),*]
    };
}

/// The memory core's operations, whichever backend runs them.
///
/// A backend implements one method, [`Core::call`]: an export by its WIT name, with arguments
/// and result in the JSON form of [`crate::calls`]. Every typed method below is written once, here, on
/// top of it, so the contract has no second copy to drift: adding an export is its WIT, its
/// core function, and its glue and native-table line in `guest/src/exports.rs`;
/// `docs/architecture.md` lists the files. The three workflows that need a model are step
/// machines: [`crate::steps::drive`] is the whole loop a host runs over them.
pub trait Core {
    /// `component` or `native`.
    fn backend(&self) -> &'static str;

    /// Calls the export `func` (`interface.function`, WIT names: `scan.scan`, `recall.resume`).
    /// A WIT `result` comes back as a value like any other, `{"tag": "err", ...}` included;
    /// `Err` is the host's own failure: a trap, a core that will not load, or a call that fits
    /// no export.
    fn call(&mut self, func: &str, args: &[Arg<'_>]) -> Result<Returned>;

    /// Replaces the filesystem the core runs on, keeping the instance: how a plan from
    /// [`Core::open`] is applied without starting another.
    fn regrant(&mut self, fs: ConfinedFs);

    /// What `operation` may read and write on `target`, as the core decides it (issue 45).
    fn plan(&mut self, operation: Operation, target: &Target) -> Result<plan::Grant> {
        outcome(self, "paths.plan", args![operation, target])
    }

    /// Asks the core for `operation`'s plan on `target` and applies it to this core: each
    /// writable root is created when missing, then granted. The host decides nothing; one
    /// instance answers the plan and runs the operation.
    fn open(&mut self, operation: Operation, target: &Target) -> Result<plan::Grant> {
        let grant = self.plan(operation, target)?;
        let fs = grant_fs(&grant).map_err(|e| Error::Core(memdir_core::Error::InvalidInput(e)))?;
        self.regrant(fs);
        Ok(grant)
    }

    /// Scans a memory directory (R5.1), dating each header's freshness at `now_ms`.
    fn scan(&mut self, dir: &str, now_ms: i64) -> Result<ScanReport> {
        outcome(self, "scan.scan", args![dir, now_ms])
    }
    /// Formats headers as the manifest (R5.3).
    fn manifest(&mut self, headers: &[MemoryHeader]) -> Result<String> {
        plain(self, "manifest.format", args![headers])
    }
    /// The manifest of the memory directory `dir`, scanned at `now_ms`, in one call.
    fn manifest_of_dir(&mut self, dir: &str, now_ms: i64) -> Result<String> {
        outcome(self, "manifest.of-dir", args![dir, now_ms])
    }
    /// Reads MEMORY.md at `path` and cuts it for the prompt (R6.2, R6.3).
    fn load_index(&mut self, path: &str) -> Result<LoadedIndex> {
        outcome(self, "index.load", args![path])
    }
    /// Cuts index text already in hand.
    fn truncate_index(&mut self, content: &str) -> Result<LoadedIndex> {
        plain(self, "index.truncate", args![content])
    }
    /// The memory location of a working directory (R2.1, R2.2).
    fn locate(&mut self, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation> {
        outcome(self, "paths.locate", args![cwd, env])
    }
    /// The project root whose slug is `slug`, found on the filesystem the core may read
    /// (issue 48); `None` when none is.
    fn project_of(&mut self, slug: &str) -> Result<Option<String>> {
        plain(self, "paths.project-of", args![slug])
    }
    /// The budget limits (R8.1).
    fn limits(&mut self) -> Result<Limits> {
        plain(self, "budget.limits", args![])
    }
    /// What a recall session (JSON; empty: new) holds (R8.2).
    fn session_totals(&mut self, session: &str) -> Result<Totals> {
        outcome(self, "budget.session-totals", args![session])
    }
    /// The memory directory of a subagent type in one scope (R11.1).
    fn agent_dir(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        agent: &str,
        scope: AgentScope,
    ) -> Result<String> {
        outcome(self, "paths.agent-dir", args![cwd, env, agent, scope])
    }
    /// The instruction files of a working directory, in load order (R3).
    fn load_instructions(&mut self, request: &Request<'_>) -> Result<Loaded> {
        outcome(self, "instructions.load", args![request])
    }
    /// The memory part of a system prompt (R12.1).
    fn prompt(&mut self, request: &Request<'_>, options: Options) -> Result<String> {
        outcome(self, "instructions.prompt", args![request, options])
    }
    /// One loaded instruction file as the model reads it.
    fn render_file(&mut self, file: &memdir_core::instructions::InstructionFile) -> Result<String> {
        plain(self, "instructions.render-file", args![file])
    }
    /// Approves imports from outside the project of `cwd` in `~/.claude.json`; returns the file.
    fn approve_external(&mut self, cwd: &str, env: &[(String, String)]) -> Result<String> {
        outcome(self, "instructions.approve-external", args![cwd, env])
    }
    /// The switches and the memory location of a working directory (R4).
    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
        /// The WIT `memory-status` record.
        #[derive(serde::Deserialize)]
        struct Status {
            switches: Switches,
            location: MemoryLocation,
        }
        let status: Status = outcome(self, "instructions.status", args![cwd, env])?;
        Ok((status.switches, status.location))
    }
    /// Starts a recall turn (R7): skip, offline ranking, or a model call.
    fn recall_start(&mut self, input: &recall::Input) -> Result<Step<RecallResult>> {
        outcome(self, "recall.start", args![input])
    }
    /// Resumes a recall with the model's reply or failure.
    fn recall_resume(&mut self, state: &str, reply: Reply) -> Result<Step<RecallResult>> {
        outcome(self, "recall.resume", args![state, reply])
    }
    /// Saves a memory and its index line in one step (R9.1).
    fn save(&mut self, request: &Save<'_>) -> Result<SaveReport> {
        outcome(self, "writer.save", args![request])
    }
    /// Removes a memory and its index lines (R6.4).
    fn forget(&mut self, target: &Target, path: &str, now_ms: i64) -> Result<ForgetReport> {
        outcome(self, "writer.forget", args![target, path, now_ms])
    }
    /// Starts a check of what has drifted in the memory directory (after finishing any
    /// interrupted write): the report, or first a git command to run in the project.
    fn check_start(&mut self, target: &Target, now_ms: i64) -> Result<CheckStep> {
        outcome(self, "check.start", args![target, now_ms])
    }
    /// Resumes a check with the output of the git command the last step asked for.
    fn check_resume(&mut self, state: &str, output: GitOutput) -> Result<CheckStep> {
        outcome(self, "check.resume", args![state, output])
    }
    /// Repairs the index: dangling and duplicate lines out, missing lines in; each change.
    fn check_fix(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>> {
        outcome(self, "check.fix", args![target, now_ms])
    }
    /// Queues a proposal to retire each memory no agent was given in 90 days (issue 48).
    fn propose_retiring(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>> {
        outcome(self, "check.propose-retiring", args![target, now_ms])
    }
    /// Writes MEMORY.md when memory files exist and it does not (R6.5).
    fn rebuild_index(&mut self, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
        outcome(self, "writer.rebuild-index", args![target, now_ms])
    }
    /// What the trash holds: background writers' deletions and overwrites, oldest first.
    fn trash(&mut self, target: &Target) -> Result<Vec<Trashed>> {
        outcome(self, "writer.trash", args![target])
    }
    /// Puts a trashed memory back with its index lines.
    fn restore(&mut self, target: &Target, id: &str, now_ms: i64) -> Result<Trashed> {
        outcome(self, "writer.restore", args![target, id, now_ms])
    }
    /// The newest `limit` changes to the memory, newest first (only `path`'s when given), and
    /// who asked for each (issue 48).
    fn timeline(
        &mut self,
        target: &Target,
        path: Option<&str>,
        limit: u32,
    ) -> Result<Vec<memdir_core::timeline::Written>> {
        outcome(self, "writer.timeline", args![target, path, limit])
    }
    /// The proposals waiting under `memoryWrites: review`, oldest first (issue 28).
    fn pending(&mut self, target: &Target) -> Result<Vec<Proposal>> {
        outcome(self, "writer.pending", args![target])
    }
    /// Applies a waiting proposal through the background writer's checks and takes it off the queue.
    fn accept(
        &mut self,
        target: &Target,
        id: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<Vec<Proposal>> {
        let args = args![target, id, now_ms, utc_offset_minutes];
        outcome(self, "writer.accept", args)
    }
    /// Takes a proposal off the queue and remembers it, so it is not proposed again.
    fn reject(&mut self, target: &Target, id: &str) -> Result<Vec<Proposal>> {
        outcome(self, "writer.reject", args![target, id])
    }
    /// Pauses automatic writes (extraction, the dream) until `until_ms` or `resume` (issue 28).
    fn pause(&mut self, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause> {
        outcome(self, "writer.pause", args![target, now_ms, until_ms])
    }
    /// Ends the pause; whether one was in force.
    fn resume(&mut self, target: &Target, now_ms: i64) -> Result<bool> {
        outcome(self, "writer.resume", args![target, now_ms])
    }
    /// The pause in force at `now_ms`.
    fn paused(&mut self, target: &Target, now_ms: i64) -> Result<Option<Pause>> {
        outcome(self, "writer.paused", args![target, now_ms])
    }
    /// Parses a transcript (R9.2 wire format).
    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        outcome(self, "extract.parse-transcript", args![text])
    }
    /// Starts extraction (R9.2, R9.3): skip, or round 1's model call.
    fn extract_start(&mut self, input: &extract::Input) -> Result<Step<ExtractResult>> {
        outcome(self, "extract.start", args![input])
    }
    /// Resumes extraction with a round's reply or failure.
    fn extract_resume(&mut self, state: &str, reply: Reply) -> Result<Step<ExtractResult>> {
        outcome(self, "extract.resume", args![state, reply])
    }
    /// Appends to today's daily log (R9.4); returns the log's path.
    fn log_append(
        &mut self,
        target: &Target,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        let args = args![target, text, now_ms, utc_offset_minutes];
        outcome(self, "daily-log.append", args)
    }
    /// Starts a dream (R9.4): nothing new, or the first chunk's model call.
    fn dream_start(&mut self, input: &dream::Input) -> Result<Step<DreamResult>> {
        outcome(self, "dream.start", args![input])
    }
    /// Resumes a dream with a chunk's reply or failure.
    fn dream_resume(&mut self, state: &str, reply: Reply) -> Result<Step<DreamResult>> {
        outcome(self, "dream.resume", args![state, reply])
    }
    /// Starts a team (or private) memory init, sync or status (R10): the first git command.
    fn team_start(&mut self, input: &team::Input) -> Result<TeamStep> {
        outcome(self, "team.start", args![input])
    }
    /// Resumes it with the output of the git command the last step asked for.
    fn team_resume(&mut self, state: &str, output: GitOutput) -> Result<TeamStep> {
        outcome(self, "team.resume", args![state, output])
    }
    /// MEMORY.md merged from three versions (git's merge driver for it).
    fn merge_index(&mut self, base: &str, ours: &str, theirs: &str) -> Result<String> {
        plain(self, "team.merge-index", args![base, ours, theirs])
    }
    /// When `teamSync: auto` syncs: the same schedule in every host.
    fn auto_sync(&mut self) -> Result<AutoSync> {
        plain(self, "team.auto-sync", args![])
    }
    /// A recall's memories as one block of hook text within `cap_bytes` (none: the common
    /// cap), and the session to keep: what did not fit is taken back from it.
    fn hook_recall_context(
        &mut self,
        session: &str,
        attachments: &[Attachment],
        cap_bytes: Option<u32>,
    ) -> Result<RecallContext> {
        outcome(self, "hook.recall-context", args![session, attachments, cap_bytes])
    }
    /// `text` within `cap_bytes` (none: the common cap): whole when it fits, else cut at a line
    /// end with a note saying where the rest is.
    fn hook_fit(&mut self, text: &str, cap_bytes: Option<u32>) -> Result<String> {
        plain(self, "hook.fit", args![text, cap_bytes])
    }
    /// A hook's payload read for the client `named` on the command line: who fired, and what
    /// memdir uses of it.
    fn hook_read(
        &mut self,
        named: memdir_core::clients::Client,
        payload: &str,
    ) -> Result<memdir_core::clients::Payload> {
        outcome(self, "hook.read", args![named, payload])
    }
    /// What a hook prints for `event`: `context` in the client's shape, or its "carry on".
    fn hook_answer(
        &mut self,
        client: memdir_core::clients::Client,
        event: memdir_core::clients::HookEvent,
        context: Option<&str>,
    ) -> Result<String> {
        plain(self, "hook.answer", args![client, event, context])
    }
    /// One user prompt through a hook: the session files, offline recall and the framed text,
    /// on a core opened for [`Operation::Hook`].
    fn hook_prompt(&mut self, event: &PromptEvent) -> Result<Step<Injected>> {
        outcome(self, "hook.prompt", args![event])
    }
    /// Resumes a prompt that asked for vectors.
    fn hook_resume(&mut self, state: &str, reply: Reply) -> Result<Step<Injected>> {
        outcome(self, "hook.resume", args![state, reply])
    }
    /// A session's start through a hook (path A), on a core opened for [`Operation::Hook`].
    fn hook_session_start(&mut self, event: &StartEvent) -> Result<Started> {
        outcome(self, "hook.session-start", args![event])
    }
    /// A turn's end through a hook: the job for a detached extraction, written by the core, on a
    /// core opened for [`Operation::Hook`]; its path, or none.
    fn hook_stop(&mut self, event: &StopEvent) -> Result<Option<String>> {
        outcome(self, "hook.stop", args![event])
    }
    /// The job at `path`, read and removed.
    fn hook_take_job(&mut self, path: &str) -> Result<Job> {
        outcome(self, "hook.take-job", args![path])
    }
    /// The memory files of `cwd`'s memory and the shared ones beside it changed at or after
    /// `since_ms`: a turn's own saves.
    fn hook_written_since(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        since_ms: i64,
    ) -> Result<Vec<String>> {
        outcome(self, "hook.written-since", args![cwd, env, since_ms])
    }
    /// Whether a turn's user messages may have taught something (the gate before extraction).
    fn hook_judge_turn(&mut self, messages: &[String]) -> Result<memdir_core::gate::Verdict> {
        plain(self, "hook.judge-turn", args![messages])
    }
    /// Records an extraction a hook's worker ran in the learning log, on a core opened for
    /// [`Operation::Hook`]; false when the memory has no directory.
    fn hook_learned(&mut self, event: &memdir_core::learning::LearnedEvent) -> Result<bool> {
        outcome(self, "hook.learned", args![event])
    }
    /// The newest `limit` receipts of what the hooks gave each agent, and each memory's use.
    fn hook_receipts(&mut self, target: &Target, limit: u32) -> Result<memdir_core::receipts::Receipts> {
        outcome(self, "hook.list-receipts", args![target, limit])
    }
    /// Records what a host gave an agent outside the hooks, on a core opened for
    /// [`Operation::Recall`]; false when the memory has no directory.
    fn hook_record_receipt(
        &mut self,
        target: &Target,
        receipt: &memdir_core::receipts::Receipt,
    ) -> Result<bool> {
        outcome(self, "hook.record-receipt", args![target, receipt])
    }
    /// The last seven days of the learning log of `cwd`'s memory.
    fn hook_learning_summary(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        now_ms: i64,
    ) -> Result<memdir_core::learning::Learning> {
        outcome(self, "hook.learning-summary", args![cwd, env, now_ms])
    }
    /// Starts `client`'s recall `session` in `cwd`'s memory again (R8.3), on a core opened for
    /// [`Operation::Hook`]; true when there was one.
    fn hook_reset(
        &mut self,
        client: &str,
        session: Option<&str>,
        cwd: &str,
        env: &[(String, String)],
    ) -> Result<bool> {
        outcome(self, "hook.reset", args![client, session, cwd, env])
    }
    /// The file name (without extension) of a client's session in `.sessions/`.
    fn hook_session_name(&mut self, client: &str, session: Option<&str>) -> Result<String> {
        plain(self, "hook.session-name", args![client, session])
    }
    /// The tools every host that offers tools shows a model: names, descriptions, schemas.
    fn tool_catalog(&mut self) -> Result<Vec<memdir_core::tools::Tool>> {
        plain(self, "tools.catalog", args![])
    }
    /// The tools offered for `cwd` under its switches (every tool with `all`), and the
    /// instructions that name them.
    fn tools_offered(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        all: bool,
    ) -> Result<memdir_core::tools::Offer> {
        outcome(self, "tools.offered", args![cwd, env, all])
    }
    /// What a call of the tool `name` may read and write, for [`Core::open`]; `None` for a tool
    /// [`Core::tool_call`] does not answer (issue 45).
    fn tool_operation(&mut self, name: &str) -> Result<Option<memdir_core::plan::Operation>> {
        plain(self, "tools.operation-of", args![name])
    }
    /// A tool call's first step: the answer, or the model, the embeddings model or git to ask
    /// first (drive it with [`crate::steps::drive_tool`]).
    fn tool_call(&mut self, call: &memdir_core::calls::ToolCall) -> Result<memdir_core::calls::ToolStep> {
        outcome(self, "tools.call", args![call])
    }
    /// Resumes a tool call that asked the model or the embeddings model.
    fn tool_resume(&mut self, state: &str, reply: Reply) -> Result<memdir_core::calls::ToolStep> {
        outcome(self, "tools.resume", args![state, reply])
    }
    /// Resumes a tool call that ran git.
    fn tool_resume_git(&mut self, state: &str, output: GitOutput) -> Result<memdir_core::calls::ToolStep> {
        outcome(self, "tools.resume-git", args![state, output])
    }
}

/// Calls an export that returns a plain value.
fn plain<T: DeserializeOwned>(core: &mut (impl Core + ?Sized), func: &str, args: &[Arg<'_>]) -> Result<T> {
    let returned = core.call(func, args)?;
    returned.decode().map_err(|e| Error::Contract(format!("{func} returned a value memdir cannot read: {e}")))
}

/// Calls an export that returns a WIT `result<T, error>`; its `err` is [`Error::Core`].
fn outcome<T: DeserializeOwned>(core: &mut (impl Core + ?Sized), func: &str, args: &[Arg<'_>]) -> Result<T> {
    #[derive(serde::Deserialize)]
    #[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
    enum Outcome<T> {
        Ok(T),
        Err(memdir_core::Error),
    }
    match plain(core, func, args)? {
        Outcome::Ok(value) => Ok(value),
        Outcome::Err(e) => Err(Error::Core(e)),
    }
}

/// A filesystem granting `grant`'s roots; each writable one is created when missing first.
pub fn grant_fs(grant: &plan::Grant) -> std::result::Result<ConfinedFs, String> {
    let mut fs = ConfinedFs::new();
    for dir in &grant.read {
        fs = fs.grant_read(dir).map_err(|e| format!("{dir}: {e}"))?;
    }
    for dir in &grant.write {
        std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
        fs = fs.grant_write(dir).map_err(|e| format!("{dir}: {e}"))?;
    }
    Ok(fs)
}
