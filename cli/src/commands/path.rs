//! `memdir path [--cwd DIR] [--agent TYPE --scope SCOPE]`: where memories live.

use crate::context::{Context, Outcome, absolute, core_choice};
use crate::ops::whole_tree;
use memdir_harness::contract::paths::AgentScope;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir path`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The working directory (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// A subagent type: print that agent's own memory directory instead.
    #[arg(long, requires = "scope")]
    pub agent: Option<String>,
    /// The agent memory's scope: user (every project), project (checked in) or local.
    #[arg(long, requires = "agent", value_parser = core_choice(&AgentScope::ALL, AgentScope::as_str))]
    pub scope: Option<AgentScope>,
    /// Print JSON with the project root, slug and configuration directory too.
    #[arg(long, conflicts_with = "agent")]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    memory_dir: &'a str,
    project_root: &'a str,
    from_git: bool,
    slug: &'a str,
    config_dir: &'a str,
    /// The settings file whose `autoMemoryDirectory` set `memory_dir`, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_dir_setting: Option<&'a str>,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.cwd.unwrap_or_else(|| PathBuf::from(".")))?;
    // Finding the repository means reading `.git` entries in any parent, and a linked
    // worktree's git dir may live anywhere.
    let mut core = ctx.core(whole_tree()?)?;
    if let (Some(agent), Some(scope)) = (&args.agent, args.scope) {
        writeln!(out, "{}", core.agent_dir(&cwd, ctx.env(), agent, scope)?)?;
        return Ok(());
    }
    let loc = core.locate(&cwd, ctx.env())?;
    if args.json {
        let json = Json {
            memory_dir: &loc.memory_dir,
            project_root: &loc.project_root,
            from_git: loc.from_git,
            slug: &loc.slug,
            config_dir: &loc.config_dir,
            memory_dir_setting: loc.memory_dir_setting.as_deref(),
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", loc.memory_dir)?;
        if let Some(settings) = &loc.memory_dir_setting {
            writeln!(err, "memdir: set by autoMemoryDirectory in {settings}")?;
        }
    }
    Ok(())
}
