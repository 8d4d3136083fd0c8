//! `memdir mcp`: the memory as a Model Context Protocol server over stdio, on the official Rust
//! SDK (rmcp). Zed's agent, Claude Code, Cursor and VS Code all speak it.
//!
//! The core is synchronous and a loaded component stays on the thread that loaded it, so one
//! worker thread owns the memory ([`Memory`]); the protocol handlers send it jobs and await the
//! answers. A stdio connection is one process, so the recall session (budgets, what was already
//! surfaced) lives as long as the connection.
//!
//! The served project is `--cwd`; else the client's first root (when it offers roots); else the
//! directory the server was started in. A call's `project` argument (every tool takes it, as the
//! stateless 2026-07-28 revision has no roots) names a folder for that call only, and only one
//! the person put in reach: the served project, or a project already using memdir; never the
//! home folder or `/` (issue 44). Writes go through a filesystem that grants that project's
//! memory directory alone.
//!
//! When the client offers sampling, recall, extraction and dream ask the client's model
//! (`client`); otherwise `--llm`, else the offline selector. Memory files changing on disk reach
//! the client as resource notifications (`watch`).

mod client;
mod framing;
mod tools;
mod watch;

use crate::context::{Context, Failure, Outcome, absolute};
use crate::ops::target::Target;
use memdir_harness::contract::switches::TeamSync;
use memdir_harness::llm::Model;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// Arguments of `memdir mcp`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The working directory whose memory to serve (default: the current one). Clients start
    /// the server with the project they have open.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// The model recall uses: offline, command:CMD, anthropic:MODEL or openai:MODEL (default:
    /// $MEMDIR_LLM, else offline).
    #[arg(long)]
    pub llm: Option<String>,
    /// List every tool, the maintenance ones included (check, list, extract, instructions), not
    /// only those the project can use every day. Every tool may be called either way.
    #[arg(long)]
    pub all_tools: bool,
}

