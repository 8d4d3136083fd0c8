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

/// The commands `memdir --help` lists below the daily ones: they work as ever (installed hooks
/// and client configurations call `hook` and `mcp`), but a person rarely types them.
const MORE_COMMANDS: &str = "\
Agents call these (memdir setup writes them into their configuration):
  hook          A client's lifecycle hook; reads the client's payload on stdin
  mcp           Serve the memory to MCP clients over stdio

Plumbing, for scripts and for looking inside:
  manifest      Print the manifest of a memory directory
  scan          List the memory files of a directory with their frontmatter and diagnostics
  index         Print MEMORY.md exactly as the model sees it
  path          Print the memory directory of a working directory, or a subagent's
  instructions  List the instruction files in load order, or print them as the model sees them
  prompt        Print the memory part of a system prompt
  session       Manage a recall session file
  tools         List the tools memdir offers agents, with their size
  completions   Print the completion script for a shell
  man           Print the man page

`memdir help COMMAND` explains any of them.";

/// Persistent, file-based memory for AI coding agents.
#[derive(Debug, Parser)]
#[command(
    name = "memdir",
    version,
    about = "One memory for all your coding agents: learned as you work, kept in Markdown files you own",
    long_about = None,
    after_help = MORE_COMMANDS
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
    /// Make memory automatic in the agents on this machine (Codex, Gemini CLI, Cursor, Copilot,
    /// opencode, Claude Code, Zed, Windsurf, …), or check or undo that.
    Setup(commands::setup::Args),
    /// Show where this project's memory lives, what is on, and which setting decided.
    Status(commands::status::Args),
    /// Show the memories an agent would be given for a request.
    Recall(commands::recall::Args),
    /// Save a memory and its MEMORY.md line in one step.
    Save(commands::save::SaveArgs),
    /// Remove a memory and its MEMORY.md line.
    Forget(commands::save::ForgetArgs),
    /// Find what has drifted or gone stale: index lines without files, duplicates, broken
    /// frontmatter, memories the code no longer bears out. Exit 1 when anything is found.
    Check(commands::check::Args),
    /// Walk through what check found and what waits for approval, one memory at a time.
    Review(commands::review::Args),
    /// List the trash, or bring back a memory extraction or a dream deleted or overwrote.
    Restore(commands::save::RestoreArgs),
    /// What was written to the memory, when, and who asked: the person, an agent, extraction,
    /// the dream or team sync.
    History(commands::history::Args),
    /// Pause every automatic memory write for the project (extraction, hooks, the dream); recall
    /// goes on.
    Pause(commands::pause::PauseArgs),
    /// End a pause.
    Resume(commands::pause::ResumeArgs),
    /// Sync team memory (or, with --private, your own) through git: init, sync, status.
    Team(commands::team::Args),
    /// Open a workbench in the browser: every memory on this machine, what each agent was
    /// given, and the review queue, on a page served from this machine only.
    Ui(commands::ui::Args),
    /// Write a sample memory directory and show what an agent gets from it (try this first).
    Demo(commands::demo::Args),
    /// Extract memories from a conversation with a model, in two rounds.
    Extract(commands::extract::Args),
    /// Append an entry to today's daily log.
    Log(commands::log::LogArgs),
    /// Fold what is new in the daily logs into topic memories with a model.
    Dream(commands::log::DreamArgs),
    /// Print the manifest of a memory directory: one line per memory, newest first.
    #[command(hide = true)]
    Manifest(commands::manifest::Args),
    /// List the memory files of a directory with their frontmatter and diagnostics.
    #[command(hide = true)]
    Scan(commands::scan::Args),
    /// Print MEMORY.md exactly as the model sees it, with the warning when it was cut.
    #[command(hide = true)]
    Index(commands::index::Args),
    /// Print the auto-memory directory of a working directory, or a subagent's.
    #[command(hide = true)]
    Path(commands::path::Args),
    /// List the instruction files in load order, or print them as the model sees them.
    #[command(hide = true)]
    Instructions(commands::instructions::Args),
    /// Print the memory part of a system prompt: instructions, guidance, MEMORY.md.
    #[command(hide = true)]
    Prompt(commands::prompt::Args),
    /// Manage a recall session file (`compact` after the conversation was compacted).
    #[command(hide = true)]
    Session(commands::session::Args),
    /// List the tools memdir offers agents (MCP and VS Code): names, descriptions, schemas.
    #[command(hide = true)]
    Tools(commands::tools::Args),
    /// A client's lifecycle hook: the index at session start, recall at each prompt,
    /// extraction when a turn stops. Reads the client's payload on stdin.
    #[command(hide = true)]
    Hook(commands::hook::Args),
    /// Serve the memory to MCP clients over stdio (Zed, Claude Code, Cursor, VS Code).
    #[command(hide = true)]
    Mcp(commands::mcp::Args),
    /// git's merge driver for MEMORY.md: writes the union of entries to OURS (never a conflict).
    #[command(hide = true)]
    MergeIndex(commands::team::MergeArgs),
    /// Print the completion script for a shell (bash, zsh, fish, elvish, powershell).
    #[command(hide = true)]
    Completions(commands::release::CompletionsArgs),
    /// Print the man page (roff).
    #[command(hide = true)]
    Man,
    /// Time scan + manifest on generated directories: component, native core and Node.
    #[cfg(feature = "bench")]
    #[command(hide = true)]
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
        Command::Ui(a) => commands::ui::run(&ctx, a, out),
        Command::Hook(a) => commands::hook::run(&ctx, a, out),
        Command::Recall(a) => commands::recall::run(&ctx, a, out, err),
        Command::Session(a) => commands::session::run(&ctx, a, out),
        Command::Save(a) => commands::save::save(&ctx, a, out),
        Command::Forget(a) => commands::save::forget(&ctx, a, out),
        Command::Restore(a) => commands::save::restore(&ctx, a, out),
        Command::History(a) => commands::history::run(&ctx, a, out),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every help text a person can print, the nested commands' included.
    fn helps(mut command: clap::Command, path: String, out: &mut Vec<(String, String)>) {
        let text = command.render_long_help().to_string();
        out.push((path.clone(), text));
        for sub in command.get_subcommands().cloned().collect::<Vec<_>>() {
            let name = format!("{path} {}", sub.get_name());
            helps(sub, name, out);
        }
    }

    /// A requirement id (`R5.3`, `R14`) or an issue number (`issue 44`) in a text.
    fn cites(text: &str) -> Option<String> {
        let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '.')).collect();
        for (i, word) in words.iter().enumerate() {
            let id = word.strip_prefix('R').is_some_and(|rest| {
                rest.trim_end_matches('.')
                    .split('.')
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            });
            let issue = *word == "issue" && words.get(i + 1).is_some_and(|n| n.parse::<u32>().is_ok());
            if id || issue {
                return Some(word.to_string());
            }
        }
        None
    }

    /// Issue 47, item 2: help is for people. No text a user reads cites the SPEC or an issue.
    #[test]
    fn no_help_text_cites_a_requirement_or_an_issue() {
        assert_eq!(cites("newest first (R5.3)"), Some("R5.3".into()));
        assert_eq!(cites("see issue 44"), Some("issue".into()));
        assert_eq!(cites("Read-only, Rust 2024"), None);
        let mut all = Vec::new();
        helps(Cli::command(), "memdir".into(), &mut all);
        assert!(all.len() > 30, "{}", all.len());
        for (path, text) in all {
            assert_eq!(cites(&text), None, "`{path} --help` cites an id:\n{text}");
        }
    }

    /// Issue 47, item 2: `memdir --help` lists the daily commands first; the plumbing and the
    /// agents' entry points are listed below them, each by name, and still run.
    #[test]
    fn help_lists_the_daily_commands_first_and_names_every_other() {
        let help = Cli::command().render_help().to_string();
        let at = |word: &str| help.find(&format!("\n  {word} ")).unwrap_or_else(|| panic!("{word}: {help}"));
        for daily in
            ["setup", "status", "recall", "save", "forget", "check", "review", "restore", "pause", "team"]
        {
            assert!(at(daily) < help.find("Plumbing").unwrap(), "{daily} is listed with the daily commands");
        }
        assert!(at("setup") < at("status") && at("setup") < at("manifest") && at("setup") < at("hook"));
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            let listed = MORE_COMMANDS.contains(&format!("\n  {name} "));
            match name {
                // Called by git and by developers, never by a person's hand.
                "merge-index" | "bench" => assert!(sub.is_hide_set() && !listed, "{name}"),
                _ => assert!(sub.is_hide_set() == listed, "{name}: listed once, in one place"),
            }
        }
    }
}
