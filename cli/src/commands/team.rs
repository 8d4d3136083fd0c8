//! `memdir team init | sync | status | log` and git's merge driver `memdir merge-index` (issue 13):
//! memory synced through git. The core decides every step; this only runs git.

use crate::context::{Context, Failure, Outcome};
use crate::ops::target::Target;
use crate::ops::team::drive;
use memdir_harness::contract::team::{Action, InitOptions, LogOptions, Which};
use memdir_harness::contract::time::iso_millis;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir team`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Make team/ (or, with --private, the private memory directory) a git working copy of a
    /// remote's branch, keeping what it holds as the first commit, then sync.
    Init(InitArgs),
    /// Commit local changes (after the secret scan), fetch, integrate and push.
    Sync(Common),
    /// Ahead, behind and dirty (against the last fetch), the last sync, the remote.
    Status(Common),
    /// Who committed what to the synced memory, newest first, with the diffs; no network.
    Log(LogArgs),
}

#[derive(Debug, clap::Args)]
struct LogArgs {
    #[command(flatten)]
    common: Common,
    /// Only this memory's commits (relative to team/, or to the private directory).
    path: Option<String>,
    /// At most this many commits (up to 50).
    #[arg(long, default_value_t = 20)]
    limit: u32,
}

#[derive(Debug, clap::Args)]
struct Common {
    #[command(flatten)]
    target: Target,
    /// The private memory directory, for one person's machines, instead of team/.
    #[arg(long)]
    private: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct InitArgs {
    #[command(flatten)]
    common: Common,
    /// The remote: a URL or a path. Default for team memory: the project's own `origin`.
    #[arg(long)]
    remote: Option<String>,
    /// The branch memory lives on (default: memdir-team, an orphan branch).
    #[arg(long)]
    branch: Option<String>,
}

/// Arguments of `memdir merge-index`, as git's merge driver calls it (`%O %A %B`).
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The common ancestor's MEMORY.md.
    base: PathBuf,
    /// Ours: the merged result is written here.
    ours: PathBuf,
    /// Theirs.
    theirs: PathBuf,
}

pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let (common, action) = match args.command {
        Sub::Init(a) => {
            let driver = std::env::current_exe().ok().and_then(|p| p.into_os_string().into_string().ok());
            (a.common, Action::Init(InitOptions { remote: a.remote, branch: a.branch, merge_driver: driver }))
        }
        Sub::Sync(c) => (c, Action::Sync),
        Sub::Status(c) => (c, Action::Status),
        Sub::Log(a) => (a.common, Action::Log(LogOptions { path: a.path, limit: a.limit })),
    };
    let which = if common.private { Which::Private } else { Which::Team };
    let report = drive(ctx, &common.target, which, action, None)?;
    if common.json {
        // `skipped` in words, as this command has always printed it.
        let mut json = serde_json::to_value(&report).map_err(std::io::Error::from)?;
        json["skipped"] = serde_json::json!(report.skipped.map(|s| s.to_string()));
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else if report.history.is_empty() {
        write!(out, "{}", report.text)?;
    } else {
        // Commits are teammates' text: shown with control characters escaped, like memories.
        let escape = memdir_harness::contract::text::escape_controls;
        for c in &report.history {
            writeln!(
                out,
                "{}  {}  {}  {}",
                &c.id[..12],
                iso_millis(c.at_ms),
                escape(&c.author),
                escape(&c.subject)
            )?;
            for line in c.diff.lines() {
                writeln!(out, "{}", escape(line))?;
            }
            if c.diff_truncated {
                writeln!(out, "… (diff cut at 16 KB)")?;
            }
        }
    }
    Ok(())
}

/// git's merge driver for MEMORY.md: never a conflict.
pub fn merge_index(ctx: &Context, args: MergeArgs) -> Outcome {
    let read = |path: &PathBuf| {
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))
    };
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let merged = ctx.core(memdir_harness::ConfinedFs::new())?.merge_index(&base, &ours, &theirs)?;
    std::fs::write(&args.ours, merged)
        .map_err(|e| Failure::input(format!("{}: {e}", args.ours.display())))?;
    Ok(())
}
