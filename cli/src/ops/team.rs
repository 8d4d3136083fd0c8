//! One team (or private) memory init, sync or status driven to its report (R10).

use super::target::Target;
use crate::context::{Context, Failure};
use memdir_harness::contract::team::{Action, Input, Report, Which};
use std::path::PathBuf;

/// The automatic sync (`teamSync: auto`): team/ and the private directory, each that is a
/// working copy, unless one synced within `min_interval_ms`. One line per sync that did
/// something or failed, for the caller's log.
pub fn sync_copies(ctx: &Context, cwd: &str, memory_dir: &str, min_interval_ms: Option<i64>) -> Vec<String> {
    let mut lines = Vec::new();
    for which in [Which::Team, Which::Private] {
        let copy = if which == Which::Team {
            format!("{memory_dir}/team/.git")
        } else {
            format!("{memory_dir}/.git")
        };
        if !std::path::Path::new(&copy).is_dir() {
            continue;
        }
        let target = Target { cwd: Some(PathBuf::from(cwd)), memory_dir: None };
        match drive(ctx, &target, which, Action::Sync, min_interval_ms) {
            Ok(report) if report.skipped.is_none() => {
                lines.push(format!("synced {}: {}", report.dir, summary(&report)))
            }
            Ok(_) => {}
            Err(e) => lines.push(format!("sync: {}", e.message)),
        }
    }
    lines
}

/// Runs one init, sync or status to its report: the CLI's, and the MCP server's.
pub fn drive(
    ctx: &Context,
    target: &Target,
    which: Which,
    action: Action,
    min_interval_ms: Option<i64>,
) -> Result<Report, Failure> {
    let (target, _, mut core) = target.open(ctx)?;
    let input =
        Input { target, which, action, now_ms: ctx.now_ms(), host_name: host_name(ctx), min_interval_ms };
    Ok(memdir_harness::steps::drive_team(&mut *core, &input, memdir_harness::git::run_command)?)
}

/// This machine's name, for conflict copies and commit messages: `MEMDIR_HOST_NAME` (tests,
/// and people whose machines share a name), then the system's.
pub fn host_name(ctx: &Context) -> String {
    if let Some(name) = ctx.var("MEMDIR_HOST_NAME").or(ctx.var("COMPUTERNAME")).filter(|n| !n.is_empty()) {
        return name.to_string();
    }
    // Read once per process: every tool call carries it, and the last resort spawns a program.
    static SYSTEM: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SYSTEM
        .get_or_init(|| {
            ["/proc/sys/kernel/hostname", "/etc/hostname"]
                .iter()
                .find_map(|p| {
                    std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
                })
                .or_else(|| {
                    let out = std::process::Command::new("hostname").output().ok()?;
                    Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
                })
                .unwrap_or_else(|| "host".into())
        })
        .clone()
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
