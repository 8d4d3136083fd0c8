//! Writer A's tool (R9.1): `save` writes a memory file and its MEMORY.md line in one step, and
//! `forget` removes both. Every write is checked first — type, name, topic, body shape (R1.3),
//! absolute dates (R1.4), secrets (R12.2), index limits (R6.4) — and the index is changed under
//! a lock, so concurrent writers never lose a line (R2.4). A failure leaves the directory as it
//! was.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, FsError, join};
use crate::context::target::Target;
use crate::format::index::{MAX_INDEX_LINE_CHARS, index_has_room, index_line, index_line_head};
use crate::format::memory_path::checked_relative_path;
use crate::format::memory_type::MemoryType;
use crate::format::scan::INDEX_FILE;
use crate::writers::journal::{self, Op};
use crate::writers::timeline::Written;
use crate::{base::dates, base::secrets, base::text, format::frontmatter, format::index, format::links};
use chrono::{DateTime, Duration};

/// Largest memory body accepted: a memory is a note, not a document.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What to save, for whom: the core locates the memory directory and decides whether team
/// memory is on.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Save<'a> {
    /// Whose memory.
    pub target: &'a Target,
    /// The memory.
    #[serde(flatten)]
    pub memory: Memory<'a>,
}

/// A memory to save, wherever it goes.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Memory<'a> {
    /// The content type.
    pub memory_type: MemoryType,
    /// The memory's name: a short kebab-case slug; other text is made one (`Release freeze`
    /// is written `release-freeze`).
    pub name: &'a str,
    /// One sentence saying when the memory is relevant.
    pub description: &'a str,
    /// The file, relative to the (team) memory directory. `None`: the memory already named
    /// `name` is updated, else `<name>.md` is created (R1.2).
    pub file: Option<&'a str>,
    /// A memory this one supersedes: it is removed in the same step, its index line becomes
    /// this memory's, and `[[links]]` to it name this one (issue 14).
    pub replaces: Option<&'a str>,
    /// The memory itself.
    pub body: &'a str,
    /// "Now", ms since the epoch: relative dates in project memories are converted against it.
    pub now_ms: i64,
    /// The user's UTC offset in minutes, so "today" is the user's today.
    pub utc_offset_minutes: i32,
    /// Private or team memory; `None` routes by type when team memory is on (R10.1).
    pub scope: Option<Scope>,
}

/// Saves a memory in `req.target`'s memory directory, with the switches in force there.
pub fn save(fs: &dyn Fs, req: &Save<'_>) -> Result<SaveReport> {
    let mut report = save_where_it_goes(fs, req)?;
    report.summary = report.describe();
    Ok(report)
}

fn save_where_it_goes(fs: &dyn Fs, req: &Save<'_>) -> Result<SaveReport> {
    let resolved = req.target.resolve(fs)?;
    // A save is the user's own act, so `review` lets it through; `off` means nothing writes.
    if let Some(why) = resolved.switches.memory_writes.refusal(req.memory.memory_type) {
        return Err(Error::InvalidInput(why));
    }
    let by = req.target.asker();
    let guard = Guard {
        policy: Some(&resolved.switches.memory_writes),
        now_ms: req.memory.now_ms,
        by: &by,
        note: None,
    };
    let Some(dir) = shared_dir(fs, &resolved, req)? else {
        return save_in(fs, &resolved.memory_dir, resolved.switches.team_memory, &req.memory, &guard);
    };
    let memory = Memory { scope: Some(Scope::Private), ..req.memory.clone() };
    let report = save_in(fs, &dir, false, &memory, &guard)?;
    let full = |rel: &str| join(&dir, rel);
    Ok(SaveReport {
        path: full(&report.path),
        links_rewritten: report.links_rewritten.iter().map(|f| full(f)).collect(),
        replaced: report.replaced.as_deref().map(full),
        ..report
    })
}

/// The shared directory a save goes to (issue 28): the one its scope names, or the user-wide
/// one for a new `user` memory with no scope when the user turned it on. `None`: the project's.
fn shared_dir(
    fs: &dyn Fs,
    resolved: &crate::context::target::Resolved,
    req: &Save<'_>,
) -> Result<Option<String>> {
    let settings = join(&resolved.location.config_dir, "settings.json");
    let location = &resolved.location;
    Ok(match req.memory.scope {
        Some(Scope::User) => Some(location.user_memory_dir.clone().ok_or_else(|| {
            invalid(format!(
                "user-wide memory is off: set \"userMemory\": true in {settings}, or save in the project"
            ))
        })?),
        Some(Scope::Group) => Some(location.group.as_ref().map(|g| g.dir.clone()).ok_or_else(|| {
            invalid(format!(
                "this project is in no memory group: list {} under a group of \"memoryGroups\" in {settings}",
                location.project_root
            ))
        })?),
        // A user memory the project already holds is updated where it is, not copied.
        None if req.memory.memory_type == MemoryType::User && req.target.memory_dir.is_none() => {
            match &location.user_memory_dir {
                Some(dir) if !held_by(fs, &resolved.memory_dir, &req.memory)? => Some(dir.clone()),
                _ => None,
            }
        }
        _ => None,
    })
}

