//! `memdir bench --recall-scale N`: recall over every memory at scale (issue 27, item 3).
//! Generates N memories plus one older than all of them, then times whole `memdir recall`
//! processes: the first, which builds the recall index, and then warm runs on the component and
//! the native core in turns (the floor beside it). Reports whether the oldest memory is found.
//! A benchmark: it reports, it asserts nothing.

use super::{generate, ms};
use crate::context::{Failure, Outcome};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// Warm whole-process runs per backend: enough for a 95th percentile.
const RUNS: usize = 40;
const QUERY: &str = "which thermostat runs the zebra enclosure heating?";

/// `keep`: generate there, and leave it, instead of in a temporary directory (to profile one
/// recall by hand).
pub fn run(count: usize, keep: Option<&std::path::Path>, out: &mut dyn Write) -> Outcome {
    let temp = tempfile::Builder::new().prefix("memdir-bench-scale-").tempdir()?;
    let root = keep.unwrap_or(temp.path());
    let dir = root.join("mem");
    generate(&dir, count, 27)?;
    // The one to find, older than every generated memory (they start at 2026-01-01).
    let oldest = dir.join("reference_zebra_heating.md");
    std::fs::write(
        &oldest,
        "---\nname: zebra-heating\ndescription: the zebra enclosure heating runs on its own thermostat\n\
         type: reference\n---\nThermostat 7, in the keeper's office.\n",
    )?;
    std::fs::File::options()
        .write(true)
        .open(&oldest)?
        .set_modified(UNIX_EPOCH + Duration::from_millis(1_735_689_600_000))?;
    let exe = std::env::current_exe()?;
    let dir_arg = dir.display().to_string();
    let recall = |backend: &str| -> Result<(Duration, bool), Failure> {
        let start = Instant::now();
        let output = Command::new(&exe)
            .args(["--backend", backend, "recall", QUERY, "--memory-dir", &dir_arg, "--json"])
            .env("HOME", root)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()?;
        let elapsed = start.elapsed();
        let found = String::from_utf8_lossy(&output.stdout).contains("\"reference_zebra_heating.md\"");
        Ok((elapsed, found))
    };
    let index = dir.join(memdir_harness::contract::scan::INDEX_CACHE);
    let _ = std::fs::remove_file(&index);
    let (first, found_first) = recall("component")?;
    let index_bytes = std::fs::metadata(&index).map_or(0, |m| m.len());
    // What recall read before the index: the 200 newest files' heads, as `manifest` still does.
    let manifest = || -> Result<Duration, Failure> {
        let start = Instant::now();
        Command::new(&exe)
            .args(["manifest", &dir_arg])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        Ok(start.elapsed())
    };
    let (mut component, mut native, mut before, mut found) =
        (Vec::new(), Vec::new(), Vec::new(), found_first);
    for _ in 0..RUNS {
        before.push(manifest()?);
        let (t, f) = recall("component")?;
        component.push(t);
        found &= f;
        let (t, f) = recall("native")?;
        native.push(t);
        found &= f;
    }
    let pct = |samples: &mut Vec<Duration>, p: usize| {
        samples.sort();
        samples[(samples.len() * p / 100).min(samples.len() - 1)]
    };
    writeln!(
        out,
        "Whole `memdir recall` processes over {} memories ({RUNS} warm runs each, alternating)\n",
        count + 1
    )?;
    writeln!(out, "| run | p50 ms | p95 ms |")?;
    writeln!(out, "|---|---:|---:|")?;
    writeln!(out, "| first recall, building the index (component) | {:.1} | – |", ms(first))?;
    for (label, samples) in [
        ("component, index built", &mut component),
        ("native core, index built", &mut native),
        ("`memdir manifest`: the 200 newest heads, what recall read before (component)", &mut before),
    ] {
        let (p50, p95) = (pct(samples, 50), pct(samples, 95));
        writeln!(out, "| {label} | {:.1} | {:.1} |", ms(p50), ms(p95))?;
    }
    writeln!(
        out,
        "\nThe oldest memory found in every run: {}. The index: {} KB.",
        if found { "yes" } else { "no" },
        index_bytes / 1024
    )?;
    Ok(())
}
