//! `memdir bench`: times scan + manifest over generated memory directories for the component,
//! the native core and the Node.js baseline in `bench/node/`, in one run, and prints the ratios
//! as a Markdown table. A benchmark, not a test: nothing here asserts a time.

use crate::cli::{Context, Failure, Outcome};
use crate::{ComponentRuntime, ConfinedFs, Core, NativeCore};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, UNIX_EPOCH};

/// Arguments of `memdir bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory sizes to generate, in files.
    #[arg(long, value_delimiter = ',', default_values_t = [200, 2000, 20000])]
    pub sizes: Vec<usize>,
    /// Timed runs per backend and size (the median is reported).
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    /// The Node.js baseline script.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/node/scan.mjs"))]
    pub node_script: PathBuf,
    /// Skip the Node.js baseline.
    #[arg(long)]
    pub no_node: bool,
    /// Generate the directories here (kept) instead of in a temporary directory.
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

const WORDS: &[&str] = &[
    "deploy",
    "staging",
    "postgres",
    "migration",
    "review",
    "latency",
    "dashboard",
    "oncall",
    "release",
    "freeze",
    "frontend",
    "react",
    "golang",
    "tests",
    "mocks",
    "linear",
    "ingest",
    "pipeline",
    "grafana",
    "budget",
    "schema",
    "cache",
    "queue",
    "retry",
    "timeout",
    "docs",
];
const TYPES: &[&str] = &["user", "feedback", "project", "reference"];

/// A small deterministic generator (SplitMix64): the same directories on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn words(&mut self, n: usize) -> Vec<&'static str> {
        (0..n).map(|_| WORDS[self.below(WORDS.len())]).collect()
    }
}

/// Writes `count` realistic memory files (frontmatter, a body of 5 to 40 lines, a tenth of them
/// in `team/`) with mtimes spread over a year, and a MEMORY.md.
pub fn generate(dir: &Path, count: usize, seed: u64) -> std::io::Result<()> {
    let mut rng = Rng(seed);
    std::fs::create_dir_all(dir.join("team"))?;
    let mut index = String::new();
    let base_ms: u64 = 1_767_225_600_000; // 2026-01-01
    for i in 0..count {
        let kind = TYPES[rng.below(TYPES.len())];
        let topic = rng.words(2).join("_");
        let rel = if rng.below(10) == 0 {
            format!("team/{kind}_{topic}_{i}.md")
        } else {
            format!("{kind}_{topic}_{i}.md")
        };
        let description = format!("{} for the {} work", rng.words(6).join(" "), rng.words(1)[0]);
        let mut text =
            format!("---\nname: {}\ndescription: {description}\ntype: {kind}\n---\n", rng.words(3).join(" "));
        for _ in 0..5 + rng.below(36) {
            let _ = writeln!(text, "{}.", rng.words(12).join(" "));
        }
        if kind == "feedback" || kind == "project" {
            text.push_str("\n**Why:** it broke before.\n\n**How to apply:** every time.\n");
        }
        let path = dir.join(&rel);
        std::fs::write(&path, text)?;
        let mtime = base_ms + (rng.next() % (365 * 86_400_000));
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(UNIX_EPOCH + Duration::from_millis(mtime))?;
        if i < 150 {
            let _ = writeln!(index, "- [{topic}]({rel}) — {description}");
        }
    }
    std::fs::write(dir.join("MEMORY.md"), index)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Times scan + manifest `runs` times after one warm-up; returns the median and the manifest.
fn time_core(core: &mut dyn Core, dir: &str, runs: usize) -> Result<(Duration, String), Failure> {
    let warm = core.scan(dir, 0)?;
    let manifest = core.manifest(&warm.headers)?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let report = core.scan(dir, 0)?;
        let text = core.manifest(&report.headers)?;
        samples.push(start.elapsed());
        std::hint::black_box(text);
    }
    Ok((median(samples), manifest))
}