/// Whether `dir` already holds the memory a save names: its file, or a memory of its name.
fn held_by(fs: &dyn Fs, dir: &str, memory: &Memory<'_>) -> Result<bool> {
    if memory.file.is_some_and(|file| fs.stat(&join(dir, file)).is_ok()) {
        return Ok(true);
    }
    let name = memory_name(&one_line("name", memory.name)?)?;
    let headers = match crate::format::scan::scan(fs, dir, memory.now_ms) {
        Ok(report) => report.headers,
        Err(Error::Fs(FsError::NotFound(_))) => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok(headers.iter().any(|h| h.name.as_deref().map(links::slug).as_deref() == Some(name.as_str())))
}

/// Forgets a memory of `target`'s memory directory. A file whose name holds control
/// characters (which scan never reads) is forgotten by the escaped path scan printed for it.
pub fn forget(fs: &dyn Fs, target: &Target, path: &str, now_ms: i64) -> Result<ForgetReport> {
    let resolved = target.resolve(fs)?;
    // A forget is judged like a write of the memory it removes (issue 44): `off` refuses it,
    // whoever asks, and what it removes is kept in the trash.
    let by = target.asker();
    let guard = Guard { policy: Some(&resolved.switches.memory_writes), now_ms, by: &by, note: None };
    // A shared memory is forgotten by the absolute path recall and save report for it.
    let shared = crate::context::scope::shared(&resolved.location);
    if let Some(s) = crate::context::scope::shared_holding(&shared, path) {
        let rel = &path[s.dir.trim_end_matches('/').len() + 1..];
        let report = forget_in(fs, &s.dir, rel, &guard)?;
        return Ok(ForgetReport { path: join(&s.dir, &report.path), ..report });
    }
    let memory_dir = resolved.memory_dir;
    if path.contains('\\') {
        let raw = crate::base::text::unescape_controls(path)
            .ok_or_else(|| invalid(format!("{path:?} is not a memory path: a `\\` escape is malformed")))?;
        if raw.chars().any(crate::base::text::hides_in_a_name) {
            let report = forget_checked(fs, &memory_dir, checked_relative_path(&raw, true)?, &guard)?;
            return Ok(ForgetReport { path: crate::base::text::escape_controls(&report.path), ..report });
        }
    }
    forget_in(fs, &memory_dir, path, &guard)
}

pub use crate::context::scope::{Scope, TEAM_DIR};

/// What a save changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SaveReport {
    /// The file, relative to the memory directory.
    pub path: String,
    /// True when the file is new; false when an existing memory was updated.
    pub created: bool,
    /// The index line written for it.
    pub index_line: String,
    /// Relative dates converted to absolute ones.
    pub conversions: Vec<dates::Conversion>,
    /// The name the memory had when this save renamed it (R1.7).
    pub renamed_from: Option<String>,
    /// Memories whose `[[old name]]` links were rewritten to the new name, relative to the
    /// memory directory.
    pub links_rewritten: Vec<String>,
    /// The memory this one superseded and removed, relative to the memory directory.
    pub replaced: Option<String>,
    /// What the save did, in the words every host shows (the CLI, MCP's `memory_save`, the
    /// editor's tool): `saved <path>` or `updated <path>`, the MEMORY.md line, each date
    /// converted, and what a rename did.
    #[serde(default)]
    pub summary: String,
}

impl SaveReport {
    /// The [`SaveReport::summary`] of this report.
    fn describe(&self) -> String {
        let verb = if self.created { "saved" } else { "updated" };
        let mut lines = vec![format!("{verb} {}", self.path), format!("MEMORY.md: {}", self.index_line)];
        lines.extend(self.conversions.iter().map(|c| format!("date: \"{}\" written as {}", c.from, c.to)));
        if let Some(old) = &self.renamed_from {
            let files = if self.links_rewritten.is_empty() {
                "none".to_string()
            } else {
                self.links_rewritten.join(", ")
            };
            let what = match &self.replaced {
                Some(replaced) => format!("replaced {replaced} ({old}), removed"),
                None => format!("renamed from {old}"),
            };
            lines.push(format!("{what}; [[{old}]] links rewritten in: {files}"));
        }
        lines.join("\n")
    }
}

/// What a forget changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ForgetReport {
    /// The file removed, relative to the memory directory.
    pub path: String,
    /// Index lines that pointed at it and were removed.
    pub index_lines_removed: usize,
}

/// What stands between a write and the memories it overwrites or removes (issue 44). The files a
/// change touches are decided once, before anything is judged or written; then the policy is
/// judged on each of them, and each is kept in the trash first, so nothing a writer replaces
/// is lost, whoever asked for the change.
#[derive(Debug, Clone, Copy)]
pub struct Guard<'a> {
    /// The write policy: `off` for the type of any memory the change overwrites or removes
    /// refuses the change (`None`: already judged by the caller).
    pub policy: Option<&'a crate::context::policy::WritePolicy>,
    /// "Now", for the trash and the timeline.
    pub now_ms: i64,
    /// Who asked, for the timeline (issue 48).
    pub by: &'a str,
    /// What the timeline says of the change besides (a proposal accepted).
    pub note: Option<&'a str>,
}

impl Guard<'_> {
    /// Judges and keeps `changed` (existing memories of `dir` the change overwrites or removes),
    /// and returns each kept one with its trash id. Team memory is not kept: its history is the
    /// team's git log, and a trash there would sync.
    fn admit(&self, fs: &dyn Fs, dir: &str, changed: &[String], team: bool) -> Result<Vec<(String, String)>> {
        if let Some(policy) = self.policy {
            for rel in changed {
                let memory_type = type_of(fs, dir, rel);
                if policy.mode_of(memory_type) == crate::context::policy::WriteMode::Off {
                    return Err(invalid(format!("{rel}: {}", policy.refusal_of(memory_type))));
                }
            }
        }
        if team {
            return Ok(Vec::new());
        }
        // Only memories: a file in a folder or with control characters in its name is one the
        // scan never reads (it is forgotten by its escaped path), and has no place in the trash.
        let mut kept = Vec::new();
        for rel in changed
            .iter()
            .filter(|rel| !rel.contains('/') && !rel.chars().any(crate::base::text::hides_in_a_name))
        {
            let id = crate::writers::trash::keep(fs, dir, rel, self.now_ms).map_err(|e| {
                invalid(format!("{rel} could not be kept in the trash first ({e}); nothing changed"))
            })?;
            kept.push((rel.clone(), id));
        }
        Ok(kept)
    }

    /// Records a committed change in the timeline of `log_dir` (the project's memory directory
    /// for team memory, whose `.sessions/` would otherwise sync): `written` with its action and
    /// note, and every other memory of `changed`, removed or updated (a link renamed).
    fn record(
        &self,
        fs: &dyn Fs,
        log: &Log<'_>,
        written: Option<(&str, &str, Option<String>)>,
        changed: &[String],
        kept: &[(String, String)],
    ) {
        let before = |rel: &str| kept.iter().find(|(r, _)| r == rel).map(|(_, id)| id.clone());
        let note = |own: Option<String>| match (own, self.note) {
            (Some(own), Some(also)) => Some(format!("{own}; {also}")),
            (own, also) => own.or(also.map(str::to_string)),
        };
        let mut lines = Vec::new();
        if let Some((rel, action, own)) = &written {
            lines.push(Written {
                at_ms: self.now_ms,
                path: format!("{}{rel}", log.prefix),
                action: action.to_string(),
                by: self.by.to_string(),
                note: note(own.clone()),
                before: before(rel),
            });
        }
        let main = written.as_ref().map(|(rel, _, _)| *rel);
        for rel in changed.iter().filter(|rel| Some(rel.as_str()) != main) {
            let gone = fs.stat(&join(log.dir, rel)).is_err();
            let own = match (gone, main) {
                (true, Some(file)) => Some(format!("superseded by {}{file}", log.prefix)),
                (false, Some(file)) => Some(format!("a link now names {}{file}", log.prefix)),
                _ => None,
            };
            lines.push(Written {
                at_ms: self.now_ms,
                path: format!("{}{rel}", log.prefix),
                action: if gone { "removed" } else { "updated" }.into(),
                by: self.by.to_string(),
                note: note(own),
                before: before(rel),
            });
        }
        for line in &lines {
            crate::writers::timeline::record(fs, log.root, line);
        }
    }
}

