//! Runs the git commands the core asks for (a team sync; `check` reading the project's history):
//! exactly the arguments and environment it gives, bounded in time and output, never
//! prompting. What each command is and what its output means is the core's.

use memdir_core::git::{GitCommand, GitOutput};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How much a command may print; more is an error, never cut silently.
const MAX_OUTPUT: u64 = 32 * 1024 * 1024;

/// The git program: the first on `PATH` among its absolute entries. A command runs in a
/// directory whose files others wrote (a project, synced team memory), and a relative entry
/// (`.`, or an empty one) would find a `git` planted there.
fn git_program() -> Option<&'static Path> {
    static GIT: OnceLock<Option<PathBuf>> = OnceLock::new();
    GIT.get_or_init(|| {
        let name = if cfg!(windows) { "git.exe" } else { "git" };
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
    .as_deref()
}

/// Runs a git command the core asked for: the user's own git, configuration, credentials and
/// hooks, but never a prompt (nobody may be at the keyboard), with the command's environment
/// over the process's.
pub fn run_command(command: &GitCommand) -> GitOutput {
    match run_bounded(command) {
        Ok(output) => output,
        Err(reason) => GitOutput { status: None, stdout: String::new(), stderr: reason },
    }
}

fn run_bounded(command: &GitCommand) -> Result<GitOutput, String> {
    let git = git_program().ok_or("could not run git: no git on PATH")?;
    let mut child = Command::new(git)
        .args(&command.args)
        .current_dir(&command.cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .envs(command.env.iter().map(|(k, v)| (k, v)))
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
    let limit = Duration::from_millis(command.timeout_ms.into());
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