/// Runs the server until the client closes the connection.
pub fn run(ctx: &Context, args: Args) -> Outcome {
    let cwd = absolute(&args.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    if !std::path::Path::new(&cwd).is_dir() {
        return Err(Failure::input(format!("{cwd}: no such directory")));
    }
    // Checked now, so a bad spec fails at start rather than on the first recall.
    crate::ops::recall::recall_model(ctx, args.llm.as_deref())?;
    // What the model is shown, chosen by the core for this project's switches: each tool's text
    // costs context in every conversation. Any tool of the catalog may still be called.
    let offer = {
        let mut core = ctx.core(crate::ops::whole_tree()?)?;
        match core.tools_offered(&cwd, ctx.env(), args.all_tools) {
            Ok(offer) => offer,
            // A project whose settings cannot be read: the everyday tools, as for no project.
            Err(_) => core.tools_offered("/", ctx.env(), args.all_tools)?,
        }
    };
    let instructions = instructions(ctx, &cwd, offer.instructions);
    let tools = tools::list(&offer.tools);
    let callable = tools::list(&ctx.core(memdir_harness::ConfinedFs::new())?.tool_catalog()?);
    let (jobs, inbox) = mpsc::channel::<Job>();
    let worker_ctx = ctx.fresh();
    let spec = args.llm.clone();
    let watch = Arc::new(watch::Watch::default());
    let worker_watch = watch.clone();
    let worker = std::thread::Builder::new().name("memdir-core".into()).spawn(move || {
        let model = crate::ops::recall::recall_model(&worker_ctx, spec.as_deref()).ok().flatten();
        let mut memory = Memory {
            ctx: worker_ctx,
            cwd,
            session: String::new(),
            model,
            sampling: None,
            client_name: None,
            sync: AutoSync::default(),
            watch: worker_watch,
        };
        memory.settle_in();
        loop {
            let job = match memory.sync.due {
                None => inbox.recv().ok(),
                Some(due) => match inbox.recv_timeout(due.saturating_duration_since(Instant::now())) {
                    Ok(job) => Some(job),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        memory.sync.due = None;
                        memory.spawn_sync(None);
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => None,
                },
            };
            let Some(job) = job else { break };
            job(&mut memory);
        }
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    {
        // Not joined at the end: it may be asleep, and it holds nothing that needs finishing.
        let (watch, handle) = (watch.clone(), runtime.handle().clone());
        std::thread::Builder::new()
            .name("memdir-watch".into())
            .spawn(move || watch.run(handle, |path| format!("{}{path}", tools::SCHEME)))?;
    }
    let server = Server {
        instructions,
        tools,
        callable,
        jobs,
        cwd_given: args.cwd.is_some(),
        llm_given: args.llm.is_some(),
        roots_settled: tokio::sync::Mutex::new(false),
        watch: watch.clone(),
    };
    let given = ctx.given_stdin().map(<[u8]>::to_vec);
    let served = runtime.block_on(async move {
        // The SDK talks to the framing layer, which talks to stdio (see `framing`).
        let (server_end, relay_end) = tokio::io::duplex(64 * 1024);
        let (from_server, to_server) = tokio::io::split(relay_end);
        // Given bytes (a test in this process) stand in for stdio; the answers go nowhere.
        type Input = Box<dyn tokio::io::AsyncRead + Unpin + Send>;
        type Output = Box<dyn tokio::io::AsyncWrite + Unpin + Send>;
        let (input, output): (Input, Output) = match given {
            Some(bytes) => (Box::new(std::io::Cursor::new(bytes)), Box::new(tokio::io::sink())),
            None => (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout())),
        };
        let relay = tokio::spawn(framing::relay(input, output, to_server, from_server));
        let service = server.serve(tokio::io::split(server_end)).await?;
        service.waiting().await.map_err(|e| std::io::Error::other(e.to_string()))?;
        relay.await.map_err(std::io::Error::other)??;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    });
    // The handlers held the only sender; with them gone the worker's loop ends.
    watch.stop.store(true, Ordering::Relaxed);
    *watch.peer.lock().unwrap_or_else(|e| e.into_inner()) = None;
    drop(runtime);
    let _ = worker.join();
    served.map_err(|e| Failure { status: 1, message: format!("mcp: {e}") })
}

/// The server's instructions for the project it starts in: with a pause in force (issue 28),
/// the agent is told to save only what the user asks it to. A project that cannot be read
/// gets the plain instructions; the tools report the problem when called.
fn instructions(ctx: &Context, cwd: &str, offered: String) -> String {
    let target = memdir_harness::contract::target::Target {
        cwd: cwd.to_string(),
        env: ctx.env().to_vec(),
        memory_dir: None,
        by: None,
    };
    let paused = crate::ops::whole_tree()
        .and_then(|fs| Ok(ctx.core(fs)?.paused(&target, ctx.now_ms())?))
        .ok()
        .flatten();
    match paused {
        None => offered,
        Some(pause) => format!(
            "{offered} The user has paused automatic memory for this project ({}): call memory_save only when the user asks you to remember something.",
            match pause.until_ms {
                Some(until) => format!("until {}", memdir_harness::contract::time::iso_millis(until)),
                None => "until they resume it".into(),
            }
        ),
    }
}

type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// What the worker thread owns: the context (with its loaded component), the working
/// directory, the connection's recall session and the model.
struct Memory {
    ctx: Context,
    cwd: String,
    /// The recall session's JSON, as the core last returned it (empty: new).
    session: String,
    model: Option<Box<dyn Model>>,
    /// The client's model, when the client offers sampling: preferred to `model`.
    sampling: Option<client::Sampling>,
    /// The client's name from its `initialize`, for the receipts of what it was given.
    client_name: Option<String>,
    sync: AutoSync,
    watch: Arc<watch::Watch>,
}

/// After a write, the sync waits this long for the next write (the core's schedule).
const WRITE_SYNC_DELAY: Duration =
    Duration::from_millis(memdir_harness::contract::team::AUTO_SYNC.write_delay_ms.unsigned_abs());

/// Syncs of memory synced through git when `teamSync` is `auto` (issue 13): in a thread of
/// their own, one at a time, so no tool call waits for the network.
#[derive(Default)]
struct AutoSync {
    auto: bool,
    /// When the debounced sync after the last write is due.
    due: Option<Instant>,
    running: Arc<AtomicBool>,
}

/// The model a workflow asks: the client's, else `--llm`'s; None: offline. (A function of the
/// two fields, so a caller can borrow the rest of [`Memory`] beside it.)
fn model<'a>(
    sampling: &'a mut Option<client::Sampling>,
    model: &'a mut Option<Box<dyn Model>>,
) -> Option<&'a mut dyn Model> {
    match (sampling, model) {
        (Some(sampling), _) => Some(sampling),
        (None, Some(model)) => Some(model.as_mut()),
        (None, None) => None,
    }
}