/// Where a change's timeline lines go: the memory directory's own log, with the change's
/// directory (`dir`, the team folder for team memory) and the prefix its paths take there.
struct Log<'a> {
    root: &'a str,
    dir: &'a str,
    prefix: &'static str,
}

/// The type a memory file says it is; `None` when it cannot be read or does not say.
pub(crate) fn type_of(fs: &dyn Fs, dir: &str, rel: &str) -> Option<MemoryType> {
    let bytes = fs.read_file(&join(dir, rel), 64 * 1024).ok()?;
    frontmatter::parse(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"), false).memory_type
}

/// Saves a memory: validates everything, then writes the file and its index line.
/// `team_memory` says whether team memory is on (R10.1).
pub fn save_in(
    fs: &dyn Fs,
    memory_dir: &str,
    team_memory: bool,
    req: &Memory<'_>,
    guard: &Guard<'_>,
) -> Result<SaveReport> {
    let checked = checked(team_memory, req)?;
    let (file, scope) = (checked.file.as_deref(), checked.scope);
    fs.create_dir_all(memory_dir)?;
    let dir = match scope {
        // `checked` keeps shared scopes out: `save` has already chosen their directory.
        Scope::Private | Scope::User | Scope::Group => memory_dir.to_string(),
        Scope::Team => team_dir(fs, memory_dir)?,
    };
    let today = today(req.now_ms, req.utc_offset_minutes);
    let draft = checked.draft(req.memory_type);
    let ((saved, changed, kept), _) = journal::locked(fs, &dir, || {
        let (saved, writes, changed) = prepare(fs, &dir, file, &draft, today)?;
        let kept = guard.admit(fs, &dir, &changed, scope == Scope::Team)?;
        journal::commit(fs, &dir, &writes)?;
        Ok((saved, changed, kept))
    })?;
    let log = Log { root: memory_dir, dir: &dir, prefix: if scope == Scope::Team { "team/" } else { "" } };
    // A memory that replaces another also carries its old name (for the links): the timeline
    // says which it was.
    let note = match (&saved.replaced, &saved.renamed_from) {
        (Some(replaced), _) => Some(format!("supersedes {}{replaced}", log.prefix)),
        (None, Some(old)) => Some(format!("renamed from {old}")),
        (None, None) => None,
    };
    let action = if saved.created { "created" } else { "updated" };
    guard.record(fs, &log, Some((&saved.file, action, note)), &changed, &kept);
    let in_scope =
        |rel: &str| if scope == Scope::Team { format!("{TEAM_DIR}/{rel}") } else { rel.to_string() };
    Ok(SaveReport {
        path: in_scope(&saved.file),
        created: saved.created,
        index_line: saved.index_line,
        conversions: checked.conversions,
        renamed_from: saved.renamed_from,
        links_rewritten: saved.links_rewritten.iter().map(|f| in_scope(f)).collect(),
        replaced: saved.replaced.map(|f| in_scope(&f)),
        summary: String::new(),
    })
}

/// Whether [`save_in`] would take `req`, without touching the disk: every check of the memory
/// itself (name, fields, body shape and size, dates, secrets, scope). A background writer
/// counts only what passes against its cap.
pub fn check(team_memory: bool, req: &Memory<'_>) -> Result<()> {
    checked(team_memory, req).map(drop)
}

/// A memory that passed every check, in the form it is written.
struct Checked {
    name: String,
    description: String,
    file: Option<String>,
    replaces: Option<String>,
    body: String,
    conversions: Vec<dates::Conversion>,
    scope: Scope,
}

impl Checked {
    /// The memory as [`prepare`] writes it.
    fn draft(&self, memory_type: MemoryType) -> Draft<'_> {
        Draft {
            name: &self.name,
            description: &self.description,
            memory_type,
            body: &self.body,
            replaces: self.replaces.as_deref(),
        }
    }
}

fn checked(team_memory: bool, req: &Memory<'_>) -> Result<Checked> {
    let name = memory_name(&one_line("name", req.name)?)?;
    let mut description = one_line("description", req.description)?;
    let file = req.file.map(valid_file_name).transpose()?;
    let replaces = req.replaces.map(valid_file_name).transpose()?;
    if req.body.len() > MAX_BODY_BYTES {
        return Err(invalid(format!(
            "the body is {} bytes; a memory holds at most {MAX_BODY_BYTES}: keep the fact and its reason, link the rest",
            req.body.len()
        )));
    }
    let mut body = canonical_body(req.memory_type, req.body)?;
    let mut conversions = Vec::new();
    if req.memory_type == MemoryType::Project {
        let today = today(req.now_ms, req.utc_offset_minutes);
        let (converted, found) = dates::absolutize(&body, today).map_err(invalid)?;
        body = converted;
        conversions.extend(found);
        let (converted, found) = dates::absolutize(&description, today).map_err(invalid)?;
        description = converted;
        conversions.extend(found);
    }
    // Every field that reaches disk, the file name (in the index line too) included, and the
    // name as given: its slug may lowercase a key that is still a key.
    for (what, text) in [
        ("file name", file.as_deref().unwrap_or("")),
        ("name", req.name),
        ("name", name.as_str()),
        ("description", description.as_str()),
        ("body", body.as_str()),
    ] {
        if let Some(finding) = secrets::scan(text).into_iter().next() {
            return Err(invalid(format!(
                "the {what} holds a secret ({finding}); memories never store secrets: remove it and save again"
            )));
        }
    }

    let scope = match (req.scope, team_memory) {
        (Some(Scope::Team), false) => {
            return Err(invalid(
                "team memory is off: set MEMDIR_TEAM_MEMORY=1 or teamMemoryEnabled, or save privately",
            ));
        }
        (Some(Scope::User | Scope::Group), _) => {
            return Err(invalid("a memory shared beyond the project is written by `save`, which locates it"));
        }
        (Some(scope), _) => scope,
        (None, true) => Scope::default_for(req.memory_type),
        (None, false) => Scope::Private,
    };
    Ok(Checked { name, description, file, replaces, body, conversions, scope })
}

