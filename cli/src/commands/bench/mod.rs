//! `memdir bench`: times scan + manifest over generated memory directories for the component,
//! the native core and the Node.js baseline in `bench/node/`, then whole `memdir` processes,
//! then measures recall's choices on the labelled set, in one run, and prints Markdown tables.
//! A benchmark, not a test: nothing here asserts a time.

mod gate;
mod hooks;
mod scale;
mod selector;
mod ui;

use crate::context::{Context, Failure, Outcome, RunCli};
use memdir_harness::contract::check::CheckReport;
use memdir_harness::{ComponentRuntime, ConfinedFs, Core, steps};
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
    /// Time `check` instead: 200 memories citing 1,000 paths (and 200 symbols) in a
    /// 10,000-file git repository.
    #[arg(long)]
    pub check: bool,
    /// The labelled set whose recall choices are measured after the timings: precision,
    /// recall@5, requests that should select nothing, and the model shortlist.
    #[arg(long, value_name = "SET", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/offline-selector/labelled.json"))]
    pub set: PathBuf,
    /// Measure only recall's choices on the set, no timings.
    #[arg(long, conflicts_with = "no_selector")]
    pub selector: bool,
    /// Skip the measurement of recall's choices.
    #[arg(long)]
    pub no_selector: bool,
    /// Rank the set offline with this embeddings model too (off, openai:MODEL or command:CMD;
    /// default: $MEMDIR_EMBEDDINGS, else off).
    #[arg(long, value_name = "SPEC")]
    pub embeddings: Option<String>,
    /// The shortlist size measured with `--selector`.
    #[arg(long, default_value_t = memdir_harness::contract::switches::DEFAULT_RECALL_SHORTLIST)]
    pub shortlist: u32,
    /// Time the prompt hook instead: whole `memdir hook codex prompt` processes at 200 memories
    /// beside `memdir manifest`, and what the hook injects on the labelled set.
    #[arg(long)]
    pub hooks: bool,
    /// Time recall over every memory instead: whole `memdir recall` processes over this many
    /// generated memories and one older than all of them, the first building the recall index.
    #[arg(long, value_name = "COUNT")]
    pub recall_scale: Option<usize>,
    /// Time the workbench (`memdir ui`) instead, over this many generated memories: the first
    /// screen, one memory and searches, in server time; and the page's weight.
    #[arg(long, value_name = "COUNT")]
    pub ui: Option<usize>,
    /// Measure the gate before extraction instead, on the labelled turns in this folder (one
    /// `<language>.json` per language): the share of teaching turns that reach the model, and of
    /// turns teaching nothing, per language and for both halves of the set.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/learning-gate"))]
    pub gate: Option<PathBuf>,
    /// Print each labelled request's expected and selected memories (with --gate: each turn
    /// judged wrongly).
    #[arg(long)]
    pub verbose: bool,
    /// Only list and stat every file under DIR with `std::fs`, and print how many: the native
    /// floor a whole `memdir manifest` process is measured against.
    #[arg(long, value_name = "DIR", hide = true)]
    pub stat_floor: Option<PathBuf>,
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
        // Within 300 days of 2026-01-01: in the past, as files being recalled are.
        let mtime = base_ms + (rng.next() % (300 * 86_400_000));
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

pub(super) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Times scan + manifest `runs` times after one warm-up; returns the median and the manifest.
fn time_core(core: &mut dyn Core, dir: &str, runs: usize) -> Result<(Duration, String), Failure> {
    time_manifest(runs, || {
        let report = core.scan(dir, 0)?;
        Ok(core.manifest(&report.headers)?)
    })
}

/// The native floor: the core's functions called directly, with no contract in between.
fn time_floor(fs: &ConfinedFs, dir: &str, runs: usize) -> Result<(Duration, String), Failure> {
    time_manifest(runs, || {
        let report =
            memdir_harness::native::direct::scan(fs, dir, 0).map_err(|e| Failure::input(e.to_string()))?;
        Ok(memdir_harness::native::direct::manifest(&report.headers))
    })
}

