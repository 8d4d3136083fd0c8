//! `command:CMD`: any local program as the model. The request goes to its stdin as JSON
//! (`{"system", "user", "schema", "max_tokens", "tier"}`), its stdout is the reply.

use super::{Limits, LlmError, Model};
use memdir_core::model::ModelRequest;
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::process::{Child, Command as Process, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Replies longer than this are cut when read (the core refuses long replies anyway).
const MAX_STDOUT: u64 = 16 * 1024 * 1024;

/// A shell command that answers model requests.
pub struct Command {
    command: String,
    limits: Limits,
}

impl Command {
    /// Runs `command` with `sh -c` for each request.
    pub fn new(command: &str, limits: Limits) -> Self {
        Command { command: command.to_string(), limits }
    }
}

impl Model for Command {
    fn label(&self) -> String {
        format!("model:command:{}", self.command)
    }

    fn complete(&mut self, request: &ModelRequest) -> Result<String, LlmError> {
        let body = serde_json::json!({
            "system": request.system,
            "user": request.user,
            "schema": super::reply_schema(request),
            "max_tokens": request.max_tokens,
            "tier": request.tier.as_str(),
        });
        self.run(body.to_string())
    }
}

impl Command {
    /// Runs the command once with `input` on its stdin; its stdout is the answer.
    pub(super) fn run(&self, input: String) -> Result<String, LlmError> {
        let mut process = Process::new("sh");
        process.args(["-c", &self.command]);
        run(process, &self.command, input, self.limits.timeout)
    }
}

/// Runs `process` (named `name` in messages) once with `input` on its stdin, within `timeout`;
/// its stdout is the answer.
pub(super) fn run(
    mut process: Process,
    name: &str,
    input: String,
    timeout: Duration,
) -> Result<String, LlmError> {
    {
        // Its own process group: at the deadline the whole group goes, children included.
        process.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        #[cfg(unix)]
        process.process_group(0);
        let mut child = process.spawn().map_err(|e| LlmError::Command(format!("{name}: {e}")))?;
        let deadline = Instant::now() + timeout;
        let mut stdin = child.stdin.take().expect("piped");
        // Writing and reading on threads: a command that ignores stdin or floods stdout must not
        // block the host, and whoever holds the pipes, nothing is awaited past the deadline.
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let stdout = read_all(child.stdout.take().expect("piped"), MAX_STDOUT);
        let stderr = read_all(child.stderr.take().expect("piped"), 64 * 1024);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() >= deadline => {
                    kill_group(&mut child);
                    return Err(LlmError::Timeout(timeout));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(LlmError::Command(e.to_string())),
            }
        };
        // The command has exited; a child it left behind may still hold the pipe. What was written
        // by the deadline is the reply, and the group goes.
        let wait = |rx: &mpsc::Receiver<(Vec<u8>, u64)>| {
            rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        };
        let ((out, out_size), (err, _)) = match (wait(&stdout), wait(&stderr)) {
            (Ok(out), Ok(err)) => (out, err),
            _ => {
                kill_group(&mut child);
                let grace = Duration::from_millis(500);
                (
                    stdout.recv_timeout(grace).unwrap_or_default(),
                    stderr.recv_timeout(grace).unwrap_or_default(),
                )
            }
        };
        if !status.success() {
            let said = String::from_utf8_lossy(&err);
            return Err(LlmError::Command(format!("{name} exited with {status}: {}", said.trim())));
        }
        if out_size > MAX_STDOUT {
            // Say how big the reply really was, not how much of it was kept.
            return Err(LlmError::Command(format!(
                "{name} replied with {out_size} bytes, more than the {MAX_STDOUT} memdir reads"
            )));
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

/// Reads `from` to its end on a thread of its own, keeping at most `max` bytes and counting the
/// rest; the bytes and the whole size arrive on the channel when the pipe closes.
fn read_all(mut from: impl Read + Send + 'static, max: u64) -> mpsc::Receiver<(Vec<u8>, u64)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = Read::by_ref(&mut from).take(max).read_to_end(&mut out);
        let mut total = out.len() as u64;
        let mut sink = [0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut sink) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        let _ = tx.send((out, total));
    });
    rx
}

/// Kills the command's whole process group (it leads it), then reaps the command.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours; a negative pid
        // names the process group this command leads, which we created at spawn.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
