//! Applying a model's memory operations (R9.2): what extraction's round 2, the dream and an
//! accepted proposal share. Each operation's target file is decided once, before any check, and
//! every check (confinement, the write policy, the trash, the run's caps, the proposal shown)
//! looks at every file it will really change (issue 44). Split from `extract.rs` (issue 45):
//! the rounds are extraction's, the landing is everyone's.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, join};
use crate::base::text::escape_controls;
use crate::context::policy::{WriteMode, WritePolicy};
use crate::context::target::Target;
use crate::format::memory_type::MemoryType;
use crate::format::scan;
use crate::{writers::pending, writers::writer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Replies longer than this are not read; within it, each operation's body has its own limit,
/// so one oversized memory is rejected while the rest of the reply applies.
pub const MAX_REPLY_BYTES: usize = 8 * 1024 * 1024;

/// What an operation asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum Op {
    /// A new memory.
    Create,
    /// A memory rewritten.
    Update,
    /// A memory removed (to the trash).
    Delete,
    /// What the model wrote instead of an operation memdir knows (always rejected).
    Other(String),
}

impl Op {
    /// The operation an `op` field names.
    pub fn of(name: &str) -> Op {
        match name {
            "create" => Op::Create,
            "update" => Op::Update,
            "delete" => Op::Delete,
            other => Op::Other(other.to_string()),
        }
    }

