//! `memdir review`: walks what `check` found, one memory at a time, and lets a person keep, edit
//! or forget each (issue 14, item 6). A project memory whose dates have all passed is offered
//! for retirement. The findings are the core's; this loop only asks and does what it is told.

use crate::ops::check::inspect;
use crate::ops::target::Target;
use crate::{Context, Failure, Outcome, absolute};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Arguments of `memdir review`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
}

/// Runs the review, reading answers from standard input; end of input keeps the rest.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.target.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let explicit = args.target.memory_dir.as_deref().map(absolute).transpose()?;
    let report = inspect(ctx, &cwd, explicit)?;
    // The index is repaired with `check --fix`; here each memory is a person's call.
    let mut by_memory: BTreeMap<&str, Vec<&memdir_core::check::Finding>> = BTreeMap::new();
    for f in report.findings.iter().filter(|f| !f.path.ends_with("MEMORY.md") && !f.path.ends_with(".bad")) {
        by_memory.entry(f.path.as_str()).or_default().push(f);
    }
    if by_memory.is_empty() {
        writeln!(out, "nothing to review in {}", report.memory_dir)?;
        return Ok(());
    }
    let total = by_memory.len();
    let stdin = std::io::stdin();
    let mut answers = stdin.lock().lines();
    let (mut kept, mut forgotten) = (0, 0);
    for (n, (path, findings)) in by_memory.into_iter().enumerate() {
        writeln!(out, "\n[{}/{total}] {path}", n + 1)?;
        for f in &findings {
            writeln!(out, "  - {}", f.message)?;
        }
        let retire = findings.iter().any(|f| f.kind == memdir_core::check::FindingKind::PastDates);
        loop {
            let prompt = if retire {
                "retire it? [f]orget, [k]eep, [e]dit, [q]uit: "
            } else {
                "[k]eep, [e]dit, [f]orget, [q]uit: "
            };
            write!(out, "{prompt}")?;
            out.flush()?;
            let Some(answer) = answers.next().transpose()? else {
                writeln!(out, "\n(end of input: the rest are kept)")?;
                return summary(out, kept, forgotten);
            };
            match answer.trim() {
                "k" | "keep" | "" => {
                    kept += 1;
                    break;
                }
                "f" | "forget" => {
                    let target =
                        Target { cwd: args.target.cwd.clone(), memory_dir: args.target.memory_dir.clone() };
                    let (target, _, fs) = target.open(ctx)?;
                    let report = ctx.core(fs)?.forget(&target, path)?;
                    writeln!(
                        out,
                        "forgot {} ({} MEMORY.md line(s) removed)",
                        report.path, report.index_lines_removed
                    )?;
                    forgotten += 1;
                    break;
                }
                "e" | "edit" => {
                    let file = format!("{}/{path}", report.memory_dir);
                    edit(ctx, &file, out)?;
                }
                "q" | "quit" => return summary(out, kept, forgotten),
                other => writeln!(out, "{other:?}? answer k, e, f or q")?,
            }
        }
    }
    summary(out, kept, forgotten)
}

fn summary(out: &mut dyn Write, kept: usize, forgotten: usize) -> Outcome {
    writeln!(out, "reviewed: {kept} kept, {forgotten} forgotten")?;
    Ok(())
}

/// Opens `file` in `$VISUAL` or `$EDITOR`; without one, says where the file is.
fn edit(ctx: &Context, file: &str, out: &mut dyn Write) -> Outcome {
    let Some(editor) = ctx.var("VISUAL").or_else(|| ctx.var("EDITOR")) else {
        writeln!(out, "no $VISUAL or $EDITOR set: edit {file}, then answer again")?;
        return Ok(());
    };
    let status = std::process::Command::new("sh")
        .args(["-c", &format!("{editor} \"$1\""), "sh", file])
        .status()
        .map_err(|e| Failure::input(format!("{editor}: {e}")))?;
    if !status.success() {
        writeln!(out, "{editor} exited with {status}")?;
    }
    Ok(())
}
