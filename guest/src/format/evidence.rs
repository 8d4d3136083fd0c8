//! Evidence (issue 14): the checkable claims a memory makes, and whether they still hold.
//!
//! A memory cites paths and file names (in backticks, or as relative links), Make targets
//! (`make db-up`), command-line flags (`--dry-run`) and symbols written as code
//! (`loadConfig`, `parse_args()`, `Config::load`). Paths are looked up under the project root
//! through `host-fs`; a Make target in the root Makefile; flags and symbols by one bounded
//! search of the project's files (the tracked ones, when the host passes `git ls-files`),
//! reading at most [`SEARCH_FILES`] files and [`SEARCH_BYTES`] bytes, skipping files over
//! [`SEARCH_FILE_BYTES`] and binary ones. When the host passes the project's `git log`, a cited
//! file that commits touched after the memory was saved is `changed`.
//!
//! Everything is computed from what the host reads; nothing here reads a clock, so the bounds
//! are work, not time, and a bound reached says so ("not searched: …") instead of guessing.

use crate::base::fs::{EntryKind, Fs, FsError, join};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Claims read from one memory, at most.
pub const MAX_CLAIMS: usize = 12;
/// Files the symbol search reads, at most.
pub const SEARCH_FILES: usize = 20_000;
/// Bytes the symbol search reads, at most.
pub const SEARCH_BYTES: u64 = 64 * 1024 * 1024;
/// Files larger than this are not searched (generated or vendored, not what a memory cites).
pub const SEARCH_FILE_BYTES: u64 = 1024 * 1024;
/// Folders the search never enters when it walks the tree itself (no `git ls-files`).
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "dist", "build", "vendor", "__pycache__"];
/// Extensions that make a backticked word a file name.
const FILE_EXTENSIONS: &[&str] = &[
    "rs", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "rb", "java", "kt", "c", "h", "cc", "cpp",
    "hpp", "cs", "swift", "sh", "sql", "md", "json", "jsonc", "toml", "yaml", "yml", "lock", "txt", "html",
    "css", "scss", "vue", "svelte", "proto", "tf", "gradle", "xml", "ini", "cfg", "env", "wit",
];
/// File names that are cited without an extension.
const FILE_NAMES: &[&str] =
    &["Makefile", "Dockerfile", "Justfile", "Rakefile", "Gemfile", "Procfile", "Jenkinsfile"];

/// What kind of thing a memory cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimKind {
    /// A path or file name, relative to the project root.
    Path,
    /// A target of the root Makefile.
    MakeTarget,
    /// A command-line flag.
    Flag,
    /// A function, type or variable name.
    Symbol,
}

/// One claim and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Citation {
    /// What kind of claim.
    pub kind: ClaimKind,
    /// The claim as the memory writes it (`make db-up`, `src/db.rs`).
    pub text: String,
    /// What was found.
    pub status: Status,
    /// The finding in words: `still there`, `not found in the Makefile`, `changed in 2 commits
    /// since the memory was saved`, `not searched: …`.
    pub detail: String,
}

/// What was found for one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// It exists as cited.
    Found,
    /// It exists, and commits changed it after the memory was saved.
    Changed,
    /// It does not exist any more.
    Missing,
    /// It could not be checked (a bound was reached, or there is nothing to look in).
    Unchecked,
}

/// A memory's verdict: the worst of its citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Everything it cites is there, unchanged.
    Verified,
    /// Everything is there; some of it changed since the memory was saved.
    Changed,
    /// Something it cites is gone.
    Missing,
    /// It cites nothing checkable, or nothing could be checked.
    Unchecked,
}

/// What the project says about its files, as git reported it (both optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct GitFacts {
    /// `git ls-files` output: the tracked files, one per line, relative to the project root.
    pub ls_files: Option<String>,
    /// `git log --format=%x00%ct --name-only` output: each commit's time (seconds), then the
    /// files it touched, one per line.
    pub log: Option<String>,
}

