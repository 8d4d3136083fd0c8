//! `memdir bench --hooks`: the prompt hook as a client runs it (issue 26). Whole
//! `memdir hook codex prompt` processes at 200 memories, p50 and p95 beside `memdir manifest`
//! on the same directory, in turns so the machine's drift touches both alike; then, on the
//! labelled set, the bytes the hook injects per prompt and how many requests that need no
//! memory get none. A benchmark: it reports, it asserts nothing.

use super::selector::{Set, write_directory};
use super::{Args, generate, ms};
use crate::context::{Context, Failure, Outcome, RunCli};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whole-process runs per command: enough for a 95th percentile.
const RUNS: usize = 40;

pub fn run(ctx: &Context, args: &Args, cli: RunCli<'_>, out: &mut dyn Write) -> Outcome {
    let temp = tempfile::Builder::new().prefix("memdir-bench-hooks-").tempdir()?;
    let home = temp.path().join("home");
    let project = crate::context::absolute(&temp.path().join("project"))?;
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&project)?;
    let env = vec![("HOME".to_string(), home.display().to_string())];
    let memory = memory_dir(ctx, &project, &env)?;
    generate(std::path::Path::new(&memory), 200, 17)?;

    let exe = std::env::current_exe()?;
    let payload = serde_json::json!({
        "session_id": "bench", "cwd": project, "hook_event_name": "UserPromptSubmit", "turn_id": "t",
        "prompt": "why did the staging deploy fail on the postgres migration again"
    })
    .to_string();
    let time = |args: &[&str], stdin: &str| -> Result<Duration, Failure> {
        let start = Instant::now();
        let mut child = Command::new(&exe)
            .args(args)
            .env("HOME", &home)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        child.stdin.take().expect("piped").write_all(stdin.as_bytes())?;
        child.wait()?;
        Ok(start.elapsed())
    };
    let (mut manifest, mut hook) = (Vec::new(), Vec::new());
    for i in 0..=RUNS {
        // A fresh session each time: every run recalls, as the first prompt of a session does.
        let payload = payload.replace("\"bench\"", &format!("\"bench-{i}\""));
        let m = time(&["manifest", &memory], "")?;
        let h = time(&["hook", "codex", "prompt"], &payload)?;
        if i > 0 {
            manifest.push(m);
            hook.push(h);
        }
    }
    let pct = |samples: &mut Vec<Duration>, p: usize| {
        samples.sort();
        samples[(samples.len() * p / 100).min(samples.len() - 1)]
    };
    writeln!(out, "Whole processes at 200 memories ({RUNS} runs each, alternating)\n")?;
    writeln!(out, "| command | p50 ms | p95 ms |")?;
    writeln!(out, "|---|---:|---:|")?;
    for (label, samples) in
        [("`memdir manifest DIR`", &mut manifest), ("`memdir hook codex prompt`", &mut hook)]
    {
        let (p50, p95) = (pct(samples, 50), pct(samples, 95));
        writeln!(out, "| {label} | {:.1} | {:.1} |", ms(p50), ms(p95))?;
    }

    // What the hook injects on the labelled set.
    let set = Set::read(&args.set)?;
    let mut projects = std::collections::BTreeMap::new();
    for (id, dir) in &set.directories {
        let cwd = crate::context::absolute(&temp.path().join("set").join(id))?;
        std::fs::create_dir_all(&cwd)?;
        write_directory(std::path::Path::new(&memory_dir(ctx, &cwd, &env)?), dir)?;
        projects.insert(id.clone(), cwd);
    }
    let (mut bytes, mut injected, mut none, mut none_empty) = (0usize, 0usize, 0usize, 0usize);
    for (i, request) in set.requests.iter().enumerate() {
        let payload = serde_json::json!({
            "session_id": format!("set-{i}"), "cwd": projects[&request.dir], "turn_id": "t",
            "hook_event_name": "UserPromptSubmit", "prompt": request.query
        });
        let mut answer = Vec::new();
        let argv = ["memdir", "hook", "codex", "prompt"].map(String::from);
        let stdin = Some(payload.to_string().into_bytes());
        cli(argv.to_vec(), env.clone(), stdin, &mut answer);
        let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap_or_default();
        let text = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or("");
        bytes += text.len();
        injected += usize::from(!text.is_empty());
        if request.expected.is_empty() {
            none += 1;
            none_empty += usize::from(text.is_empty());
        }
    }
    let n = set.requests.len();
    writeln!(
        out,
        "\nThe prompt hook on {} ({n} requests)\n",
        args.set.file_name().unwrap_or_default().to_string_lossy()
    )?;
    writeln!(
        out,
        "| prompts that get memories | bytes per prompt | bytes per injecting prompt | nothing-requests that get nothing |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|")?;
    writeln!(
        out,
        "| {injected}/{n} | {} | {} | {none_empty}/{none} |",
        bytes / n.max(1),
        bytes / injected.max(1)
    )?;
    Ok(())
}

fn memory_dir(ctx: &Context, cwd: &str, env: &[(String, String)]) -> Result<String, Failure> {
    Ok(ctx.core(crate::ops::whole_tree()?)?.locate(cwd, env)?.memory_dir)
}
