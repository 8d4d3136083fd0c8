//! `check`: what has drifted in a memory directory (issue 14, item 3; issue 18). MEMORY.md is
//! compared with the files, and each file's frontmatter is read as recall reads it:
//!
//! - an index line whose file is gone, and a second line for the same file;
//! - a memory file no index line points at, and a missing MEMORY.md;
//! - an index past what the prompt loads (R6.2);
//! - frontmatter that does not parse, lacks a field, or names an unknown type;
//! - a secret at rest (a file edited by hand);
//! - what a memory cites that is gone or changed (see [`crate::format::evidence`]);
//! - two memories that say nearly the same thing, or the opposite of each other;
//! - `[[links]]` to memories not written yet, and project memories whose dates have all passed
//!   (for information: neither is wrong).
//!
//! The private directory and `team/` are checked each against its own index. A change a killed
//! writer left half-done is finished first (see [`crate::writers::journal`]): that is not drift, it is
//! the end of a save, and the report counts it.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, FsError, join};
use crate::base::git::{GitCall, GitCommand, GitOutput};
use crate::context::target::Target;
use crate::format::evidence::{self, Citation, GitFacts, Status, Verdict};
use crate::format::scan::{self, INDEX_FILE};
use crate::writers::writer::TEAM_DIR;
use crate::{base::secrets, hygiene::similar};
use crate::{format::index, writers::journal};
use serde::{Deserialize, Serialize};

/// Largest memory read whole for the content checks.
const MAX_MEMORY_BYTES: u64 = 1024 * 1024;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// An index line points at a file that does not exist.
    DanglingIndexLine,
    /// Another index line points at a file an earlier line already points at.
    DuplicateIndexLine,
    /// A memory file no index line points at.
    NotInIndex,
    /// Memory files exist and MEMORY.md does not (the next prompt writes it, R6.5).
    MissingIndex,
    /// MEMORY.md is longer than the prompt loads.
    IndexOverLimit,
    /// A memory's frontmatter is missing, broken, incomplete or names an unknown type.
    Frontmatter,
    /// A journal that did not read back, or could not be applied, was set aside for a person to
    /// look at.
    JournalSetAside,
    /// A memory file holds a secret (written by hand: memdir's writers refuse them).
    SecretAtRest,
    /// Something the memory cites is gone.
    MissingCitation,
    /// Something the memory cites changed after the memory was saved.
    ChangedCitation,
    /// Two memories say nearly the same thing.
    NearDuplicate,
    /// Two memories about the same subject say opposite things.
    Contradiction,
    /// A `[[link]]` names a memory not written yet: something worth writing, not an error.
    LinkNotWrittenYet,
    /// A conflict copy team sync left: this machine's version of a file both sides changed.
    SyncConflict,
    /// A project memory whose dates have all passed: maybe time to retire it.
    PastDates,
    /// No agent was given the memory for [`FADING_DAYS`] days, by the receipts (issue 48):
    /// maybe time to retire it, through the review queue ([`propose_retiring`]).
    Unused,
}

/// How long a memory no agent was given stays before check suggests retiring it.
pub const FADING_DAYS: i64 = 90;

impl FindingKind {
    /// Whether the finding suggests the memory has had its day (its dates passed, or no agent
    /// was given it in 90 days): a review offers to retire it first.
    pub fn suggests_retiring(self) -> bool {
        matches!(self, FindingKind::PastDates | FindingKind::Unused)
    }

