//! `memdir setup`: registers `memdir mcp` with every agent on the machine (issue 15), shows what
//! it will change first, and undoes exactly that with `--remove`.
//!
//! Each file is edited in place of its one entry (comments and every other key kept), written
//! atomically, and backed up as `<file>.memdir-backup` the first time memdir is added. Removal
//! puts the backup back when the file is exactly what setup left; otherwise it takes out the
//! entry alone, so changes the user or the client made since are kept.

mod clients;
mod edit;
mod hooks;
mod plugin;
mod swap;

/// The clients and the editors without the disk, for the `setup-editors` fuzz target
/// (`tests/fuzz.rs`); not an interface to build on.
#[doc(hidden)]
pub mod editors {
    pub use super::clients::{Client, Dirs, all};
    pub use super::edit::{Format, NAME, Place, Removal};
}

use crate::context::{Context, Failure, Outcome};
use clients::{Client, Dirs, ServerFile};
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `memdir setup`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this client (repeatable): claude, cursor, vscode, copilot, zed, codex, gemini,
    /// opencode, cline, cn, windsurf. Named clients are set up even when they do not look
    /// installed.
    #[arg(long = "client", value_name = "NAME")]
    pub clients: Vec<String>,
    /// Apply without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Print the changes as a diff and write nothing.
    #[arg(long, conflicts_with_all = ["check"])]
    pub dry_run: bool,
    /// Take memdir out of the clients' configuration again.
    #[arg(long, conflicts_with_all = ["check"])]
    pub remove: bool,
    /// Report, per client, whether memdir is registered and whether the server answers.
    #[arg(long)]
    pub check: bool,
    /// The model learning uses when a turn stops: off, agent:CLIENT, command:CMD,
    /// anthropic:MODEL or openai:MODEL. Default: the agent's own (`codex exec`, `gemini -p`,
    /// `opencode run`, `cn -p`, Cursor's agent), or $MEMDIR_LLM when it is set.
    #[arg(long, value_name = "SPEC")]
    pub llm: Option<String>,
}

/// What setup would do to one of a client's files.
struct Plan<'a> {
    client: &'a Client,
    file: PathBuf,
    before: Option<String>,
    /// The new text; None deletes the file (removal from a file setup created).
    after: Option<String>,
    /// Put the backup's bytes back (removal from a file setup left untouched).
    restores_backup: bool,
    backup: Backup,
}

/// What happens to `<file>.memdir-backup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backup {
    Keep,
    /// setup changes an existing file that has no backup yet (memdir first added, or an entry
    /// someone else wrote replaced): keep a copy of it.
    Write,
    /// memdir is taken out: the backup has done its work.
    Delete,
}

/// The suffix of the copy kept of a file before memdir was first added to it.
const BACKUP_SUFFIX: &str = ".memdir-backup";

pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let dirs = Dirs::from_env(|v| ctx.var(v).map(str::to_string))
        .ok_or_else(|| Failure::input("setup needs HOME (or USERPROFILE) to find the clients' files"))?;
    let all = clients::all(&dirs);
    for name in &args.clients {
        if !all.iter().any(|c| c.id == name) {
            let ids: Vec<_> = all.iter().map(|c| c.id).collect();
            return Err(Failure::input(format!(
                "no client named {name:?}; the clients are {}",
                ids.join(", ")
            )));
        }
    }
    let chosen: Vec<&Client> = if args.clients.is_empty() {
        all.iter().filter(|c| clients::installed(c, ctx.var("PATH"))).collect()
    } else {
        all.iter().filter(|c| args.clients.iter().any(|n| n == c.id)).collect()
    };
    if chosen.is_empty() {
        let names: Vec<_> = all.iter().map(|c| c.title).collect();
        writeln!(
            out,
            "No agents found on this machine (looked for {}). Nothing to do; name one with --client.",
            names.join(", ")
        )?;
        return Ok(());
    }
    if args.check {
        return check(ctx, &chosen, out);
    }
    let program = program(ctx)?;
    let package = plugin::package(ctx.var("MEMDIR_OPENCODE_PLUGIN"), Path::new(&program));
    let mut plans = Vec::new();
    let mut learning = Vec::new();
    let mut failed = false;
    for client in chosen {
        if !args.remove && client.has_memdir_extension() {
            writeln!(
                out,
                "{}: skipped: memdir's extension for it is installed and gives it memdir",
                client.title
            )?;
            continue;
        }
        // Without --llm, the model a stop hook already names is kept; else the agent's own
        // (issue 46), unless $MEMDIR_LLM chooses one for every hook.
        let llm = args
            .llm
            .clone()
            .or_else(|| existing_llm(client))
            .or_else(|| ctx.var("MEMDIR_LLM").is_none().then(|| own_model(client)).flatten());
        learning.push((client.id, llm.clone()));
        for (file, edits) in files(client, &program, llm.as_deref(), package.as_deref(), args.remove) {
            match plan(client, &file, &edits, args.remove) {
                Ok(Some(plan)) => plans.push(plan),
                Ok(None) => writeln!(
                    out,
                    "{}: {} ({})",
                    client.title,
                    if args.remove { "not registered" } else { "already registered" },
                    file.display()
                )?,
                Err(message) => {
                    failed = true;
                    writeln!(out, "{}: {}: {message}", client.title, file.display())?;
                }
            }
        }
    }
    for plan in &plans {
        let verb = match (&plan.after, args.remove) {
            (None, _) => "delete (setup created it)",
            (_, true) if plan.restores_backup => "restore from the backup",
            (_, true) => "remove memdir from",
            (_, false) if plan.before.is_none() => "create",
            (_, false) => "add memdir to",
        };
        writeln!(out, "{}: {verb} {}", plan.client.title, plan.file.display())?;
        if args.dry_run {
            crate::ops::diff::lines(
                plan.before.as_deref().unwrap_or(""),
                plan.after.as_deref().unwrap_or(""),
                out,
            )?;
        }
    }
    if plans.is_empty() || args.dry_run {
        return finish(failed);
    }
    if !args.yes && !confirm(out)? {
        writeln!(out, "Nothing changed.")?;
        return finish(failed);
    }
    for plan in &plans {
        apply(plan).map_err(|e| Failure { status: 1, message: format!("{}: {e}", plan.file.display()) })?;
    }
    let mut clients: Vec<&Client> = plans.iter().map(|p| p.client).collect();
    clients.dedup_by_key(|c| c.id);
    writeln!(
        out,
        "Done. {} file(s) {}.",
        plans.len(),
        if args.remove { "no longer start memdir" } else { "start memdir with this project's memory" }
    )?;
    if !args.remove {
        let model = |id: &str| {
            let chosen = learning.iter().find(|(c, _)| *c == id).and_then(|(_, llm)| llm.clone());
            chosen.or_else(|| ctx.var("MEMDIR_LLM").map(|v| format!("{v} ($MEMDIR_LLM)")))
        };
        automatic(&clients, model, package.is_some(), out)?;
    }
    finish(failed)
}

fn finish(failed: bool) -> Outcome {
    if failed {
        Err(Failure { status: 1, message: "some files could not be read; see above".into() })
    } else {
        Ok(())
    }
}

/// The running binary's absolute path: clients start it without the user's shell PATH. The path
/// it was started by, when that leads to this binary (a package manager's stable link, such as
/// /opt/homebrew/bin/memdir, survives upgrades); else the binary itself.
fn program(ctx: &Context) -> Result<String, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure { status: 1, message: format!("the memdir binary: {e}") })?;
    let same = |p: &PathBuf| std::fs::canonicalize(p).ok() == std::fs::canonicalize(&exe).ok();
    let started_as = std::env::args_os().next().map(PathBuf::from).and_then(|arg0| {
        if arg0.components().count() > 1 {
            std::path::absolute(&arg0).ok()
        } else {
            std::env::split_paths(ctx.var("PATH")?).map(|dir| dir.join(&arg0)).find(|p| p.is_file())
        }
    });
    let chosen = started_as.filter(same).unwrap_or(exe);
    chosen
        .into_os_string()
        .into_string()
        .map_err(|_| Failure { status: 1, message: "the memdir binary's path is not UTF-8".into() })
}

/// The largest file setup edits: the syntax tree that keeps its comments and layout takes some
/// 16 times the file's size.
const MAX_FILE: u64 = 32 << 20;

fn read(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!(
            "larger than {} MB, more than setup edits; add memdir by hand (docs/mcp.md shows the entry)",
            MAX_FILE >> 20
        ));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| "not UTF-8 text".into())
}

