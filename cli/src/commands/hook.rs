//! `memdir hook CLIENT EVENT`: memory in an agent's own lifecycle (R14). At session start the
//! memory part of the system prompt; at each prompt, recall within the session's budgets; when
//! a turn stops, writer B over what the user said since, in a detached process.
//!
//! A hook never stands in the way (R14.2): whatever the payload, the memory directory or the
//! model does, it exits 0 with the client's "carry on", and a failure is one line in memdir's
//! log. Each event is one instance: the core reads the client's payload (`hook.read`), runs the
//! event's operation (`hook.session-start`, `hook.prompt`, `hook.stop`, `hook.reset`) granted
//! its own plan and words the client's answer (`hook.answer`); the core keeps the per-turn state
//! in the memory directory's `.sessions/`, which team sync keeps local, down to the stopped
//! turn's job (`<key>.<ms>.job.json`) that the detached worker takes back through it.

use crate::context::{Context, Failure, core_choice};
use crate::ops::recall::recall_embedder;
use crate::ops::target::Target;
use crate::ops::whole_tree;
use memdir_harness::contract::hook::{
    Client, HookEvent, LearnedEvent, MAX_PAYLOAD, Payload, PromptEvent, StartEvent, StopEvent,
};
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::target::Target as CoreTarget;
use memdir_harness::steps::drive_with;
use memdir_harness::{ConfinedFs, Core};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `memdir hook`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The client whose hook this is (opencode: memdir's plugin); the payload says who really
    /// fired.
    #[arg(value_parser = core_choice(&Client::ALL, Client::as_str))]
    pub client: Client,
    /// The lifecycle event.
    #[arg(value_parser = core_choice(&HookEvent::ALL, HookEvent::as_str))]
    pub event: HookEvent,
    /// The model extraction uses when a turn stops: agent:CLIENT (the agent's own CLI),
    /// command:CMD, anthropic:MODEL, openai:MODEL, or off (default: $MEMDIR_LLM). Without one,
    /// the stop hook does nothing.
    #[arg(long)]
    pub llm: Option<String>,
    /// Run a stopped turn's extraction (the detached half of `stop`).
    #[arg(long, hide = true, value_name = "JOB")]
    pub worker: Option<PathBuf>,
    /// Run the automatic team sync of the project in the current directory (the detached half
    /// of `session-start`).
    #[arg(long, hide = true)]
    pub sync_worker: bool,
}

/// Set in the environment of everything a hook starts, so a model that is itself an agent
/// with memdir's hooks (`codex exec`, `gemini -p`) does not start memdir again.
const CHILD_GUARD: &str = "MEMDIR_HOOK_CHILD";

/// How long a hook waits for its payload: a client that keeps standard input open must not hold
/// the prompt (issue 44).
const PAYLOAD_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs the hook. Always exit 0: every failure goes to memdir's log, not the agent.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> crate::context::Outcome {
    if args.sync_worker {
        if let Err(e) = sync_job(ctx) {
            log(ctx, args.client, args.event, &e.message);
        }
        return Ok(());
    }
    if let Some(job) = &args.worker {
        if let Err(e) = extract_job(ctx, job, args.llm.as_deref()) {
            log(ctx, args.client, args.event, &e.message);
        }
        return Ok(());
    }
    // One instance reads the payload, runs the event and words the answer (issue 45).
    let mut core = None;
    // Even a bug in memdir must not stand in the way: Cline reads a failed hook as "cancel".
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(ctx, &args, &mut core)))
        .unwrap_or_else(|_| Err(Failure::input("memdir hit a bug answering this hook")));
    let (client, context) = match answered {
        Ok(answer) => answer,
        Err(e) => {
            log(ctx, args.client, args.event, &e.message);
            (args.client, None)
        }
    };
    match worded(ctx, core.as_deref_mut(), client, args.event, context.as_deref()) {
        Ok(text) => out.write_all(text.as_bytes())?,
        Err(e) => log(ctx, client, args.event, &format!("wording the answer: {e}")),
    }
    Ok(())
}

