//! Writer A's tool (R9.1): `save` writes a memory file and its MEMORY.md line in one step, and
//! `forget` removes both. Every write is checked first — type, name, topic, body shape (R1.3),
//! absolute dates (R1.4), secrets (R12.2), index limits (R6.4) — and the index is changed under
//! a lock, so concurrent writers never lose a line (R2.4). A failure leaves the directory as it
//! was.

use crate::error::{Error, Result};
use crate::fs::{Fs, FsError, join};
use crate::memory_type::MemoryType;
use crate::scan::INDEX_FILE;
use crate::target::Target;
use crate::{dates, frontmatter, index, secrets, text};
use chrono::{DateTime, Duration};

/// The lock file that serialises index changes, inside the memory directory.
pub const LOCK_FILE: &str = ".memdir.lock";
/// How long a writer waits for another to finish with the index.
pub const LOCK_TIMEOUT_MS: u32 = 10_000;
/// Largest memory body accepted: a memory is a note, not a document.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Index lines are kept under this many characters (R6.1).
pub const MAX_INDEX_LINE_CHARS: usize = 150;

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
    /// A short title.
    pub name: &'a str,
    /// One sentence saying when the memory is relevant.
    pub description: &'a str,
    /// The topic part of `{type}_{topic}.md`; derived from the name when `None`.
    pub topic: Option<&'a str>,
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
    let resolved = req.target.resolve(fs)?;
    save_in(fs, &resolved.memory_dir, resolved.switches.team_memory, &req.memory)
}

/// Forgets a memory of `target`'s memory directory. A file whose name holds control
/// characters (which scan never reads) is forgotten by the escaped path scan printed for it.
pub fn forget(fs: &dyn Fs, target: &Target, path: &str) -> Result<ForgetReport> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    if path.contains('\\') {
        let raw = crate::scan::unescape_controls(path)
            .ok_or_else(|| invalid(format!("{path:?} is not a memory path: a `\\` escape is malformed")))?;
        if raw.chars().any(char::is_control) {
            let report = forget_checked(fs, &memory_dir, checked_relative_path(&raw, true)?)?;
            return Ok(ForgetReport { path: crate::scan::escape_controls(&report.path), ..report });
        }
    }
    forget_in(fs, &memory_dir, path)
}

/// Where a memory lives when team memory is on (R10.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The user's own auto-memory directory.
    Private,
    /// `team/` inside it, shared with the team, with its own MEMORY.md.
    Team,
}

/// The team folder inside a memory directory.
pub const TEAM_DIR: &str = "team";

impl Scope {
    /// Who a type belongs to by default: user and feedback are personal, project and reference
    /// are shared.
    pub fn default_for(memory_type: MemoryType) -> Scope {
        match memory_type {
            MemoryType::User | MemoryType::Feedback => Scope::Private,
            MemoryType::Project | MemoryType::Reference => Scope::Team,
        }
    }
}

/// What a save changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
}

/// What a forget changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct ForgetReport {
    /// The file removed, relative to the memory directory.
    pub path: String,
    /// Index lines that pointed at it and were removed.
    pub index_lines_removed: usize,
}