/// How the core asks for [`GitFacts`] (issue 24, defect 3): `git` in the project with these
/// arguments, then [`GIT_LS_FILES`] or [`GIT_LOG`], and [`GIT_SAFE_ENV`] in its environment
/// (`check::start` and `check::resume`; the host runs exactly what it is given).
///
/// The project is a repository memdir does not own, and its configuration (`.git/config`, or a
/// bare repository planted in a clone) can name programs for git to start: a signature checker
/// (`log.showSignature` with `gpg.program`), a pager, an external diff or textconv, an
/// fsmonitor, hooks, and, through a lazy fetch in a partial clone, a credential helper, an
/// askpass, an ssh command, an upload-pack or an `ext::` remote. Configuration given with `-c`
/// wins over the repository's, so each of those is switched off or emptied here (an empty
/// program name starts nothing), and what cannot be named one key at a time (`pager.<cmd>`,
/// `diff.<driver>.command` and `.textconv`, `remote.<name>.uploadpack`) is turned off by an
/// option or an environment variable instead: `--no-pager`, `--no-ext-diff`, `--no-textconv`,
/// no lazy fetch, no transport.
pub const GIT_SAFE_ARGS: &[&str] = &[
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=",
    "-c",
    "core.askPass=",
    "-c",
    "core.sshCommand=",
    "-c",
    "core.gitProxy=",
    "-c",
    "core.alternateRefsCommand=",
    "-c",
    "credential.helper=",
    "-c",
    "log.showSignature=false",
    "-c",
    "gpg.program=",
    "-c",
    "gpg.openpgp.program=",
    "-c",
    "gpg.x509.program=",
    "-c",
    "gpg.ssh.program=",
    "-c",
    "gpg.ssh.defaultKeyCommand=",
    "-c",
    "diff.external=",
    "-c",
    "submodule.recurse=false",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "protocol.fd.allow=never",
    "-c",
    "protocol.file.allow=never",
    "-c",
    "protocol.git.allow=never",
    "-c",
    "protocol.ssh.allow=never",
    "-c",
    "protocol.http.allow=never",
    "-c",
    "protocol.https.allow=never",
];

/// Added to git's environment: no optional locks (a check writes nothing), no lazy fetch of a
/// partial clone's missing objects (a check never talks to a remote), no prompt.
pub const GIT_SAFE_ENV: &[(&str, &str)] =
    &[("GIT_OPTIONAL_LOCKS", "0"), ("GIT_NO_LAZY_FETCH", "1"), ("GIT_TERMINAL_PROMPT", "0")];

/// How long each of those commands may run: a check waits on them (the VS Code extension's
/// automatic one too), and without them it still searches the tree.
pub const GIT_TIMEOUT_MS: u32 = 10_000;

/// The tracked files, NUL-separated, for [`GitFacts::ls_files`].
pub const GIT_LS_FILES: &[&str] = &["ls-files", "-z"];

/// The last 2000 commits' times and files, for [`GitFacts::log`]: enough history for "changed
/// since the memory was saved".
pub const GIT_LOG: &[&str] = &[
    "log",
    "--no-show-signature",
    "--no-ext-diff",
    "--no-textconv",
    "--format=%x00%ct",
    "--name-only",
    "--no-renames",
    "-n",
    "2000",
];

/// [`GIT_LS_FILES`] output as [`GitFacts::ls_files`]: one path per line. The output is
/// NUL-separated so no path is quoted; a path holding a newline cannot be a line, and is left
/// out.
pub fn tracked_files(output: &str) -> String {
    output.split('\0').filter(|p| !p.is_empty() && !p.contains('\n')).collect::<Vec<_>>().join("\n")
}

/// The claims of a memory body, in order, each once, at most [`MAX_CLAIMS`].
pub fn claims(body: &str) -> Vec<(ClaimKind, String)> {
    let mut found: Vec<(ClaimKind, String)> = Vec::new();
    let mut push = |claim: Option<(ClaimKind, String)>| {
        if let Some(claim) = claim
            && !found.contains(&claim)
            && found.len() < MAX_CLAIMS
        {
            found.push(claim);
        }
    };
    let mut fenced = false;
    for line in body.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('`') else { break };
            push(classify(&after[..close]));
            rest = &after[close + 1..];
        }
        // Relative links to project files: `[the runner](scripts/run.sh)`.
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].trim();
            if target.contains('/') && !target.contains("://") && !target.starts_with('#') {
                push(path_claim(target));
            }
            rest = &after[end..];
        }
    }
    found
}