/// What the hook prints, in the client's own shape: from the instance that ran the event, or a
/// fresh one if that one failed (a trapped instance is poisoned).
fn worded(
    ctx: &Context,
    core: Option<&mut (dyn Core + '_)>,
    client: Client,
    event: HookEvent,
    context: Option<&str>,
) -> Result<String, memdir_harness::Error> {
    if let Some(Ok(text)) = core.map(|core| core.hook_answer(client, event, context)) {
        return Ok(text);
    }
    ctx.core(ConfinedFs::new())?.hook_answer(client, event, context)
}

/// The client that fired and the text to inject, if any, on `core`, which this opens.
fn answer<'c>(
    ctx: &'c Context,
    args: &Args,
    core: &mut Option<Box<dyn Core + 'c>>,
) -> Result<(Client, Option<String>), Failure> {
    if ctx.var(CHILD_GUARD).is_some() {
        return Ok((args.client, None));
    }
    let bytes = ctx.read_json_stdin(MAX_PAYLOAD as u64, PAYLOAD_DEADLINE)?;
    let text = String::from_utf8(bytes).map_err(|_| Failure::input("the hook payload is not UTF-8"))?;
    let core = core.insert(ctx.core(whole_tree()?)?);
    let payload = core.hook_read(args.client, &text)?;
    let client = payload.client;
    let blank_prompt = payload.prompt.as_deref().is_none_or(|p| p.trim().is_empty());
    if !payload.acts || (args.event == HookEvent::Prompt && blank_prompt) {
        return Ok((client, None));
    }
    // Each event is one core operation on this instance, granted the core's own plan: the core
    // keeps the session files and frames the text within the client's limit.
    let cwd = open_hook(&mut **core, ctx, &payload)?;
    match args.event {
        HookEvent::Prompt => Ok((client, prompt(ctx, &mut **core, &cwd, &payload)?)),
        HookEvent::SessionStart => Ok((client, session_start(ctx, &mut **core, &cwd, &payload)?)),
        HookEvent::PreCompact | HookEvent::PostCompact => {
            core.hook_reset(client.as_str(), payload.session.as_deref(), &cwd, ctx.env())?;
            Ok((client, None))
        }
        HookEvent::Stop => {
            stop(ctx, args, &mut **core, &cwd, &payload)?;
            Ok((client, None))
        }
    }
}

/// Opens `core` for a hook in the working directory the payload names (else the current one),
/// with the grant the core plans; that directory.
fn open_hook(core: &mut dyn Core, ctx: &Context, payload: &Payload) -> Result<String, Failure> {
    let cwd = match &payload.cwd {
        Some(cwd) => cwd.clone(),
        None => crate::context::absolute(Path::new("."))?,
    };
    core.open(Operation::Hook, &CoreTarget::new(&cwd, ctx.env()))?;
    Ok(cwd)
}

/// Path A: guidance and MEMORY.md (the agent reads its own instruction files), once per
/// session; team sync in the background when `teamSync` is `auto`.
fn session_start(
    ctx: &Context,
    core: &mut dyn Core,
    cwd: &str,
    payload: &Payload,
) -> Result<Option<String>, Failure> {
    let client = payload.client;
    let event = StartEvent {
        client: client.as_str().to_string(),
        session: payload.session.clone(),
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        source: payload.source.clone(),
        cap_bytes: Some(payload.cap_bytes),
        now_ms: ctx.now_ms(),
    };
    let started = core.hook_session_start(&event)?;
    for diagnostic in &started.diagnostics {
        log_line(ctx, &format!("hook {} session-start: {diagnostic}", client.as_str()));
    }
    if started.team_sync {
        let worker = ["hook", client.as_str(), "session-start", "--sync-worker"].map(String::from);
        spawn_self(ctx, &worker, Some(cwd))?;
    }
    Ok(started.text)
}

