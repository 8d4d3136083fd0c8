//! `memdir check`: what has drifted in a memory directory (issue 14 item 3, issue 18).

use super::instructions::whole_tree;
use super::save::Target;
use crate::cli::{Context, Failure, Outcome, absolute};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command: exit 0 when nothing was found, 1 when something was.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.target.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let explicit = args.target.memory_dir.as_deref().map(absolute).transpose()?;
    let dir = match &explicit {
        Some(dir) => dir.clone(),
        None => ctx.core(whole_tree()?)?.locate(&cwd, ctx.env())?.memory_dir,
    };
    // Writable only to finish a write a killed writer left half-done; never created.
    let mut fs = whole_tree()?;
    if std::path::Path::new(&dir).is_dir() {
        fs = fs.grant_write(&dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
    }
    let target = memdir_core::target::Target { cwd, env: ctx.env().to_vec(), memory_dir: explicit };
    let report = ctx.core(fs)?.check(&target, ctx.now_ms())?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        if report.recovered > 0 {
            writeln!(out, "finished an interrupted write ({} files)", report.recovered)?;
        }
        for f in &report.findings {
            let at = f.line.map_or(f.path.clone(), |line| format!("{}:{line}", f.path));
            let kind = serde_json::to_value(f.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            writeln!(out, "{at}  {kind}  {}", f.message)?;
        }
        let (m, f) = (report.memories, report.findings.len());
        writeln!(
            out,
            "{m} memor{}, {f} finding{}",
            if m == 1 { "y" } else { "ies" },
            if f == 1 { "" } else { "s" }
        )?;
    }
    match report.findings.len() {
        0 => Ok(()),
        n => Err(Failure {
            status: 1,
            message: format!("{n} finding{} in {}", if n == 1 { "" } else { "s" }, report.memory_dir),
        }),
    }
}