/// The median of `runs` scans and manifests after a warm-up, and the manifest.
fn time_manifest(
    runs: usize,
    mut manifest: impl FnMut() -> Result<String, Failure>,
) -> Result<(Duration, String), Failure> {
    let warm = manifest()?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let text = manifest()?;
        samples.push(start.elapsed());
        std::hint::black_box(text);
    }
    Ok((median(samples), warm))
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

/// Median wall time of the whole `memdir --backend BACKEND manifest DIR` process. Both backends
/// run in turn within each round, so the machine's drift touches both alike.
fn time_processes(dir: &str, runs: usize) -> Result<(Duration, Duration), Failure> {
    let exe = std::env::current_exe()?;
    let run = |backend: &str| -> Result<Duration, Failure> {
        let start = Instant::now();
        let status = Command::new(&exe)
            .args(["--backend", backend, "manifest", dir])
            .stdout(std::process::Stdio::null())
            .status()?;
        if !status.success() {
            return Err(Failure {
                status: 1,
                message: format!("memdir --backend {backend} manifest {dir} failed"),
            });
        }
        Ok(start.elapsed())
    };
    run("native")?;
    run("component")?;
    let (mut native, mut component) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        native.push(run("native")?);
        component.push(run("component")?);
    }
    Ok((median(native), median(component)))
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, cli: RunCli<'_>, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    if let Some(dir) = &args.stat_floor {
        return Ok(writeln!(out, "{}", stat_every(dir)?)?);
    }
    if args.check {
        return bench_check(ctx, &args, out, err);
    }
    if let Some(count) = args.ui {
        return ui::run(ctx, count, out);
    }
    if let Some(dir) = &args.gate {
        return gate::run(ctx, dir, args.verbose, out);
    }
    if args.hooks {
        return hooks::run(ctx, &args, cli, out);
    }
    if let Some(count) = args.recall_scale {
        return scale::run(count, args.keep.as_deref(), out);
    }
    if args.selector {
        return selector::run(ctx, &args, out, err);
    }
    let temp;
    let root = match &args.keep {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::Builder::new().prefix("memdir-bench-").tempdir()?;
            temp.path().to_path_buf()
        }
    };
    let runtime = ComponentRuntime::load()?;
    let mut table = String::from(
        "| files | native core (ms) | component (ms) | Node.js (ms) | component / native | Node / component | same manifest |\n\
         |---:|---:|---:|---:|---:|---:|:---:|\n",
    );
    let mut process_dirs = Vec::new();
    for &size in &args.sizes {
        let dir = root.join(format!("mem-{size}"));
        if !dir.join("MEMORY.md").exists() {
            writeln!(err, "generating {size} files in {}", dir.display())?;
            generate(&dir, size, 0x6d65_6d64_6972 ^ size as u64)?;
        }
        let abs = crate::context::absolute(&dir)?;
        let fs = ConfinedFs::new().grant_read(&dir)?;
        let (native, manifest) = time_floor(&fs, &abs, args.runs)?;
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
        process_dirs.push((size, abs));
    }
    write!(out, "{table}")?;
    // Whole processes: start-up included, the precompiled component against the native core.
    let empty = root.join("mem-0");
    std::fs::create_dir_all(&empty)?;
    writeln!(
        out,
        "\n| `memdir manifest`, whole process | native core (ms) | component (ms) | difference (ms) | component / native |\n\
         |---:|---:|---:|---:|---:|"
    )?;
    for (size, dir) in [(0, crate::context::absolute(&empty)?)].into_iter().chain(process_dirs.clone()) {
        let (native, component) = time_processes(&dir, args.runs.max(15))?;
        writeln!(
            out,
            "| {size} files | {:.2} | {:.2} | {:+.2} | {:.2}× |",
            ms(native),
            ms(component),
            ms(component) - ms(native),
            ms(component) / ms(native)
        )?;
    }
    index_table(&process_dirs, args.runs.max(15), out)?;
    if !args.no_selector {
        writeln!(out)?;
        selector::run(ctx, &args, out, err)?;
    }
    Ok(())
}

