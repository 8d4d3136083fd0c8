//! Call scripts: the core's contract exercised at the WIT boundary, the same way in every
//! language that embeds it.
//!
//! A script is a list of calls, each naming an exported function (`recall.start`), its
//! arguments and its result as JSON, and the filesystem the host granted for it. Every WIT value
//! has one JSON form: a record is an object with the WIT field names, an enum its case name, a
//! variant (and a `result`) `{"tag": case, "val": payload}` (no `val` without a payload), an
//! option `null` or the value, a tuple an array. Model replies are arguments like any other
//! (`recall.resume`'s `model-reply`), so a script replays a workflow without a model.
//!
//! The conformance runner records scripts from the CLI ([`Recording`]) and replays them here on
//! the native core ([`call_native`]) and on the component through wasmtime's dynamic API
//! ([`crate::ComponentRuntime::call_json`]); the VS Code extension and the Python host replay the
//! same files through jco and wasmtime-py.

use crate::error::{Error, Result};
use crate::{ConfinedFs, Core};
use memdir_core::budget::{LIMITS, Limits, Totals};
use memdir_core::check::CheckReport;
use memdir_core::dream::{self, DreamResult};
use memdir_core::evidence::GitFacts;
use memdir_core::extract::{self, ExtractResult};
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::model::{Reply, Step};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::pause::{self, Pause};
use memdir_core::pending::{self, Proposal};
use memdir_core::prompt::Options;
use memdir_core::recall::{self, RecallResult};
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::target::Target;
use memdir_core::team::{self, GitOutput, TeamStep};
use memdir_core::trash::{self, Trashed};
use memdir_core::writer::{ForgetReport, Memory, Rebuilt, Save, SaveReport, Scope};
use memdir_core::{MemoryType, budget, dailylog, index, instructions, manifest, paths, prompt, scan, writer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use wasmtime::component::{Type, Val};

/// The roots a host granted for a call: read-only ones and writable ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Directories readable, with everything under them.
    pub read: Vec<String>,
    /// Directories readable and writable.
    pub write: Vec<String>,
}

impl Grant {
    /// The roots of `fs`.
    pub fn of(fs: &ConfinedFs) -> Self {
        let mut grant = Grant::default();
        for (path, writable) in fs.roots() {
            let path = path.to_string_lossy().into_owned();
            if writable { grant.write.push(path) } else { grant.read.push(path) }
        }
        grant
    }

    /// A filesystem granting these roots; writable ones are created when missing, as the host
    /// that recorded them did before it called.
    pub fn open(&self) -> std::io::Result<ConfinedFs> {
        let mut fs = ConfinedFs::new();
        for dir in &self.read {
            fs = fs.grant_read(dir)?;
        }
        for dir in &self.write {
            std::fs::create_dir_all(dir)?;
            fs = fs.grant_write(dir)?;
        }
        Ok(fs)
    }
}

/// One call of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The filesystem granted.
    pub grant: Grant,
    /// `interface.function`, with WIT names: `scan.scan`, `recall.resume`, `daily-log.append`.
    #[serde(rename = "fn")]
    pub func: String,
    /// The arguments, in order.
    pub args: Vec<Value>,
    /// What the function returned.
    pub result: Value,
}

/// The calls a run made, shared by every core it created.
pub type Log = Arc<Mutex<Vec<Call>>>;

/// A [`Core`] that records every call it forwards, with its arguments and its result.
pub struct Recording<'a> {
    inner: Box<dyn Core + 'a>,
    grant: Grant,
    log: Log,
}

impl<'a> Recording<'a> {
    /// Records the calls made on `inner`, whose filesystem grants `grant`, into `log`.
    pub fn new(inner: Box<dyn Core + 'a>, grant: Grant, log: Log) -> Self {
        Recording { inner, grant, log }
    }

    fn push(&self, func: &str, args: Vec<Value>, result: Value) {
        let call = Call { grant: self.grant.clone(), func: func.to_string(), args, result };
        self.log.lock().expect("the log is never poisoned").push(call);
    }