/// Runs the Node baseline; returns its in-process median and whether its manifest matched.
fn time_node(script: &Path, dir: &str, runs: usize, expected: &str) -> Result<(Duration, bool), Failure> {
    let output = Command::new("node")
        .arg(script)
        .arg(dir)
        .arg(runs.to_string())
        .output()
        .map_err(|e| Failure { status: 1, message: format!("could not run node: {e}") })?;
    if !output.status.success() {
        return Err(Failure {
            status: 1,
            message: format!("{}: {}", script.display(), String::from_utf8_lossy(&output.stderr).trim()),
        });
    }
    let reply: serde_json::Value = serde_json::from_slice(&output.stdout).map_err(|e| Failure {
        status: 1,
        message: format!("{}: unreadable output: {e}", script.display()),
    })?;
    let median_ms = reply["median_ms"].as_f64().unwrap_or(f64::NAN);
    let same = reply["manifest"].as_str() == Some(expected);
    Ok((Duration::from_secs_f64(median_ms / 1000.0), same))
}

/// Median wall time of the whole `memdir manifest DIR` process, cache warm.
fn time_process(dir: &str, runs: usize) -> Result<Duration, Failure> {
    let exe = std::env::current_exe()?;
    let run = || -> Result<Duration, Failure> {
        let start = Instant::now();
        let status =
            Command::new(&exe).args(["manifest", dir]).stdout(std::process::Stdio::null()).status()?;
        if !status.success() {
            return Err(Failure { status: 1, message: format!("memdir manifest {dir} failed") });
        }
        Ok(start.elapsed())
    };
    run()?;
    let samples = (0..runs).map(|_| run()).collect::<Result<Vec<_>, _>>()?;
    Ok(median(samples))
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let temp;
    let root = match &args.keep {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::Builder::new().prefix("memdir-bench-").tempdir()?;
            temp.path().to_path_buf()
        }
    };
    let runtime = ComponentRuntime::load(ctx.env())?;
    let mut table = String::from(
        "| files | native core (ms) | component (ms) | Node.js (ms) | component / native | Node / component | same manifest |\n\
         |---:|---:|---:|---:|---:|---:|:---:|\n",
    );
    let mut process_dir = None;
    for &size in &args.sizes {
        let dir = root.join(format!("mem-{size}"));
        if !dir.join("MEMORY.md").exists() {
            writeln!(err, "generating {size} files in {}", dir.display())?;
            generate(&dir, size, 0x6d65_6d64_6972 ^ size as u64)?;
        }
        let abs = crate::cli::absolute(&dir)?;
        let fs = ConfinedFs::new().grant_read(&dir)?;
        let (native, manifest) = time_core(&mut NativeCore::new(fs.clone()), &abs, args.runs)?;
        let (component, component_manifest) = time_core(&mut runtime.core(fs), &abs, args.runs)?;
        let mut same = component_manifest == manifest;
        let node_cell;
        let node_ratio;
        if args.no_node {
            node_cell = "–".to_string();
            node_ratio = "–".to_string();
        } else {
            let (node, node_same) = time_node(&args.node_script, &abs, args.runs, &manifest)?;
            same &= node_same;
            node_cell = format!("{:.2}", ms(node));
            node_ratio = format!("{:.1}×", ms(node) / ms(component));
        }
        let _ = writeln!(
            table,
            "| {size} | {:.2} | {:.2} | {node_cell} | {:.2}× | {node_ratio} | {} |",
            ms(native),
            ms(component),
            ms(component) / ms(native),
            if same { "yes" } else { "NO" }
        );
        if size == 200 {
            process_dir = Some(abs);
        }
    }
    write!(out, "{table}")?;
    if let Some(dir) = process_dir {
        let wall = time_process(&dir, args.runs.max(10))?;
        writeln!(
            out,
            "\n`memdir manifest` on 200 files, whole process, compiled-component cache warm: {:.1} ms (median)",
            ms(wall)
        )?;
    }
    Ok(())
}