/// Lists and stats every entry under `dir` (no reads): what any manifest must do at least.
fn stat_every(dir: &Path) -> std::io::Result<usize> {
    let mut count = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                pending.push(entry.path());
            }
            count += usize::from(meta.modified().is_ok());
        }
    }
    Ok(count)
}

/// Whole `memdir manifest` processes (the component) without the memory index and with it,
/// against a whole process that only stats the files, in turn within each round (issue 45,
/// item 6). A recall builds the index between the two.
fn index_table(dirs: &[(usize, String)], runs: usize, out: &mut dyn Write) -> Outcome {
    let exe = std::env::current_exe()?;
    let run = |args: &[&str]| -> Result<Duration, Failure> {
        let start = Instant::now();
        let status = Command::new(&exe).args(args).stdout(std::process::Stdio::null()).status()?;
        if !status.success() {
            return Err(Failure { status: 1, message: format!("memdir {} failed", args.join(" ")) });
        }
        Ok(start.elapsed())
    };
    writeln!(
        out,
        "\n| `memdir manifest`, whole process | stat-only floor (ms) | no index (ms) | with the index (ms) | no index / floor | with the index / floor |\n\
         |---:|---:|---:|---:|---:|---:|"
    )?;
    for (size, dir) in dirs {
        let index = Path::new(dir).join(memdir_harness::contract::scan::INDEX_CACHE);
        let _ = std::fs::remove_file(&index);
        let floor_args = ["bench", "--stat-floor", dir.as_str()];
        let manifest_args = ["--backend", "component", "manifest", dir.as_str()];
        let round = |floor: &mut Vec<Duration>, manifest: &mut Vec<Duration>| -> Outcome {
            run(&floor_args)?;
            run(&manifest_args)?;
            for _ in 0..runs {
                floor.push(run(&floor_args)?);
                manifest.push(run(&manifest_args)?);
            }
            Ok(())
        };
        let (mut floor, mut cold, mut warm) = (Vec::new(), Vec::new(), Vec::new());
        round(&mut floor, &mut cold)?;
        run(&["recall", "where do the dashboards live", "--memory-dir", dir.as_str()])?;
        if !index.is_file() {
            return Err(Failure { status: 1, message: format!("recall wrote no index in {dir}") });
        }
        round(&mut floor, &mut warm)?;
        let floor = median(floor);
        let (cold, warm) = (median(cold), median(warm));
        writeln!(
            out,
            "| {size} files | {:.2} | {:.2} | {:.2} | {:.2}× | {:.2}× |",
            ms(floor),
            ms(cold),
            ms(warm),
            ms(cold) / ms(floor),
            ms(warm) / ms(floor)
        )?;
    }
    Ok(())
}

/// A project of `files` files in a git repository, and `memories` memories each citing five
/// paths (four there, one gone) and one symbol.
fn generate_project(root: &Path, files: usize, memories: usize) -> std::io::Result<(PathBuf, PathBuf)> {
    let project = root.join("project");
    let mem = root.join("mem");
    std::fs::create_dir_all(&mem)?;
    for i in 0..files {
        let dir = project.join(format!("src/mod{}", i / 100));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join(format!("file{i}.rs")),
            format!("pub fn handler_{i}() {{}}\n// {}\n", WORDS[i % WORDS.len()]),
        )?;
    }
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&project)
            .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
            .args(args)
            .output()
            .map(|_| ())
    };
    git(&["init", "-q"])?;
    git(&["add", "-A"])?;
    git(&["commit", "-q", "-m", "bench"])?;
    let mut index = String::new();
    for m in 0..memories {
        let cite = |k: usize| {
            let i = (m * 5 + k) * 7 % files;
            if k == 4 { format!("`src/gone/file{i}.rs`") } else { format!("`src/mod{}/file{i}.rs`", i / 100) }
        };
        let body = format!(
            "See {}, {}, {}, {} and {}; the entry point is `handler_{}()`.\n",
            cite(0),
            cite(1),
            cite(2),
            cite(3),
            cite(4),
            (m * 13) % files
        );
        std::fs::write(
            mem.join(format!("m{m}.md")),
            format!(
                "---\nname: m{m}\ndescription: memory {m} about {}\nmetadata:\n  type: reference\n---\n{body}",
                WORDS[m % WORDS.len()]
            ),
        )?;
        index.push_str(&format!("- [m{m}](m{m}.md) — memory {m}\n"));
    }
    std::fs::write(mem.join("MEMORY.md"), index)?;
    Ok((project, mem))
}

