//! `memdir team init | sync | status` and git's merge driver `memdir merge-index` (issue 13):
//! memory synced through git. The core decides every step; this only runs git.

use super::save::Target;
use crate::cli::{Context, Failure, Outcome};
use memdir_core::team::{Action, InitOptions, Input, Report, Which};
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
    };
    let which = if common.private { Which::Private } else { Which::Team };
    let report = drive(ctx, &common.target, which, action, None)?;
    if common.json {
        serde_json::to_writer_pretty(&mut *out, &report).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render(&report))?;
    }
    Ok(())
}

/// Runs one init, sync or status to its report: the CLI's, and the MCP server's.
pub fn drive(
    ctx: &Context,
    target: &Target,
    which: Which,
    action: Action,
    min_interval_ms: Option<i64>,
) -> Result<Report, Failure> {
    let (target, _, fs) = target.open(ctx)?;
    let input =
        Input { target, which, action, now_ms: ctx.now_ms(), host_name: host_name(ctx), min_interval_ms };
    let mut core = ctx.core(fs)?;
    Ok(crate::steps::drive_team(&mut *core, &input, crate::git::run_command)?)
}

/// git's merge driver for MEMORY.md: never a conflict.
pub fn merge_index(ctx: &Context, args: MergeArgs) -> Outcome {
    let read = |path: &PathBuf| {
        std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))
    };
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let merged = ctx.core(crate::ConfinedFs::new())?.merge_index(&base, &ours, &theirs)?;
    std::fs::write(&args.ours, merged)
        .map_err(|e| Failure::input(format!("{}: {e}", args.ours.display())))?;
    Ok(())
}

/// This machine's name, for conflict copies and commit messages: `MEMDIR_HOST_NAME` (tests,
/// and people whose machines share a name), then the system's.
fn host_name(ctx: &Context) -> String {
    if let Some(name) = ctx.var("MEMDIR_HOST_NAME").or(ctx.var("COMPUTERNAME")).filter(|n| !n.is_empty()) {
        return name.to_string();
    }
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()))
        .or_else(|| {
            let out = std::process::Command::new("hostname").output().ok()?;
            Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "host".into())
}

/// One line: what a sync did.
pub fn summary(r: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(subject) = &r.committed {
        parts.push(format!("committed \"{subject}\""));
    }
    if !r.received.is_empty() {
        parts.push(format!("received {} file(s)", r.received.len()));
    }
    if !r.conflicts.is_empty() {
        parts.push(format!("{} conflict(s) kept beside (memdir check lists them)", r.conflicts.len()));
    }
    if r.pushed {
        parts.push("pushed".into());
    }
    if parts.is_empty() { "up to date".into() } else { parts.join(", ") }
}

/// The report as text.
pub fn render(r: &Report) -> String {
    let mut out = format!("{} ↔ {} ({})\n", r.dir, r.remote.as_deref().unwrap_or("no remote"), r.branch);
    if let Some(why) = &r.skipped {
        out.push_str(&format!("skipped: {why}\n"));
    }
    if let Some(subject) = &r.committed {
        out.push_str(&format!("committed: {subject}\n"));
    }
    if !r.received.is_empty() {
        out.push_str(&format!("received: {}\n", r.received.join(", ")));
    }
    for c in &r.conflicts {
        out.push_str(&format!("conflict: {}\n", c.message));
    }
    if r.pushed {
        out.push_str("pushed\n");
    }
    let last = r.last_sync_ms.map(memdir_core::time::iso_millis).unwrap_or_else(|| "never".into());
    out.push_str(&format!(
        "ahead {}, behind {}, dirty {}; last sync {last}\n",
        r.ahead,
        r.behind,
        r.dirty.len()
    ));
    for file in &r.dirty {
        out.push_str(&format!("  dirty: {file}\n"));
    }
    out
}
