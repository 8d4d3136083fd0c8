//! `memdir instructions`: the instruction files in load order (R3).

use crate::ConfinedFs;
use crate::cli::{Context, Failure, Outcome, absolute};
use memdir_core::instructions::{Loaded, Request};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

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

/// What to load, shared with `memdir prompt`.
#[derive(Debug, clap::Args)]
pub struct LoadArgs {
    /// The working directory (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// A file the work touches (relative to --cwd): rules with `paths:` apply when one matches.
    #[arg(long, value_name = "PATH")]
    pub touching: Vec<PathBuf>,
    /// A directory to load instructions from as well (the only ones in bare mode).
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
}

/// The absolute forms of the load arguments.
pub struct Resolved {
    cwd: String,
    touching: Vec<String>,
    add_dirs: Vec<String>,
}

impl LoadArgs {
    /// Makes every path absolute: `--touching` relative to `--cwd`.
    pub fn resolve(&self) -> Result<Resolved, Failure> {
        let cwd = self.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        let cwd_path =
            std::path::absolute(&cwd).map_err(|e| Failure::input(format!("{}: {e}", cwd.display())))?;
        let touching = self.touching.iter().map(|t| absolute(&cwd_path.join(t))).collect::<Result<_, _>>()?;
        let add_dirs = self.add_dir.iter().map(|d| absolute(d)).collect::<Result<_, _>>()?;
        Ok(Resolved { cwd: absolute(&cwd)?, touching, add_dirs })
    }
}

impl Resolved {
    /// The core's request over these paths.
    pub fn request<'a>(&'a self, env: &'a [(String, String)]) -> Request<'a> {
        Request { cwd: &self.cwd, env, touching: &self.touching, add_dirs: &self.add_dirs }
    }
}

/// Instruction files live anywhere from `/` down, plus the managed and configuration
/// directories and whatever `@imports` name: the whole tree is granted, read-only.
pub fn whole_tree() -> Result<ConfinedFs, Failure> {
    ConfinedFs::new().grant_read(Path::new("/")).map_err(|e| Failure::input(format!("/: {e}")))
}

/// Prints problems that belong to no single file.
pub fn warn(loaded: &Loaded, err: &mut dyn Write) -> std::io::Result<()> {
    for d in loaded.switches.diagnostics.iter().chain(&loaded.diagnostics) {
        writeln!(err, "memdir: warning: {d}")?;
    }
    Ok(())
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
        // The core picks the file (`$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`);
        // the grant covers both places it may be.
        let mut fs = whole_tree()?;
        for dir in ["CLAUDE_CONFIG_DIR", "HOME"].iter().filter_map(|v| ctx.var(v)) {
            fs = fs.grant_write(dir).map_err(|e| Failure::input(format!("{dir}: {e}")))?;
        }
        let file = ctx.core(fs)?.approve_external(resolved.request(ctx.env()).cwd, ctx.env())?;
        writeln!(err, "memdir: imports from outside this project are approved ({file})")?;
    }
    let loaded = ctx.core(whole_tree()?)?.load_instructions(&resolved.request(ctx.env()))?;
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
            out.write_all(memdir_core::prompt::render_file(f).as_bytes())?;
        }
    }
    Ok(())
}
