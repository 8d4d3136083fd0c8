//! `command:CMD`: any local program as the model. The request goes to its stdin as JSON
//! (`{"system", "user", "schema", "max_tokens", "tier"}`), its stdout is the reply.

use super::{Limits, LlmError, Model};
use memdir_core::model::ModelRequest;
use std::io::{Read, Write};
use std::process::{Command as Process, Stdio};
use std::time::Instant;

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
        let mut child = Process::new("sh")
            .args(["-c", &self.command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| LlmError::Command(format!("{}: {e}", self.command)))?;
        let mut stdin = child.stdin.take().expect("piped");
        let input = body.to_string();
        // Writing and reading on threads: a command that ignores stdin or floods stdout must not
        // block the host.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let mut stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = Read::by_ref(&mut stdout).take(MAX_STDOUT).read_to_end(&mut out);
            out
        });
        let mut stderr = child.stderr.take().expect("piped");
        let err_reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = Read::by_ref(&mut stderr).take(64 * 1024).read_to_end(&mut out);
            out
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() >= self.limits.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(LlmError::Timeout(self.limits.timeout));
                }
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(e) => return Err(LlmError::Command(e.to_string())),
            }
        };
        let _ = writer.join();
        let out = reader.join().unwrap_or_default();
        let err = err_reader.join().unwrap_or_default();
        if !status.success() {
            let said = String::from_utf8_lossy(&err);
            return Err(LlmError::Command(format!("{} exited with {status}: {}", self.command, said.trim())));
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}
