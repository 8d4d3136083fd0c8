//! The `memdir` command line: argument parsing, the choice of backend, exit statuses.
//! Each subcommand lives in its own file under `commands/`.

use clap::{CommandFactory, Parser, Subcommand};
use std::io::Write;

mod commands;
mod context;

pub use context::{Backend, Context, Failure, Outcome, absolute, read_root};

pub(crate) mod ops;

#[doc(hidden)]
pub use commands::setup::editors as setup_editors;

/// Persistent, file-based memory for AI coding agents.
#[derive(Debug, Parser)]
#[command(
    name = "memdir",
    version,
    about = "Persistent, file-based memory for AI coding agents, shared with the terminal agent",
    long_about = None
)]
pub struct Cli {
    /// The time to use as "now" (RFC 3339, e.g. 2026-11-29T12:00:00Z); defaults to the clock.
    #[arg(long, global = true, value_parser = parse_now)]
    pub now: Option<i64>,
    /// Which build of the core runs the command (the native one is for tests and benchmarks).
    #[arg(long, global = true, value_enum, default_value_t = Backend::Component, hide = true)]
    pub backend: Backend,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the manifest of a memory directory: one line per memory, newest first (R5.3).
    Manifest(commands::manifest::Args),
    /// List the memory files of a directory with their frontmatter and diagnostics (R5.1).
    Scan(commands::scan::Args),
    /// Print MEMORY.md exactly as the model sees it, with the warning when it was cut (R6.2).
    Index(commands::index::Args),
    /// Print the auto-memory directory of a working directory, or a subagent's (R2, R11).
    Path(commands::path::Args),
    /// List the instruction files in load order, or print them as the model sees them (R3).
    Instructions(commands::instructions::Args),
    /// Print the memory part of a system prompt: instructions, guidance, MEMORY.md (R12.1).
    Prompt(commands::prompt::Args),
    /// Show which switches are on and which rule decided (R4).
    Status(commands::status::Args),
    /// A client's lifecycle hook: the index at session start, recall at each prompt,
    /// extraction when a turn stops (R14). Reads the client's payload on stdin.
    Hook(commands::hook::Args),
    /// Recall the memories worth injecting for one user request (R7, R8).
    Recall(commands::recall::Args),
    /// Manage a recall session file (`compact` after the conversation was compacted).
    Session(commands::session::Args),
    /// Save a memory and its MEMORY.md line in one step (R9.1).
    Save(commands::save::SaveArgs),
    /// Remove a memory and its MEMORY.md line.
    Forget(commands::save::ForgetArgs),
    /// List the trash, or bring back a memory extraction or a dream deleted or overwrote.
    Restore(commands::save::RestoreArgs),
    /// Pause every automatic memory write for the project (extraction, hooks, the dream); recall
    /// goes on.
    Pause(commands::pause::PauseArgs),
    /// End a pause.
    Resume(commands::pause::ResumeArgs),
    /// Report what has drifted: index lines without files, files without index lines,
    /// duplicates, an index over its limits, broken frontmatter. Exit 1 when anything is found.
    Check(commands::check::Args),
    /// Walk what check found, one memory at a time: keep, edit or forget each; retire project
    /// memories whose dates have passed.
    Review(commands::review::Args),
    /// Extract memories from a conversation with a model, in two rounds (R9.2).
    Extract(commands::extract::Args),
    /// Append an entry to today's daily log (R9.4).
    Log(commands::log::LogArgs),
    /// Fold what is new in the daily logs into topic memories with a model (R9.4).
    Dream(commands::log::DreamArgs),
    /// Sync team memory (or, with --private, your own) through git: init, sync, status.
    Team(commands::team::Args),
    /// git's merge driver for MEMORY.md: writes the union of entries to OURS (never a conflict).
    #[command(hide = true)]
    MergeIndex(commands::team::MergeArgs),
    /// Serve the memory to MCP clients over stdio (Zed, Claude Code, Cursor, VS Code).
    Mcp(commands::mcp::Args),
    /// List the tools memdir offers agents (MCP and VS Code): names, descriptions, schemas.
    Tools(commands::tools::Args),
    /// Register `memdir mcp` with the agents on this machine (Claude Code, Cursor, VS Code, Zed,
    /// Codex, Gemini, opencode, Windsurf), or check or remove that.
    Setup(commands::setup::Args),
    /// Write a sample memory directory and show what an agent gets from it.
    Demo(commands::demo::Args),
    /// Print the completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions(commands::release::CompletionsArgs),
    /// Print the man page (roff).
    Man,
    /// Time scan + manifest on generated directories: component, native core and Node.
    #[cfg(feature = "bench")]
    Bench(commands::bench::Args),
}