/// Times `check` on the generated project, native core and component, with the git facts read
/// once (their own time is reported beside).
fn bench_check(ctx: &Context, args: &Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let temp = tempfile::Builder::new().prefix("memdir-bench-check-").tempdir()?;
    let root = args.keep.clone().unwrap_or_else(|| temp.path().to_path_buf());
    writeln!(err, "generating a 10,000-file repository and 200 memories in {}", root.display())?;
    let (project, mem) = generate_project(&root, 10_000, 200)?;
    let project = crate::context::absolute(&project)?;
    let mem = crate::context::absolute(&mem)?;
    let target = memdir_harness::contract::target::Target {
        cwd: project.clone(),
        env: ctx.env().to_vec(),
        memory_dir: Some(mem.clone()),
        by: None,
    };
    let runtime = ComponentRuntime::load()?;
    let fs = ConfinedFs::new().grant_read("/")?.grant_write(&mem)?;
    // git runs once; every timed check is handed the same outputs.
    let (mut outputs, mut git_time) = (Vec::new(), Duration::ZERO);
    steps::drive_check(&mut runtime.core(fs.clone()), &target, ctx.now_ms(), |command| {
        let started = Instant::now();
        let output = memdir_harness::git::run_command(command);
        git_time += started.elapsed();
        outputs.push(output.clone());
        output
    })?;
    let replay = |i: &mut usize| {
        *i += 1;
        outputs.get(*i - 1).cloned().unwrap_or_default()
    };
    let time =
        |check: &mut dyn FnMut() -> Result<CheckReport, Failure>| -> Result<(Duration, usize), Failure> {
            let report = check()?;
            let cited = report.evidence.iter().map(|e| e.citations.len()).sum();
            let samples = (0..args.runs)
                .map(|_| {
                    let t = Instant::now();
                    check().map(|_| t.elapsed())
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok((median(samples), cited))
        };
    // The native floor is the core called directly, as in the manifest table.
    let (native, cited) = time(&mut || {
        use memdir_harness::native::direct::{check_resume as resume, check_start as start};
        let (first, mut i) = (start(&fs, &target, ctx.now_ms()).map_err(memdir_harness::Error::from)?, 0);
        Ok(steps::drive_git(first, |state, output| Ok(resume(&fs, state, output)?), |_| replay(&mut i))?)
    })?;
    let mut component = runtime.core(fs.clone());
    let (component, _) = time(&mut || {
        let mut i = 0;
        Ok(steps::drive_check(&mut component, &target, ctx.now_ms(), |_| replay(&mut i))?)
    })?;
    writeln!(
        out,
        "| check: 200 memories, {cited} citations, 10,000 files | native core (ms) | component (ms) | component / native | git ls-files + log (ms) |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|")?;
    writeln!(
        out,
        "| median of {} | {:.1} | {:.1} | {:.2}× | {:.1} |",
        args.runs,
        ms(native),
        ms(component),
        ms(component) / ms(native),
        ms(git_time)
    )?;
    Ok(())
}