impl Memory {
    /// What starting to serve a project does: a missing MEMORY.md is written (R6.5; said on
    /// stderr, which MCP leaves to the server), the watcher watches its memory, and with
    /// `teamSync: auto` a sync runs unless one ran in the last few minutes.
    fn settle_in(&mut self) {
        if let Err(e) = crate::ops::index::rebuild_missing_index(&self.ctx, &self.cwd, &mut std::io::stderr())
        {
            eprintln!("memdir: {}", e.message);
        }
        self.watch.watch(self.memory_dir().ok().map(PathBuf::from));
        self.sync.auto = self.team_sync() == Some(TeamSync::Auto);
        self.spawn_sync(Some(memdir_harness::contract::team::AUTO_SYNC.session_interval_ms));
    }

    /// Runs `job` for `project`, a folder a call named (issue 44): only a folder in the project
    /// this server serves, or a project where the user already uses memdir, never the home
    /// folder or `/`; the call's choice does not outlast it, so later calls see the served
    /// project as before. A refusal says what the person can do.
    fn visit<T>(&mut self, project: &str, job: impl FnOnce(&mut Memory) -> T) -> Result<T, String> {
        let dir = self.admit(project)?;
        if dir == self.cwd {
            return Ok(job(self));
        }
        let served = std::mem::replace(&mut self.cwd, dir);
        let session = std::mem::take(&mut self.session);
        let out = job(self);
        self.cwd = served;
        self.session = session;
        Ok(out)
    }

    /// The folder a call may name, canonical; else why not.
    fn admit(&self, project: &str) -> Result<String, String> {
        let refuse = |why: &str| {
            format!(
                "memdir serves {} here; {project} {why}. A call cannot move memdir elsewhere: to use memory \
                 there, the person opens that folder in their client (or starts `memdir mcp --cwd` in it), \
                 or saves a first memory there from a terminal (`memdir save --cwd ...`)",
                self.cwd
            )
        };
        let dir = std::fs::canonicalize(project)
            .ok()
            .and_then(|p| p.into_os_string().into_string().ok())
            .filter(|d| std::path::Path::new(d).is_dir())
            .ok_or_else(|| refuse("is not a folder"))?;
        let home = self.ctx.var("HOME").and_then(|h| std::fs::canonicalize(h).ok());
        let outside_any_project = |d: &str| d == "/" || home.as_deref() == Some(std::path::Path::new(d));
        if outside_any_project(&dir) {
            return Err(refuse("is the home folder or the root, which are no project"));
        }
        let mut core =
            self.ctx.core(crate::ops::whole_tree().map_err(|e| e.message)?).map_err(|e| e.to_string())?;
        let there =
            core.locate(&dir, self.ctx.env()).map_err(|e| refuse(&format!("cannot be located ({e})")))?;
        let here = core.locate(&self.cwd, self.ctx.env()).map_err(|e| e.to_string())?;
        if there.project_root == here.project_root {
            return Ok(dir);
        }
        if outside_any_project(&there.project_root) {
            return Err(refuse("is not in a project"));
        }
        if !std::path::Path::new(&there.memory_dir).is_dir() {
            return Err(refuse("is not a project where memdir is in use"));
        }
        Ok(dir)
    }

