//! `memdir scan DIR [--json]`: the memory files of a directory, newest first.

use crate::context::{Context, Outcome, absolute, read_root};
use memdir_harness::contract::time::iso_millis;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir scan`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory directory.
    pub dir: PathBuf,
    /// Print a JSON array of headers instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One header in `--json` output.
#[derive(Serialize)]
struct Header<'a> {
    path: &'a str,
    mtime_ms: i64,
    name: Option<&'a str>,
    description: Option<&'a str>,
    #[serde(rename = "type")]
    memory_type: Option<&'static str>,
    diagnostics: &'a [String],
    /// `today`, `yesterday` or `N days ago`, as of `--now`.
    freshness: &'a str,
    /// Older than its type keeps (R1.6): check it before relying on it.
    stale: bool,
    /// `[[name]]` links, each with the memory it reaches or `null`: not written yet (R1.7).
    links: &'a [memdir_harness::contract::links::Link],
    /// The memories that link here.
    backlinks: &'a [String],
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let dir = absolute(&args.dir)?;
    let mut core = ctx.core(read_root(&args.dir)?)?;
    let report = core.scan(&dir, ctx.now_ms())?;
    if args.json {
        let headers: Vec<Header> = report
            .headers
            .iter()
            .map(|h| Header {
                path: &h.path,
                mtime_ms: h.mtime_ms,
                name: h.name.as_deref(),
                description: h.description.as_deref(),
                memory_type: h.memory_type.map(|t| t.as_str()),
                diagnostics: &h.diagnostics,
                freshness: &h.freshness.text,
                stale: h.freshness.stale,
                links: &h.links,
                backlinks: &h.backlinks,
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &headers).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    for h in &report.headers {
        let kind = h.memory_type.map_or("-", |t| t.as_str());
        let name = h.name.as_deref().unwrap_or("(no name)");
        let stale = if h.freshness.stale { "  (may be stale)" } else { "" };
        writeln!(out, "{}  {:<9}  {}  {}{stale}", iso_millis(h.mtime_ms), kind, h.path, name)?;
        for d in &h.diagnostics {
            writeln!(out, "    ! {d}")?;
        }
        for link in &h.links {
            writeln!(out, "    → [[{}]] {}", link.name, link.path.as_deref().unwrap_or("(not written yet)"))?;
        }
        for from in &h.backlinks {
            writeln!(out, "    ← {from}")?;
        }
    }
    let kept = report.headers.len();
    if report.found > kept {
        writeln!(out, "({} memory files found; the newest {kept} are kept)", report.found)?;
    }
    for s in &report.skipped {
        writeln!(out, "skipped {}: {}", s.path, s.reason)?;
    }
    Ok(())
}