    /// `create`, `update`, `delete`, or what the model wrote.
    pub fn as_str(&self) -> &str {
        match self {
            Op::Create => "create",
            Op::Update => "update",
            Op::Delete => "delete",
            Op::Other(name) => name,
        }
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One operation, as applied or rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpReport {
    /// What it asked for.
    pub op: Op,
    /// The path it named.
    pub path: String,
    /// Why it was rejected; `None` when applied or proposed.
    pub rejected: Option<String>,
    /// Under `memoryWrites: review`: the id of the proposal waiting in `.pending/` instead
    /// (issue 28); `None` when applied or rejected.
    pub proposed: Option<String>,
}

impl OpReport {
    /// The report of operation `kind` on `path`. The path is the model's own text and every
    /// answer prints it, so it is kept escaped: a newline in it cannot start a line of its own
    /// in what the agent or the terminal reads (a valid memory path has nothing to escape).
    fn of(kind: &str, path: &str, rejected: Option<String>, proposed: Option<String>) -> OpReport {
        OpReport { op: Op::of(kind), path: escape_controls(path), rejected, proposed }
    }
}

/// Where operations land, and the clock for their dates.
#[derive(Debug, Clone, Copy)]
pub struct Landing<'a> {
    /// The memory directory.
    pub memory_dir: &'a str,
    /// "Now", ms since the epoch.
    pub now_ms: i64,
    /// The user's UTC offset in minutes.
    pub utc_offset_minutes: i32,
    /// Who may write each type (issue 28): `review` queues, `off` refuses.
    pub policy: &'a WritePolicy,
    /// The writer, as proposals name it: `extraction` or `dream`.
    pub source: &'a str,
    /// Who asked, as the timeline records it (issue 48): the writer itself, or for a proposal
    /// accepted from the queue the person who accepted it.
    pub by: &'a str,
    /// What the timeline says besides: which writer proposed an accepted change.
    pub note: Option<&'a str>,
}

/// Validates and applies an `{"operations": [...]}` reply (extraction's round 2, or a dream),
/// each operation on its own. `label` names the reply in diagnostics.
pub fn apply_operations(
    fs: &dyn Fs,
    target: &Landing<'_>,
    reply: &str,
    label: &str,
    caps: &mut RunCaps,
) -> (Vec<OpReport>, Vec<String>) {
    let ops = match json_object(reply).and_then(|v| match v.get("operations") {
        Some(Value::Array(ops)) => Ok(ops.clone()),
        _ => Err("it has no `operations` list".to_string()),
    }) {
        Ok(ops) => ops,
        Err(problem) => {
            return (Vec::new(), vec![format!("{label} reply not used ({problem}); nothing changed")]);
        }
    };
    let mut diagnostics = Vec::new();
    // A model may not wipe the memory: past the run's share, nothing destructive applies. Only
    // what would otherwise apply counts (issue 28): a hostile or broken operation beside a real
    // correction must not cost the correction.
    // Under `review` or `off` an operation changes nothing here, so it costs no share.
    let mode = |op: &Value| write_mode(fs, target, op);
    let valid: Vec<String> = ops
        .iter()
        .filter_map(|op| {
            let kind = op["op"].as_str().filter(|k| matches!(*k, "delete" | "update"))?;
            let path = op["path"].as_str().unwrap_or("");
            matches!(mode(op), Some((_, WriteMode::Auto)))
                .then(|| format!("{kind} {}", escape_controls(path)))
        })
        .collect();
    let refused = (valid.len() > caps.destructive).then(|| {
        caps.destructive = 0;
        format!(
            "{label} asked to delete or overwrite {} memories; one run may change at most {} \
             (a quarter of them, at least {MIN_DESTRUCTIVE_PER_RUN}, never more than {MAX_DESTRUCTIVE_PER_RUN}), \
             so none of these was applied: {}",
            valid.len(),
            caps.destructive_limit,
            valid.join(", ")
        )
    });
    if let Some(why) = &refused {
        diagnostics.push(why.clone());
    }
    let mut reports = Vec::new();
    for op in &ops {
        let kind = op["op"].as_str().unwrap_or("").to_string();
        let path = op["path"].as_str().unwrap_or("").to_string();
        match mode(op) {
            Some((memory_type, WriteMode::Off)) => {
                let rejected = Some(target.policy.refusal_of(memory_type));
                reports.push(OpReport::of(&kind, &path, rejected, None));
                continue;
            }
            Some((memory_type, WriteMode::Review)) => {
                let queued =
                    pending::propose(fs, target.memory_dir, target.source, op, memory_type, target.now_ms);
                let (proposed, rejected) = match queued {
                    Ok(id) => (Some(id), None),
                    Err(why) => (None, Some(why)),
                };
                reports.push(OpReport::of(&kind, &path, rejected, proposed));
                continue;
            }
            _ => {}
        }
        let rejected = match (&refused, kind.as_str()) {
            (Some(why), "delete" | "update") => Some(why.clone()),
            (_, "create") if caps.created == 0 => {
                Some(format!("one run may create at most {MAX_CREATED_PER_RUN} memories"))
            }
            _ => apply_one(fs, target, op, &kind, &path).err(),
        };
        if rejected.is_none() {
            match kind.as_str() {
                "create" => caps.created -= 1,
                _ => caps.destructive = caps.destructive.saturating_sub(1),
            }
        }
        reports.push(OpReport::of(&kind, &path, rejected, None));
    }
    (reports, diagnostics)
}

/// Applies queued proposal `id` (`memoryWrites: review`), or every proposal of batch `id` in
/// order, through the background writer's own checks and journaled write, and takes each off
/// the queue. One that no longer
/// applies (the memory changed since) is `invalid-input` with the reason, naming what did
/// apply before it; it and the rest stay.
pub fn accept_for(
    fs: &dyn Fs,
    target: &Target,
    id: &str,
    now_ms: i64,
    utc_offset_minutes: i32,
) -> Result<Vec<pending::Proposal>> {
    let resolved = target.resolve(fs)?;
    let by = target.asker();
    let mut accepted: Vec<pending::Proposal> = Vec::new();
    for stored in pending::matching(fs, &resolved.memory_dir, id)? {
        let note = format!("proposed by {}, accepted in review", stored.proposal.source);
        let landing = Landing {
            memory_dir: &resolved.memory_dir,
            now_ms,
            utc_offset_minutes,
            policy: &resolved.switches.memory_writes,
            source: "review",
            by: &by,
            note: Some(&note),
        };
        // Judged again from the operation itself (what a planted file says about it is not
        // trusted), against the memory as it is now: `off` for either type refuses.
        let refused = match write_mode(fs, &landing, &stored.operation) {
            Some((memory_type, crate::context::policy::WriteMode::Off)) => {
                Some(resolved.switches.memory_writes.refusal_of(memory_type))
            }
            _ => None,
        };
        let failed = refused.or_else(|| apply_accepted(fs, &landing, &stored.operation).rejected);
        if let Some(why) = failed {
            let first: Vec<&str> = accepted.iter().map(|p| p.id.as_str()).collect();
            let before = if first.is_empty() {
                String::new()
            } else {
                format!(" ({} accepted first)", first.join(", "))
            };
            return Err(Error::InvalidInput(format!(
                "{} no longer applies: {why}; reject it{before}",
                stored.proposal.id
            )));
        }
        fs.remove_file(&pending::file_of(&resolved.memory_dir, &stored.proposal.id))?;
        accepted.push(stored.proposal);
    }
    Ok(accepted)
}

/// Applies one operation the user accepted from the review queue: every check again, against
/// the directory as it is now, and the same journaled write (and trash) as a background run;
/// no run share, since the user decided.
pub fn apply_accepted(fs: &dyn Fs, target: &Landing<'_>, op: &Value) -> OpReport {
    let kind = op["op"].as_str().unwrap_or("").to_string();
    let path = op["path"].as_str().unwrap_or("").to_string();
    let rejected = apply_one(fs, target, op, &kind, &path).err();
    OpReport::of(&kind, &path, rejected, None)
}

/// Deletions and overwrites one background run may make, at most (issue 18).
pub const MAX_DESTRUCTIVE_PER_RUN: usize = 10;
/// ... and at least, whatever the quarter: a directory of three can take an update and a
/// delete in one turn (issue 28).
pub const MIN_DESTRUCTIVE_PER_RUN: usize = 2;
/// Memories one background run may create, at most.
pub const MAX_CREATED_PER_RUN: usize = 20;

/// What one background run (an extraction, a whole dream) may still do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCaps {
    /// Deletions and overwrites left.
    pub destructive: usize,
    /// The run's share when it began: a quarter of the memories, at least 2, at most 10.
    pub destructive_limit: usize,
    /// Creations left.
    pub created: usize,
}