    /// Serves another project (the client's first root): the last project's pending sync runs
    /// now, the recall session starts afresh, and the new project is settled in.
    fn move_to(&mut self, cwd: String) {
        let Ok(cwd) = std::fs::canonicalize(&cwd)
            .map_err(drop)
            .and_then(|p| p.into_os_string().into_string().map_err(drop))
        else {
            return;
        };
        if cwd == self.cwd || !std::path::Path::new(&cwd).is_dir() {
            return;
        }
        if self.sync.due.take().is_some() {
            self.spawn_sync(None);
        }
        self.cwd = cwd;
        self.session.clear();
        self.settle_in();
    }

    /// The project as the commands take it.
    fn target(&self) -> Target {
        Target { cwd: Some(PathBuf::from(&self.cwd)), memory_dir: None }
    }

    /// The `teamSync` switch in force for the working directory.
    fn team_sync(&self) -> Option<TeamSync> {
        let mut core = self.ctx.core(crate::ops::whole_tree().ok()?).ok()?;
        Some(core.status(&self.cwd, self.ctx.env()).ok()?.0.team_sync)
    }

    /// A write happened: with `auto`, sync once writes pause.
    fn wrote(&mut self) {
        if self.sync.auto {
            self.sync.due = Some(Instant::now() + WRITE_SYNC_DELAY);
        }
    }

    /// With `auto`, syncs team/ and the private directory (those that are working copies) in
    /// the background, reporting on stderr, which MCP leaves to the server.
    fn spawn_sync(&self, min_interval_ms: Option<i64>) {
        if !self.sync.auto || self.sync.running.swap(true, Ordering::SeqCst) {
            return;
        }
        let (ctx, cwd, running) = (self.ctx.fresh(), self.cwd.clone(), self.sync.running.clone());
        let dir = self.memory_dir();
        std::thread::spawn(move || {
            if let Ok(dir) = &dir {
                for line in crate::ops::team::sync_copies(&ctx, &cwd, dir, min_interval_ms) {
                    eprintln!("memdir: {line}");
                }
            }
            running.store(false, Ordering::SeqCst);
        });
    }

    /// The memory directory of the working directory, whether or not it exists yet.
    fn memory_dir(&self) -> Result<String, Failure> {
        let mut core = self.ctx.core(crate::ops::whole_tree()?)?;
        Ok(core.locate(&self.cwd, self.ctx.env())?.memory_dir)
    }
}

/// The protocol side: answers MCP requests by sending jobs to the worker.
struct Server {
    /// What the client is told at `initialize`.
    instructions: String,
    /// What `tools/list` answers: the tools the core offers this project.
    tools: Vec<rmcp::model::Tool>,
    /// Every tool of the catalog: what a call may name.
    callable: Vec<rmcp::model::Tool>,
    jobs: mpsc::Sender<Job>,
    /// `--cwd` was given: roots do not move the project.
    cwd_given: bool,
    /// `--llm` was given: the user chose the model, and the client's is not asked.
    llm_given: bool,
    /// The client's roots were asked for since they last changed.
    roots_settled: tokio::sync::Mutex<bool>,
    watch: Arc<watch::Watch>,
}

/// Resources a client may subscribe to at once.
const MAX_SUBSCRIPTIONS: usize = 10_000;
/// How long the server waits for the client's roots.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a sampling request may take: the client may ask its user first. Other tool calls
/// wait meanwhile (one worker owns the memory).
const SAMPLING_TIMEOUT: Duration = Duration::from_secs(60);