/// What a code span cites, if anything checkable.
fn classify(code: &str) -> Option<(ClaimKind, String)> {
    let code = code.trim();
    if code.is_empty() || code.len() > 200 {
        return None;
    }
    if let Some(target) = code.strip_prefix("make ") {
        let target = target.split_whitespace().next()?;
        return is_word(target, "-_./").then(|| (ClaimKind::MakeTarget, target.to_string()));
    }
    if code.contains(char::is_whitespace) {
        return None;
    }
    if let Some(flag) = code.strip_prefix("--") {
        let flag = flag.split('=').next()?;
        return (flag.len() > 1 && is_word(flag, "-_")).then(|| (ClaimKind::Flag, format!("--{flag}")));
    }
    if code.contains('/') || looks_like_file(code) {
        return path_claim(code);
    }
    symbol(code)
}

fn path_claim(text: &str) -> Option<(ClaimKind, String)> {
    // A line number (`src/db.rs:42`) is not part of the path.
    let text = text.split(':').next()?.trim_start_matches("./");
    let hostile = text.starts_with(['/', '~', '$', '<'])
        || text.contains(['*', '?', '{', '<', '>', '|', '"', '\'', '\\'])
        || text.contains("://")
        || text.split('/').any(|part| part == "..");
    (!text.is_empty() && !hostile).then(|| (ClaimKind::Path, text.to_string()))
}

fn looks_like_file(word: &str) -> bool {
    FILE_NAMES.contains(&word)
        || word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && FILE_EXTENSIONS.contains(&ext) && is_word(stem, "-_.")
        })
}

/// `loadConfig`, `parse_args()`, `Config::load`, `db.connect()`: the last name, when it reads
/// as code rather than a word (camelCase, snake_case, a call, or a qualified name).
fn symbol(code: &str) -> Option<(ClaimKind, String)> {
    let called = code.ends_with("()");
    let code = code.trim_end_matches("()");
    let qualified = code.contains("::") || code.contains('.');
    let name = code.rsplit([':', '.']).next()?;
    let identifier =
        name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && is_word(name, "_");
    let camel =
        name.chars().skip(1).any(|c| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_ascii_lowercase());
    let snake = name.trim_matches('_').contains('_');
    (identifier && name.len() >= 3 && (called || qualified || camel || snake))
        .then(|| (ClaimKind::Symbol, name.to_string()))
}