impl RunCaps {
    /// The caps of a run over `memory_dir` as it is now.
    pub fn for_dir(fs: &dyn Fs, memory_dir: &str, now_ms: i64) -> Self {
        let existing = scan::scan(fs, memory_dir, now_ms).map_or(0, |r| r.found);
        let limit = existing.div_ceil(4).clamp(MIN_DESTRUCTIVE_PER_RUN, MAX_DESTRUCTIVE_PER_RUN);
        RunCaps { destructive: limit, destructive_limit: limit, created: MAX_CREATED_PER_RUN }
    }
}

fn apply_one(
    fs: &dyn Fs,
    input: &Landing<'_>,
    op: &Value,
    kind: &str,
    path: &str,
) -> std::result::Result<(), String> {
    match check_one(fs, input, op, kind, path)? {
        // The writer keeps what it overwrites or removes in the trash first, and judges the
        // policy on each of those files again.
        Planned::Delete { rel } => writer::forget_in(fs, input.memory_dir, &rel, &input.guard())
            .map(|_| ())
            .map_err(|e| e.to_string()),
        planned @ Planned::Save { .. } => {
            let memory = planned.memory().expect("a save");
            writer::save_in(fs, input.memory_dir, false, &memory, &input.guard())
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

/// An operation that passed every check, ready to apply. The files it changes are decided here,
/// once, so every check (confinement, policy, trash, the cap, the proposal) sees the files the
/// write really touches (issue 44).
enum Planned<'a> {
    Delete {
        rel: String,
    },
    /// `memory`, with the file it is written to: the one the operation names, or for an
    /// update under a new name a new file that replaces it (issue 14).
    Save {
        file: String,
        replaces: Option<String>,
        /// The existing memories the write overwrites or removes: the named one, and those
        /// whose `[[links]]` a rename rewrites.
        changed: Vec<String>,
        /// The memory, without its file.
        memory: writer::Memory<'a>,
    },
}

impl Planned<'_> {
    /// The memory a save writes, in its file.
    fn memory(&self) -> Option<writer::Memory<'_>> {
        match self {
            Planned::Save { file, replaces, memory, .. } => {
                Some(writer::Memory { file: Some(file), replaces: replaces.as_deref(), ..*memory })
            }
            Planned::Delete { .. } => None,
        }
    }
}

impl Landing<'_> {
    /// The writer's guard for this run: the policy judged again on every file a write touches,
    /// and the trash.
    fn guard(&self) -> writer::Guard<'_> {
        writer::Guard { policy: Some(self.policy), now_ms: self.now_ms, by: self.by, note: self.note }
    }
}

/// How the policy treats a valid operation (`None` for one that fails a check), and the type
/// it names: the type it writes, and for a delete or an overwrite the type of the memory it
/// removes as well, whichever is stricter. A memory whose type cannot be told gets the
/// strictest rule in force, so no rule is bypassed by leaving `type:` out.
pub fn write_mode(fs: &dyn Fs, target: &Landing<'_>, op: &Value) -> Option<(Option<MemoryType>, WriteMode)> {
    let kind = op["op"].as_str().unwrap_or("");
    let path = op["path"].as_str().unwrap_or("");
    let planned = check_one(fs, target, op, kind, path).ok()?;
    let mode_of = |t: Option<MemoryType>| target.policy.mode_of(t);
    // The type written, and the type of every memory the write overwrites or removes.
    let (written, removed): (Option<MemoryType>, Vec<&str>) = match &planned {
        Planned::Save { memory, changed, .. } => {
            (Some(memory.memory_type), changed.iter().map(String::as_str).collect())
        }
        Planned::Delete { rel } => (None, vec![rel.as_str()]),
    };
    let mut modes = written.map(|t| (Some(t), mode_of(Some(t)))).into_iter().collect::<Vec<_>>();
    for rel in removed {
        let removed = writer::type_of(fs, target.memory_dir, rel);
        modes.push((removed, mode_of(removed)));
    }
    modes.into_iter().max_by_key(|(_, mode)| *mode)
}