    /// Records a function that returns a WIT `result`; a trap is not part of the contract.
    fn result<T: Serialize>(&self, func: &str, args: Vec<Value>, r: Result<T>) -> Result<T> {
        match &r {
            Ok(value) => self.push(func, args, json!({"tag": "ok", "val": value})),
            Err(Error::Core(e)) => self.push(func, args, json!({"tag": "err", "val": e})),
            Err(_) => {}
        }
        r
    }

    /// Records a function that returns a plain value.
    fn plain<T: Serialize>(&self, func: &str, args: Vec<Value>, r: Result<T>) -> Result<T> {
        if let Ok(value) = &r {
            self.push(func, args, json!(value));
        }
        r
    }
}

impl Core for Recording<'_> {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }

    fn scan(&mut self, dir: &str, now_ms: i64) -> Result<ScanReport> {
        let r = self.inner.scan(dir, now_ms);
        self.result("scan.scan", vec![json!(dir), json!(now_ms)], r)
    }

    fn manifest(&mut self, headers: &[MemoryHeader]) -> Result<String> {
        let r = self.inner.manifest(headers);
        self.plain("manifest.format", vec![json!(headers)], r)
    }

    fn load_index(&mut self, path: &str) -> Result<LoadedIndex> {
        let r = self.inner.load_index(path);
        self.result("index.load", vec![json!(path)], r)
    }

    fn truncate_index(&mut self, content: &str) -> Result<LoadedIndex> {
        let r = self.inner.truncate_index(content);
        self.plain("index.truncate", vec![json!(content)], r)
    }

    fn locate(&mut self, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation> {
        let r = self.inner.locate(cwd, env);
        self.result("paths.locate", vec![json!(cwd), json!(env)], r)
    }

    fn limits(&mut self) -> Result<Limits> {
        let r = self.inner.limits();
        self.plain("budget.limits", vec![], r)
    }

    fn session_totals(&mut self, session: &str) -> Result<Totals> {
        let r = self.inner.session_totals(session);
        self.result("budget.session-totals", vec![json!(session)], r)
    }

    fn agent_dir(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        agent: &str,
        scope: AgentScope,
    ) -> Result<String> {
        let r = self.inner.agent_dir(cwd, env, agent, scope);
        self.result("paths.agent-dir", vec![json!(cwd), json!(env), json!(agent), json!(scope)], r)
    }

    fn load_instructions(&mut self, request: &Request<'_>) -> Result<Loaded> {
        let r = self.inner.load_instructions(request);
        self.result("instructions.load", vec![json!(request)], r)
    }

    fn prompt(&mut self, request: &Request<'_>, options: Options) -> Result<String> {
        let r = self.inner.prompt(request, options);
        self.result("instructions.prompt", vec![json!(request), json!(options)], r)
    }

    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
        let r = self.inner.status(cwd, env);
        let recorded = r.as_ref().map(status_json).map_err(clone_core);
        let _ = self.result("instructions.status", vec![json!(cwd), json!(env)], recorded);
        r
    }

    fn approve_external(&mut self, cwd: &str, env: &[(String, String)]) -> Result<String> {
        let r = self.inner.approve_external(cwd, env);
        self.result("instructions.approve-external", vec![json!(cwd), json!(env)], r)
    }

    fn recall_start(&mut self, input: &recall::Input) -> Result<Step<RecallResult>> {
        let r = self.inner.recall_start(input);
        self.result("recall.start", vec![json!(input)], r)
    }

    fn recall_resume(&mut self, state: &str, reply: Reply) -> Result<Step<RecallResult>> {
        let args = vec![json!(state), json!(reply)];
        let r = self.inner.recall_resume(state, reply);
        self.result("recall.resume", args, r)
    }

    fn save(&mut self, request: &Save<'_>) -> Result<SaveReport> {
        let r = self.inner.save(request);
        self.result("writer.save", vec![json!(request)], r)
    }

    fn forget(&mut self, target: &Target, path: &str) -> Result<ForgetReport> {
        let r = self.inner.forget(target, path);
        self.result("writer.forget", vec![json!(target), json!(path)], r)
    }

    fn rebuild_index(&mut self, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
        let r = self.inner.rebuild_index(target, now_ms);
        self.result("writer.rebuild-index", vec![json!(target), json!(now_ms)], r)
    }

    fn check(&mut self, target: &Target, now_ms: i64, git: &GitFacts) -> Result<CheckReport> {
        let r = self.inner.check(target, now_ms, git);
        self.result("check.check", vec![json!(target), json!(now_ms), json!(git)], r)
    }

    fn check_fix(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>> {
        let r = self.inner.check_fix(target, now_ms);
        self.result("check.fix", vec![json!(target), json!(now_ms)], r)
    }

    fn trash(&mut self, target: &Target) -> Result<Vec<Trashed>> {
        let r = self.inner.trash(target);
        self.result("writer.trash", vec![json!(target)], r)
    }

    fn restore(&mut self, target: &Target, id: &str, now_ms: i64) -> Result<Trashed> {
        let r = self.inner.restore(target, id, now_ms);
        self.result("writer.restore", vec![json!(target), json!(id), json!(now_ms)], r)
    }

    fn pending(&mut self, target: &Target) -> Result<Vec<Proposal>> {
        let r = self.inner.pending(target);
        self.result("writer.pending", vec![json!(target)], r)
    }

    fn accept(
        &mut self,
        target: &Target,
        id: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<Vec<Proposal>> {
        let r = self.inner.accept(target, id, now_ms, utc_offset_minutes);
        self.result(
            "writer.accept",
            vec![json!(target), json!(id), json!(now_ms), json!(utc_offset_minutes)],
            r,
        )
    }

    fn reject(&mut self, target: &Target, id: &str) -> Result<Vec<Proposal>> {
        let r = self.inner.reject(target, id);
        self.result("writer.reject", vec![json!(target), json!(id)], r)
    }

    fn pause(&mut self, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause> {
        let r = self.inner.pause(target, now_ms, until_ms);
        self.result("writer.pause", vec![json!(target), json!(now_ms), json!(until_ms)], r)
    }

    fn resume(&mut self, target: &Target, now_ms: i64) -> Result<bool> {
        let r = self.inner.resume(target, now_ms);
        self.result("writer.resume", vec![json!(target), json!(now_ms)], r)
    }

    fn paused(&mut self, target: &Target, now_ms: i64) -> Result<Option<Pause>> {
        let r = self.inner.paused(target, now_ms);
        self.result("writer.paused", vec![json!(target), json!(now_ms)], r)
    }

    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        let r = self.inner.extract_parse(text);
        self.result("extract.parse-transcript", vec![json!(text)], r)
    }

    fn extract_start(&mut self, input: &extract::Input) -> Result<Step<ExtractResult>> {
        let r = self.inner.extract_start(input);
        self.result("extract.start", vec![json!(input)], r)
    }

    fn extract_resume(&mut self, state: &str, reply: Reply) -> Result<Step<ExtractResult>> {
        let args = vec![json!(state), json!(reply)];
        let r = self.inner.extract_resume(state, reply);
        self.result("extract.resume", args, r)
    }

    fn log_append(
        &mut self,
        target: &Target,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        let r = self.inner.log_append(target, text, now_ms, utc_offset_minutes);
        let args = vec![json!(target), json!(text), json!(now_ms), json!(utc_offset_minutes)];
        self.result("daily-log.append", args, r)
    }

    fn dream_start(&mut self, input: &dream::Input) -> Result<Step<DreamResult>> {
        let r = self.inner.dream_start(input);
        self.result("dream.start", vec![json!(input)], r)
    }

    fn dream_resume(&mut self, state: &str, reply: Reply) -> Result<Step<DreamResult>> {
        let args = vec![json!(state), json!(reply)];
        let r = self.inner.dream_resume(state, reply);
        self.result("dream.resume", args, r)
    }

    fn team_start(&mut self, input: &team::Input) -> Result<TeamStep> {
        let r = self.inner.team_start(input);
        self.result("team.start", vec![json!(input)], r)
    }

    fn team_resume(&mut self, state: &str, output: GitOutput) -> Result<TeamStep> {
        let args = vec![json!(state), json!(output)];
        let r = self.inner.team_resume(state, output);
        self.result("team.resume", args, r)
    }

    fn merge_index(&mut self, base: &str, ours: &str, theirs: &str) -> Result<String> {
        let r = self.inner.merge_index(base, ours, theirs);
        self.plain("team.merge-index", vec![json!(base), json!(ours), json!(theirs)], r)
    }
}

/// The WIT `memory-status` record.
fn status_json((switches, location): &(Switches, MemoryLocation)) -> Value {
    json!({"switches": switches, "location": location})
}

fn clone_core(e: &Error) -> Error {
    match e {
        Error::Core(e) => Error::Core(e.clone()),
        other => Error::Core(memdir_core::Error::Other(other.to_string())),
    }
}

/// The WIT `load-request`, owned.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct LoadRequest {
    cwd: String,
    env: Vec<(String, String)>,
    touching: Vec<String>,
    add_dirs: Vec<String>,
}

