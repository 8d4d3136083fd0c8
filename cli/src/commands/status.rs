//! `memdir status`: which switches are on, and which rule decided (R4).

use crate::context::{Context, Outcome, absolute};
use crate::ops::whole_tree;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The working directory (default: the current one).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Json<'a> {
    auto_memory: bool,
    decided_by: String,
    instructions: bool,
    bare: bool,
    team_memory: bool,
    daily_log: bool,
    team_sync: memdir_harness::contract::switches::TeamSync,
    /// How many memories recall offers a model (0: all).
    recall_shortlist: u32,
    memory_dir: &'a str,
    /// The settings file whose `autoMemoryDirectory` set `memory_dir`, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_dir_setting: Option<&'a str>,
    project_root: &'a str,
    /// The user-wide memory, when `userMemory` turned it on (issue 28).
    #[serde(skip_serializing_if = "Option::is_none")]
    user_memory_dir: Option<&'a str>,
    /// The group of projects sharing a memory with this one, when `memoryGroups` lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a memdir_harness::contract::paths::MemoryGroup>,
    /// Automatic writes are paused (`memdir pause`): since when and until when (none: until
    /// `memdir resume`).
    #[serde(skip_serializing_if = "Option::is_none")]
    paused: Option<memdir_harness::contract::pause::Pause>,
    /// Who may write each memory type (issue 28), and the rule that decided.
    memory_writes: &'a [memdir_harness::contract::policy::TypePolicy],
    /// Learning when a turn ends (issue 46): the model each agent's hook uses, and the last
    /// seven days of the learning log.
    learning: Learning,
}

#[derive(Serialize)]
struct Learning {
    /// Each agent whose stop hook memdir set up, and the model it learns with.
    agents: Vec<AgentModel>,
    /// `$MEMDIR_LLM`, which a hook without a model of its own uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    default_model: Option<String>,
    #[serde(flatten)]
    recent: memdir_harness::contract::hook::Learning,
}