/// The team directory, created when missing, refused unless it really is `team/` inside the
/// memory directory (no symlink to elsewhere) (R10.2).
pub(crate) fn team_dir(fs: &dyn Fs, memory_dir: &str) -> Result<String> {
    let dir = join(memory_dir, TEAM_DIR);
    fs.create_dir_all(&dir)?;
    let expected = join(&fs.real_path(memory_dir)?, TEAM_DIR);
    if fs.real_path(&dir)? != expected {
        return Err(invalid(format!(
            "{dir} is not a plain folder inside the memory directory; team writes refused"
        )));
    }
    Ok(dir)
}

/// A checked memory, ready to write.
struct Draft<'a> {
    name: &'a str,
    description: &'a str,
    memory_type: MemoryType,
    body: &'a str,
    /// The file of the memory this one supersedes.
    replaces: Option<&'a str>,
}

/// What [`save_locked`] did, relative to the directory it wrote.
struct Saved {
    file: String,
    created: bool,
    index_line: String,
    renamed_from: Option<String>,
    links_rewritten: Vec<String>,
    replaced: Option<String>,
}

/// The files a save of `req` in `dir` would overwrite or remove (besides the index), writing
/// nothing: what a background writer judges before it queues or applies (issue 44).
pub(crate) fn changes(fs: &dyn Fs, dir: &str, req: &Memory<'_>) -> Result<Vec<String>> {
    let checked = checked(false, req)?;
    let today = today(req.now_ms, req.utc_offset_minutes);
    prepare(fs, dir, checked.file.as_deref(), &checked.draft(req.memory_type), today)
        .map(|(_, _, changed)| changed)
}

/// Picks the file and plans its write, its index line and any rewritten links (committed in
/// one journaled step, so on a failure every file goes back to what it held), and names the
/// existing memories those writes overwrite or remove. A `file` given with a name another
/// memory holds is refused: the caller named one memory, so no other may change under it.
fn prepare(
    fs: &dyn Fs,
    dir: &str,
    file: Option<&str>,
    draft: &Draft<'_>,
    today: chrono::NaiveDate,
) -> Result<(Saved, Vec<Op>, Vec<String>)> {
    // Every memory of this directory (a team's own; the private one without `team/`): read only
    // when a save must find a memory by name or rewrite links, not for a plain update.
    let memories = || memories_in(fs, dir);
    let file = match file {
        Some(file) => {
            let headers = memories()?;
            let holder = named(&headers, draft.name).filter(|h| *h != file && Some(*h) != draft.replaces);
            if let Some(holder) = holder {
                return Err(invalid(format!(
                    "the name {:?} belongs to another memory ({holder}): update that memory by its own file, \
                     or choose a name no memory has",
                    draft.name
                )));
            }
            file.to_string()
        }
        None => file_for(fs, dir, draft.name, &memories()?)?,
    };
    let path = join(dir, &file);
    let old_file = read_optional(fs, &path)?;
    let old_name = old_file.as_deref().and_then(|old| frontmatter::parse(old, false).name);
    // An update under the same slug keeps the name as the file wrote it (`Release freeze`);
    // another name is a rename, and the links to the old one follow it.
    let (name, mut renamed_from) = match old_name {
        Some(old) if links::slug(&old) == draft.name => (old, None),
        Some(old) if !links::slug(&old).is_empty() => (draft.name.to_string(), Some(old)),
        _ => (draft.name.to_string(), None),
    };
    // The memory this one supersedes: its name is the one links used, its line the one to take.
    let superseded = match draft.replaces {
        Some(old) if old == file => {
            return Err(invalid(format!("{old} cannot replace itself: save it again to update it")));
        }
        Some(old) => {
            let text = read_optional(fs, &join(dir, old))?
                .ok_or_else(|| invalid(format!("{old} is not a memory here: there is nothing to replace")))?;
            let old_name = frontmatter::parse(&text, false)
                .name
                .unwrap_or_else(|| old.trim_end_matches(".md").to_string());
            renamed_from = Some(old_name.clone());
            Some((old.to_string(), old_name))
        }
        None => None,
    };
    let line = index_line(&name, &file, draft.description);
    // The index line must keep its hook: a name and file that fill it are refused (R6.1).
    let head = index_line_head(&name, &file);
    if head.chars().count() + MIN_HOOK_CHARS > MAX_INDEX_LINE_CHARS {
        return Err(invalid(format!(
            "the name and file name make an index line of {} characters before its description; \
             MEMORY.md lines stay under {MAX_INDEX_LINE_CHARS}: shorten the name or the file name",
            head.chars().count()
        )));
    }
    let index_path = join(dir, INDEX_FILE);
    let old_index = read_optional(fs, &index_path)?;
    let mut index_text = old_index.clone().unwrap_or_default();
    if let Some((old, _)) = &superseded {
        // The superseded memory's line becomes this one's, where it was; a line this file
        // already had goes.
        let (old_target, new_target) = (format!("]({old})"), format!("]({file})"));
        let lines: Vec<&str> = index_text.lines().filter(|l| !l.contains(&new_target)).collect();
        index_text = lines
            .iter()
            .map(|l| if l.contains(&old_target) { format!("- []({file})\n") } else { format!("{l}\n") })
            .collect();
    }
    let new_index = with_index_line(&index_text, &file, &line)?;
    let content =
        render(old_file.as_deref(), &name, draft, today, superseded.as_ref().map(|(_, n)| n.as_str()));

    let mut writes = vec![Op::Write(file.clone(), content.into_bytes())];
    let mut links_rewritten = Vec::new();
    if let Some(old) = &renamed_from {
        let replaced = superseded.as_ref().map(|(f, _)| f.as_str());
        for h in linking_to(&memories()?, old).filter(|h| h.path != file && Some(h.path.as_str()) != replaced)
        {
            let at = join(dir, &h.path);
            let text = String::from_utf8_lossy(&fs.read_file(&at, MAX_LINKING_FILE_BYTES)?).into_owned();
            let (front, body) = match frontmatter::split(&text) {
                Some((_, body)) => text.split_at(text.len() - body.len()),
                None => ("", text.as_str()),
            };
            if let Some(body) = links::rewrite(body, old, &name) {
                links_rewritten.push(h.path.clone());
                writes.push(Op::Write(h.path.clone(), format!("{front}{body}").into_bytes()));
            }
        }
    }
    writes.push(Op::Write(INDEX_FILE.to_string(), new_index.into_bytes()));
    if let Some((old, _)) = &superseded {
        writes.push(Op::Remove(old.clone()));
    }
    let replaced = superseded.map(|(old, _)| old);
    let changed: Vec<String> = old_file
        .is_some()
        .then(|| file.clone())
        .into_iter()
        .chain(links_rewritten.iter().cloned())
        .chain(replaced.clone())
        .collect();
    let saved = Saved {
        file,
        created: old_file.is_none(),
        index_line: line,
        renamed_from,
        links_rewritten,
        replaced,
    };
    Ok((saved, writes, changed))
}