    /// How much it matters: errors and warnings make `check` fail, notes do not.
    pub fn severity(self) -> Severity {
        use FindingKind as K;
        match self {
            K::DanglingIndexLine
            | K::DuplicateIndexLine
            | K::MissingIndex
            | K::IndexOverLimit
            | K::Frontmatter
            | K::JournalSetAside
            | K::SecretAtRest => Severity::Error,
            K::NotInIndex | K::MissingCitation | K::NearDuplicate | K::Contradiction | K::SyncConflict => {
                Severity::Warning
            }
            K::ChangedCitation | K::LinkNotWrittenYet | K::PastDates | K::Unused => Severity::Note,
        }
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The directory is broken here: the prompt or a writer will trip on it.
    Error,
    /// Probably wrong: a person should look.
    Warning,
    /// Worth knowing; nothing is wrong.
    Note,
}

/// One thing `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Finding {
    /// What kind of drift.
    pub kind: FindingKind,
    /// How much it matters (from the kind).
    pub severity: Severity,
    /// The file it is about, relative to the memory directory (`team/...` for team memory).
    pub path: String,
    /// The line of that file, 1-based, when it is about one line.
    pub line: Option<u32>,
    /// What was found, in words a person can act on.
    pub message: String,
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CheckReport {
    /// The memory directory checked.
    pub memory_dir: String,
    /// Memory files read.
    pub memories: u32,
    /// Everything found, by path and line.
    pub findings: Vec<Finding>,
    /// Files rewritten to finish a change a killed writer left half-done.
    pub recovered: u32,
    /// Each memory's evidence: what it cites and what was found, for those that cite anything.
    pub evidence: Vec<MemoryEvidence>,
    /// The report as a person reads it: one line per finding, then a count (what `memdir
    /// check` prints and `memory_check` answers).
    pub text: String,
}

/// What one memory cites, and the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MemoryEvidence {
    /// The memory, relative to the memory directory.
    pub path: String,
    /// The worst of its citations.
    pub verdict: Verdict,
    /// Each claim and what was found.
    pub citations: Vec<Citation>,
}

impl CheckReport {
    /// True when an error or a warning was found (notes do not count).
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.severity != Severity::Note)
    }
}

/// One step of a check: a git command for the host to run in the project (then [`resume`]),
/// or the report.
pub type CheckStep = crate::base::git::GitStep<CheckReport>;

/// What a check carries between its steps.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct State {
    target: Target,
    now_ms: i64,
    work_tree: String,
    /// The tracked files, once read; the history is asked for next.
    ls_files: Option<String>,
}