#[derive(Serialize)]
struct AgentModel {
    client: &'static str,
    model: String,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let cwd = absolute(&args.cwd.unwrap_or_else(|| PathBuf::from(".")))?;
    // One load gives the switches, the location and what the instruction files say about
    // themselves (large files, imports not loaded).
    let request = memdir_harness::contract::instructions::Request {
        cwd: &cwd,
        env: ctx.env(),
        touching: &[],
        add_dirs: &[],
    };
    let mut core = ctx.core(whole_tree()?)?;
    let loaded = core.load_instructions(&request)?;
    let target = memdir_harness::contract::target::Target {
        cwd: cwd.clone(),
        env: ctx.env().to_vec(),
        memory_dir: None,
        by: None,
    };
    let paused = core.paused(&target, ctx.now_ms())?;
    let learning = Learning {
        agents: crate::commands::setup::learning_models(ctx)
            .into_iter()
            .map(|(client, model)| AgentModel { client, model })
            .collect(),
        default_model: ctx.var("MEMDIR_LLM").map(str::to_string),
        recent: core.hook_learning_summary(&cwd, ctx.env(), ctx.now_ms())?,
    };
    let (switches, location) = (&loaded.switches, &loaded.location);
    for d in &switches.diagnostics {
        writeln!(err, "memdir: warning: {d}")?;
    }
    for file in &loaded.files {
        for d in &file.diagnostics {
            writeln!(err, "memdir: warning: {}: {d}", file.path)?;
        }
    }
    let json = Json {
        auto_memory: switches.auto_memory,
        decided_by: switches.decided_by.label(),
        instructions: switches.instructions,
        bare: switches.bare,
        team_memory: switches.team_memory,
        daily_log: switches.daily_log,
        team_sync: switches.team_sync,
        recall_shortlist: switches.recall_shortlist,
        memory_dir: &location.memory_dir,
        memory_dir_setting: location.memory_dir_setting.as_deref(),
        project_root: &location.project_root,
        user_memory_dir: location.user_memory_dir.as_deref(),
        group: location.group.as_ref(),
        paused,
        memory_writes: &switches.memory_writes.0,
        learning,
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        let on = |b: bool| if b { "on" } else { "off" };
        writeln!(out, "auto memory:   {} (decided by {})", on(json.auto_memory), json.decided_by)?;
        let rules = json.memory_writes;
        match rules.first() {
            Some(first) if rules.iter().all(|r| r.mode == first.mode && r.decided_by == first.decided_by) => {
                writeln!(out, "writes:        {} (decided by {})", first.mode.as_str(), first.decided_by)?
            }
            _ => {
                for r in rules {
                    let kind = format!("{}:", r.memory_type);
                    writeln!(
                        out,
                        "writes:        {kind:<10} {} (decided by {})",
                        r.mode.as_str(),
                        r.decided_by
                    )?;
                }
            }
        }
        match json.paused.map(|p| p.until_ms) {
            Some(Some(until)) => writeln!(
                out,
                "writes:        paused until {} (memdir resume ends it; recall goes on)",
                memdir_harness::contract::time::iso_millis(until)
            )?,
            Some(None) => writeln!(out, "writes:        paused until memdir resume (recall goes on)")?,
            None => {}
        }
        writeln!(
            out,
            "instructions:  {}{}",
            on(json.instructions),
            if json.bare { " (bare mode)" } else { "" }
        )?;
        writeln!(out, "team memory:   {}", on(json.team_memory))?;
        writeln!(out, "daily log:     {}", on(json.daily_log))?;
        let sync = serde_json::to_value(json.team_sync).map_err(std::io::Error::from)?;
        writeln!(out, "team sync:     {}", sync.as_str().unwrap_or_default())?;
        match json.recall_shortlist {
            0 => writeln!(out, "shortlist:     all memories offered to a model")?,
            n => writeln!(out, "shortlist:     the best {n} memories offered to a model")?,
        }
        match json.memory_dir_setting {
            Some(settings) => {
                writeln!(out, "memory dir:    {} (autoMemoryDirectory in {settings})", json.memory_dir)?
            }
            None => writeln!(out, "memory dir:    {}", json.memory_dir)?,
        }
        if let Some(dir) = json.user_memory_dir {
            writeln!(out, "user memory:   {dir} (userMemory: recalled in every project)")?;
        }
        if let Some(group) = json.group {
            writeln!(out, "group memory:  {} (memoryGroups: \"{}\")", group.dir, group.name)?;
        }
        writeln!(out, "project root:  {}", json.project_root)?;
        learning_lines(&json.learning, out)?;
    }
    Ok(())
}

/// `learning:` lines: which model each agent learns with, and what the last week cost.
fn learning_lines(learning: &Learning, out: &mut dyn Write) -> std::io::Result<()> {
    let models: Vec<String> = learning.agents.iter().map(|m| format!("{} ({})", m.model, m.client)).collect();
    match (models.is_empty(), &learning.default_model) {
        (false, _) => writeln!(out, "learning:      {}", models.join(", "))?,
        (true, Some(model)) => writeln!(out, "learning:      {model} ($MEMDIR_LLM)")?,
        (true, None) => writeln!(out, "learning:      no agent's hook set up (memdir setup does it)")?,
    }
    let r = &learning.recent;
    if r.extractions + r.skipped > 0 {
        let n =
            |count: u64, one: &str, many: &str| format!("{count} {}", if count == 1 { one } else { many });
        let tokens = r.tokens.map(|t| format!(", {}", n(t, "token", "tokens"))).unwrap_or_default();
        let failed = if r.failed > 0 { format!(", {} failed", r.failed) } else { String::new() };
        writeln!(
            out,
            "               last {} days: {} learned from ({}{tokens}, {} written{failed}); {} skipped by the gate",
            r.days,
            n(r.extractions.into(), "turn", "turns"),
            n(r.calls.into(), "call", "calls"),
            n(r.written.into(), "memory", "memories"),
            n(r.skipped.into(), "turn", "turns"),
        )?;
    }
    Ok(())
}