/// Every check an operation must pass, against the directory as it is now, writing nothing.
fn check_one<'a>(
    fs: &dyn Fs,
    input: &Landing<'_>,
    op: &'a Value,
    kind: &str,
    path: &str,
) -> std::result::Result<Planned<'a>, String> {
    let rel = writer::valid_relative_path(path).map_err(|e| e.to_string())?;
    if rel.contains('/') {
        return Err("memories live at the top of the memory directory".to_string());
    }
    let exists = match fs.stat(&join(input.memory_dir, &rel)) {
        // A link that leads out of the memory directory is refused here, whatever the host
        // would let the core read there.
        Ok(_) => {
            let real = fs.real_path(&join(input.memory_dir, &rel)).map_err(|e| e.to_string())?;
            let root = fs.real_path(input.memory_dir).map_err(|e| e.to_string())?;
            if !crate::base::fs::is_within(&real, &root) {
                return Err("it points outside the memory directory".to_string());
            }
            true
        }
        Err(crate::base::fs::FsError::NotFound(_)) => false,
        Err(crate::base::fs::FsError::OutsideRoot(_)) => {
            return Err("it points outside the memory directory".to_string());
        }
        Err(e) => return Err(e.to_string()),
    };
    match kind {
        "delete" => {
            if !exists {
                return Err("there is no such memory to delete".to_string());
            }
            Ok(Planned::Delete { rel })
        }
        "create" | "update" => {
            if kind == "create" && exists {
                return Err("it already exists: use update".to_string());
            }
            if kind == "update" && !exists {
                return Err("there is no such memory to update: use create".to_string());
            }
            let text = |k: &str| op[k].as_str().ok_or_else(|| format!("`{k}` is missing"));
            let memory_type = MemoryType::parse(text("type")?)
                .ok_or_else(|| "`type` must be user, feedback, project or reference".to_string())?;
            let memory = writer::Memory {
                memory_type,
                name: text("name")?,
                description: text("description")?,
                file: None,
                replaces: None,
                body: text("body")?,
                now_ms: input.now_ms,
                utc_offset_minutes: input.utc_offset_minutes,
                scope: Some(writer::Scope::Private),
            };
            let file = file_written(fs, input.memory_dir, &rel, exists, memory.name)?;
            let replaces = (file != rel).then_some(rel);
            let in_file = writer::Memory { file: Some(&file), replaces: replaces.as_deref(), ..memory };
            let changed = writer::changes(fs, input.memory_dir, &in_file).map_err(|e| e.to_string())?;
            Ok(Planned::Save { file, replaces, changed, memory })
        }
        other => Err(format!("unknown op {other:?}: use create, update or delete")),
    }
}

/// The file a save of `name` at `rel` writes: `rel`, or for an update under a new name a new
/// file that replaces it (issue 14). A name that belongs to another memory is refused: the
/// reply named `rel`, so no other memory may change under that name (issue 44).
fn file_written(
    fs: &dyn Fs,
    memory_dir: &str,
    rel: &str,
    exists: bool,
    name: &str,
) -> std::result::Result<String, String> {
    let name = writer::memory_name(name).map_err(|e| e.to_string())?;
    let headers = writer::memories_in(fs, memory_dir).map_err(|e| e.to_string())?;
    if let Some(holder) = writer::named(&headers, &name).filter(|h| *h != rel) {
        return Err(format!(
            "the name {name:?} belongs to another memory ({holder}): update that memory by its own path, \
             or choose a name no memory has"
        ));
    }
    let renamed = exists
        && headers.iter().find(|h| h.path == rel).and_then(|h| h.name.as_deref()).is_some_and(|old| {
            let old = crate::format::links::slug(old);
            !old.is_empty() && old != name
        });
    if !renamed {
        return Ok(rel.to_string());
    }
    writer::file_for(fs, memory_dir, &name, &headers).map_err(|e| e.to_string())
}

/// The JSON object in a model's reply: the reply itself, or the outermost braces within it.
pub(crate) fn json_object(reply: &str) -> std::result::Result<Value, String> {
    if reply.len() > MAX_REPLY_BYTES {
        return Err(format!("{} bytes is more than a reply can take", reply.len()));
    }
    serde_json::from_str::<Value>(reply.trim())
        .ok()
        .or_else(|| {
            let (start, end) = (reply.find('{')?, reply.rfind('}')?);
            (start < end).then(|| serde_json::from_str(&reply[start..=end]).ok()).flatten()
        })
        .filter(Value::is_object)
        .ok_or_else(|| "it holds no JSON object".to_string())
}
