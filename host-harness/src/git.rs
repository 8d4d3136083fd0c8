//! What the project's git says, for the evidence checks (issue 14): the tracked files and
//! which commits touched which file. The host only runs git and hands the output to the core,
//! which reads it. Each command is bounded in time and size; a project that is not a git
//! repository, or a machine without git, gets no facts and the core searches the tree itself.

use memdir_core::evidence::{GIT_LOG, GIT_LS_FILES, GIT_SAFE_ARGS, GIT_SAFE_ENV, GitFacts};
use memdir_core::team::{GitCommand, GitOutput};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one git command may run.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How much of its output is read.
const MAX_OUTPUT: u64 = 32 * 1024 * 1024;

/// The facts for the work tree at `dir`.
pub fn facts(dir: &str) -> GitFacts {
    let ls_files = run(dir, GIT_LS_FILES).map(|out| {
        // NUL-separated so no path is quoted; a path holding a newline cannot be a line, and
        // is left out.
        out.split('\0').filter(|p| !p.is_empty() && !p.contains('\n')).collect::<Vec<_>>().join("\n")
    });
    let log = ls_files.as_ref().and_then(|_| run(dir, GIT_LOG));
    GitFacts { ls_files, log }
}

/// `git -C dir ARGS`, its output when it succeeded within the bounds.
fn run(dir: &str, args: &[&str]) -> Option<String> {
    // The project's configuration could name programs for git to start (a signature checker, a
    // pager, an fsmonitor, a lazy fetch's transport…); the core's arguments and environment
    // override every one (issue 24, defect 3).
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(GIT_SAFE_ARGS)
        .args(args)
        .envs(GIT_SAFE_ENV.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.take(MAX_OUTPUT).read_to_end(&mut out).map(|_| out)
    });
    let status = wait_within(&mut child, TIMEOUT)?;
    let out = reader.join().ok()?.ok()?;
    status.success().then(|| String::from_utf8_lossy(&out).into_owned())
}

/// How long a git command a sync asked for may run: local ones, and those that talk to the
/// remote.
const SYNC_LOCAL_TIMEOUT: Duration = Duration::from_secs(60);
const SYNC_NETWORK_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs a git command the core asked for (team sync): the user's own git, configuration,
/// credentials and hooks, but never a prompt (a sync runs with nobody at the keyboard).
pub fn run_command(command: &GitCommand) -> GitOutput {
    match run_bounded(command) {
        Ok(output) => output,
        Err(reason) => GitOutput { status: None, stdout: String::new(), stderr: reason },
    }
}

fn run_bounded(command: &GitCommand) -> Result<GitOutput, String> {
    let mut child = Command::new("git")
        .args(&command.args)
        .current_dir(&command.cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .stdin(if command.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run git: {e}"))?;
    if let (Some(mut pipe), Some(text)) = (child.stdin.take(), command.stdin.clone()) {
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(text.as_bytes());
        });
    }
    // Output past the cap is an error, never cut silently: the core scans it for secrets.
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(pipe) = pipe {
                let _ = pipe.take(MAX_OUTPUT + 1).read_to_end(&mut out);
            }
            (out.len() as u64 > MAX_OUTPUT, String::from_utf8_lossy(&out).into_owned())
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let limit = if command.network { SYNC_NETWORK_TIMEOUT } else { SYNC_LOCAL_TIMEOUT };
    let Some(status) = wait_within(&mut child, limit) else {
        return Err(format!(
            "`git {}` took longer than {}s and was stopped",
            command.args.join(" "),
            limit.as_secs()
        ));
    };
    let (over, stdout) = stdout.join().unwrap_or_default();
    let (_, stderr) = stderr.join().unwrap_or_default();
    if over {
        return Err(format!("`git {}` printed more than {} MiB", command.args.join(" "), MAX_OUTPUT >> 20));
    }
    Ok(GitOutput { status: status.code(), stdout, stderr })
}

/// Waits for `child` at most `limit`; past it (or when waiting fails) kills it: `None`.
fn wait_within(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}