/// Every memory of `dir` itself (a team's own; the private one without `team/`).
pub(crate) fn memories_in(fs: &dyn Fs, dir: &str) -> Result<Vec<crate::format::scan::MemoryHeader>> {
    let mut headers = crate::format::scan::scan_with_limit(fs, dir, usize::MAX, 0)?.headers;
    headers.retain(|h| !h.path.starts_with(&format!("{TEAM_DIR}/")));
    Ok(headers)
}

/// The memories whose `[[links]]` name `name`: what a rename of it rewrites.
pub(crate) fn linking_to<'h>(
    headers: &'h [crate::format::scan::MemoryHeader],
    name: &str,
) -> impl Iterator<Item = &'h crate::format::scan::MemoryHeader> {
    let name = links::slug(name);
    headers.iter().filter(move |h| h.links.iter().any(|l| links::slug(&l.name) == name))
}

/// The file of the memory named `name` (a slug), when one is: `<name>.md` first.
pub(crate) fn named<'h>(headers: &'h [crate::format::scan::MemoryHeader], name: &str) -> Option<&'h str> {
    let named =
        |h: &&crate::format::scan::MemoryHeader| h.name.as_deref().map(links::slug).as_deref() == Some(name);
    let mut same: Vec<&crate::format::scan::MemoryHeader> = headers.iter().filter(named).collect();
    same.sort_by_key(|h| (h.path != format!("{name}.md"), h.path.clone()));
    same.first().map(|h| h.path.as_str())
}

/// The file for a memory saved by name: the memory already named so, else `<name>.md` (or
/// `<name>-2.md` … when a memory with another name holds that file).
pub(crate) fn file_for(
    fs: &dyn Fs,
    dir: &str,
    name: &str,
    headers: &[crate::format::scan::MemoryHeader],
) -> Result<String> {
    if let Some(file) = named(headers, name) {
        return Ok(file.to_string());
    }
    for n in 1..=MAX_SAME_STEM {
        let file = if n == 1 { format!("{name}.md") } else { format!("{name}-{n}.md") };
        match fs.stat(&join(dir, &file)) {
            Err(FsError::NotFound(_)) => return Ok(file),
            Ok(_) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(invalid(format!("{MAX_SAME_STEM} files already start with {name:?}: pass the file to update")))
}

/// Forgets a memory: removes the file and every index line that points at it.
pub fn forget_in(fs: &dyn Fs, memory_dir: &str, path: &str, guard: &Guard<'_>) -> Result<ForgetReport> {
    forget_checked(fs, memory_dir, valid_relative_path(path)?, guard)
}

fn forget_checked(fs: &dyn Fs, memory_dir: &str, full: String, guard: &Guard<'_>) -> Result<ForgetReport> {
    let root = memory_dir;
    // A team memory's line is in the team index, relative to the team folder.
    let (memory_dir, rel) = match full.strip_prefix("team/") {
        Some(inner) => (team_dir(fs, memory_dir)?, inner.to_string()),
        None => (memory_dir.to_string(), full.clone()),
    };
    let memory_dir = memory_dir.as_str();
    let (report, _) = journal::locked(fs, memory_dir, || {
        let index_path = join(memory_dir, INDEX_FILE);
        let old_index = read_optional(fs, &index_path)?.unwrap_or_default();
        let target = format!("]({rel})");
        let kept: Vec<&str> = old_index.lines().filter(|l| !l.contains(&target)).collect();
        let removed = old_index.lines().count() - kept.len();
        // The file must exist; then the index loses its line first, so no state, even after a
        // crash between the two, has a line pointing at a missing file.
        fs.stat(&join(memory_dir, &rel))?;
        let trashed = guard.admit(fs, memory_dir, std::slice::from_ref(&rel), full.starts_with("team/"))?;
        let mut ops = Vec::new();
        if removed > 0 {
            let mut new_index = kept.join("\n");
            if !new_index.is_empty() {
                new_index.push('\n');
            }
            ops.push(Op::Write(INDEX_FILE.to_string(), new_index.into_bytes()));
        }
        ops.push(Op::Remove(rel.clone()));
        journal::commit(fs, memory_dir, &ops)?;
        Ok((ForgetReport { path: full.clone(), index_lines_removed: removed }, trashed))
    })?;
    let (report, trashed) = report;
    let log = Log { root, dir: memory_dir, prefix: if full.starts_with("team/") { "team/" } else { "" } };
    guard.record(fs, &log, None, std::slice::from_ref(&rel), &trashed);
    Ok(report)
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidInput(message.into())
}

fn one_line(what: &str, value: &str) -> Result<String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(invalid(format!("the {what} is empty")));
    }
    if value.contains(['\n', '\r']) {
        return Err(invalid(format!("the {what} must be one line")));
    }
    Ok(value.to_string())
}

/// A memory's name as written: the kebab-case slug of what was given, at most
/// [`MAX_NAME_WORDS`] words and [`MAX_NAME_CHARS`] characters (R1.2).
pub(crate) fn memory_name(given: &str) -> Result<String> {
    let slug = links::slug(given);
    if slug.is_empty() {
        return Err(invalid(
            "the name has no letters or digits: give a short kebab-case name like `release-freeze`",
        ));
    }
    let mut name = String::new();
    for word in slug.split('-').take(MAX_NAME_WORDS) {
        let longer = name.chars().count() + usize::from(!name.is_empty()) + word.chars().count();
        if longer > MAX_NAME_CHARS {
            if name.is_empty() {
                name = word.chars().take(MAX_NAME_CHARS).collect();
            }
            break;
        }
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(word);
    }
    Ok(name)
}

