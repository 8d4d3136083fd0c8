//! `memdir index FILE [--json]`: MEMORY.md exactly as the model sees it.

use crate::context::{Context, Failure, Outcome, absolute, read_root};
use memdir_harness::contract::scan::INDEX_FILE;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir index`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The index file (or a memory directory, meaning its MEMORY.md).
    pub file: PathBuf,
    /// Print JSON: the text, which cuts were made, the original size, the warning.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    text: &'a str,
    truncated: Option<&'static str>,
    lines: usize,
    bytes: usize,
    chars: usize,
    dropped_entries: usize,
    warning: Option<&'a str>,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let file = if args.file.is_dir() { args.file.join(INDEX_FILE) } else { args.file.clone() };
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        return Err(Failure::input(format!("{}: no such directory", dir.display())));
    }
    let path = absolute(&file)?;
    let mut core = ctx.core(read_root(dir)?)?;
    let loaded = core.load_index(&path)?;
    for d in &loaded.diagnostics {
        writeln!(err, "memdir: warning: {d}")?;
    }
    if args.json {
        let json = Json {
            text: &loaded.text,
            truncated: loaded.truncated.map(|t| t.as_str()),
            lines: loaded.lines,
            bytes: loaded.bytes,
            chars: loaded.chars,
            dropped_entries: loaded.dropped_entries,
            warning: loaded.warning.as_deref(),
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else if !loaded.text.is_empty() {
        writeln!(out, "{}", loaded.text)?;
    }
    Ok(())
}