/// The file a path leads to. A configuration file kept in a dotfiles repository and linked into
/// place is edited where it is, and the link stays.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `<file>.memdir-backup` is there. Anything there but a plain file (a planted link that
/// would send the copy elsewhere, or read it from elsewhere) is refused.
fn backup_exists(backup: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(backup) {
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(_) => Err(format!(
            "{} is a link or not a plain file, so not setup's backup; setup writes nothing \
             through it (move it away and run setup again)",
            backup.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", backup.display())),
    }
}

fn backup_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

/// The `memdir` entry in a client's file of servers.
fn registered(server: &ServerFile) -> Result<Option<serde_json::Value>, String> {
    let text = read(&server.file)?;
    Ok(text.as_deref().map(|t| server.place.registered(t)).transpose()?.flatten())
}

/// One change setup makes to a file: memdir's server entry, or its hooks.
enum Edit<'a> {
    Server(&'a Client, &'a ServerFile, &'a str),
    Hooks(hooks::HookSet),
    /// A file setup writes whole (opencode's plugin, a Cline hook script), known for memdir's
    /// by `ours`; empty content when removing.
    Whole {
        content: String,
        ours: fn(&str) -> bool,
    },
}

impl Edit<'_> {
    /// What the file would be with this change; `registered` is the entry there now.
    fn add(&self, text: Option<&str>) -> Result<String, String> {
        match self {
            Edit::Server(client, server, program) => {
                let old = text.map(|t| server.place.registered(t)).transpose()?.flatten();
                server.place.add(text, &client.entry(program, old.as_ref()))
            }
            Edit::Hooks(set) => set.add(text),
            Edit::Whole { content, ours } => match text {
                Some(text) if !ours(text) => {
                    Err("a file of that name that memdir did not write is there; setup leaves it".into())
                }
                _ => Ok(content.clone()),
            },
        }
    }

    fn present(&self, text: Option<&str>) -> Result<bool, String> {
        match self {
            Edit::Server(client, server, program) => {
                let Some(text) = text else { return Ok(false) };
                let old = server.place.registered(text)?;
                Ok(old.as_ref() == Some(&client.entry(program, old.as_ref())))
            }
            Edit::Hooks(set) => set.is_in(text),
            Edit::Whole { content, .. } => Ok(text == Some(content.as_str())),
        }
    }

    fn is_registered(&self, text: &str) -> Result<bool, String> {
        match self {
            Edit::Server(_, server, _) => Ok(server.place.registered(text)?.is_some()),
            Edit::Hooks(_) => Ok(!hooks::HookSet::registered(text)?.is_empty()),
            Edit::Whole { ours, .. } => Ok(ours(text)),
        }
    }

    /// The same edit as it stands in `text`: what adding it to the original made.
    fn as_found(&self, text: &str) -> Result<Edit<'_>, String> {
        Ok(match self {
            Edit::Server(client, server, program) => Edit::Server(client, server, program),
            Edit::Hooks(set) => Edit::Hooks(hooks::HookSet {
                header: set.header.clone(),
                items: hooks::HookSet::registered(text)?,
            }),
            // Setup wrote the file whole: as it stands, it is what adding it made.
            Edit::Whole { ours, .. } => Edit::Whole { content: text.to_string(), ours: *ours },
        })
    }

    fn remove(&self, text: &str) -> Result<String, String> {
        match self {
            Edit::Server(_, server, _) => server.place.remove(text),
            Edit::Hooks(_) => hooks::HookSet::remove(text),
            Edit::Whole { .. } => Ok(String::new()),
        }
    }
}

/// The files setup edits for a client, each with its edits: the server entry, and the hooks
/// where the client has them (in the same file or one of their own, or a script per event), or
/// its plugin file when the plugin package is there (`package`; removal needs none).
fn files<'a>(
    client: &'a Client,
    program: &'a str,
    llm: Option<&str>,
    package: Option<&Path>,
    remove: bool,
) -> Vec<(PathBuf, Vec<Edit<'a>>)> {
    let mut files = Vec::new();
    if let Some(server) = &client.server {
        files.push((server.file.clone(), vec![Edit::Server(client, server, program)]));
    }
    let whole = |content: String, ours| vec![Edit::Whole { content, ours }];
    if let Some(file) = &client.plugin {
        match (package, remove) {
            (_, true) => files.push((file.clone(), whole(String::new(), plugin::is_memdirs))),
            (Some(package), false) => {
                files.push((file.clone(), whole(plugin::content(package, program, llm), plugin::is_memdirs)))
            }
            (None, false) => {}
        }
    }
    if let Some(scripts) = &client.scripts {
        for (file, content) in scripts.scripts(program, llm) {
            files.push((file, whole(content, clients::HookScripts::is_memdirs)));
        }
    }
    if let Some(hook_file) = &client.hooks {
        let edit = Edit::Hooks(hook_file.set(program, llm));
        match files.iter_mut().find(|(file, _)| *file == hook_file.file) {
            Some((_, edits)) => edits.push(edit),
            None => files.push((hook_file.file.clone(), vec![edit])),
        }
    }
    files
}

