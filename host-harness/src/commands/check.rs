//! `memdir check`: what has drifted in a memory directory (issue 14 item 3, issue 18).

use super::instructions::whole_tree;
use super::save::Target;
use crate::cli::{Context, Failure, Outcome, absolute};
use memdir_core::check::{CheckReport, Severity};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project (whose files the citations name) and its memory.
    #[command(flatten)]
    pub target: Target,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// First make the safe repairs to MEMORY.md (dangling and duplicate lines out, missing
    /// lines in), listing each; memory files are never touched.
    #[arg(long)]
    pub fix: bool,
}

/// Runs the command: exit 0 when nothing but notes was found, 1 for an error or a warning.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.target.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let explicit = args.target.memory_dir.as_deref().map(absolute).transpose()?;
    let fixed = match args.fix {
        true => {
            let (target, _, fs) = args.target.open(ctx)?;
            ctx.core(fs)?.check_fix(&target, ctx.now_ms())?
        }
        false => Vec::new(),
    };
    let report = inspect(ctx, &cwd, explicit)?;
    if args.json {
        #[derive(serde::Serialize)]
        struct Fixed<'a> {
            fixed: &'a [String],
            #[serde(flatten)]
            report: &'a CheckReport,
        }
        serde_json::to_writer_pretty(&mut *out, &Fixed { fixed: &fixed, report: &report })
            .map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        for change in &fixed {
            writeln!(out, "fixed: {change}")?;
        }
        write!(out, "{}", render(&report))?;
    }
    if !report.failed() {
        return Ok(());
    }
    let n = report.findings.iter().filter(|f| f.severity != Severity::Note).count();
    let what = if n == 1 { "error or warning" } else { "errors or warnings" };
    Err(Failure { status: 1, message: format!("{n} {what} in {}", report.memory_dir) })
}

/// Checks the memory of the project at `cwd` (or the directory `memory_dir`), with what the
/// project's git says: the CLI's and the MCP server's `check`.
pub fn inspect(ctx: &Context, cwd: &str, memory_dir: Option<String>) -> Result<CheckReport, Failure> {
    let location = ctx.core(whole_tree()?)?.locate(cwd, ctx.env())?;
    let dir = memory_dir.clone().unwrap_or_else(|| location.memory_dir.clone());
    let git = if location.from_git { crate::git::facts(&location.work_tree) } else { Default::default() };
    // Writable only to finish a write a killed writer left half-done; never created.
    let mut fs = whole_tree()?;
    if std::path::Path::new(&dir).is_dir() {
        fs = fs.grant_write(&dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
    }
    let target = memdir_core::target::Target { cwd: cwd.to_string(), env: ctx.env().to_vec(), memory_dir };
    Ok(ctx.core(fs)?.check(&target, ctx.now_ms(), &git)?)
}

/// The report as text: one line per finding (`PATH[:LINE]  SEVERITY  KIND  MESSAGE`), then a
/// count.
pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    if report.recovered > 0 {
        out.push_str(&format!("finished an interrupted write ({} files)\n", report.recovered));
    }
    for f in &report.findings {
        let at = f.line.map_or(f.path.clone(), |line| format!("{}:{line}", f.path));
        out.push_str(&format!("{at}  {}  {}  {}\n", name(f.severity), name(f.kind), f.message));
    }
    let (m, f) = (report.memories as usize, report.findings.len());
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    out.push_str(&format!(
        "{m} {}, {f} {}\n",
        plural(m, "memory", "memories"),
        plural(f, "finding", "findings")
    ));
    out
}

/// The kebab-case name serde gives a value (`missing-citation`, `warning`).
pub fn name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