/// A file named by a caller: a `.md` name in the memory directory itself, no folders.
fn valid_file_name(file: &str) -> Result<String> {
    let file = valid_relative_path(file)?;
    if file.contains('/') {
        return Err(invalid(format!(
            "{file:?} is not a memory file name: memories are saved at the top of their directory"
        )));
    }
    if file.chars().count() > MAX_FILE_CHARS {
        return Err(invalid(format!(
            "the file name is {} characters; keep it under {MAX_FILE_CHARS} (it goes in the index line)",
            file.chars().count()
        )));
    }
    Ok(file)
}

/// A memory path from a caller (model or user): relative, `.md`, inside the directory (R12.3).
pub fn valid_relative_path(path: &str) -> Result<String> {
    checked_relative_path(path, false)
}

/// Feedback and project bodies: the rule or fact, a `**Why:**` line, a `**How to apply:**`
/// line (R1.3). Common variants of the markers are accepted and written canonically.
fn canonical_body(memory_type: MemoryType, body: &str) -> Result<String> {
    let body = text::normalize_newlines(body.trim()).0;
    if body.is_empty() {
        return Err(invalid("the body is empty"));
    }
    if !matches!(memory_type, MemoryType::Feedback | MemoryType::Project) {
        return Ok(format!("{body}\n"));
    }
    let mut lines: Vec<String> = body.lines().map(str::to_string).collect();
    let why = find_marker(&mut lines, &["why"], "**Why:**");
    let how = find_marker(&mut lines, &["how to apply", "how to use", "how"], "**How to apply:**");
    let missing: Vec<&str> =
        [(why.is_none(), "a `**Why:**` line"), (how.is_none(), "a `**How to apply:**` line")]
            .into_iter()
            .filter_map(|(m, what)| m.then_some(what))
            .collect();
    let rule_first = why.is_some_and(|w| lines[..w].iter().any(|l| !l.trim().is_empty()));
    if !missing.is_empty() || !rule_first || why >= how {
        let what = if missing.is_empty() { "the order".to_string() } else { missing.join(" and ") };
        return Err(invalid(format!(
            "a {memory_type} memory is the rule or fact, then a `**Why:**` line, then a `**How to apply:**` \
             line; fix {what}"
        )));
    }
    Ok(format!("{}\n", lines.join("\n")))
}

/// Finds a marker line (`**Why:**`, `Why:`, `**Why**:`, any case) and rewrites it canonically.
fn find_marker(lines: &mut [String], names: &[&str], canonical: &str) -> Option<usize> {
    for (i, line) in lines.iter_mut().enumerate() {
        let trimmed = line.trim_start().trim_start_matches(['*', '_']);
        let lower = trimmed.to_ascii_lowercase();
        for name in names {
            if let Some(rest) = lower.strip_prefix(name) {
                let rest_orig = &trimmed[name.len()..];
                let after = rest.trim_start_matches(['*', '_']);
                if let Some(text) = after.strip_prefix(':') {
                    let skip = rest_orig.len() - text.len();
                    let text = rest_orig[skip..].trim_start_matches(['*', '_']).trim();
                    *line =
                        if text.is_empty() { canonical.to_string() } else { format!("{canonical} {text}") };
                    return Some(i);
                }
            }
        }
    }
    None
}

fn today(now_ms: i64, utc_offset_minutes: i32) -> chrono::NaiveDate {
    let now = DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
    (now + Duration::minutes(utc_offset_minutes.into())).date_naive()
}

