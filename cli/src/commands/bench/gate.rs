//! `memdir bench --gate`: how well the gate before extraction tells turns that taught something
//! from turns that did not (issue 46), on the labelled turns in `tests/learning-gate/`, judged
//! through the core (`--backend`, the component by default). Per language and for each part of
//! the set: the turns the gate was designed on, the turns first held out and then looked at
//! (`seen`), and `held-out/`, written afterwards by someone who saw neither the gate nor the
//! rest of the set.
//! A benchmark: it reports, it asserts nothing.

use crate::context::{Context, Failure, Outcome};
use crate::ops::whole_tree;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// One labelled turn.
#[derive(Deserialize)]
struct Turn {
    id: String,
    lang: String,
    split: String,
    teaches: bool,
    kind: String,
    turn: Vec<String>,
}

/// Counts for one language and half.
#[derive(Default, Clone, Copy)]
struct Tally {
    teaching: u32,
    teaching_passed: u32,
    idle: u32,
    idle_passed: u32,
}

impl Tally {
    fn add(&mut self, teaches: bool, passed: bool) {
        if teaches {
            self.teaching += 1;
            self.teaching_passed += u32::from(passed);
        } else {
            self.idle += 1;
            self.idle_passed += u32::from(passed);
        }
    }

    fn cells(self) -> String {
        let share =
            |n: u32, of: u32| if of == 0 { "-".to_string() } else { format!("{:.2}", n as f64 / of as f64) };
        format!(
            "{} ({}/{}) | {} ({}/{})",
            share(self.teaching_passed, self.teaching),
            self.teaching_passed,
            self.teaching,
            share(self.idle_passed, self.idle),
            self.idle_passed,
            self.idle
        )
    }
}

/// The languages in the order the table lists them.
const LANGUAGES: [&str; 6] = ["en", "zh", "ja", "es", "de", "fr"];

pub fn run(ctx: &Context, dir: &Path, verbose: bool, out: &mut dyn Write) -> Outcome {
    let mut turns = Vec::new();
    let files = LANGUAGES
        .iter()
        .flat_map(|lang| [dir.join(format!("{lang}.json")), dir.join(format!("held-out/{lang}.json"))]);
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
        let mut some: Vec<Turn> = serde_json::from_str(&text)
            .map_err(|e| Failure::input(format!("{}: not a list of labelled turns: {e}", path.display())))?;
        turns.append(&mut some);
    }
    let mut core = ctx.core(whole_tree()?)?;
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    for turn in &turns {
        let verdict = core.hook_judge_turn(&turn.turn)?;
        for lang in [turn.lang.as_str(), "all"] {
            tallies
                .entry((turn.split.clone(), lang.to_string()))
                .or_default()
                .add(turn.teaches, verdict.teaches);
        }
        if verdict.teaches != turn.teaches {
            misses.push(format!(
                "{} ({}, {}): {} [{}] {}",
                turn.id,
                turn.split,
                turn.kind,
                if turn.teaches { "stopped" } else { "passed" },
                verdict.cues.join(", "),
                turn.turn.join(" / ").replace('\n', " ")
            ));
        }
    }
    writeln!(out, "The gate before extraction on {} labelled turns ({}):\n", turns.len(), dir.display())?;
    writeln!(
        out,
        "| half | language | teaching turns that reach the model | turns teaching nothing that reach it |"
    )?;
    writeln!(out, "|---|---|---:|---:|")?;
    for split in ["design", "seen", "held-out"] {
        for lang in LANGUAGES.iter().chain(&["all"]) {
            if let Some(tally) = tallies.get(&(split.to_string(), lang.to_string())) {
                writeln!(out, "| {split} | {lang} | {} |", tally.cells())?;
            }
        }
    }
    if verbose {
        writeln!(out, "\nJudged wrongly:")?;
        for miss in &misses {
            writeln!(out, "- {miss}")?;
        }
    }
    Ok(())
}