/// Starts a check of `target`'s memory: when the project is a git work tree, asks for its
/// tracked files first (then its history); otherwise checks at once, searching the tree.
pub fn start(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<CheckStep> {
    let location = target.resolve(fs)?.location;
    if !location.from_git {
        return check(fs, target, now_ms, &GitFacts::default()).map(CheckStep::Done);
    }
    let state = State { target: target.clone(), now_ms, work_tree: location.work_tree, ls_files: None };
    ask(state, evidence::GIT_LS_FILES)
}

/// Goes on with the output of the command the last step asked for. A command that failed, or
/// that the host would not run, leaves the check to search the tree itself.
pub fn resume(fs: &dyn Fs, state: &str, output: GitOutput) -> Result<CheckStep> {
    let mut state: State = serde_json::from_str(state)
        .map_err(|e| Error::InvalidInput(format!("not a check state from this core: {e}")))?;
    let Some(ls_files) = state.ls_files.take() else {
        if !output.ok() {
            return check(fs, &state.target, state.now_ms, &GitFacts::default()).map(CheckStep::Done);
        }
        state.ls_files = Some(evidence::tracked_files(&output.stdout));
        return ask(state, evidence::GIT_LOG);
    };
    let git = GitFacts { ls_files: Some(ls_files), log: output.ok().then_some(output.stdout) };
    check(fs, &state.target, state.now_ms, &git).map(CheckStep::Done)
}

/// A step that runs `git <safe arguments> <args>` in the work tree.
fn ask(state: State, args: &[&str]) -> Result<CheckStep> {
    let command = GitCommand {
        args: evidence::GIT_SAFE_ARGS.iter().chain(args).map(|a| a.to_string()).collect(),
        cwd: state.work_tree.clone(),
        stdin: None,
        network: false,
        env: evidence::GIT_SAFE_ENV.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        timeout_ms: evidence::GIT_TIMEOUT_MS,
    };
    let state = serde_json::to_string(&state).map_err(|e| Error::Other(e.to_string()))?;
    Ok(CheckStep::Run(GitCall { command, state }))
}

/// Checks `target`'s memory directory. A directory that does not exist yet is clean. `git`
/// is what the host read from the project's git, when it is a repository.
pub fn check(fs: &dyn Fs, target: &Target, now_ms: i64, git: &GitFacts) -> Result<CheckReport> {
    let resolved = target.resolve(fs)?;
    let memory_dir = resolved.memory_dir;
    let mut report = CheckReport { memory_dir: memory_dir.clone(), ..CheckReport::default() };
    let team = join(&memory_dir, TEAM_DIR);
    let mut memories = Vec::new();
    for (dir, prefix) in [(memory_dir.as_str(), ""), (team.as_str(), "team/")] {
        match fs.stat(dir) {
            Ok(_) => memories.extend(check_dir(fs, dir, prefix, now_ms, &mut report)?),
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    check_contents(fs, &resolved.location.work_tree, git, now_ms, &memories, &mut report);
    for path in unused(fs, &memory_dir, now_ms, memories.iter().map(|m| (&m.path, m.header.mtime_ms)))? {
        report.findings.push(finding(
            FindingKind::Unused,
            &path,
            None,
            format!(
                "no agent was given it in the last {FADING_DAYS} days: `memdir check --fix` proposes retiring it, \
                 which you accept or reject in the review queue"
            ),
        ));
    }
    report.findings.sort_by(|a, b| (&a.path, a.line, a.kind as u8).cmp(&(&b.path, b.line, b.kind as u8)));
    report.text = render(&report);
    Ok(report)
}

/// `report` as text: one line per finding (`PATH[:LINE]  SEVERITY  KIND  MESSAGE`), then a
/// count.
fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    if report.recovered > 0 {
        out.push_str(&format!("finished an interrupted write ({} files)\n", report.recovered));
    }
    for f in &report.findings {
        let at = f.line.map_or(f.path.clone(), |line| format!("{}:{line}", f.path));
        out.push_str(&format!("{at}  {}  {}  {}\n", kebab(f.severity), kebab(f.kind), f.message));
    }
    let (m, f) = (report.memories as usize, report.findings.len());
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    out.push_str(&format!(
        "{m} {}, {f} {}\n",
        plural(m, "memory", "memories"),
        plural(f, "finding", "findings")
    ));
    out
}

/// The kebab-case name the contract gives a value (`missing-citation`, `warning`).
pub fn kebab(value: impl Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// A memory read whole, for the checks that need its body.
struct Read {
    path: String,
    header: scan::MemoryHeader,
    text: String,
}

fn finding(kind: FindingKind, path: &str, line: Option<usize>, message: String) -> Finding {
    Finding {
        kind,
        severity: kind.severity(),
        path: path.to_string(),
        line: line.and_then(|l| u32::try_from(l).ok()),
        message,
    }
}

/// The checks on memories' contents: secrets, evidence, links, duplicates, contradictions,
/// past dates.
fn check_contents(
    fs: &dyn Fs,
    root: &str,
    git: &GitFacts,
    now_ms: i64,
    memories: &[Read],
    report: &mut CheckReport,
) {
    let mut claims = Vec::new();
    for m in memories {
        let body = crate::format::frontmatter::split(&m.text).map_or(m.text.as_str(), |(_, body)| body);
        if let Some(secret) = secrets::scan(&m.text).into_iter().next() {
            report.findings.push(finding(
                FindingKind::SecretAtRest,
                &m.path,
                Some(secret.line),
                format!("holds a secret ({}): move it out of memory, into your secret store", secret.kind),
            ));
        }
        for link in m.header.links.iter().filter(|l| l.path.is_none()) {
            let message = format!("[[{}]] names a memory not written yet", link.name);
            report.findings.push(finding(FindingKind::LinkNotWrittenYet, &m.path, None, message));
        }
        if m.header.memory_type == Some(crate::format::memory_type::MemoryType::Project) {
            let today = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default().date_naive();
            let dates = dates_in(body);
            if let Some(last) = dates.iter().max().filter(|last| **last < today) {
                let message = format!(
                    "every date it names has passed (the last, {last}): retire it if the work is done"
                );
                report.findings.push(finding(FindingKind::PastDates, &m.path, None, message));
            }
        }
        claims.push((m.header.mtime_ms, evidence::claims(body)));
    }
    let results = evidence::check(fs, root, git, &claims);
    for (m, citations) in memories.iter().zip(results) {
        for c in &citations {
            let kind = match c.status {
                Status::Missing => FindingKind::MissingCitation,
                Status::Changed => FindingKind::ChangedCitation,
                Status::Found | Status::Unchecked => continue,
            };
            report.findings.push(finding(kind, &m.path, None, format!("cites `{}` — {}", c.text, c.detail)));
        }
        if !citations.is_empty() {
            let verdict = evidence::verdict(&citations);
            report.evidence.push(MemoryEvidence { path: m.path.clone(), verdict, citations });
        }
    }
    for (a, b, why) in similar::pairs(memories.iter().map(|m| (m.path.as_str(), &m.header, m.text.as_str())))
    {
        let (kind, message) = match why {
            similar::Pair::NearDuplicate(score) => (
                FindingKind::NearDuplicate,
                format!("says nearly the same as {b} (similarity {score:.2}): merge them"),
            ),
            similar::Pair::Contradiction => (
                FindingKind::Contradiction,
                format!("says the opposite of {b} about the same subject: keep one"),
            ),
        };
        report.findings.push(finding(kind, &a, None, message));
    }
}

/// The ISO dates (`YYYY-MM-DD`) a text names.
fn dates_in(text: &str) -> Vec<chrono::NaiveDate> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(9))
        .filter(|&i| {
            (i == 0 || !bytes[i - 1].is_ascii_digit()) && !bytes.get(i + 10).is_some_and(u8::is_ascii_digit)
        })
        .filter_map(|i| text.get(i..i + 10))
        .filter_map(|s| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
        .collect()
}

fn check_dir(
    fs: &dyn Fs,
    dir: &str,
    prefix: &str,
    now_ms: i64,
    report: &mut CheckReport,
) -> Result<Vec<Read>> {
    if fs.stat(&join(dir, journal::JOURNAL_FILE)).is_ok() {
        let ((), recovered) = journal::locked(fs, dir, || Ok(()))?;
        report.recovered += u32::try_from(recovered).unwrap_or(u32::MAX);
    }
    let set_aside = format!("{}{}", journal::JOURNAL_FILE, journal::SET_ASIDE_SUFFIX);
    if fs.stat(&join(dir, &set_aside)).is_ok() {
        let message = "an interrupted write's journal could not be finished (damaged, not memdir's, or naming \
                       a file it cannot write) and was not applied: look at it, then delete it";
        report.findings.push(finding(
            FindingKind::JournalSetAside,
            &format!("{prefix}{set_aside}"),
            None,
            message.into(),
        ));
    }
    let mut headers = scan::scan_with_limit(fs, dir, usize::MAX, now_ms)?.headers;
    // The private directory's index does not cover team memory, which has its own.
    headers.retain(|h| prefix == "team/" || !h.path.starts_with(&format!("{TEAM_DIR}/")));
    report.memories += u32::try_from(headers.len()).unwrap_or(u32::MAX);
    let reads: Vec<Read> = headers
        .iter()
        .map(|h| Read {
            path: format!("{prefix}{}", h.path),
            header: h.clone(),
            text: fs
                .read_file(&join(dir, &h.path), MAX_MEMORY_BYTES)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
        })
        .collect();
    let mut add = |kind, path: &str, line: Option<usize>, message: String| {
        report.findings.push(finding(kind, &format!("{prefix}{path}"), line, message));
    };
    for h in &headers {
        for d in &h.diagnostics {
            add(FindingKind::Frontmatter, &h.path, None, d.clone());
        }
    }

    let index_path = join(dir, INDEX_FILE);
    let text = match fs.read_file(&index_path, index::MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(FsError::NotFound(_)) => {
            if !headers.is_empty() {
                let n = headers.len();
                let memories = if n == 1 { "memory" } else { "memories" };
                let message = format!(
                    "{n} {memories} and no {INDEX_FILE}: the next prompt writes one, or run `memdir prompt`"
                );
                add(FindingKind::MissingIndex, INDEX_FILE, None, message);
            }
            return Ok(reads);
        }
        Err(e) => return Err(Error::from(e)),
    };
    let room = index::size(&text);
    let loaded = index::truncate(&text);
    if let Some(warning) = &loaded.warning {
        add(
            FindingKind::IndexOverLimit,
            INDEX_FILE,
            None,
            warning.lines().next().unwrap_or(warning).trim_start_matches("> ").to_string(),
        );
    }
    let mut pointed: Vec<(String, usize)> = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let Some(file) = index::pointer(line) else { continue };
        let number = at + 1;
        if let Some((_, first)) = pointed.iter().find(|(f, _)| *f == file) {
            add(
                FindingKind::DuplicateIndexLine,
                INDEX_FILE,
                Some(number),
                format!("{file} already has its line at line {first}: keep one"),
            );
            continue;
        }
        let problem = crate::format::memory_path::path_problem(&file, false);
        let exists = problem.is_none()
            && match fs.stat(&join(dir, &file)) {
                Ok(_) => true,
                Err(FsError::NotFound(_)) => false,
                Err(e) => return Err(e.into()),
            };
        if !exists {
            let message = match problem {
                Some(why) => format!("{file} is no memory: {why}"),
                None => format!("{file} does not exist"),
            };
            add(FindingKind::DanglingIndexLine, INDEX_FILE, Some(number), message);
        }
        pointed.push((file, number));
    }
    for h in &headers {
        if crate::base::conflict::is_conflict_copy(&h.path) {
            let original = h.path.split(".conflict-").next().unwrap_or_default();
            let message = format!(
                "sync kept this machine's version here because {original}.md changed on both sides: merge what matters into {original}.md and delete this file"
            );
            add(FindingKind::SyncConflict, &h.path, None, message);
        } else if !pointed.iter().any(|(f, _)| *f == h.path) {
            let line = fix_line(h);
            let message = match index::unindexable(&h.path, &line) {
                // Issue 24, defect 17: said once, where `check --fix` would otherwise remove and
                // add its line on every run.
                Some(why) => format!(
                    "no line in {INDEX_FILE} can point at it ({why}): rename the file, and `check --fix` adds its line"
                ),
                // Issue 24, defect 18: what `check --fix` cannot add without passing the limits.
                None if !index::index_has_room(room.0, room.1, &line) => format!(
                    "no line in {INDEX_FILE} points at it, and {INDEX_FILE} has no room for one ({} lines, {} characters: \
                     the most the prompt loads): merge or forget memories, then run `check --fix`",
                    index::MAX_LINES,
                    index::group(index::MAX_CHARS)
                ),
                None => format!("no line in {INDEX_FILE} points at it"),
            };
            add(FindingKind::NotInIndex, &h.path, None, message);
        }
    }
    Ok(reads)
}

/// The line `check --fix` adds for a memory no line points at: its name (else its file's
/// stem) and its description.
fn fix_line(h: &scan::MemoryHeader) -> String {
    let stem = h.path.rsplit('/').next().unwrap_or(&h.path).trim_end_matches(".md");
    let name = h.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or(stem);
    let description = h.description.as_deref().unwrap_or("").replace(['\n', '\r'], " ");
    index::index_line(name, &h.path, description.trim())
}

/// The memories of the project's own directory (not `team/`) that no agent was given in
/// [`FADING_DAYS`] days, by the receipts, and that are at least as old: only once memdir has
/// kept receipts that long, so a new install suggests nothing.
fn unused<'a>(
    fs: &dyn Fs,
    memory_dir: &str,
    now_ms: i64,
    memories: impl Iterator<Item = (&'a String, i64)>,
) -> Result<Vec<String>> {
    let since = now_ms - FADING_DAYS * 86_400_000;
    let receipts = crate::retrieval::receipts::list(fs, memory_dir, 0)?;
    if receipts.since_ms.is_none_or(|first| first > since) {
        return Ok(Vec::new());
    }
    let recent = |path: &str| receipts.usage.iter().any(|u| u.path == path && u.last_ms >= since);
    Ok(memories
        .filter(|(path, mtime)| !path.starts_with("team/") && *mtime < since && !recent(path))
        .map(|(path, _)| path.clone())
        .collect())
}

/// Queues a proposal to retire (delete) each memory [`unused`] finds, from `fading`, for the
/// person to accept or reject in the review queue; never deletes. A proposal already waiting or
/// rejected before is not made again. Returns each one, in words.
pub fn propose_retiring(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<Vec<String>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    if fs.stat(&memory_dir).is_err() {
        return Ok(Vec::new());
    }
    let headers = scan::scan_with_limit(fs, &memory_dir, usize::MAX, now_ms)?.headers;
    let stale = unused(fs, &memory_dir, now_ms, headers.iter().map(|h| (&h.path, h.mtime_ms)))?;
    let mut made = Vec::new();
    for path in stale {
        let memory_type = headers.iter().find(|h| h.path == path).and_then(|h| h.memory_type);
        let operation = serde_json::json!({ "op": "delete", "path": path });
        match crate::writers::pending::propose(fs, &memory_dir, "fading", &operation, memory_type, now_ms) {
            Ok(id) => made.push(format!(
                "{path}: proposed retiring it ({id}): no agent was given it in {FADING_DAYS} days"
            )),
            Err(why) => made.push(format!("{path}: not proposed: {why}")),
        }
    }
    Ok(made)
}

/// Makes the safe repairs to `target`'s index (and `team/`'s), under the writers' lock and
/// through the journal: drops lines whose file is gone, drops second lines for one file, adds a
/// line for each memory without one (from its name and description), and writes a missing
/// MEMORY.md. It never touches a memory file. Returns each change, in words.
pub fn fix(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<Vec<String>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let team = join(&memory_dir, TEAM_DIR);
    let mut changes = Vec::new();
    for (dir, prefix) in [(memory_dir.as_str(), ""), (team.as_str(), "team/")] {
        match fs.stat(dir) {
            Ok(_) => {
                let (done, _) = journal::locked(fs, dir, || fix_dir(fs, dir, prefix, now_ms))?;
                changes.extend(done);
            }
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(changes)
}

fn fix_dir(fs: &dyn Fs, dir: &str, prefix: &str, now_ms: i64) -> Result<Vec<String>> {
    let mut headers = scan::scan_with_limit(fs, dir, usize::MAX, now_ms)?.headers;
    headers.retain(|h| prefix == "team/" || !h.path.starts_with(&format!("{TEAM_DIR}/")));
    headers.sort_by(|a, b| a.path.cmp(&b.path));
    let index_path = join(dir, INDEX_FILE);
    let old = match fs.read_file(&index_path, index::MAX_FILE_BYTES) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(FsError::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let mut changes = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut pointed: Vec<String> = Vec::new();
    for (at, line) in old.as_deref().unwrap_or("").lines().enumerate() {
        let Some(file) = index::pointer(line) else {
            kept.push(line);
            continue;
        };
        if pointed.contains(&file) {
            changes.push(format!("{prefix}{INDEX_FILE}:{}: removed a second line for {file}", at + 1));
            continue;
        }
        if let Some(why) = crate::format::memory_path::path_problem(&file, false) {
            changes.push(format!(
                "{prefix}{INDEX_FILE}:{}: removed the line for {file}, which is no memory: {why}",
                at + 1
            ));
            continue;
        }
        if fs.stat(&join(dir, &file)).is_err() {
            changes.push(format!(
                "{prefix}{INDEX_FILE}:{}: removed the line for {file}, which does not exist",
                at + 1
            ));
            continue;
        }
        pointed.push(file);
        kept.push(line);
    }
    let mut text: String = kept.iter().map(|l| format!("{l}\n")).collect();
    let missing = headers
        .iter()
        .filter(|h| !pointed.contains(&h.path) && !crate::base::conflict::is_conflict_copy(&h.path));
    for path in append_lines(&mut text, missing) {
        changes.push(format!("{prefix}{INDEX_FILE}: added a line for {prefix}{path}"));
    }
    if changes.is_empty() {
        return Ok(changes);
    }
    journal::commit(fs, dir, &[journal::Op::Write(INDEX_FILE.to_string(), text.into_bytes())])?;
    Ok(changes)
}

/// Appends to `text` (an index ending in a newline, or empty) a line for each of the `missing`
/// memories that can have one and fits, in order; returns their paths. A line that would not
/// point back at its file is left out, or the next `check --fix` would remove it and add it
/// again (issue 24, defect 17); so is one past the limits save keeps, 200 lines and 25,000
/// characters (defect 18). `check` reports each memory left out, saying why.
fn append_lines<'h>(
    text: &mut String,
    missing: impl Iterator<Item = &'h scan::MemoryHeader>,
) -> Vec<&'h str> {
    let mut size = index::size(text);
    let mut added = Vec::new();
    for h in missing {
        let line = fix_line(h);
        if index::unindexable(&h.path, &line).is_some() || !index::index_has_room(size.0, size.1, &line) {
            continue;
        }
        text.push_str(&line);
        text.push('\n');
        // At most 200 lines are added, each time over at most 25,000 characters.
        size = index::size(text);
        added.push(h.path.as_str());
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(path: &str, name: &str, description: &str) -> scan::MemoryHeader {
        scan::MemoryHeader {
            path: path.into(),
            mtime_ms: 0,
            name: Some(name.into()),
            description: Some(description.into()),
            memory_type: Some(crate::format::memory_type::MemoryType::Project),
            diagnostics: Vec::new(),
            freshness: Default::default(),
            links: Vec::new(),
            backlinks: Vec::new(),
        }
    }

    /// Issue 24, defect 18: `check --fix` stops at the limits save keeps, 200 lines and 25,000
    /// characters, so what it writes loads whole; the rest is left for `check` to report.
    #[test]
    fn issue_24_defect_18_fix_adds_lines_only_while_they_fit() {
        let missing: Vec<scan::MemoryHeader> =
            (0..5).map(|i| header(&format!("m{i}.md"), &format!("m{i}"), "a fact")).collect();
        let mut text: String = (0..197).map(|i| format!("- note {i}\n")).collect();
        assert_eq!(append_lines(&mut text, missing.iter()), ["m0.md", "m1.md", "m2.md"]);
        assert_eq!(text.lines().count(), 200);
        assert_eq!(index::truncate(&text).warning, None);
        assert_eq!(append_lines(&mut text, missing[3..].iter()), Vec::<&str>::new(), "full: nothing more");

        // Characters: 24,960 of them leave room for one short line and not for a long one.
        let mut text = format!("{}\n", "x".repeat(24_960));
        let long = header("long.md", "long", &"word ".repeat(20));
        let short = header("s.md", "s", "ok");
        assert_eq!(append_lines(&mut text, [&long, &short].into_iter()), ["s.md"]);
        assert!(index::utf16_len(&text) <= index::MAX_CHARS);
        assert_eq!(index::truncate(&text).warning, None);
    }

    /// Issue 24, defect 17: a memory whose name reads as MEMORY.md (or whose link would not
    /// read back as it) gets no line, so a second `check --fix` has nothing to undo.
    #[test]
    fn issue_24_defect_17_fix_never_adds_a_line_that_would_not_point_back() {
        let missing = [
            header(" MEMORY.md", "index twin", "leading space"),
            header("memory.md", "index twin", "lower case"),
            header("\u{200B}MEMORY.md", "index twin", "zero-width space"),
            header("a)b.md", "paren", "a `)` ends the link early"),
            header("fine.md", "fine", "indexed"),
        ];
        let mut text = String::new();
        assert_eq!(append_lines(&mut text, missing.iter()), ["fine.md"]);
        assert_eq!(text, "- [fine](fine.md) — indexed\n");
        for h in &missing[..4] {
            assert!(index::unindexable(&h.path, &fix_line(h)).is_some(), "{:?}", h.path);
        }
        assert!(
            index::unindexable(&missing[0].path, &fix_line(&missing[0]))
                .unwrap()
                .contains("reads as MEMORY.md")
        );
    }

    #[test]
    fn index_lines_point_at_their_first_relative_link() {
        assert_eq!(index::pointer("- [A](a.md) — hook").as_deref(), Some("a.md"));
        assert_eq!(index::pointer("- [A](./sub/a.md) — see [b](b.md)").as_deref(), Some("sub/a.md"));
        assert_eq!(index::pointer("- [Docs](https://x.example/a.md)"), None);
        assert_eq!(index::pointer("# Heading"), None);
        assert_eq!(index::pointer("- [A\\] (x.md) \\[b](a.md) — hook").as_deref(), Some("a.md"));
        assert_eq!(index::pointer("- [a\\](b.md](c.md) — hook").as_deref(), Some("c.md"));
    }
}