impl Server {
    /// Runs `job` on the worker and waits for its answer.
    async fn on_worker<R: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Memory) -> R + Send + 'static,
    ) -> Result<R, McpError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |memory| {
                let _ = tx.send(job(memory));
            }))
            .map_err(|_| McpError::internal_error("the memory worker has stopped", None))?;
        rx.await.map_err(|_| McpError::internal_error("the memory worker stopped mid-request", None))
    }

    /// Without `--cwd`, the client's first `file://` root is the project: asked once, and again
    /// after the client says its roots changed.
    async fn settle_roots(&self, peer: &Peer<RoleServer>) {
        if self.cwd_given {
            return;
        }
        let mut settled = self.roots_settled.lock().await;
        if *settled {
            return;
        }
        *settled = true;
        if let Some(dir) = client::first_root(peer, ROOTS_TIMEOUT).await {
            let _ = self.on_worker(move |memory| memory.move_to(dir)).await;
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("memdir", env!("CARGO_PKG_VERSION"))
                .with_title("memdir")
                .with_description("Persistent, file-based memory for AI coding agents"),
        )
        .with_instructions(self.instructions.clone())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        *self.watch.peer.lock().unwrap_or_else(|e| e.into_inner()) = Some(context.peer.clone());
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.roots_settled.lock().await = false;
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let mut arguments = request.arguments.unwrap_or_default();
        let project = tools::project(&request.name, &mut arguments)?;
        let call = tools::Call::parse(&request.name, arguments, &self.callable)?;
        // A call that names its project needs no roots: the 2026-07-28 revision has none.
        if project.is_none() {
            self.settle_roots(&context.peer).await;
        }
        let progress = client::Progress::new(&context.peer, context.meta.get_progress_token());
        // Decided with each call, so the first one already uses the client's model.
        let runtime = tokio::runtime::Handle::current();
        let sampling = (!self.llm_given)
            .then(|| client::Sampling::offered(&context.peer, runtime, SAMPLING_TIMEOUT))
            .flatten();
        let client_name = context.peer.peer_info().map(|i| i.client_info.name.clone());
        let result = self
            .on_worker(move |memory| {
                memory.sampling = sampling;
                // The timeline names the agent that asked for a write (issue 48).
                memory.ctx.set_by(format!("agent:{}", client_name.as_deref().unwrap_or("mcp")));
                memory.client_name = client_name;
                match project {
                    Some(project) => memory
                        .visit(&project, |memory| call.run(memory, &progress))
                        .map_err(Failure::input)
                        .flatten(),
                    None => call.run(memory, &progress),
                }
            })
            .await?;
        Ok(match result {
            Ok(answer) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
                result.structured_content = Some(answer.structured);
                result
            }
            // Arguments the core found do not fit the tool's schema: what to send, as for the
            // tools the server parses itself.
            Err(failure) if failure.status == tools::BAD_ARGUMENTS => {
                let schema = self.callable.iter().find(|t| t.name == request.name).map(|t| &t.input_schema);
                return Err(McpError::invalid_params(
                    failure.message,
                    schema.map(|s| serde_json::json!({ "inputSchema": s })),
                ));
            }
            // The tool ran and refused (a secret in the body, a missing "Why:"): the model reads
            // the reason and can try again, so this is a tool result, not a protocol error.
            Err(failure) => CallToolResult::error(vec![ContentBlock::text(failure.message)]),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.settle_roots(&context.peer).await;
        let listed = self.on_worker(tools::resources).await?;
        listed.map(ListResourcesResult::with_all_items).map_err(|f| McpError::internal_error(f.message, None))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.settle_roots(&context.peer).await;
        let uri = request.uri;
        if uri == tools::PENDING_URI {
            let text = self.on_worker(tools::read_pending).await??;
            let contents = ResourceContents::text(text, uri).with_mime_type("application/json");
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        let path = tools::resource_path(&uri)?;
        let text = self.on_worker(move |memory| tools::read_resource(memory, &path)).await??;
        let contents = ResourceContents::text(text, uri).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![tools::resource_template()]))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        tools::resource_path(&request.uri)?;
        let mut subscribed = self.watch.subscribed.lock().unwrap_or_else(|e| e.into_inner());
        if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains(&request.uri) {
            return Err(McpError::invalid_params(
                format!("at most {MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from some first"),
                None,
            ));
        }
        subscribed.insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.watch.subscribed.lock().unwrap_or_else(|e| e.into_inner()).remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            tools::PROMPT_NAME,
            Some(tools::PROMPT_DESCRIPTION),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != tools::PROMPT_NAME {
            return Err(McpError::invalid_params(
                format!("no prompt named {:?}: the one prompt is {:?}", request.name, tools::PROMPT_NAME),
                None,
            ));
        }
        self.settle_roots(&context.peer).await;
        let text = self
            .on_worker(tools::system_prompt)
            .await?
            .map_err(|f| McpError::internal_error(f.message, None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(tools::PROMPT_DESCRIPTION)
            .into())
    }
}
