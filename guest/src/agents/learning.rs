//! What learning cost (issue 46): each stopped turn the gate skipped, and each extraction a
//! hook ran with the model it used, the calls it made and the tokens its client reported, one
//! JSON line each in `<memory>/.sessions/learning.jsonl`. Team sync keeps `.sessions/` local,
//! and the log keeps 30 days and at most [`MAX_LINES`] lines. `memdir status` sums the last
//! seven days from it.

use crate::base::fs::Fs;
use serde::{Deserialize, Serialize};

/// The log's name in `.sessions/`.
pub const LOG: &str = "learning.jsonl";
/// The most lines kept: a few hundred turns a day for a week.
const MAX_LINES: usize = 4_000;
/// How long a line is kept.
const MAX_AGE_MS: i64 = 30 * 86_400_000;
/// The most of the log read.
const MAX_LOG_BYTES: u64 = 2 << 20;
/// The days `memdir status` sums.
pub const DAYS: i64 = 7;

/// One line of the log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Entry {
    /// When, ms since the epoch.
    pub at_ms: i64,
    /// The client whose hook it was (`codex`).
    pub client: String,
    /// `skipped` (the gate found no lesson), `extracted` or `failed`.
    pub outcome: String,
    /// The model's label (`agent:codex`), for an extraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model calls it made.
    #[serde(default)]
    pub calls: u32,
    /// The tokens its client reported, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// How many memories it wrote.
    #[serde(default)]
    pub written: u32,
}

/// A turn's learning, as a host saw it: the gate skipped it, or an extraction ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LearnedEvent {
    /// The client whose turn it was.
    pub client: String,
    /// The gate found no lesson and no model ran (a host that asks the gate itself, such as
    /// the VS Code extension; the stop hook records its own skips).
    pub skipped: bool,
    /// The project's working directory.
    pub cwd: String,
    /// The environment the core may consult.
    pub env: Vec<(String, String)>,
    /// The model's label.
    pub model: String,
    /// The model calls made.
    pub calls: u32,
    /// The tokens the model's client reported, if it did.
    pub tokens: Option<u64>,
    /// How many memories were written.
    pub written: u32,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// "Now", ms since the epoch.
    pub now_ms: i64,
}

/// The last [`DAYS`] days of learning in one memory directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Learning {
    /// The models extraction used, most recent first.
    pub models: Vec<String>,
    /// Turns that reached a model.
    pub extractions: u32,
    /// Model calls they made.
    pub calls: u32,
    /// Extractions that failed.
    pub failed: u32,
    /// Turns the gate kept from the model.
    pub skipped: u32,
    /// Memories written.
    pub written: u32,
    /// Tokens, summed over the calls whose client reported them; none when none did.
    pub tokens: Option<u64>,
    /// The days counted.
    pub days: u32,
}

/// Appends `entry` to the log of `memory_dir`, dropping lines past 30 days or [`MAX_LINES`].
/// The caller has made `.sessions/`.
pub fn record(fs: &dyn Fs, memory_dir: &str, entry: &Entry) -> crate::base::error::Result<()> {
    let path = crate::base::fs::join(&crate::base::fs::join(memory_dir, ".sessions"), LOG);
    let mut kept: Vec<Entry> = read(fs, &path)?;
    kept.retain(|e| e.at_ms >= entry.at_ms - MAX_AGE_MS);
    kept.push(entry.clone());
    let skip = kept.len().saturating_sub(MAX_LINES);
    let text: String = kept
        .iter()
        .skip(skip)
        .map(|e| format!("{}\n", serde_json::to_string(e).expect("an entry always serialises")))
        .collect();
    fs.write_file(&path, text.as_bytes())?;
    Ok(())
}

/// The lines of the log at `path`; a line that is not an entry is passed over.
fn read(fs: &dyn Fs, path: &str) -> crate::base::error::Result<Vec<Entry>> {
    let lines = crate::format::sessions::log_lines(fs, path, MAX_LOG_BYTES)?;
    Ok(lines.iter().filter_map(|line| serde_json::from_str(line).ok()).collect())
}

/// Records a turn's learning in the memory of `event.cwd`; false when that memory has no
/// directory to keep a log in. Grant it `paths.plan(hook, ...)`.
pub fn learned(fs: &dyn Fs, event: &LearnedEvent) -> crate::base::error::Result<bool> {
    let location = crate::context::paths::memory_location(fs, &event.cwd, &event.env)?;
    if fs.stat(&location.memory_dir).is_err() {
        return Ok(false);
    }
    crate::format::sessions::dir(fs, &location.memory_dir)?;
    let entry = Entry {
        at_ms: event.now_ms,
        client: event.client.clone(),
        outcome: match (event.skipped, &event.error) {
            (true, _) => "skipped",
            (false, Some(_)) => "failed",
            (false, None) => "extracted",
        }
        .to_string(),
        model: (!event.skipped).then(|| event.model.clone()),
        calls: event.calls,
        tokens: event.tokens,
        written: event.written,
    };
    record(fs, &location.memory_dir, &entry)?;
    Ok(true)
}

/// The last [`DAYS`] days of learning in the memory of `cwd`.
pub fn summary(
    fs: &dyn Fs,
    cwd: &str,
    env: &[(String, String)],
    now_ms: i64,
) -> crate::base::error::Result<Learning> {
    let location = crate::context::paths::memory_location(fs, cwd, env)?;
    let path = crate::base::fs::join(&crate::base::fs::join(&location.memory_dir, ".sessions"), LOG);
    let entries = read(fs, &path)?;
    let mut learning = Learning { days: DAYS as u32, ..Learning::default() };
    for entry in entries.iter().rev().filter(|e| e.at_ms >= now_ms - DAYS * 86_400_000) {
        match entry.outcome.as_str() {
            "skipped" => learning.skipped += 1,
            outcome => {
                learning.extractions += 1;
                learning.calls += entry.calls;
                learning.written += entry.written;
                learning.failed += u32::from(outcome == "failed");
                if let Some(tokens) = entry.tokens {
                    learning.tokens = Some(learning.tokens.unwrap_or(0) + tokens);
                }
                if let Some(model) = &entry.model
                    && !learning.models.contains(model)
                {
                    learning.models.push(model.clone());
                }
            }
        }
    }
    Ok(learning)
}
