//! `memdir review`: first the proposals waiting under `memoryWrites: review` (issue 28): accept,
//! edit or reject each, seeing what it would replace. Then what `check` found, one memory at a
//! time: keep, edit or forget each (issue 14, item 6). A project memory whose dates have all
//! passed is offered for retirement. The queue and the findings are the core's; this loop only
//! asks and does what it is told.

use crate::context::{Context, Failure, Outcome, absolute};
use crate::ops::check::inspect;
use crate::ops::target::Target;
use memdir_harness::contract::pending::Proposal;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Arguments of `memdir review`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
    /// List the waiting proposals and stop (with --json, as JSON).
    #[arg(long, conflicts_with_all = ["accept", "reject"])]
    pub pending: bool,
    /// Accept this proposal, without asking.
    #[arg(long, value_name = "ID", conflicts_with = "reject")]
    pub accept: Option<String>,
    /// Reject this proposal, without asking; it is not proposed again.
    #[arg(long, value_name = "ID")]
    pub reject: Option<String>,
    /// With --pending: print JSON.
    #[arg(long, requires = "pending")]
    pub json: bool,
    /// The user's UTC offset in minutes, for dates in an accepted project memory (default:
    /// this machine's).
    #[arg(long, allow_hyphen_values = true)]
    pub utc_offset: Option<i32>,
}