/// Saves a memory: validates everything, then writes the file and its index line.
/// `team_memory` says whether team memory is on (R10.1).
pub fn save_in(fs: &dyn Fs, memory_dir: &str, team_memory: bool, req: &Memory<'_>) -> Result<SaveReport> {
    let name = one_line("name", req.name)?;
    let mut description = one_line("description", req.description)?;
    let topic = match req.topic {
        Some(topic) => valid_topic(topic)?,
        None => topic_from(&name)?,
    };
    let file = format!("{}_{topic}.md", req.memory_type);
    // The index line must keep its hook: a name and file that fill it are refused (R6.1).
    let head = index_line_head(&name, &file);
    if head.chars().count() + MIN_HOOK_CHARS > MAX_INDEX_LINE_CHARS {
        return Err(invalid(format!(
            "the name and file name make an index line of {} characters before its description; \
             MEMORY.md lines stay under {MAX_INDEX_LINE_CHARS}: shorten the name or the topic",
            head.chars().count()
        )));
    }
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
    // Every field that reaches disk, the topic (a file name and an index line) included.
    for (what, text) in [
        ("topic", topic.as_str()),
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
        (Some(scope), _) => scope,
        (None, true) => Scope::default_for(req.memory_type),
        (None, false) => Scope::Private,
    };
    fs.create_dir_all(memory_dir)?;
    let dir = match scope {
        Scope::Private => memory_dir.to_string(),
        Scope::Team => team_dir(fs, memory_dir)?,
    };
    let path = join(&dir, &file);
    let lock = join(&dir, LOCK_FILE);
    fs.lock(&lock, LOCK_TIMEOUT_MS)?;
    let result = save_locked(fs, &dir, &path, &file, &name, &description, req.memory_type, &body);
    let unlocked = fs.unlock(&lock);
    let (created, index_line) = result?;
    unlocked?;
    let path = if scope == Scope::Team { format!("{TEAM_DIR}/{file}") } else { file };
    Ok(SaveReport { path, created, index_line, conversions })
}

/// The team directory, created when missing, refused unless it really is `team/` inside the
/// memory directory (no symlink to elsewhere) (R10.2).
fn team_dir(fs: &dyn Fs, memory_dir: &str) -> Result<String> {
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

#[allow(clippy::too_many_arguments)]
fn save_locked(
    fs: &dyn Fs,
    memory_dir: &str,
    path: &str,
    file: &str,
    name: &str,
    description: &str,
    memory_type: MemoryType,
    body: &str,
) -> Result<(bool, String)> {
    let index_path = join(memory_dir, INDEX_FILE);
    let old_index = read_optional(fs, &index_path)?;
    let old_file = read_optional(fs, path)?;
    let line = index_line(name, file, description);
    let new_index = with_index_line(old_index.as_deref().unwrap_or(""), file, &line)?;
    let content = render(old_file.as_deref(), name, description, memory_type, body);
    fs.write_file(path, content.as_bytes())?;
    if let Err(e) = fs.write_file(&index_path, new_index.as_bytes()) {
        // Leave the directory as it was: the file goes back to what it held, or away.
        let _ = match &old_file {
            Some(old) => fs.write_file(path, old.as_bytes()),
            None => fs.remove_file(path),
        };
        return Err(e.into());
    }
    Ok((old_file.is_none(), line))
}

/// Forgets a memory: removes the file and every index line that points at it.
pub fn forget_in(fs: &dyn Fs, memory_dir: &str, path: &str) -> Result<ForgetReport> {
    forget_checked(fs, memory_dir, valid_relative_path(path)?)
}

fn forget_checked(fs: &dyn Fs, memory_dir: &str, full: String) -> Result<ForgetReport> {
    // A team memory's line is in the team index, relative to the team folder.
    let (memory_dir, rel) = match full.strip_prefix("team/") {
        Some(inner) => (team_dir(fs, memory_dir)?, inner.to_string()),
        None => (memory_dir.to_string(), full.clone()),
    };
    let memory_dir = memory_dir.as_str();
    let abs = join(memory_dir, &rel);
    let lock = join(memory_dir, LOCK_FILE);
    fs.lock(&lock, LOCK_TIMEOUT_MS)?;
    let result: Result<ForgetReport> = (|| {
        let index_path = join(memory_dir, INDEX_FILE);
        let old_index = read_optional(fs, &index_path)?.unwrap_or_default();
        let target = format!("]({rel})");
        let kept: Vec<&str> = old_index.lines().filter(|l| !l.contains(&target)).collect();
        let removed = old_index.lines().count() - kept.len();
        // The file must exist; then the index loses its line first, so a failure at either step
        // leaves no line pointing at a missing file.
        fs.stat(&abs)?;
        if removed > 0 {
            let mut new_index = kept.join("\n");
            if !new_index.is_empty() {
                new_index.push('\n');
            }
            fs.write_file(&index_path, new_index.as_bytes())?;
        }
        if let Err(e) = fs.remove_file(&abs) {
            if removed > 0 {
                let _ = fs.write_file(&index_path, old_index.as_bytes());
            }
            return Err(e.into());
        }
        Ok(ForgetReport { path: full.clone(), index_lines_removed: removed })
    })();
    let unlocked = fs.unlock(&lock);
    let report = result?;
    unlocked?;
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

/// A topic as given: lowercase words joined by `_` or `-` (R1.2).
fn valid_topic(topic: &str) -> Result<String> {
    if topic.chars().count() > MAX_TOPIC_CHARS {
        return Err(invalid(format!(
            "the topic is {} characters; keep it under {MAX_TOPIC_CHARS} (it names the file and its index line)",
            topic.chars().count()
        )));
    }
    let ok = !topic.is_empty()
        && topic
            .split(['_', '-'])
            .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
    if ok {
        Ok(topic.to_string())
    } else {
        Err(invalid(format!(
            "topic {topic:?} must be lowercase words joined by `_` or `-` (e.g. `release_freeze`)"
        )))
    }
}

/// A topic made from a name: lowercase ASCII words joined by `_`, at most six.
fn topic_from(name: &str) -> Result<String> {
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_ascii_lowercase)
        .collect();
    if words.is_empty() {
        return Err(invalid("the name has no ASCII words to make a file name from: pass a topic"));
    }
    Ok(words.join("_"))
}

/// A memory path from a caller (model or user): relative, `.md`, inside the directory (R12.3).
pub fn valid_relative_path(path: &str) -> Result<String> {
    checked_relative_path(path, false)
}

/// [`valid_relative_path`], letting control characters through when `control` (only to forget
/// a file scan refused to read).
fn checked_relative_path(path: &str, control: bool) -> Result<String> {
    let bad = |why: &str| {
        // `{:?}` writes control characters as escapes: the message stays on one line.
        Err(invalid(format!("{path:?} is not a memory path: {why}")))
    };
    if path.is_empty() || path.starts_with('/') || path.starts_with('\\') {
        return bad("it must be relative to the memory directory");
    }
    if !control && path.chars().any(char::is_control) {
        return bad("it holds control characters");
    }
    if path.contains('%') || path.contains('\\') {
        return bad("encoded or backslash separators are not allowed");
    }
    if path.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
        return bad("it may not hold empty, `.` or `..` parts");
    }
    if !path.ends_with(".md") {
        return bad("memories are `.md` files");
    }
    if path.rsplit('/').next() == Some(INDEX_FILE) {
        return bad("MEMORY.md is the index, not a memory");
    }
    Ok(path.to_string())
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
/// Longest topic: the file name must stay short enough for its index line.
const MAX_TOPIC_CHARS: usize = 80;

/// `- [Title](file.md) — `, the title's Markdown link syntax escaped so a name with `]` or `[`
/// cannot break the link.
fn index_line_head(name: &str, file: &str) -> String {
    let title = name.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]");
    format!("- [{title}]({file}) — ")
}