/// Path B: the prompt kept for the stop, and offline recall for it in this session, as one
/// core operation on one instance. The host only applies the core's plan and asks the
/// embeddings model when the core asks.
fn prompt(
    ctx: &Context,
    core: &mut dyn Core,
    cwd: &str,
    payload: &Payload,
) -> Result<Option<String>, Failure> {
    let prompt = payload.prompt.as_deref().unwrap_or_default();
    let client = payload.client;
    // A spec that does not parse costs the meaning, not the recall (a hook runs on every prompt).
    let (mut embedder, note) = match recall_embedder(ctx, None) {
        Ok(embedder) => (embedder, None),
        Err(e) => (None, Some(format!("MEMDIR_EMBEDDINGS: {}", e.message))),
    };
    let event = PromptEvent {
        client: client.as_str().to_string(),
        session: payload.session.clone(),
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        prompt: prompt.to_string(),
        inject: payload.inject,
        keep_turn: true,
        cap_bytes: Some(payload.cap_bytes),
        now_ms: ctx.now_ms(),
        embeddings: embedder.as_ref().map(|e| e.label()),
    };
    let first = core.hook_prompt(&event)?;
    let embedder = embedder.as_deref_mut().map(|e| e as &mut dyn memdir_harness::llm::Embedder);
    let injected = drive_with(first, None, embedder, |state, reply| core.hook_resume(state, reply), |_| {})?;
    for diagnostic in note.iter().chain(&injected.diagnostics) {
        log_line(ctx, &format!("hook {} prompt: {diagnostic}", client.as_str()));
    }
    Ok(injected.text)
}

fn append(path: &Path, line: &str) -> Result<(), Failure> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    writeln!(file, "{line}").map_err(|e| Failure::input(format!("{}: {e}", path.display())))
}

/// Path C: the core keeps the turn as a job for a detached extraction and the hook returns at
/// once. Without a model there is nothing to do, and the turn's log goes.
fn stop(
    ctx: &Context,
    args: &Args,
    core: &mut dyn Core,
    cwd: &str,
    payload: &Payload,
) -> Result<(), Failure> {
    let spec = args.llm.as_deref().or_else(|| ctx.var("MEMDIR_LLM"));
    let event = StopEvent {
        client: payload.client.as_str().to_string(),
        session: payload.session.clone(),
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        prompts: payload.turn.clone(),
        turn_began_ms: payload.turn_began_ms,
        reply: payload.reply.clone(),
        extract: spec.is_some_and(|s| !matches!(s, "offline" | "off")),
        now_ms: ctx.now_ms(),
    };
    let Some(job) = core.hook_stop(&event)? else { return Ok(()) };
    let mut worker = ["hook", args.client.as_str(), "stop", "--worker", &job].map(String::from).to_vec();
    if let Some(llm) = &args.llm {
        worker.extend(["--llm".to_string(), llm.clone()]);
    }
    // In the project, so the worker's core plans the same grant.
    spawn_self(ctx, &worker, Some(cwd))
}

/// Starts this binary again, detached: its own process group, no terminal, output to the log.
fn spawn_self(ctx: &Context, args: &[String], cwd: Option<&str>) -> Result<(), Failure> {
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().map_err(|e| Failure::input(format!("the memdir binary: {e}")))?;
    let log = log_file(ctx).and_then(|path| {
        std::fs::create_dir_all(path.parent()?).ok()?;
        std::fs::OpenOptions::new().create(true).append(true).open(path).ok()
    });
    let mut command = Command::new(exe);
    command.args(args).env(CHILD_GUARD, "1").stdin(Stdio::null()).stdout(Stdio::null());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    command.stderr(log.map(Stdio::from).unwrap_or_else(Stdio::null));
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.spawn().map_err(|e| Failure::input(format!("starting the background work: {e}")))?;
    Ok(())
}