/// The WIT `save-request`, owned.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// Calls an exported function on the native core, arguments and result in the JSON form above.
/// Fails (with a message) only when the call itself is malformed: an unknown function, or
/// arguments that do not fit its parameters.
pub fn call_native(fs: &ConfinedFs, func: &str, args: &[Value]) -> std::result::Result<Value, String> {
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
        "instructions.status" => wit(instructions::status(fs, &s(0)?, &env(1)?).map(|st| status_json(&st))),
        "recall.start" => wit(recall::start(fs, &de(func, arg(0))?)),
        "recall.resume" => wit(recall::resume(fs, &s(0)?, de(func, arg(1))?)),
        "writer.save" => {
            let r: SaveRequest = de(func, arg(0))?;
            wit(writer::save(fs, &Save { target: &r.target, memory: r.memory() }))
        }
        "writer.forget" => wit(writer::forget(fs, &de(func, arg(0))?, &s(1)?)),
        "check.fix" => wit(memdir_core::check::fix(fs, &de(func, arg(0))?, de(func, arg(1))?)),
        "check.check" => {
            wit(memdir_core::check::check(fs, &de(func, arg(0))?, de(func, arg(1))?, &de(func, arg(2))?))
        }
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
        other => return Err(format!("no exported function {other:?}")),
    })
}

