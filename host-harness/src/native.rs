//! The memory core called natively: the same crate the component is built from, on the same
//! [`crate::ConfinedFs`]. The conformance runner checks that both backends agree.
//!
//! [`call`] is the native side of the contract, one line per export. It is the only table: the
//! typed API ([`Core`]) is written once over it, and the component needs none.

use crate::Core;
use crate::error::{Error, Result};
use crate::fs::SharedFs;
use crate::{Arg, Returned};
use memdir_core::budget::LIMITS;
use memdir_core::instructions::Request;
use memdir_core::prompt::Options;
use memdir_core::recall::Attachment;
use memdir_core::scan::MemoryHeader;
use memdir_core::target::Target;
use memdir_core::writer::{Memory, Save, Scope};
use memdir_core::{
    Fs, MemoryType, budget, dailylog, dream, extract, hook, index, instructions, manifest, paths, pause,
    pending, prompt, recall, scan, team, trash, writer,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The core as a native library.
pub struct NativeCore {
    fs: SharedFs,
}

impl NativeCore {
    /// A native core whose filesystem is `fs` (usually a [`crate::ConfinedFs`]).
    pub fn new(fs: impl memdir_core::Fs + Send + Sync + 'static) -> Self {
        Self { fs: std::sync::Arc::new(fs) }
    }
}

impl Core for NativeCore {
    fn backend(&self) -> &'static str {
        "native"
    }

    fn call(&mut self, func: &str, args: &[Arg<'_>]) -> Result<Returned> {
        call(&*self.fs, func, &Arg::all_json(args)?).map(Returned::json).map_err(Error::Contract)
    }
}

/// Calls an exported function on the native core, arguments and result in the JSON form of
/// [`crate::calls`]. Fails (with a message) only when the call itself is malformed: an unknown
/// function, or arguments that do not fit its parameters.
pub fn call(fs: &dyn Fs, func: &str, args: &[Value]) -> std::result::Result<Value, String> {
    let arg = |i: usize| args.get(i).cloned().ok_or_else(|| format!("{func}: argument {i} is missing"));
    fn de<T: DeserializeOwned>(
        func: &str,
        v: std::result::Result<Value, String>,
    ) -> std::result::Result<T, String> {
        serde_json::from_value(v?).map_err(|e| format!("{func}: {e}"))
    }
    fn wit<T: Serialize>(r: memdir_core::Result<T>) -> Value {
        match r {
            Ok(v) => json!({"tag": "ok", "val": v}),
            Err(e) => json!({"tag": "err", "val": e}),
        }
    }
    let s = |i| de::<String>(func, arg(i));
    let env = |i| de::<Vec<(String, String)>>(func, arg(i));
    let cap = |i| de::<Option<u32>>(func, arg(i)).map(|c| c.map_or(hook::COMMON_CAP, |c| c as usize));
    Ok(match func {
        "scan.scan" => wit(scan::scan(fs, &s(0)?, de(func, arg(1))?)),
        "manifest.format" => json!(manifest::format(&de::<Vec<MemoryHeader>>(func, arg(0))?)),
        "index.load" => wit(index::load(fs, &s(0)?)),
        "index.truncate" => json!(index::truncate(&s(0)?)),
        "paths.slug" => json!(paths::slug(&s(0)?)),
        "paths.locate" => wit(paths::memory_location(fs, &s(0)?, &env(1)?)),
        "paths.agent-dir" => wit(paths::agent_memory_dir(fs, &s(0)?, &env(1)?, &s(2)?, de(func, arg(3))?)),
        "budget.limits" => json!(LIMITS),
        "budget.session-totals" => wit(budget::totals(&s(0)?)),
        "instructions.load" | "instructions.prompt" => {
            let r: LoadRequest = de(func, arg(0))?;
            let request = Request { cwd: &r.cwd, env: &r.env, touching: &r.touching, add_dirs: &r.add_dirs };
            let loaded = instructions::load(fs, &request);
            match func {
                "instructions.load" => wit(loaded),
                _ => {
                    let options: Options = de(func, arg(1))?;
                    wit(loaded.map(|l| prompt::render(&l, options)))
                }
            }
        }
        "instructions.guidance" => json!(prompt::guidance(&s(0)?, de(func, arg(1))?)),
        "instructions.approve-external" => wit(memdir_core::approval::approve(fs, &s(0)?, &env(1)?)),
        "instructions.status" => wit(instructions::status(fs, &s(0)?, &env(1)?)
            .map(|(switches, location)| json!({"switches": switches, "location": location}))),
        "recall.start" => wit(recall::start(fs, &de(func, arg(0))?)),
        "recall.resume" => wit(recall::resume(fs, &s(0)?, de(func, arg(1))?)),
        "writer.save" => {
            let r: SaveRequest = de(func, arg(0))?;
            wit(writer::save(fs, &Save { target: &r.target, memory: r.memory() }))
        }
        "writer.forget" => wit(writer::forget(fs, &de(func, arg(0))?, &s(1)?)),
        "check.fix" => wit(memdir_core::check::fix(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "check.start" => wit(memdir_core::check::start(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "check.resume" => wit(memdir_core::check::resume(fs, &s(0)?, de(func, arg(1))?)),
        "writer.rebuild-index" => wit(writer::rebuild_index(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "writer.trash" => wit(trash::list_for(fs, &de(func, arg(0))?)),
        "writer.restore" => wit(trash::restore_for(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?)),
        "writer.pending" => wit(pending::list_for(fs, &de(func, arg(0))?)),
        "writer.accept" => {
            wit(pending::accept_for(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?, de(func, arg(3))?))
        }
        "writer.reject" => wit(pending::reject_for(fs, &de(func, arg(0))?, &s(1)?)),
        "writer.pause" => wit(pause::pause_for(fs, &de(func, arg(0))?, de(func, arg(1))?, de(func, arg(2))?)),
        "writer.resume" => wit(pause::resume_for(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "writer.paused" => wit(pause::state_for(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "extract.parse-transcript" => {
            wit(extract::parse_transcript(&s(0)?).map_err(memdir_core::Error::InvalidInput))
        }
        "extract.start" => wit(extract::start(fs, &de(func, arg(0))?)),
        "extract.resume" => wit(extract::resume(fs, &s(0)?, de(func, arg(1))?)),
        "daily-log.append" => {
            wit(dailylog::append_to(fs, &de(func, arg(0))?, &s(1)?, de(func, arg(2))?, de(func, arg(3))?))
        }
        "dream.start" => wit(dream::start(fs, &de(func, arg(0))?)),
        "dream.resume" => wit(dream::resume(fs, &s(0)?, de(func, arg(1))?)),
        "team.start" => wit(team::start(fs, de(func, arg(0))?)),
        "team.resume" => wit(team::resume(fs, &s(0)?, de(func, arg(1))?)),
        "team.auto-sync" => json!(team::AUTO_SYNC),
        "team.merge-index" => json!(index::merge(&s(0)?, &s(1)?, &s(2)?)),
        "hook.recall-context" => {
            wit(hook::recall_context(&s(0)?, &de::<Vec<Attachment>>(func, arg(1))?, cap(2)?))
        }
        "hook.fit" => json!(hook::fit(&s(0)?, cap(1)?)),
        "hook.session-name" => {
            json!(hook::session_name(&s(0)?, de::<Option<String>>(func, arg(1))?.as_deref()))
        }
        "tools.catalog" => json!(memdir_core::tools::catalog()),
        other => return Err(format!("no exported function {other:?}")),
    })
}

/// The WIT `load-request`, owned. A field it does not know is an error, so a field added to the
/// WIT but not here cannot be dropped unseen.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct LoadRequest {
    cwd: String,
    env: Vec<(String, String)>,
    touching: Vec<String>,
    add_dirs: Vec<String>,
}

/// The WIT `save-request`, owned; unknown fields are refused, as above.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct SaveRequest {
    target: Target,
    memory_type: MemoryType,
    name: String,
    description: String,
    file: Option<String>,
    replaces: Option<String>,
    body: String,
    now_ms: i64,
    utc_offset_minutes: i32,
    scope: Option<Scope>,
}

impl SaveRequest {
    fn memory(&self) -> Memory<'_> {
        Memory {
            memory_type: self.memory_type,
            name: &self.name,
            description: &self.description,
            file: self.file.as_deref(),
            replaces: self.replaces.as_deref(),
            body: &self.body,
            now_ms: self.now_ms,
            utc_offset_minutes: self.utc_offset_minutes,
            scope: self.scope,
        }
    }
}