/// `- [Title](file.md) — hook`, kept under [`MAX_INDEX_LINE_CHARS`] characters.
fn index_line(name: &str, file: &str, description: &str) -> String {
    let head = index_line_head(name, file);
    let room = MAX_INDEX_LINE_CHARS.saturating_sub(head.chars().count());
    let hook: String = if description.chars().count() > room {
        description.chars().take(room.saturating_sub(1)).collect::<String>() + "…"
    } else {
        description.to_string()
    };
    head + &hook
}

/// The index with `line` replacing the line that points at `file`, or appended; refused when
/// appending would pass the limits the prompt loads (R6.4).
fn with_index_line(index_text: &str, file: &str, line: &str) -> Result<String> {
    let target = format!("]({file})");
    let mut lines: Vec<&str> = index_text.lines().collect();
    match lines.iter().position(|l| l.contains(&target)) {
        Some(at) => lines[at] = line,
        None => {
            let chars = index::utf16_len(index_text.trim_end()) + 1 + index::utf16_len(line);
            if lines.len() >= index::MAX_LINES || chars > index::MAX_CHARS {
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

/// The file's text: frontmatter (keeping any other keys an existing file had), then the body.
fn render(old: Option<&str>, name: &str, description: &str, memory_type: MemoryType, body: &str) -> String {
    let mut out = format!(
        "---\nname: {}\ndescription: {}\ntype: {memory_type}\n",
        yaml_value(name),
        yaml_value(description)
    );
    if let Some((block, _)) = old.and_then(frontmatter::split) {
        let mut keep = false;
        for raw in block.lines() {
            let top_level = !raw.starts_with([' ', '\t']) && !raw.trim().is_empty();
            if top_level {
                let key = raw.split(':').next().unwrap_or("").trim();
                keep = !matches!(key, "name" | "description" | "type");
            }
            if keep {
                out.push_str(raw);
                out.push('\n');
            }
        }
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

/// A YAML scalar: plain when that reads back the same, else double-quoted.
fn yaml_value(value: &str) -> String {
    let plain = !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.starts_with(['"', '\'', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', '-', '?'])
        && crate::yaml::parse(&format!("k: {value}"))
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

    /// Issue 18, item 10: a name's `[`/`]` cannot break the link, and a topic is bounded.
    #[test]
    fn index_line_titles_are_escaped_and_names_bounded() {
        assert_eq!(index_line("a] (x.md) [b", "user_a.md", "d"), "- [a\\] (x.md) \\[b](user_a.md) — d");
        assert!(valid_topic(&"a".repeat(81)).unwrap_err().to_string().contains("under 80"));
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
        let rendered = render(
            Some("---\nname: Old\noriginSessionId: 7d\nmetadata:\n  modified: x\ntype: user\n---\nold\n"),
            "New",
            "d",
            MemoryType::User,
            "b\n",
        );
        assert_eq!(
            rendered,
            "---\nname: New\ndescription: d\ntype: user\noriginSessionId: 7d\nmetadata:\n  modified: x\n---\nb\n"
        );
    }
}

/// What [`rebuild_index`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rebuilt {
    /// The index written, absolute.
    pub path: String,
    /// Entry lines in it.
    pub entries: u32,
}

/// R6.5: when memory files exist and MEMORY.md does not, writes one — one line per file,
/// `- [<file stem>](<file>) — <description>`, in path order — under the writers' lock,
/// atomically. An existing index, even an empty one, is never touched. Team memories keep
/// their own index and are left out.
pub fn rebuild_index(fs: &dyn Fs, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
    let memory_dir = target.resolve(fs)?.memory_dir;
    let index_path = join(&memory_dir, INDEX_FILE);
    let missing = |fs: &dyn Fs| matches!(fs.stat(&index_path), Err(FsError::NotFound(_)));
    if !missing(fs) {
        return Ok(None);
    }
    let mut headers = match crate::scan::scan(fs, &memory_dir, now_ms) {
        Ok(report) => report.headers,
        Err(Error::Fs(FsError::NotFound(_))) => return Ok(None),
        Err(e) => return Err(e),
    };
    headers.retain(|h| !h.path.starts_with(&format!("{TEAM_DIR}/")));
    if headers.is_empty() {
        return Ok(None);
    }
    headers.sort_by(|a, b| a.path.cmp(&b.path));
    let text: String = headers
        .iter()
        .map(|h| {
            let stem = h.path.rsplit('/').next().unwrap_or(&h.path).trim_end_matches(".md");
            match h.description.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                Some(d) => format!("- [{stem}]({}) — {}\n", h.path, d.replace('\n', " ")),
                None => format!("- [{stem}]({})\n", h.path),
            }
        })
        .collect();
    let lock = join(&memory_dir, LOCK_FILE);
    fs.lock(&lock, LOCK_TIMEOUT_MS)?;
    // Another writer may have made one while this one waited for the lock.
    let written =
        if missing(fs) { fs.write_file(&index_path, text.as_bytes()).map(|()| true) } else { Ok(false) };
    let unlocked = fs.unlock(&lock);
    let written = written?;
    unlocked?;
    Ok(written
        .then(|| Rebuilt { path: index_path, entries: u32::try_from(headers.len()).unwrap_or(u32::MAX) }))
}
