//! `memdir save` and `memdir forget`: writer A's tool from the command line (R9.1).

use crate::context::{Context, Failure, Outcome, core_choice};
use crate::ops::target::Target;
use memdir_harness::contract::MemoryType;
use memdir_harness::contract::writer::{Memory, Save, Scope};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of `memdir save`.
#[derive(Debug, clap::Args)]
pub struct SaveArgs {
    /// user, feedback, project or reference.
    #[arg(long = "type", value_parser = parse_type)]
    pub memory_type: MemoryType,
    /// The memory's name, a short kebab-case slug (`release-freeze`); other text is made one.
    /// Saving the same name again updates that memory.
    #[arg(long)]
    pub name: String,
    /// One sentence saying when the memory is relevant.
    #[arg(long)]
    pub description: String,
    /// The file to write (a `.md` name in the memory directory); default: the memory already
    /// named so, else `<name>.md`. Naming an existing file with another name renames it, and
    /// `[[links]]` to the old name follow.
    #[arg(long)]
    pub file: Option<String>,
    /// The memory this one supersedes (a `.md` name): removed in the same step, its MEMORY.md
    /// line becomes this one's, and `[[links]]` to it name this one.
    #[arg(long, value_name = "FILE")]
    pub replaces: Option<String>,
    /// The memory's text.
    #[arg(long, conflicts_with_all = ["body_file", "stdin"])]
    pub body: Option<String>,
    /// Read the memory's text from this file.
    #[arg(long, conflicts_with = "stdin")]
    pub body_file: Option<PathBuf>,
    /// `-`: read the memory's text from standard input.
    #[arg(value_name = "-", value_parser = clap::builder::PossibleValuesParser::new(["-"]))]
    pub stdin: Option<String>,
    /// The user's UTC offset in minutes, for "today" in project memories (default: this machine's).
    #[arg(long, allow_hyphen_values = true)]
    pub utc_offset: Option<i32>,
    /// private, team, user (the user-wide memory, for every project) or group (the memory of
    /// this project's group). Default: a user memory goes to the user-wide memory when it is on;
    /// with team memory on, feedback stays private and project and reference go to the team.
    #[arg(long, value_parser = core_choice(&Scope::ALL, Scope::as_str))]
    pub scope: Option<Scope>,
    #[command(flatten)]
    pub target: Target,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `memdir forget`.
#[derive(Debug, clap::Args)]
pub struct ForgetArgs {
    /// The memory, relative to the memory directory (e.g. `feedback_testing.md`).
    pub path: String,
    #[command(flatten)]
    pub target: Target,
    /// Print a JSON report.
    #[arg(long)]
    pub json: bool,
}

fn parse_type(value: &str) -> Result<MemoryType, String> {
    MemoryType::parse(value)
        .ok_or_else(|| format!("{value:?} is not a memory type: use user, feedback, project or reference"))
}

#[derive(Serialize)]
struct SaveJson<'a> {
    path: &'a str,
    created: bool,
    index_line: &'a str,
    conversions: Vec<Conversion<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    renamed_from: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    links_rewritten: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    replaced: Option<&'a str>,
}

#[derive(Serialize)]
struct Conversion<'a> {
    from: &'a str,
    to: &'a str,
}

/// Runs `memdir save`.
pub fn save(ctx: &Context, args: SaveArgs, out: &mut dyn Write) -> Outcome {
    let body = match (&args.body, &args.body_file, &args.stdin) {
        (Some(body), _, _) => body.clone(),
        (_, Some(file), _) => {
            std::fs::read_to_string(file).map_err(|e| Failure::input(format!("{}: {e}", file.display())))?
        }
        (_, _, Some(_)) => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::input(format!("standard input: {e}")))?;
            text
        }
        _ => return Err(Failure::input("give the memory's text with --body, --body-file or -")),
    };
    let (target, _, mut core) = args.target.open_to_share(ctx)?;
    let utc_offset = ctx.utc_offset(args.utc_offset);
    let request = Save {
        target: &target,
        memory: Memory {
            memory_type: args.memory_type,
            name: &args.name,
            description: &args.description,
            file: args.file.as_deref(),
            replaces: args.replaces.as_deref(),
            body: &body,
            now_ms: ctx.now_ms(),
            utc_offset_minutes: utc_offset,
            scope: args.scope,
        },
    };
    let report = core.save(&request)?;
    if args.json {
        let json = SaveJson {
            path: &report.path,
            created: report.created,
            index_line: &report.index_line,
            conversions: report.conversions.iter().map(|c| Conversion { from: &c.from, to: &c.to }).collect(),
            renamed_from: report.renamed_from.as_deref(),
            links_rewritten: &report.links_rewritten,
            replaced: report.replaced.as_deref(),
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        // The core's words, as every host shows them.
        writeln!(out, "{}", report.summary)?;
    }
    Ok(())
}

/// Runs `memdir forget`.
pub fn forget(ctx: &Context, args: ForgetArgs, out: &mut dyn Write) -> Outcome {
    let (target, _, mut core) = args.target.open_to_share(ctx)?;
    let report = core.forget(&target, &args.path, ctx.now_ms())?;
    if args.json {
        let json =
            serde_json::json!({"path": report.path, "index_lines_removed": report.index_lines_removed});
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "forgot {} ({} index line(s) removed)", report.path, report.index_lines_removed)?;
    }
    Ok(())
}

/// Arguments of `memdir restore`.
#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// The trashed memory to bring back, by the id the list shows; without one, the trash is
    /// listed.
    pub id: Option<String>,
    #[command(flatten)]
    pub target: Target,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `memdir restore`: lists the trash, or brings one memory back with its index lines.
pub fn restore(ctx: &Context, args: RestoreArgs, out: &mut dyn Write) -> Outcome {
    let (target, _, mut core) = args.target.open(ctx)?;
    let Some(id) = args.id else {
        let items = core.trash(&target)?;
        if args.json {
            serde_json::to_writer_pretty(&mut *out, &items).map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else if items.is_empty() {
            writeln!(out, "the trash is empty")?;
        } else {
            for t in &items {
                writeln!(
                    out,
                    "{}  {}  (trashed {})",
                    t.id,
                    t.path,
                    memdir_harness::contract::time::iso_millis(t.trashed_ms)
                )?;
            }
        }
        return Ok(());
    };
    let restored = core.restore(&target, &id, ctx.now_ms())?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &restored).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "restored {} (and its MEMORY.md line)", restored.path)?;
    }
    Ok(())
}