/// The detached half of `stop`: writer B over the turn, with the agent's own writes this turn
/// making it a no-op (R9.3).
fn extract_job(ctx: &Context, path: &Path, llm: Option<&str>) -> Result<(), Failure> {
    // The job lies in `<memory>/.sessions/`: the core plans the grant for that memory directory
    // and checks that the path is a job's before it reads it.
    let memory_dir = path.parent().and_then(Path::parent).map(|d| d.display().to_string());
    let target = CoreTarget {
        cwd: crate::context::absolute(Path::new("."))?,
        env: ctx.env().to_vec(),
        memory_dir,
        by: None,
    };
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Hook, &target)?;
    let job = core.hook_take_job(&path.display().to_string())?;
    // The agent's own saves this turn, the user-wide and group memories' included (R9.3).
    let written = core.hook_written_since(&job.cwd, ctx.env(), job.turn_began_ms)?;
    drop(core);
    let mut model = ctx.model(llm, "extraction at stop")?;
    let target = Target { cwd: Some(PathBuf::from(&job.cwd)), memory_dir: None };
    let extraction = crate::ops::extract::Extraction {
        transcript: &job.transcript,
        source: &path.display().to_string(),
        conversation: None,
        written: &written,
        main_agent: true,
        utc_offset_minutes: ctx.utc_offset(None),
    };
    let mut calls = 0;
    let report = crate::ops::extract::extract(ctx, &target, &extraction, &mut *model, |_| calls += 1);
    // What learning cost goes in the learning log, failed or not (issue 46).
    let written = report.as_ref().map_or(0, |r| {
        r.operations.iter().filter(|op| op.rejected.is_none() && op.proposed.is_none()).count() as u32
    });
    let learned = LearnedEvent {
        client: job.client.clone(),
        skipped: false,
        cwd: job.cwd.clone(),
        env: ctx.env().to_vec(),
        model: model.label().trim_start_matches("model:").to_string(),
        calls,
        tokens: model.tokens(),
        written,
        error: report.as_ref().err().map(|e| e.message.clone()),
        now_ms: ctx.now_ms(),
    };
    let mut core = ctx.core(whole_tree()?)?;
    core.open(Operation::Hook, &CoreTarget::new(&job.cwd, ctx.env()))?;
    core.hook_learned(&learned)?;
    for d in &report?.diagnostics {
        log_line(ctx, &format!("extraction: {d}"));
    }
    Ok(())
}

/// The detached half of `session-start`: the automatic sync, in the log.
fn sync_job(ctx: &Context) -> Result<(), Failure> {
    let cwd = crate::context::absolute(Path::new("."))?;
    let memory_dir = ctx.core(whole_tree()?)?.locate(&cwd, ctx.env())?.memory_dir;
    let interval = Some(memdir_harness::contract::team::AUTO_SYNC.session_interval_ms);
    for line in crate::ops::team::sync_copies(ctx, &cwd, &memory_dir, interval) {
        log_line(ctx, &line);
    }
    Ok(())
}

/// memdir's log: `$MEMDIR_LOG`, else `$XDG_STATE_HOME/memdir/hook.log`, else
/// `~/.local/state/memdir/hook.log`.
fn log_file(ctx: &Context) -> Option<PathBuf> {
    if let Some(path) = ctx.var("MEMDIR_LOG") {
        return Some(PathBuf::from(path));
    }
    let state = match ctx.var("XDG_STATE_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(ctx.var("HOME")?).join(".local/state"),
    };
    Some(state.join("memdir/hook.log"))
}

/// The log past which it starts again (the previous one kept as `.1`).
const MAX_LOG: u64 = 1 << 20;

fn log(ctx: &Context, client: Client, event: HookEvent, message: &str) {
    log_line(ctx, &format!("hook {} {}: {message}", client.as_str(), event.as_str()));
}

fn log_line(ctx: &Context, message: &str) {
    let Some(path) = log_file(ctx) else { return };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG) {
        let _ = std::fs::rename(&path, path.with_extension("log.1"));
    }
    let line = message.replace(['\n', '\r'], " ");
    let at = memdir_harness::contract::time::iso_millis(ctx.now_ms());
    let _ = append(&path, &format!("{at} {line}"));
}