/// The `--llm` of a stop hook memdir installed for `client` earlier (or the model its plugin
/// file hands the plugin), if any.
fn existing_llm(client: &Client) -> Option<String> {
    if let Some(file) = &client.plugin {
        let text = read(file).ok()??;
        return plugin::is_memdirs(&text).then(|| plugin::llm_of(&text)).flatten();
    }
    let stop_commands: Vec<String> = if let Some(hook_file) = &client.hooks {
        let text = read(&hook_file.file).ok()??;
        let items = hooks::HookSet::registered(&text).ok()?;
        let command = |v: &serde_json::Value| v.get("command").and_then(|c| c.as_str()).map(str::to_string);
        items
            .iter()
            .flat_map(|(_, item)| {
                let nested = item.get("hooks").and_then(|h| h.as_array()).cloned().unwrap_or_default();
                nested.iter().filter_map(command).chain(command(item)).collect::<Vec<_>>()
            })
            .collect()
    } else if let Some(scripts) = &client.scripts {
        scripts
            .scripts("memdir", None)
            .into_iter()
            .filter_map(|(file, _)| read(&file).ok().flatten())
            .collect()
    } else {
        Vec::new()
    };
    stop_commands
        .iter()
        .filter(|c| c.contains(" stop"))
        .find_map(|c| c.lines().find(|l| l.contains(" hook ") && l.contains(" stop")).and_then(hooks::llm_of))
}

fn add_all(edits: &[Edit], text: Option<&str>) -> Result<String, String> {
    let mut out = text.map(str::to_string);
    for edit in edits {
        out = Some(edit.add(out.as_deref())?);
    }
    Ok(out.unwrap_or_default())
}