fn read_optional(fs: &dyn Fs, path: &str) -> Result<Option<String>> {
    match fs.read_file(path, index::MAX_FILE_BYTES) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(FsError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Characters of description an index line keeps at least.
const MIN_HOOK_CHARS: usize = 20;
/// Longest file name a caller may give: it must stay short enough for its index line.
const MAX_FILE_CHARS: usize = 80;
/// A name keeps at most this many words…
const MAX_NAME_WORDS: usize = 6;
/// …and this many characters: it is written twice in its index line (`[name](name.md)`).
const MAX_NAME_CHARS: usize = 48;
/// Files tried for one name before giving up (`name.md`, `name-2.md`, …).
const MAX_SAME_STEM: usize = 100;
/// Largest memory whose links a rename rewrites; larger files are not memories memdir wrote.
const MAX_LINKING_FILE_BYTES: u64 = 1024 * 1024;

/// The index with `line` replacing the line that points at `file`, or appended; refused when
/// appending would pass the limits the prompt loads (R6.4).
fn with_index_line(index_text: &str, file: &str, line: &str) -> Result<String> {
    let target = format!("]({file})");
    let mut lines: Vec<&str> = index_text.lines().collect();
    match lines.iter().position(|l| l.contains(&target)) {
        Some(at) => lines[at] = line,
        None => {
            if !index_has_room(lines.len(), index::utf16_len(index_text.trim_end()), line) {
                return Err(invalid(format!(
                    "MEMORY.md is full ({} lines, {} characters; the prompt loads {} lines / {} characters): \
                     merge or forget memories before adding more",
                    lines.len(),
                    index::utf16_len(index_text),
                    index::MAX_LINES,
                    index::MAX_CHARS
                )));
            }
            lines.push(line);
        }
    }
    Ok(lines.join("\n") + "\n")
}

/// The file's text: frontmatter, then the body. A new file gets the agent's current shape
/// (`metadata:` → `type:`); an existing one keeps its shape (a top-level `type:` stays there)
/// and every other key, its `metadata.modified` set to today.
fn render(
    old: Option<&str>,
    name: &str,
    draft: &Draft<'_>,
    today: chrono::NaiveDate,
    supersedes: Option<&str>,
) -> String {
    let entries =
        old.and_then(frontmatter::split).map(|(block, _)| top_level_entries(block)).unwrap_or_default();
    let has = |key: &str| {
        entries.iter().any(|(k, lines)| {
            k == key && (key != "metadata" || lines.len() > 1 || lines[0].trim_end().ends_with(':'))
        })
    };
    // A metadata mapping written inline cannot take a nested type: such a file keeps the type
    // at the top level, where readers look first.
    let inline_metadata = entries
        .iter()
        .any(|(k, lines)| k == "metadata" && lines.len() == 1 && !lines[0].trim_end().ends_with(':'));
    let nested = !entries.iter().any(|(k, _)| k == "type") && !inline_metadata;
    let memory_type = draft.memory_type;
    let mut out =
        format!("---\nname: {}\ndescription: {}\n", yaml_value(name), yaml_value(draft.description));
    if let Some(old) = supersedes {
        out.push_str(&format!("supersedes: {}\n", yaml_value(old)));
    }
    if !nested {
        out.push_str(&format!("type: {memory_type}\n"));
    } else if !has("metadata") {
        out.push_str(&format!("metadata:\n  type: {memory_type}\n"));
    }
    for (key, lines) in &entries {
        match key.as_str() {
            "name" | "description" | "type" => {}
            "supersedes" if supersedes.is_some() => {}
            "metadata" if lines.len() > 1 || lines[0].trim_end().ends_with(':') => {
                out.push_str(&lines[0]);
                let indent: String = lines
                    .get(1)
                    .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect())
                    .unwrap_or_default();
                let indent = if indent.is_empty() { "  ".to_string() } else { indent };
                if nested {
                    out.push_str(&format!("{indent}type: {memory_type}\n"));
                }
                for line in &lines[1..] {
                    let sub = line.trim_start();
                    let direct = line.starts_with(&indent) && !line[indent.len()..].starts_with([' ', '\t']);
                    if direct && sub.starts_with("type:") {
                        continue;
                    }
                    if direct && sub.starts_with("modified:") {
                        let value = sub["modified:".len()..].trim().trim_matches(['"', '\'']);
                        let stamp = if value.contains('T') {
                            format!("{today}T00:00:00Z")
                        } else {
                            today.to_string()
                        };
                        out.push_str(&format!("{indent}modified: {stamp}\n"));
                        continue;
                    }
                    out.push_str(line);
                }
            }
            _ => lines.iter().for_each(|l| out.push_str(l)),
        }
    }
    out.push_str("---\n");
    out.push_str(draft.body);
    out
}

/// The top-level keys of a frontmatter block, each with its lines (newline-terminated): the
/// key's own line, then the indented or blank lines under it.
fn top_level_entries(block: &str) -> Vec<(String, Vec<String>)> {
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    for raw in block.split_inclusive('\n') {
        let line = if raw.ends_with('\n') { raw.to_string() } else { format!("{raw}\n") };
        let top_level = !raw.starts_with([' ', '\t']) && !raw.trim().is_empty();
        match entries.last_mut() {
            Some((_, lines)) if !top_level => lines.push(line),
            _ if !top_level => {}
            _ => entries.push((raw.split(':').next().unwrap_or("").trim().to_string(), vec![line])),
        }
    }
    entries
}

/// A YAML scalar: plain when that reads back the same, else double-quoted.
fn yaml_value(value: &str) -> String {
    let plain = !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.starts_with(['"', '\'', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', '-', '?'])
        && crate::base::yaml::parse(&format!("k: {value}"))
            .ok()
            .and_then(|v| v.get("k").and_then(|s| s.as_str().map(|s| s == value)))
            == Some(true);
    if plain {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_bodies_need_rule_why_and_how_in_that_order() {
        let ok = canonical_body(
            MemoryType::Feedback,
            "Use real DB.\nwhy: mocks lied\n**How to apply**: integration tests",
        )
        .unwrap();
        assert_eq!(ok, "Use real DB.\n**Why:** mocks lied\n**How to apply:** integration tests\n");
        assert!(
            canonical_body(MemoryType::Feedback, "Use real DB.")
                .unwrap_err()
                .to_string()
                .contains("`**Why:**` line and")
        );
        assert!(
            canonical_body(MemoryType::Project, "**Why:** x\n**How to apply:** y").is_err(),
            "no rule first"
        );
        assert!(
            canonical_body(MemoryType::Project, "Fact.\n**How to apply:** y\n**Why:** x").is_err(),
            "order"
        );
        assert_eq!(canonical_body(MemoryType::User, " Ana leads backend. ").unwrap(), "Ana leads backend.\n");
    }

    #[test]
    fn hostile_paths_are_refused() {
        for bad in [
            "../x.md",
            "/etc/x.md",
            "a/../b.md",
            "x.txt",
            "MEMORY.md",
            "team/MEMORY.md",
            "a%2fb.md",
            "a\\b.md",
            "a\0.md",
            "",
            "a//b.md",
        ] {
            assert!(valid_relative_path(bad).is_err(), "{bad:?}");
        }
        assert_eq!(valid_relative_path("team/project_x.md").unwrap(), "team/project_x.md");
    }

    /// Issue 24, defect 17: a file name that reads as MEMORY.md once whitespace, invisible
    /// characters and case are set aside is refused by the validator every writer uses, in any
    /// folder, with a message that says so; names that only resemble it are kept.
    #[test]
    fn issue_24_defect_17_names_that_read_as_the_index_are_refused() {
        for bad in [
            " MEMORY.md",
            "\u{a0}MEMORY.md",
            "\u{3000}MEMORY.md",
            "\u{200B}MEMORY.md",
            "\u{FEFF}MEMORY.md",
            "MEMORY\u{200D}.md",
            "MEMORY .md",
            "memory.md",
            "Memory.md",
            "mEmOrY.md",
            " memory.md",
            "team/ MEMORY.md",
            "team/memory.md",
        ] {
            let err = valid_relative_path(bad).unwrap_err().to_string();
            assert!(err.contains("reads as MEMORY.md"), "{bad:?}: {err}");
            assert!(valid_file_name(bad).is_err(), "{bad:?}");
        }
        for ok in ["MEMORY-notes.md", "memory-model.md", "MEMORYmd.md", "my MEMORY.md", "MEMORY.md.md"] {
            assert_eq!(valid_relative_path(ok).unwrap(), ok, "{ok:?}");
        }
        assert!(crate::format::memory_path::reads_as_index("MEMORY.md"));
        // Whitespace at either end of any part would not survive an index line's link.
        for bad in [" notes.md", "\u{3000}notes.md", "sub /notes.md", " sub/notes.md"] {
            let err = valid_relative_path(bad).unwrap_err().to_string();
            assert!(err.contains("starts or ends with a space"), "{bad:?}: {err}");
        }
    }

    /// Issue 18, item 10: a name's `[`/`]` cannot break the link, and a topic is bounded.
    #[test]
    fn index_line_titles_are_escaped_and_names_bounded() {
        assert_eq!(index_line("a] (x.md) [b", "user_a.md", "d"), "- [a\\] (x.md) \\[b](user_a.md) — d");
        assert!(
            valid_file_name(&format!("{}.md", "a".repeat(78))).unwrap_err().to_string().contains("under 80")
        );
        assert!(valid_file_name("sub/a.md").is_err());
        assert_eq!(
            memory_name("Real database in integration tests, always").unwrap(),
            "real-database-in-integration-tests-always"
        );
        assert_eq!(memory_name("one two three four five six seven").unwrap(), "one-two-three-four-five-six");
        assert_eq!(memory_name(&"x".repeat(100)).unwrap().len(), MAX_NAME_CHARS);
        assert!(memory_name("!!!").is_err());
    }

    #[test]
    fn index_lines_stay_short_and_are_replaced_in_place() {
        let line = index_line("Long", "user_long.md", &"word ".repeat(60));
        assert!(line.chars().count() <= MAX_INDEX_LINE_CHARS);
        assert!(line.ends_with('…'));
        let index = "# Mine\n- [A](a.md) — old\n- [B](b.md) — b\n";
        assert_eq!(
            with_index_line(index, "a.md", "- [A](a.md) — new").unwrap(),
            "# Mine\n- [A](a.md) — new\n- [B](b.md) — b\n"
        );
        let full: String = (0..200).map(|i| format!("- [M](m{i}.md) — x\n")).collect();
        assert!(
            with_index_line(&full, "new.md", "- [N](new.md) — n")
                .unwrap_err()
                .to_string()
                .contains("MEMORY.md is full")
        );
    }

    #[test]
    fn frontmatter_values_that_are_not_plain_yaml_are_quoted() {
        assert_eq!(yaml_value("Real DB"), "Real DB");
        assert_eq!(yaml_value("Use: staging"), "\"Use: staging\"");
        assert_eq!(yaml_value("\"Deploy\" list"), "\"\\\"Deploy\\\" list\"");
        let draft = Draft {
            name: "new",
            description: "d",
            memory_type: MemoryType::User,
            body: "b\n",
            replaces: None,
        };
        let today = chrono::NaiveDate::from_ymd_opt(2026, 3, 4).unwrap();
        // The seeds' shape stays: type at the top level, other keys kept, modified updated.
        let rendered = render(
            Some(
                "---\nname: Old\noriginSessionId: 7d\nmetadata:\n  modified: 2026-01-02\ntype: user\n---\nold\n",
            ),
            "new",
            &draft,
            today,
            None,
        );
        assert_eq!(
            rendered,
            "---\nname: new\ndescription: d\ntype: user\noriginSessionId: 7d\nmetadata:\n  modified: 2026-03-04\n---\nb\n"
        );
        // A new file gets the agent's current shape.
        assert_eq!(
            render(None, "new", &draft, today, None),
            "---\nname: new\ndescription: d\nmetadata:\n  type: user\n---\nb\n"
        );
        // The current shape stays: the type nested first, the metadata's other keys kept.
        let current = "---\nname: x\nmetadata:\n    originSessionId: 7d\n    type: project\n    modified: 2026-01-02T10:00:00Z\nextra: 1\n---\nold\n";
        assert_eq!(
            render(Some(current), "new", &draft, today, None),
            "---\nname: new\ndescription: d\nmetadata:\n    type: user\n    originSessionId: 7d\n    modified: 2026-03-04T00:00:00Z\nextra: 1\n---\nb\n"
        );
        // An inline mapping cannot take a nested type: the type goes to the top level.
        assert_eq!(
            render(Some("---\nname: x\nmetadata: {a: 1}\n---\n"), "new", &draft, today, None),
            "---\nname: new\ndescription: d\ntype: user\nmetadata: {a: 1}\n---\nb\n"
        );
    }
}

/// What [`rebuild_index`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rebuilt {
    /// The index written, absolute.
    pub path: String,
    /// Entry lines in it.
    pub entries: u32,
}

/// R6.5: when memory files exist and MEMORY.md does not, writes one — one line per file,
/// `- [<file stem>](<file>) — <description>`, in path order, each escaped and bounded as save
/// writes it and no more than the index's limits hold — under the writers' lock, atomically. An existing index, even an empty one, is never touched. Team memories keep
/// their own index and are left out.
pub fn rebuild_index(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let index_path = join(&memory_dir, INDEX_FILE);
    let missing = |fs: &dyn Fs| matches!(fs.stat(&index_path), Err(FsError::NotFound(_)));
    if !missing(fs) {
        return Ok(None);
    }
    let mut headers = match crate::format::scan::scan(fs, &memory_dir, now_ms) {
        Ok(report) => report.headers,
        Err(Error::Fs(FsError::NotFound(_))) => return Ok(None),
        Err(e) => return Err(e),
    };
    headers.retain(|h| !h.path.starts_with(&format!("{TEAM_DIR}/")));
    if headers.is_empty() {
        return Ok(None);
    }
    headers.sort_by(|a, b| a.path.cmp(&b.path));
    // Each line as save writes it (escaped, bounded), within the limits the prompt loads, and
    // only for a file a line can point at (issue 25, item 7).
    let (mut text, mut lines, mut chars) = (String::new(), 0, 0);
    for h in &headers {
        let stem = h.path.rsplit('/').next().unwrap_or(&h.path).trim_end_matches(".md");
        let description = h.description.as_deref().unwrap_or("").replace(['\n', '\r'], " ");
        let line = index_line(stem, &h.path, description.trim());
        if lines == index::MAX_LINES {
            break;
        }
        if index::unindexable(&h.path, &line).is_some() || !index_has_room(lines, chars, &line) {
            continue;
        }
        chars += usize::from(lines > 0) + index::utf16_len(&line);
        lines += 1;
        text.push_str(&line);
        text.push('\n');
    }
    if lines == 0 {
        return Ok(None);
    }
    // Another writer may have made one while this one waited for the lock.
    let (written, _) = journal::locked(fs, &memory_dir, || {
        Ok(missing(fs) && fs.write_file(&index_path, text.as_bytes()).map(|()| true)?)
    })?;
    Ok(written.then(|| Rebuilt { path: index_path, entries: u32::try_from(lines).unwrap_or(u32::MAX) }))
}