/// Runs the review, reading answers from standard input; end of input keeps the rest.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let offset = ctx.utc_offset(args.utc_offset);
    let (target, _, mut core) = args.target.open(ctx)?;
    if let Some(id) = &args.accept {
        for p in core.accept(&target, id, ctx.now_ms(), offset)? {
            writeln!(out, "accepted {}: {} {}", p.id, p.op, p.path)?;
        }
        return Ok(());
    }
    if let Some(id) = &args.reject {
        for p in core.reject(&target, id)? {
            writeln!(out, "rejected {}: {} {} (it will not be proposed again)", p.id, p.op, p.path)?;
        }
        return Ok(());
    }
    let proposals = core.pending(&target)?;
    drop(core);
    if args.pending {
        if args.json {
            serde_json::to_writer_pretty(&mut *out, &proposals).map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else if proposals.is_empty() {
            writeln!(out, "no proposals are waiting")?;
        } else {
            for (batch, members) in units(&proposals) {
                if let Some(batch) = batch {
                    let summary = members[0].batch_summary.as_deref().unwrap_or("");
                    writeln!(out, "{batch}  {summary}  (accept or reject it whole by this id)")?;
                }
                for p in members {
                    let indent = if batch.is_some() { "  " } else { "" };
                    writeln!(out, "{indent}{}  {} {} {}  (from {})", p.id, p.op, p.path, kind(p), p.source)?;
                }
            }
        }
        return Ok(());
    }
    let stdin = std::io::stdin();
    let mut answers = stdin.lock().lines();
    if !proposals.is_empty() && !review_proposals(ctx, &args, &proposals, offset, &mut answers, out)? {
        return Ok(());
    }
    let cwd = absolute(&args.target.cwd.clone().unwrap_or_else(|| PathBuf::from(".")))?;
    let explicit = args.target.memory_dir.as_deref().map(absolute).transpose()?;
    let report = inspect(ctx, &cwd, explicit)?;
    // The index is repaired with `check --fix`; here each memory is a person's call.
    let mut by_memory: BTreeMap<&str, Vec<&memdir_harness::contract::check::Finding>> = BTreeMap::new();
    for f in report.findings.iter().filter(|f| !f.path.ends_with("MEMORY.md") && !f.path.ends_with(".bad")) {
        by_memory.entry(f.path.as_str()).or_default().push(f);
    }
    if by_memory.is_empty() {
        writeln!(out, "nothing to review in {}", report.memory_dir)?;
        return Ok(());
    }
    let total = by_memory.len();
    let (mut kept, mut forgotten) = (0, 0);
    for (n, (path, findings)) in by_memory.into_iter().enumerate() {
        writeln!(out, "\n[{}/{total}] {path}", n + 1)?;
        for f in &findings {
            writeln!(out, "  - {}", f.message)?;
        }
        let retire = findings.iter().any(|f| f.kind.suggests_retiring());
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
                    let (target, _, mut core) = target.open(ctx)?;
                    let report = core.forget(&target, path, ctx.now_ms())?;
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

/// A proposal's type, as the list shows it.
fn kind(p: &Proposal) -> String {
    p.memory_type.map_or_else(String::new, |t| format!("({t})"))
}

/// The proposals as the user reviews them: each dream run as one unit (its batch id), every
/// other proposal alone; in queue order.
fn units(proposals: &[Proposal]) -> Vec<(Option<&str>, Vec<&Proposal>)> {
    let mut out: Vec<(Option<&str>, Vec<&Proposal>)> = Vec::new();
    for p in proposals {
        match p.batch.as_deref() {
            Some(batch) => match out.iter_mut().find(|(b, _)| *b == Some(batch)) {
                Some((_, members)) => members.push(p),
                None => out.push((Some(batch), vec![p])),
            },
            None => out.push((None, vec![p])),
        }
    }
    out
}

/// What the walk through the queue came to.
#[derive(Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
}

/// Walks the waiting proposals, a dream's as one change (whole, or item by item); false when
/// the user quit (or input ended).
fn review_proposals(
    ctx: &Context,
    args: &Args,
    proposals: &[Proposal],
    offset: i32,
    answers: &mut dyn Iterator<Item = std::io::Result<String>>,
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let mut tally = Tally::default();
    let units = units(proposals);
    let total = units.len();
    for (n, (batch, members)) in units.into_iter().enumerate() {
        let walk_items = match batch {
            None => true,
            Some(batch) => {
                let summary = members[0].batch_summary.as_deref().unwrap_or("");
                writeln!(out, "\n[proposal {}/{total}] {summary} ({batch})", n + 1)?;
                for p in &members {
                    writeln!(out, "  {} {} {}", p.op, p.path, kind(p))?;
                }
                match ask(
                    answers,
                    out,
                    "[a]ccept all, [r]eject all, [o]ne by one, [s]kip, [q]uit: ",
                    "arosq",
                )? {
                    None | Some('q') => return finish(out, &tally, false),
                    Some('a') => {
                        decide(ctx, args, batch, true, offset, &mut tally, out)?;
                        false
                    }
                    Some('r') => {
                        decide(ctx, args, batch, false, offset, &mut tally, out)?;
                        false
                    }
                    Some('o') => true,
                    _ => false,
                }
            }
        };
        if !walk_items {
            continue;
        }
        for p in members {
            writeln!(
                out,
                "\n[proposal {}/{total}] {} proposes to {} {} {}",
                n + 1,
                p.source,
                p.op,
                p.path,
                kind(p)
            )?;
            let proposed = match (&p.name, &p.body) {
                (Some(name), Some(body)) => {
                    format!(
                        "name: {name}\ndescription: {}\n\n{body}\n",
                        p.description.as_deref().unwrap_or("")
                    )
                }
                _ => String::new(),
            };
            // Shown with control characters escaped: a model's `\r` or escape sequence must not
            // hide a line from the person deciding.
            let shown = |text: &str| -> String {
                text.lines()
                    .map(|l| format!("{}\n", memdir_harness::contract::text::escape_controls(l)))
                    .collect()
            };
            crate::ops::diff::lines(&shown(p.current.as_deref().unwrap_or("")), &shown(&proposed), out)?;
            match ask(answers, out, "[a]ccept, [e]dit after accepting, [r]eject, [s]kip, [q]uit: ", "aersq")?
            {
                None | Some('q') => return finish(out, &tally, false),
                Some(c @ ('a' | 'e')) => {
                    decide(ctx, args, &p.id, true, offset, &mut tally, out)?;
                    if c == 'e' && p.op != "delete" {
                        let (_, dir, _) = args.target.open(ctx)?;
                        edit(ctx, &format!("{dir}/{}", p.path), out)?;
                    }
                }
                Some('r') => decide(ctx, args, &p.id, false, offset, &mut tally, out)?,
                _ => {}
            }
        }
    }
    finish(out, &tally, true)
}

/// Asks until the answer is one of `choices` (its first letter, or the empty line for `s`);
/// `None` at the end of input.
fn ask(
    answers: &mut dyn Iterator<Item = std::io::Result<String>>,
    out: &mut dyn Write,
    prompt: &str,
    choices: &str,
) -> Result<Option<char>, Failure> {
    loop {
        write!(out, "{prompt}")?;
        out.flush()?;
        let Some(answer) = answers.next().transpose()? else {
            writeln!(out, "\n(end of input: the rest wait)")?;
            return Ok(None);
        };
        let first = answer.trim().chars().next().unwrap_or('s');
        if choices.contains(first) {
            return Ok(Some(first));
        }
        writeln!(
            out,
            "{:?}? answer one of {}",
            answer.trim(),
            choices.chars().map(String::from).collect::<Vec<_>>().join(", ")
        )?;
    }
}

/// Accepts or rejects a proposal or a batch through the core, and counts it.
fn decide(
    ctx: &Context,
    args: &Args,
    id: &str,
    accept: bool,
    offset: i32,
    tally: &mut Tally,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let (target, _, mut core) = args.target.open(ctx)?;
    // One that no longer applies is said, and the review goes on.
    let result =
        if accept { core.accept(&target, id, ctx.now_ms(), offset) } else { core.reject(&target, id) };
    match (result, accept) {
        (Ok(done), true) => {
            for p in &done {
                writeln!(out, "accepted: {} {}", p.op, p.path)?;
            }
            tally.accepted += done.len();
        }
        (Ok(done), false) => {
            writeln!(out, "rejected {} change(s): they will not be proposed again", done.len())?;
            tally.rejected += done.len();
        }
        (Err(e), _) => writeln!(out, "not done: {}", Failure::from(e).message)?,
    }
    Ok(())
}

fn finish(out: &mut dyn Write, tally: &Tally, went_on: bool) -> Result<bool, Failure> {
    writeln!(out, "proposals: {} accepted, {} rejected", tally.accepted, tally.rejected)?;
    Ok(went_on)
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