fn parse_now(text: &str) -> Result<i64, String> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .map_err(|e| format!("not an RFC 3339 time ({e}); write e.g. 2026-11-29T12:00:00Z"))
}

/// Runs `memdir` with `args` (program name first) and `env`; returns the exit status.
/// Output goes to `out`, the error line to `err`.
pub fn run(
    args: impl IntoIterator<Item = String>,
    env: Vec<(String, String)>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    run_recorded(args, env, out, err, None)
}

/// [`run`], recording every call the command makes on the core into `record`.
pub fn run_recorded(
    args: impl IntoIterator<Item = String>,
    env: Vec<(String, String)>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    record: Option<memdir_harness::calls::Log>,
) -> i32 {
    run_with_stdin(args, env, None, out, err, record)
}

/// [`run_recorded`] with `stdin` as the command's standard input (None: the process's).
pub fn run_with_stdin(
    args: impl IntoIterator<Item = String>,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    record: Option<memdir_harness::calls::Log>,
) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let status = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            let _ = if status == 0 { out.write_all(text.as_bytes()) } else { err.write_all(text.as_bytes()) };
            return status;
        }
    };
    let ctx = Context::new(env, cli.backend, cli.now, record, stdin);
    let outcome = match cli.command {
        Command::Manifest(a) => commands::manifest::run(&ctx, a, out),
        Command::Scan(a) => commands::scan::run(&ctx, a, out),
        Command::Index(a) => commands::index::run(&ctx, a, out, err),
        Command::Path(a) => commands::path::run(&ctx, a, out, err),
        Command::Instructions(a) => commands::instructions::run(&ctx, a, out, err),
        Command::Prompt(a) => commands::prompt::run(&ctx, a, out, err),
        Command::Status(a) => commands::status::run(&ctx, a, out, err),
        Command::Hook(a) => commands::hook::run(&ctx, a, out),
        Command::Recall(a) => commands::recall::run(&ctx, a, out, err),
        Command::Session(a) => commands::session::run(&ctx, a, out),
        Command::Save(a) => commands::save::save(&ctx, a, out),
        Command::Forget(a) => commands::save::forget(&ctx, a, out),
        Command::Restore(a) => commands::save::restore(&ctx, a, out),
        Command::Pause(a) => commands::pause::pause(&ctx, a, out),
        Command::Resume(a) => commands::pause::resume(&ctx, a, out),
        Command::Check(a) => commands::check::run(&ctx, a, out),
        Command::Review(a) => commands::review::run(&ctx, a, out),
        Command::Extract(a) => commands::extract::run(&ctx, a, out),
        Command::Log(a) => commands::log::log(&ctx, a, out),
        Command::Dream(a) => commands::log::dream(&ctx, a, out, err),
        Command::Team(a) => commands::team::run(&ctx, a, out),
        Command::MergeIndex(a) => commands::team::merge_index(&ctx, a),
        Command::Mcp(a) => commands::mcp::run(&ctx, a),
        Command::Tools(a) => commands::tools::run(&ctx, a, out),
        Command::Setup(a) => commands::setup::run(&ctx, a, out),
        Command::Demo(a) => commands::demo::run(&ctx, a, out),
        Command::Completions(a) => commands::release::completions(Cli::command(), a, out),
        Command::Man => commands::release::man(Cli::command(), out),
        #[cfg(feature = "bench")]
        Command::Bench(a) => {
            let cli = |argv, env, stdin, answer: &mut dyn Write| {
                run_with_stdin(argv, env, stdin, answer, &mut std::io::sink(), None)
            };
            commands::bench::run(&ctx, a, &cli, out, err)
        }
    };
    match outcome {
        Ok(()) => 0,
        Err(failure) => {
            if !failure.message.is_empty() {
                let _ = writeln!(err, "memdir: {}", failure.message);
            }
            failure.status
        }
    }
}
