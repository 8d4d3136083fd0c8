//! `memdir bench --ui N`: the workbench's server time at scale (issue 48). Generates N memories
//! as one project's memory in a throwaway HOME, then asks the workbench what the page asks, in
//! process and without HTTP: the overview and the first page of memories (what the first screen
//! needs), one memory, and searches. Reports medians and the 95th percentile, and the page's
//! weight. A benchmark: it reports, it asserts nothing.

use super::{generate, ms};
use crate::commands::ui::{Workbench, page_weight};
use crate::context::{Context, Outcome};
use std::io::Write;
use std::time::{Duration, Instant};

/// Searches timed: enough for a 95th percentile.
const SEARCHES: usize = 40;
const QUERIES: [&str; 4] = [
    "how do we deploy to staging?",
    "which grafana dashboard shows the ingest latency?",
    "retry budget for the queue timeout",
    "postgres schema migration review",
];

pub fn run(ctx: &Context, count: usize, out: &mut dyn Write) -> Outcome {
    let temp = tempfile::Builder::new().prefix("memdir-bench-ui-").tempdir()?;
    let home = temp.path().join("home");
    let project = temp.path().join("project");
    std::fs::create_dir_all(&project)?;
    let mut env: Vec<(String, String)> = ctx.env().iter().filter(|(k, _)| k != "HOME").cloned().collect();
    env.push(("HOME".into(), home.display().to_string()));
    let ctx = ctx.with_env(env);
    let cwd = project.display().to_string();
    let memory = ctx.core(crate::ops::whole_tree()?)?.locate(&cwd, ctx.env())?.memory_dir;
    generate(std::path::Path::new(&memory), count, 48)?;
    let bench = Workbench::new(&ctx, cwd, true);
    let ask = |name: &str, params: &[(&str, &str)]| -> Duration {
        let params: Vec<(String, String)> =
            params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let start = Instant::now();
        let (status, json) = bench.call("GET", name, &params, "");
        let took = start.elapsed();
        assert_eq!(status, 200, "{name}: {json}");
        took
    };
    // The first screen, cold (the memory index is built on the first scan), then warm.
    let cold = ask("overview", &[]) + ask("memories", &[("dir", &memory)]);
    let mut first = Vec::new();
    for _ in 0..7 {
        first.push(ask("overview", &[]) + ask("memories", &[("dir", &memory)]));
    }
    let listed = ask_first_path(&bench, &memory);
    let one = ask("memory", &[("dir", &memory), ("path", &listed)]);
    let mut searches: Vec<Duration> = (0..SEARCHES)
        .map(|i| ask("search", &[("dir", &memory), ("q", QUERIES[i % QUERIES.len()])]))
        .collect();
    first.sort();
    searches.sort();
    let p95 = |v: &[Duration]| v[(v.len() * 95).div_ceil(100).saturating_sub(1)];
    writeln!(
        out,
        "The workbench at {count} memories (server time, in process, {} backend):\n",
        ctx.backend_name()
    )?;
    writeln!(out, "| what | median (ms) | p95 (ms) |")?;
    writeln!(out, "|---|---:|---:|")?;
    let f = |d: Duration| format!("{:.1}", ms(d));
    writeln!(out, "| first screen, cold (the overview and the first page of memories) | {} | |", f(cold))?;
    writeln!(out, "| first screen, warm | {} | {} |", f(first[first.len() / 2]), f(p95(&first)))?;
    writeln!(out, "| one memory: its body, links and history | {} | |", f(one))?;
    writeln!(
        out,
        "| search as recall sees it ({SEARCHES} requests) | {} | {} |",
        f(searches[searches.len() / 2]),
        f(p95(&searches))
    )?;
    writeln!(out, "\nThe page: {} bytes (HTML, script and style, served from the binary).", page_weight())?;
    Ok(())
}

/// The first memory of the first page, as the page would open it.
fn ask_first_path(bench: &Workbench<'_>, memory: &str) -> String {
    let (_, json) = bench.call("GET", "memories", &[("dir".into(), memory.into())], "");
    let page: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    page["memories"][0]["path"].as_str().unwrap_or_default().to_string()
}