/// What to change in one of a client's files; None when nothing needs to.
fn plan<'a>(
    client: &'a Client,
    file: &Path,
    edits: &[Edit],
    remove: bool,
) -> Result<Option<Plan<'a>>, String> {
    let before = read(file)?;
    let file = file.to_path_buf();
    if !remove {
        let mut all_present = true;
        for edit in edits {
            all_present &= edit.present(before.as_deref())?;
        }
        if all_present {
            return Ok(None);
        }
        let after = add_all(edits, before.as_deref())?;
        // A backup from an earlier setup stays: it is the file before memdir was ever added.
        let unbacked = !backup_exists(&backup_of(&resolved(&file)))?;
        // A file setup writes whole is memdir's (it refuses any other), so its old version is
        // not the user's to restore: a backup of it would bring an old hook back at --remove.
        let whole = edits.iter().all(|e| matches!(e, Edit::Whole { .. }));
        let backup = if before.is_some() && unbacked && !whole { Backup::Write } else { Backup::Keep };
        return Ok(Some(Plan { client, file, before, after: Some(after), restores_backup: false, backup }));
    }
    let Some(text) = before.as_deref() else { return Ok(None) };
    let mut found = Vec::new();
    for edit in edits {
        if edit.is_registered(text)? {
            found.push(edit.as_found(text)?);
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    let backup_path = backup_of(&resolved(&file));
    let backup = if backup_exists(&backup_path)? { read(&backup_path)? } else { None };
    let remove_all = |text: &str| {
        let mut out = text.to_string();
        for edit in &found {
            out = edit.remove(&out)?;
        }
        Ok(out)
    };
    let (after, restores_backup) =
        match edit::removal(text, backup.as_deref(), |t| add_all(&found, t), remove_all)? {
            edit::Removal::Backup(bytes) => (Some(bytes), true),
            edit::Removal::Delete => (None, false),
            edit::Removal::Edit(text) => (Some(text), false),
        };
    Ok(Some(Plan { client, file, before, after, restores_backup, backup: Backup::Delete }))
}

/// Says, per client, what is now automatic and what is not (R14).
fn automatic(
    clients: &[&Client],
    model: impl Fn(&str) -> Option<String>,
    has_plugin: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    for client in clients {
        let learns = if client.plugin.is_some() {
            if has_plugin {
                writeln!(
                    out,
                    "{}: automatic through memdir's plugin: the index in every request, recall at every prompt, learning when a turn ends.",
                    client.title
                )?;
                true
            } else {
                writeln!(
                    out,
                    "{}: memdir's plugin (@memdir/opencode) was not found beside this memdir; recall and saving go through memdir's tools (MCP) until you set MEMDIR_OPENCODE_PLUGIN to its dist/index.js and run setup again.",
                    client.title
                )?;
                false
            }
        } else if client.scripts.is_some() {
            writeln!(
                out,
                "{}: automatic: learning when a task completes. The index and recall come from its start and prompt hooks where Cline reads what they print (its VS Code extension, with hooks on in its settings); Cline's CLI 3 runs them without waiting, so there they go through memdir's tools (MCP).",
                client.title
            )?;
            true
        } else {
            match (&client.hooks, client.id) {
                (Some(hook_file), _) => {
                    let recall = if hook_file.client == "copilot" {
                        "recall through memdir's tools"
                    } else {
                        "recall at every prompt"
                    };
                    writeln!(
                        out,
                        "{}: automatic: the index at session start, {recall}, learning when a turn ends.",
                        client.title
                    )?;
                    if client.server.is_none() && hook_file.client == "cn" {
                        writeln!(
                            out,
                            "{}: its MCP servers are in ~/.continue/config.yaml, which setup does not edit; add memdir's tools there by hand (docs/agents.md).",
                            client.title
                        )?;
                    }
                    if let Some(trust) = hook_file.trust {
                        writeln!(out, "{}: {trust}.", client.title)?;
                    }
                    true
                }
                (None, "claude") => {
                    writeln!(out, "{}: keeps its memory itself; memdir adds only its tools.", client.title)?;
                    false
                }
                (None, _) => {
                    writeln!(
                        out,
                        "{}: has no hooks memdir can use: recall and saving go through memdir's tools (MCP), and the index through the server's instructions.",
                        client.title
                    )?;
                    false
                }
            }
        };
        if learns {
            writeln!(out, "{}: {}", client.title, learning_line(model(client.id).as_deref()))?;
        }
    }
    Ok(())
}

/// The model each client's learning uses, as setup left its stop hook (or plugin): the
/// client's name and the spec, for `memdir status`.
pub fn learning_models(ctx: &Context) -> Vec<(&'static str, String)> {
    let Some(dirs) = Dirs::from_env(|v| ctx.var(v).map(str::to_string)) else { return Vec::new() };
    clients::all(&dirs).iter().filter_map(|client| Some((client.title, existing_llm(client)?))).collect()
}

/// The model a client's stop hook borrows when setup is given none: the agent's own
/// non-interactive mode, where it has one (issue 46).
fn own_model(client: &Client) -> Option<String> {
    let id = client.hooks.as_ref().map(|h| h.client).or(client.plugin.as_ref().map(|_| client.id))?;
    memdir_harness::llm::agent::invocation(id).map(|_| format!("agent:{id}"))
}

/// The size of one borrowed extraction call: the request bytes over four, measured with the
/// pinned opencode, Gemini CLI and Codex CLI on a project with one memory (docs/writers.md).
/// The agent's own system prompt is most of it; memdir's part grows with the index and the turn.
const TOKENS_PER_CALL: &str = "3,000 to 8,000";

/// What setup says about learning with `model`: which model, and roughly what it costs.
fn learning_line(model: Option<&str>) -> String {
    match model {
        Some("off") => "learning is off (--llm off): memories are saved when you or the agent ask.".into(),
        Some(spec) if spec.starts_with("agent:") => {
            let name = spec["agent:".len()..].split(':').next().unwrap_or("");
            let program = memdir_harness::llm::agent::invocation(name).unwrap_or(name);
            format!(
                "learning borrows its own model (`{program}`: your sign-in, read-only, no tools), only \
                 after a turn that taught something: two calls of about {TOKENS_PER_CALL} tokens. \
                 --llm off turns it off."
            )
        }
        Some(spec) => format!("learning uses {spec}, only after a turn that taught something: two calls."),
        None => "learning when a turn ends needs a model: run setup again with --llm (e.g. --llm openai:gpt-4.1-mini, or a local server), or set MEMDIR_LLM; until then the stop hook does nothing.".into(),
    }
}

/// Writes a plan: the new text made ready beside the file, the backup, then the swap.
fn apply(plan: &Plan) -> io::Result<()> {
    let file = &resolved(&plan.file);
    let prepared = swap::prepare(file, plan.after.as_deref())?;
    let before = plan.before.as_deref().map(str::as_bytes);
    let backup = backup_of(file);
    let backed_up = match (plan.backup, before, prepared.permissions()?) {
        (Backup::Write, Some(before), Some(permissions)) => {
            write_backup(&backup, before, permissions)?;
            true
        }
        _ => false,
    };
    let written = prepared.commit(before);
    // A backup of a file that was not changed after all would be taken for its original later.
    if written.is_err() && backed_up {
        let _ = std::fs::remove_file(&backup);
    }
    written?;
    // A hook script setup creates is a program (Cline runs it with bash; a person may by hand).
    #[cfg(unix)]
    if let (None, Some(after)) = (&plan.before, &plan.after)
        && after.starts_with("#!")
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))?;
    }
    if plan.backup == Backup::Delete {
        remove_if_present(&backup)?;
    }
    Ok(())
}