fn is_word(text: &str, extra: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

/// Checks the claims of several memories against the project at `root`, with one search for
/// all their flags and symbols. `memories` are `(saved at ms, claims)`; the result is in the
/// same order.
pub fn check(
    fs: &dyn Fs,
    root: &str,
    git: &GitFacts,
    memories: &[(i64, Vec<(ClaimKind, String)>)],
) -> Vec<Vec<Citation>> {
    let commits = git.log.as_deref().map(commit_times).unwrap_or_default();
    let needles: BTreeSet<&str> = memories
        .iter()
        .flat_map(|(_, claims)| claims)
        .filter(|(kind, _)| matches!(kind, ClaimKind::Flag | ClaimKind::Symbol))
        .map(|(_, text)| text.as_str())
        .collect();
    let search = if needles.is_empty() { Search::default() } else { search(fs, root, git, &needles) };
    let makefile = if memories.iter().any(|(_, c)| c.iter().any(|(k, _)| *k == ClaimKind::MakeTarget)) {
        read_makefile(fs, root)
    } else {
        None
    };
    let tracked: Option<Vec<&str>> = git.ls_files.as_deref().map(|l| l.lines().collect());
    memories
        .iter()
        .map(|(saved_ms, claims)| {
            claims
                .iter()
                .map(|(kind, text)| {
                    let (status, detail) = match kind {
                        ClaimKind::Path => {
                            path_status(fs, root, text, *saved_ms, &commits, tracked.as_deref())
                        }
                        ClaimKind::MakeTarget => match &makefile {
                            None => (Status::Missing, "there is no Makefile at the project root".to_string()),
                            Some(targets) if targets.contains(text.as_str()) => {
                                (Status::Found, "still in the Makefile".to_string())
                            }
                            Some(_) => (Status::Missing, "not found in the Makefile".to_string()),
                        },
                        ClaimKind::Flag | ClaimKind::Symbol => search.status(text),
                    };
                    Citation { kind: *kind, text: shown(*kind, text), status, detail }
                })
                .collect()
        })
        .collect()
}

/// The worst status of a memory's citations.
pub fn verdict(citations: &[Citation]) -> Verdict {
    let has = |s: Status| citations.iter().any(|c| c.status == s);
    if has(Status::Missing) {
        Verdict::Missing
    } else if has(Status::Changed) {
        Verdict::Changed
    } else if has(Status::Found) {
        Verdict::Verified
    } else {
        Verdict::Unchecked
    }
}

/// One line for a recall attachment: what was checked and found (issue 14, 2a).
pub fn line(citations: &[Citation]) -> Option<String> {
    if citations.is_empty() {
        return None;
    }
    let parts: Vec<String> = citations.iter().map(|c| format!("`{}` — {}", c.text, c.detail)).collect();
    Some(format!("Checked now: {}.", parts.join("; ")))
}

fn shown(kind: ClaimKind, text: &str) -> String {
    match kind {
        ClaimKind::MakeTarget => format!("make {text}"),
        _ => text.to_string(),
    }
}

fn path_status(
    fs: &dyn Fs,
    root: &str,
    path: &str,
    saved_ms: i64,
    commits: &BTreeMap<String, Vec<i64>>,
    tracked: Option<&[&str]>,
) -> (Status, String) {
    let trimmed = path.trim_end_matches('/');
    let exists = match fs.stat(&join(root, trimmed)) {
        Ok(_) => Some(trimmed.to_string()),
        Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => None,
        Err(e) => return (Status::Unchecked, format!("could not be checked ({e})")),
    };
    // A bare file name (`config.toml`) may live anywhere in the project.
    let exists = exists.or_else(|| {
        (!trimmed.contains('/')).then_some(())?;
        tracked?.iter().find(|t| t.rsplit('/').next() == Some(trimmed)).map(|t| t.to_string())
    });
    let Some(at) = exists else {
        return (Status::Missing, "not found".to_string());
    };
    let prefix = format!("{at}/");
    let touched = commits
        .iter()
        .filter(|(file, _)| **file == at || file.starts_with(&prefix))
        .flat_map(|(_, times)| times)
        .filter(|&&t| t > saved_ms)
        .count();
    match touched {
        0 => (Status::Found, "still there".to_string()),
        1 => (Status::Changed, "changed in 1 commit since the memory was saved".to_string()),
        n => (Status::Changed, format!("changed in {n} commits since the memory was saved")),
    }
}

/// Each file's commit times in ms, from `git log --format=%x00%ct --name-only`.
fn commit_times(log: &str) -> BTreeMap<String, Vec<i64>> {
    let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut current: Option<i64> = None;
    for line in log.lines() {
        if let Some(stamp) = line.strip_prefix('\0') {
            current = stamp.trim().parse::<i64>().ok().map(|s| s * 1000);
        } else if let (Some(t), false) = (current, line.trim().is_empty()) {
            out.entry(line.trim().to_string()).or_default().push(t);
        }
    }
    out
}

/// The targets the root Makefile defines (`name:` at the start of a line, several per rule).
fn read_makefile(fs: &dyn Fs, root: &str) -> Option<BTreeSet<String>> {
    let text = ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .find_map(|name| fs.read_file(&join(root, name), SEARCH_FILE_BYTES).ok())?;
    let text = String::from_utf8_lossy(&text);
    let mut targets = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with(['\t', ' ', '#']) {
            continue;
        }
        let Some((names, rest)) = line.split_once(':') else { continue };
        if rest.starts_with('=') || names.contains('=') {
            continue;
        }
        targets.extend(names.split_whitespace().map(str::to_string));
    }
    Some(targets)
}

/// What the search saw.
#[derive(Debug, Default)]
struct Search {
    found: BTreeSet<String>,
    /// Why it stopped before reading everything, when it did.
    stopped: Option<String>,
    searched_any: bool,
}

impl Search {
    fn status(&self, needle: &str) -> (Status, String) {
        if self.found.contains(needle) {
            (Status::Found, "still in the code".to_string())
        } else if let Some(why) = &self.stopped {
            (Status::Unchecked, format!("not searched to the end: {why}"))
        } else if !self.searched_any {
            (Status::Unchecked, "no project files to search".to_string())
        } else {
            (Status::Missing, "not found in the project's files".to_string())
        }
    }
}

