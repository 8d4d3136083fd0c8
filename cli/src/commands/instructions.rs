//! `memdir instructions`: the instruction files in load order (R3).

use crate::context::{Context, Outcome};
use crate::ops::index::rebuild_missing_index;
use crate::ops::instructions::{LoadArgs, warn};
use crate::ops::whole_tree;
use memdir_harness::contract::plan::Operation;
use memdir_harness::contract::target::Target;
use serde::Serialize;
use std::io::Write;

/// Arguments of `memdir instructions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Print a JSON array instead of the text the model sees.
    #[arg(long)]
    pub json: bool,
    /// Approve imports from outside this project (`@~/…`, absolute, `@../` leading out) first,
    /// in `~/.claude.json` as the terminal agent does; then list.
    #[arg(long)]
    pub approve_external: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    path: &'a str,
    #[serde(rename = "type")]
    file_type: &'static str,
    suffix: &'static str,
    chars: usize,
    truncated: bool,
    imports: &'a [String],
    diagnostics: &'a [String],
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let resolved = args.load.resolve()?;
    if args.approve_external {
        // The core picks the file (`$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`)
        // and plans the grant: that file's folder only.
        let cwd = resolved.request(ctx.env()).cwd;
        let mut core = ctx.core(whole_tree()?)?;
        core.open(Operation::ApproveExternal, &Target::new(cwd, ctx.env()))?;
        let file = core.approve_external(cwd, ctx.env())?;
        writeln!(err, "memdir: imports from outside this project are approved ({file})")?;
    }
    // As the terminal agent does when it loads memory: a missing MEMORY.md is written from the
    // memory files first, then listed with the rest (issue 47, item 5), as `memdir prompt` shows it.
    rebuild_missing_index(ctx, resolved.request(ctx.env()).cwd, err)?;
    let mut core = ctx.core(whole_tree()?)?;
    let loaded = core.load_instructions(&resolved.request(ctx.env()))?;
    warn(&loaded, err)?;
    if args.json {
        let files: Vec<Json> = loaded
            .files
            .iter()
            .map(|f| Json {
                path: &f.path,
                file_type: f.file_type.as_str(),
                suffix: f.file_type.suffix(),
                chars: f.chars,
                truncated: f.truncated,
                imports: &f.imports,
                diagnostics: &f.diagnostics,
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &files).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        for f in &loaded.files {
            for d in &f.diagnostics {
                writeln!(err, "memdir: warning: {}: {d}", f.path)?;
            }
        }
        for f in &loaded.files {
            out.write_all(core.render_file(f)?.as_bytes())?;
        }
    }
    Ok(())
}
