//! The dream (R9.4) as a step machine (R0.3, see [`crate::base::model`]): [`start`] plans chunks of
//! what the daily logs gained since the last dream and asks the model to fold the first;
//! each [`resume`] applies one reply's operations with extraction's checks, records the chunk
//! as read and asks for the next. A chunk whose call failed is not recorded, so the next dream
//! retries it; the dream goes on with the chunks after it.

use crate::base::error::Result;
use crate::base::fs::Fs;
use crate::base::model::{self, Reply, Step};
use crate::context::target::Target;
use crate::writers::apply::{self, Landing, OpReport, RunCaps};
use crate::writers::dailylog::{self, Chunk};
use serde::{Deserialize, Serialize};

/// What to dream over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Input {
    /// Whose memory.
    pub target: Target,
    /// "Now", ms since the epoch.
    pub now_ms: i64,
    /// The user's UTC offset in minutes.
    pub utc_offset_minutes: i32,
}

/// What a dream did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DreamResult {
    /// Chunks planned.
    pub chunks: u32,
    /// Chunks folded and recorded as read.
    pub committed: u32,
    /// Every operation, applied or rejected.
    pub operations: Vec<OpReport>,
    /// Model failures, unusable replies.
    pub diagnostics: Vec<String>,
}

/// What a dream keeps between chunks: the chunks still to ask for, and the result so far.
#[derive(Serialize, Deserialize)]
struct State {
    memory_dir: String,
    now_ms: i64,
    utc_offset_minutes: i32,
    /// The chunk being asked for, from 0.
    next: usize,
    /// What the rest of this dream may still delete, overwrite and create.
    caps: RunCaps,
    chunks: Vec<Chunk>,
    result: DreamResult,
    /// The write policy when the dream began (issue 28).
    policy: crate::context::policy::WritePolicy,
}

/// What a dream says when a pause (issue 28) stops it.
const PAUSED: &str =
    "automatic writes are paused for this project (`memdir resume` ends the pause); the daily logs wait";

/// Plans the chunks and asks for the first; finishes at once when nothing is new.
pub fn start(fs: &dyn Fs, input: &Input) -> Result<Step<DreamResult>> {
    let resolved = input.target.resolve(fs)?;
    let (memory_dir, policy) = (resolved.memory_dir, resolved.switches.memory_writes);
    // A pause (issue 28) stops the dream as it stops extraction: the logs wait for `resume`.
    if crate::writers::pause::current(fs, &memory_dir, input.now_ms)?.is_some() {
        return Ok(Step::Done(DreamResult { diagnostics: vec![PAUSED.into()], ..DreamResult::default() }));
    }
    let chunks = dailylog::plan(fs, &memory_dir, input.now_ms)?;
    let result = DreamResult { chunks: count(chunks.len()), ..DreamResult::default() };
    let caps = RunCaps::for_dir(fs, &memory_dir, input.now_ms);
    let state = State {
        memory_dir,
        now_ms: input.now_ms,
        utc_offset_minutes: input.utc_offset_minutes,
        next: 0,
        caps,
        chunks,
        result,
        policy,
    };
    Ok(ask_next(state))
}

/// Applies the reply for the chunk asked for, records it, and asks for the next.
pub fn resume(fs: &dyn Fs, state: &str, reply: Reply) -> Result<Step<DreamResult>> {
    let mut state: State = model::state("dream", state)?;
    let Some(chunk) = state.chunks.get(state.next) else {
        return Ok(Step::Done(state.result));
    };
    // A pause begun while the dream ran stops it here: this chunk and the rest wait.
    if crate::writers::pause::current(fs, &state.memory_dir, state.now_ms)?.is_some() {
        state.result.diagnostics.push(PAUSED.into());
        return Ok(Step::Done(state.result));
    }
    match reply.into_text() {
        Ok(reply) => {
            let landing = Landing {
                memory_dir: &state.memory_dir,
                now_ms: state.now_ms,
                utc_offset_minutes: state.utc_offset_minutes,
                policy: &state.policy,
                source: "dream",
                by: "dream",
                note: None,
            };
            let (operations, diagnostics) =
                apply::apply_operations(fs, &landing, &reply, "dream", &mut state.caps);
            state.result.operations.extend(operations);
            state.result.diagnostics.extend(diagnostics);
            dailylog::commit(fs, &state.memory_dir, &chunk.logs)?;
            state.result.committed += 1;
        }
        Err(why) => state
            .result
            .diagnostics
            .push(format!("chunk {}: {why}; it will be retried next time", state.next + 1)),
    }
    state.next += 1;
    Ok(ask_next(state))
}

fn ask_next(state: State) -> Step<DreamResult> {
    match state.chunks.get(state.next) {
        Some(chunk) => {
            let request = chunk.request.clone();
            let (call, calls) = (count(state.next + 1), count(state.chunks.len()));
            model::ask(request, &state, call, calls)
        }
        None => Step::Done(state.result),
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