/// One pass over the project's files for every needle at once.
fn search(fs: &dyn Fs, root: &str, git: &GitFacts, needles: &BTreeSet<&str>) -> Search {
    let mut result = Search::default();
    let files: Vec<String> = match &git.ls_files {
        Some(list) => list.lines().filter(|l| !l.is_empty()).map(str::to_string).collect(),
        None => walk(fs, root),
    };
    let mut read = 0u64;
    for (count, file) in files.iter().enumerate() {
        if result.found.len() == needles.len() {
            break;
        }
        if count >= SEARCH_FILES || read >= SEARCH_BYTES {
            result.stopped =
                Some(format!("the search stops after {SEARCH_FILES} files or {} MiB", SEARCH_BYTES >> 20));
            break;
        }
        let Ok(bytes) = fs.read_file(&join(root, file), SEARCH_FILE_BYTES) else { continue };
        read += bytes.len() as u64;
        result.searched_any = true;
        if bytes.iter().take(8192).any(|&b| b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for needle in needles {
            if !result.found.contains(*needle) && contains_word(&text, needle) {
                result.found.insert(needle.to_string());
            }
        }
    }
    result
}

/// `needle` in `text` with no identifier character right before or after it.
fn contains_word(text: &str, needle: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(|c| ident(c) || c == '-')
    })
}

/// The project's files when git does not list them: a walk that skips hidden and build
/// folders, stopping at [`SEARCH_FILES`].
fn walk(fs: &dyn Fs, root: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(rel) = pending.pop() {
        let Ok(entries) = fs.list_dir(&if rel.is_empty() { root.to_string() } else { join(root, &rel) })
        else {
            continue;
        };
        for entry in entries {
            if entry.name.starts_with('.') || files.len() > SEARCH_FILES {
                continue;
            }
            let path = if rel.is_empty() { entry.name.clone() } else { format!("{rel}/{}", entry.name) };
            match entry.kind {
                EntryKind::Dir
                    if !SKIPPED_DIRS.contains(&entry.name.as_str()) && path.matches('/').count() < 24 =>
                {
                    pending.push(path)
                }
                EntryKind::File => files.push(path),
                _ => {}
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_what_code_spans_and_links_cite() {
        let body = "Run `make db-up` then `cargo test --workspace`; tests live in `tests/integration/`.\n\
                    The loader is `loadConfig()` in `src/config.ts:12`, flag `--dry-run`, see [runner](scripts/run.sh).\n\
                    Words like `npm` or `the thing` are not claims; nor `/etc/passwd`, `~/.ssh/x`, `src/*.rs`, `../up.md`.\n\
                    ```\n`make fenced`\n```\n`Config::load` and `db_url` and `Makefile`.";
        assert_eq!(
            claims(body),
            vec![
                (ClaimKind::MakeTarget, "db-up".into()),
                (ClaimKind::Path, "tests/integration/".into()),
                (ClaimKind::Symbol, "loadConfig".into()),
                (ClaimKind::Path, "src/config.ts".into()),
                (ClaimKind::Flag, "--dry-run".into()),
                (ClaimKind::Path, "scripts/run.sh".into()),
                (ClaimKind::Symbol, "load".into()),
                (ClaimKind::Symbol, "db_url".into()),
                (ClaimKind::Path, "Makefile".into()),
            ]
        );
    }

    #[test]
    fn words_are_matched_whole_and_git_logs_read() {
        assert!(contains_word("fn loadConfig() {", "loadConfig"));
        assert!(!contains_word("fn loadConfigs() {", "loadConfig"));
        assert!(contains_word("  --dry-run  ", "--dry-run"));
        assert!(!contains_word("--dry-run-all", "--dry-run"));
        let log = "\0 1700000000\nsrc/a.rs\nsrc/b.rs\n\n\0 1700000100\nsrc/a.rs\n";
        let times = commit_times(log);
        assert_eq!(times["src/a.rs"], vec![1_700_000_000_000, 1_700_000_100_000]);
        assert_eq!(times["src/b.rs"], vec![1_700_000_000_000]);
    }
}
