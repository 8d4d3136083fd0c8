//! `memdir demo`: writes a sample memory directory and prints what an agent gets from it.

use crate::context::{Context, Failure, Outcome, absolute, read_root};
use crate::ops::recall::{Query, recall};
use crate::ops::whole_tree;
use memdir_harness::contract::MemoryType;
use memdir_harness::contract::scan::INDEX_FILE;
use memdir_harness::contract::target::Target;
use memdir_harness::contract::writer::{Memory, Save};
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

/// Arguments of `memdir demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write the sample into this directory (created if missing; must hold no memories yet)
    /// instead of a temporary one that is removed afterwards.
    #[arg(long)]
    pub into: Option<PathBuf>,
}

/// The sample memories, with how many days before "now" each was last modified.
const SAMPLE: &[(&str, &str, i64)] = &[
    ("MEMORY.md", include_str!("../../sample-memory/MEMORY.md"), 0),
    ("user_role.md", include_str!("../../sample-memory/user_role.md"), 47),
    ("feedback_testing.md", include_str!("../../sample-memory/feedback_testing.md"), 9),
    ("feedback_terse_replies.md", include_str!("../../sample-memory/feedback_terse_replies.md"), 3),
    ("release-freeze.md", include_str!("../../sample-memory/release-freeze.md"), 1),
    (
        "reference_grafana_dashboards.md",
        include_str!("../../sample-memory/reference_grafana_dashboards.md"),
        30,
    ),
    ("reference_linear_ingest.md", include_str!("../../sample-memory/reference_linear_ingest.md"), 12),
];

const DAY_MS: i64 = 86_400_000;

/// The user request the demo recalls for.
const DEMO_REQUEST: &str = "add an integration test for the orders table";

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    let (dir, _temp) = match args.into {
        Some(dir) => {
            fs::create_dir_all(&dir).map_err(|e| Failure::input(format!("{}: {e}", dir.display())))?;
            if SAMPLE.iter().any(|(name, _, _)| dir.join(name).exists()) {
                return Err(Failure::input(format!(
                    "{}: already holds memories; choose an empty directory",
                    dir.display()
                )));
            }
            (dir, None)
        }
        None => {
            let temp = tempfile::Builder::new().prefix("memdir-demo-").tempdir()?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    for (name, text, days_ago) in SAMPLE {
        let path = dir.join(name);
        fs::write(&path, text)?;
        // Spread the files over the past weeks, to the millisecond the clock gives, so the
        // manifest's ordering and dates look like a directory in use.
        let mtime = ctx.now_ms() - days_ago * DAY_MS - (*days_ago % 7) * 3_600_000;
        let when = UNIX_EPOCH + Duration::from_millis(u64::try_from(mtime).unwrap_or(0));
        fs::File::options().write(true).open(&path)?.set_modified(when)?;
    }

    let abs = absolute(&dir)?;
    let mut core = ctx.core(read_root(&dir)?)?;
    let report = core.scan(&abs, ctx.now_ms())?;
    let manifest = core.manifest(&report.headers)?;
    let index = core.load_index(&format!("{abs}/{INDEX_FILE}"))?;

    writeln!(out, "memdir demo: a sample memory directory at {abs}")?;
    writeln!(out, "(core: {}; {} memories)", core.backend(), report.headers.len())?;
    writeln!(out)?;
    writeln!(out, "== MEMORY.md as loaded into every system prompt ==")?;
    writeln!(out, "{}", index.text)?;
    writeln!(out)?;
    writeln!(out, "== Manifest: what the recall selector and extraction see ==")?;
    write!(out, "{manifest}")?;
    writeln!(out)?;

    let query = Query {
        cwd: &abs,
        memory_dir: Some(abs.clone()),
        query: DEMO_REQUEST,
        recent_tools: &[],
        already_read: &[],
        ignore_memory: false,
        embeddings: Some("off"),
    };
    let report = recall(ctx, &query, String::new(), None)?;
    writeln!(out, "== Recall for {DEMO_REQUEST:?} (selector: {}) ==", report.selector)?;
    for attachment in &report.attachments {
        writeln!(out, "{}", attachment.text)?;
    }
    writeln!(out)?;

    // Writer A: the agent learns something and saves it; the index gains its line.
    let writable = whole_tree()?.grant_write(&dir).map_err(|e| Failure::input(format!("{abs}: {e}")))?;
    let mut writer = ctx.core(writable)?;
    let target = Target {
        cwd: abs.clone(),
        env: ctx.env().to_vec(),
        memory_dir: Some(abs.clone()),
        by: Some(ctx.by()),
    };
    let saved = writer.save(&Save {
        target: &target,
        memory: Memory {
            memory_type: MemoryType::Feedback,
            name: "migrations-own-pr",
            description: "Schema migrations ship in a PR of their own, reviewed by the DBA on call",
            file: None,
            replaces: None,
            body: "Put schema migrations in their own PR.\nWhy: a migration mixed into a feature PR was \
                   rolled back with it last month.\nHow to apply: any change under db/migrations/; \
                   during the [[release-freeze]] they wait like every other change.",
            now_ms: ctx.now_ms(),
            utc_offset_minutes: 0,
            scope: None,
        },
    })?;
    writeln!(out, "== Saved {} in the agent's current shape ==", saved.path)?;
    let text = fs::read_to_string(dir.join(&saved.path))?;
    write!(out, "{text}")?;
    writeln!(out, "MEMORY.md gained: {}", saved.index_line)?;
    writeln!(out)?;

    // The links between memories, as the core resolves them.
    writeln!(out, "== Links between memories ==")?;
    for header in writer.scan(&abs, ctx.now_ms())?.headers.iter().filter(|h| !h.links.is_empty()) {
        for link in &header.links {
            let to = link.path.as_deref().unwrap_or("not written yet");
            writeln!(out, "{} → [[{}]] → {to}", header.path, link.name)?;
        }
    }
    Ok(())
}