/// A JSON value as a WIT value of type `ty` (the form above).
pub(crate) fn to_val(ty: &Type, v: &Value) -> std::result::Result<Val, String> {
    let bad = || format!("{v} is not a {}", type_name(ty));
    let int = || v.as_i64().ok_or_else(bad);
    let uint = || v.as_u64().ok_or_else(bad);
    Ok(match ty {
        Type::Bool => Val::Bool(v.as_bool().ok_or_else(bad)?),
        Type::S8 => Val::S8(i8::try_from(int()?).map_err(|_| bad())?),
        Type::U8 => Val::U8(u8::try_from(uint()?).map_err(|_| bad())?),
        Type::S16 => Val::S16(i16::try_from(int()?).map_err(|_| bad())?),
        Type::U16 => Val::U16(u16::try_from(uint()?).map_err(|_| bad())?),
        Type::S32 => Val::S32(i32::try_from(int()?).map_err(|_| bad())?),
        Type::U32 => Val::U32(u32::try_from(uint()?).map_err(|_| bad())?),
        Type::S64 => Val::S64(int()?),
        Type::U64 => Val::U64(uint()?),
        Type::Float32 => Val::Float32(v.as_f64().ok_or_else(bad)? as f32),
        Type::String => Val::String(v.as_str().ok_or_else(bad)?.to_string()),
        Type::List(list) => {
            let items = v.as_array().ok_or_else(bad)?;
            Val::List(items.iter().map(|x| to_val(&list.ty(), x)).collect::<std::result::Result<_, _>>()?)
        }
        Type::Tuple(tuple) => {
            let items = v.as_array().filter(|a| a.len() == tuple.types().len()).ok_or_else(bad)?;
            Val::Tuple(
                tuple
                    .types()
                    .zip(items)
                    .map(|(t, x)| to_val(&t, x))
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
        Type::Record(record) => {
            let fields = v.as_object().ok_or_else(bad)?;
            let mut out = Vec::new();
            for field in record.fields() {
                let value = fields.get(field.name).unwrap_or(&Value::Null);
                out.push((
                    field.name.to_string(),
                    to_val(&field.ty, value).map_err(|e| format!("{}: {e}", field.name))?,
                ));
            }
            Val::Record(out)
        }
        Type::Enum(_) => Val::Enum(v.as_str().ok_or_else(bad)?.to_string()),
        Type::Option(option) => match v {
            Value::Null => Val::Option(None),
            v => Val::Option(Some(Box::new(to_val(&option.ty(), v)?))),
        },
        Type::Variant(variant) => {
            let tag = v["tag"].as_str().ok_or_else(bad)?;
            let case = variant.cases().find(|c| c.name == tag).ok_or_else(bad)?;
            let payload = case.ty.map(|t| to_val(&t, &v["val"]).map(Box::new)).transpose()?;
            Val::Variant(tag.to_string(), payload)
        }
        Type::Result(result) => {
            let payload = |t: Option<Type>| t.map(|t| to_val(&t, &v["val"]).map(Box::new)).transpose();
            match v["tag"].as_str() {
                Some("ok") => Val::Result(Ok(payload(result.ok())?)),
                Some("err") => Val::Result(Err(payload(result.err())?)),
                _ => return Err(bad()),
            }
        }
        other => return Err(format!("{} values are not part of memdir's contract", type_name(other))),
    })
}

/// A WIT value in the JSON form above.
pub(crate) fn from_val(v: &Val) -> Value {
    let tagged = |tag: &str, payload: &Option<Box<Val>>| match payload {
        Some(p) => json!({"tag": tag, "val": from_val(p)}),
        None => json!({"tag": tag}),
    };
    match v {
        Val::Bool(b) => json!(b),
        Val::S8(n) => json!(n),
        Val::U8(n) => json!(n),
        Val::S16(n) => json!(n),
        Val::U16(n) => json!(n),
        Val::S32(n) => json!(n),
        Val::U32(n) => json!(n),
        Val::S64(n) => json!(n),
        Val::U64(n) => json!(n),
        Val::Float32(n) => json!(n),
        Val::Float64(n) => json!(n),
        Val::Char(c) => json!(c.to_string()),
        Val::String(s) => json!(s),
        Val::List(items) | Val::Tuple(items) => Value::Array(items.iter().map(from_val).collect()),
        Val::Record(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), from_val(v))).collect()),
        Val::Enum(case) => json!(case),
        Val::Variant(tag, payload) => tagged(tag, payload),
        Val::Option(None) => Value::Null,
        Val::Option(Some(v)) => from_val(v),
        Val::Result(Ok(payload)) => tagged("ok", payload),
        Val::Result(Err(payload)) => tagged("err", payload),
        other => json!(format!("{other:?}")),
    }
}

fn type_name(ty: &Type) -> &'static str {
    match ty {
        Type::Bool => "bool",
        Type::String => "string",
        Type::List(_) => "list",
        Type::Tuple(_) => "tuple",
        Type::Record(_) => "record",
        Type::Enum(_) => "enum",
        Type::Option(_) => "option",
        Type::Variant(_) => "variant",
        Type::Result(_) => "result",
        Type::S8 | Type::S16 | Type::S32 | Type::S64 => "signed integer",
        Type::U8 | Type::U16 | Type::U32 | Type::U64 => "unsigned integer",
        Type::Float32 => "number",
        _ => "value of another kind",
    }
}