/// Copies the file as it was to `backup`. Created exclusively, so a link or file that appeared
/// there since the plan is never followed or overwritten.
fn write_backup(backup: &Path, bytes: &[u8], permissions: std::fs::Permissions) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    // Private until it has the file's own permissions.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(backup).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => io::Error::other(format!(
            "{} appeared while setup was writing; nothing was written",
            backup.display()
        )),
        _ => e,
    })?;
    out.set_permissions(permissions)?;
    out.write_all(bytes)?;
    out.sync_all()
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Asks on the terminal; without one, says to pass --yes.
fn confirm(out: &mut dyn Write) -> Result<bool, Failure> {
    if !std::io::stdin().is_terminal() {
        return Err(Failure::input("not a terminal: pass --yes to apply, or --dry-run to see the diff"));
    }
    write!(out, "Apply these changes? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// `--check`: per client, registered or not, and whether what is registered answers an MCP
/// `initialize`.
fn check(ctx: &Context, chosen: &[&Client], out: &mut dyn Write) -> Outcome {
    let mut missing = false;
    for client in chosen {
        let Some(server) = &client.server else {
            writeln!(out, "{}: no MCP entry of memdir's to check (its hooks only)", client.title)?;
            continue;
        };
        let line = match registered(server) {
            Err(e) => {
                missing = true;
                format!("cannot read {}: {e}", server.file.display())
            }
            Ok(None) => {
                missing = true;
                format!("not registered ({})", server.file.display())
            }
            Ok(Some(entry)) => match Client::command_of(&entry) {
                None => {
                    missing = true;
                    "registered, but the entry has no command".into()
                }
                Some((program, args)) => match probe(ctx, &program, &args) {
                    Ok(version) => format!("registered; the server answers ({version})"),
                    Err(e) => {
                        missing = true;
                        format!("registered, but the server does not answer: {e}")
                    }
                },
            },
        };
        writeln!(out, "{}: {line}", client.title)?;
    }
    if missing { Err(Failure { status: 1, message: String::new() }) } else { Ok(()) }
}

/// How long `--check` waits for a server's `initialize` answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts the server as the client would and asks it to initialize; its name and version.
fn probe(ctx: &Context, program: &str, args: &[String]) -> Result<String, String> {
    use std::process::{Command, Stdio};
    // In an empty directory, so a server starting up finds no memory to tidy or sync.
    let scratch = tempfile::tempdir().map_err(|e| format!("a scratch directory: {e}"))?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(scratch.path())
        .env_clear()
        .envs(ctx.env().iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let request = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "memdir-setup-check", "version": env!("CARGO_PKG_VERSION") }
        }
    });
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(reply) = serde_json::from_str::<serde_json::Value>(&line)
                && reply.get("id") == Some(&serde_json::json!(1))
            {
                let _ = tx.send(reply);
                break;
            }
        }
    });
    let sent = writeln!(stdin, "{request}").and_then(|_| stdin.flush());
    let reply = rx.recv_timeout(PROBE_TIMEOUT);
    // Closing its input ends an MCP server; one that lingers is stopped.
    drop(stdin);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    sent.map_err(|e| format!("writing to it: {e}"))?;
    let reply = reply.map_err(|_| format!("no answer within {} s", PROBE_TIMEOUT.as_secs()))?;
    let info = &reply["result"]["serverInfo"];
    match (info["name"].as_str(), info["version"].as_str()) {
        (Some(name), Some(version)) => Ok(format!("{name} {version}")),
        _ => Err(format!("an unexpected answer: {reply}")),
    }
}
