//! Instruction files (R3): who wrote a file and where it lives, loaded in the order the model
//! should read them, each capped, with `@path` imports expanded and conditional rules applied.

use crate::base::error::Result;
use crate::base::fs::{EntryKind, Fs, FsError, is_within, join, parent, resolve};
use crate::context::approval;
use crate::context::paths::{self, MemoryLocation};
use crate::context::switches::{self, Env, Switches};
use crate::{base::glob, base::text, base::yaml, format::frontmatter, format::index};
use std::collections::BTreeSet;

/// Characters of one instruction file loaded into the prompt (R3.4).
pub const MAX_CHARS: usize = 40_000;
/// Bytes read of one file at most: a safety bound far above any real instruction file (the
/// agent loads a 303,000-character CLAUDE.md whole, and so does memdir). Past it the file is
/// cut, visibly.
const MAX_READ_BYTES: u32 = 8 * 1024 * 1024;
/// Levels of imports below a top-level file (R3.4, revised): CLAUDE.md plus four.
pub const MAX_IMPORT_DEPTH: usize = 4;
/// The managed (organisation policy) directory on Linux.
pub const DEFAULT_MANAGED_DIR: &str = "/etc/claude-code";

/// Who wrote a file and where it lives (R3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileType {
    /// Organisation policy.
    Managed,
    /// The user's private global instructions.
    User,
    /// Checked into the codebase.
    Project,
    /// Private to this project, not checked in.
    Local,
    /// The auto-memory index.
    AutoMem,
    /// The shared team memory index.
    TeamMem,
    /// The index of the user-wide memory, recalled in every project (issue 28).
    UserMem,
    /// The index of the memory a group of projects shares (issue 28).
    GroupMem,
}

impl FileType {
    /// The name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Managed => "Managed",
            FileType::User => "User",
            FileType::Project => "Project",
            FileType::Local => "Local",
            FileType::AutoMem => "AutoMem",
            FileType::TeamMem => "TeamMem",
            FileType::UserMem => "UserMem",
            FileType::GroupMem => "GroupMem",
        }
    }

    /// The description shown to the model after the file's path.
    pub fn suffix(self) -> &'static str {
        match self {
            FileType::Managed => "(policy set by the organisation; it takes precedence)",
            FileType::User => "(the user's own instructions, for every project)",
            FileType::Project => "(the project's instructions, checked into the repository)",
            FileType::Local => "(the user's own instructions for this project, not checked in)",
            FileType::AutoMem => "(the auto-memory index, kept across conversations)",
            FileType::TeamMem => "(the team's shared memory index)",
            FileType::UserMem => "(the index of the user's memory for every project, not only this one)",
            FileType::GroupMem => {
                "(the index of a memory this project shares with a group of the user's projects)"
            }
        }
    }
}

/// One loaded file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct InstructionFile {
    /// Absolute path.
    pub path: String,
    /// Who wrote it and where it lives; an imported file takes its importer's type.
    pub file_type: FileType,
    /// The text the model sees: capped, frontmatter of rules removed, cut marker appended.
    pub content: String,
    /// Characters loaded (at most [`MAX_CHARS`]), before the cut marker.
    pub chars: usize,
    /// True when the file was longer than [`MAX_CHARS`] and was cut.
    pub truncated: bool,
    /// Files this one imports (absolute paths), loaded right after it.
    pub imports: Vec<String>,
    /// The file that imported this one.
    pub imported_by: Option<String>,
    /// What was wrong: unreadable imports, cycles, chains too deep, bad frontmatter.
    pub diagnostics: Vec<String>,
}

/// What to load.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Request<'a> {
    /// The working directory.
    pub cwd: &'a str,
    /// The environment the host passes in.
    pub env: &'a [(String, String)],
    /// Absolute paths the work touches; conditional rules apply only when one matches.
    pub touching: &'a [String],
    /// Directories added explicitly (loaded after the walk; the only ones in bare mode).
    pub add_dirs: &'a [String],
}

/// Everything the prompt needs about one working directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Loaded {
    /// The files in load order.
    pub files: Vec<InstructionFile>,
    /// The switches in force.
    pub switches: Switches,
    /// Where the memory lives.
    pub location: MemoryLocation,
    /// Problems that belong to no single file (unreadable directories, bad encodings); the
    /// switches carry their own.
    pub diagnostics: Vec<String>,
}

/// Loads the instruction files of a working directory in order (R3.2).
pub fn load(fs: &dyn Fs, req: &Request<'_>) -> Result<Loaded> {
    let env = Env(req.env);
    let location = paths::memory_location(fs, req.cwd, req.env)?;
    let cwd = fs.real_path(req.cwd)?;
    let switches = switches::resolve(fs, env, &location.work_tree, &location.config_dir);
    // Touched files are matched by their real path when they exist (they may not, yet).
    let touching: Vec<String> =
        req.touching.iter().map(|t| fs.real_path(t).unwrap_or_else(|_| resolve("/", t))).collect();
    let mut loader = Loader {
        fs,
        home: paths::home(req.env),
        touching: &touching,
        external_approved: approval::approved(fs, req.env, &location.project_root),
        agents_md: false,
        project_root: location.work_tree.clone(),
        files: Vec::new(),
        seen: BTreeSet::new(),
        diagnostics: Vec::new(),
    };

    if switches.instructions {
        if !switches.bare {
            let managed = env.get("MEMDIR_MANAGED_DIR").unwrap_or(DEFAULT_MANAGED_DIR);
            loader.file(&join(managed, "CLAUDE.md"), FileType::Managed);
            loader.rules(&join(managed, ".claude/rules"), FileType::Managed, &location.work_tree);
            loader.file(&join(&location.config_dir, "CLAUDE.md"), FileType::User);
            loader.rules(&join(&location.config_dir, "rules"), FileType::User, &location.work_tree);
            let skip = nested_worktree_skip(&location);
            let walk = ancestors_down_to(&cwd);
            // AGENTS.md is the whole project's fallback: read only when no CLAUDE.md loads in
            // any directory of the walk or any added one (R3.5, revised).
            let added: Vec<String> = req.add_dirs.iter().filter_map(|d| fs.real_path(d).ok()).collect();
            loader.agents_md = !loader.has_claude_md(&walk) && !loader.has_claude_md(&added);
            for dir in walk {
                let skip_project = skip.as_ref().is_some_and(|(main, tree)| {
                    is_within(&dir, main) && dir != *tree && is_within(tree, &dir)
                });
                loader.directory(&dir, skip_project);
            }
        }
        for dir in req.add_dirs {
            match fs.real_path(dir) {
                Ok(dir) => loader.directory(&dir, false),
                Err(e) => loader.diagnostics.push(format!("added directory {e}")),
            }
        }
    }

    // MEMORY.md is an instruction file too: CLAUDE_CODE_DISABLE_CLAUDE_MDS drops it (R4.1,
    // revised), while the memory guidance stays.
    if switches.auto_memory && switches.instructions {
        loader.index_file(&join(&location.memory_dir, "MEMORY.md"), FileType::AutoMem);
        if switches.team_memory {
            loader.index_file(&join(&location.memory_dir, "team/MEMORY.md"), FileType::TeamMem);
        }
        for shared in crate::context::scope::shared(&location) {
            let file_type = if shared.scope == crate::context::scope::Scope::User {
                FileType::UserMem
            } else {
                FileType::GroupMem
            };
            loader.index_file(&join(&shared.dir, "MEMORY.md"), file_type);
        }
    }
    let Loader { files, diagnostics, .. } = loader;
    Ok(Loaded { files, switches, location, diagnostics })
}

/// The switches and the memory location of a working directory, without loading any file.
pub fn status(fs: &dyn Fs, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
    let location = paths::memory_location(fs, cwd, env)?;
    let switches = switches::resolve(fs, Env(env), &location.work_tree, &location.config_dir);
    Ok((switches, location))
}

/// Every directory from the filesystem root down to `dir`, root first.
fn ancestors_down_to(dir: &str) -> Vec<String> {
    let mut dirs = vec![dir.to_string()];
    let mut current = dir;
    while let Some(up) = parent(current) {
        dirs.push(up.to_string());
        current = up;
    }
    dirs.reverse();
    dirs
}

/// (main tree, worktree) when the working directory is in a linked worktree nested inside its
/// main repository: Project files between the two are the main checkout's, not this one's (R3.3).
fn nested_worktree_skip(location: &MemoryLocation) -> Option<(String, String)> {
    let nested = location.from_git
        && location.work_tree != location.project_root
        && is_within(&location.work_tree, &location.project_root);
    nested.then(|| (location.project_root.clone(), location.work_tree.clone()))
}

struct Loader<'a> {
    fs: &'a dyn Fs,
    home: Option<String>,
    touching: &'a [String],
    /// The user approved imports from outside the project (R3.4).
    external_approved: bool,
    /// The project has no CLAUDE.md anywhere: AGENTS.md files stand in (R3.5, revised).
    agents_md: bool,
    project_root: String,
    files: Vec<InstructionFile>,
    /// Canonical paths already loaded: nothing is loaded twice.
    seen: BTreeSet<String>,
    diagnostics: Vec<String>,
}

impl Loader<'_> {
    /// The places one directory can hold instructions. `AGENTS.md` and `.claude/AGENTS.md` stand
    /// in for `CLAUDE.md` and `.claude/CLAUDE.md` when the project has no CLAUDE.md at all.
    fn directory(&mut self, dir: &str, skip_project: bool) {
        if !skip_project {
            let name = if self.agents_md { "AGENTS.md" } else { "CLAUDE.md" };
            self.file(&join(dir, name), FileType::Project);
            self.file(&join(dir, &format!(".claude/{name}")), FileType::Project);
            self.rules(&join(dir, ".claude/rules"), FileType::Project, dir);
        }
        self.file(&join(dir, "CLAUDE.local.md"), FileType::Local);
    }

    /// Whether any of `dirs` holds a `CLAUDE.md` or `.claude/CLAUDE.md` file.
    fn has_claude_md(&self, dirs: &[String]) -> bool {
        dirs.iter().any(|dir| {
            ["CLAUDE.md", ".claude/CLAUDE.md"].iter().any(|name| {
                self.fs.stat(&join(dir, name)).is_ok_and(|s| s.kind == crate::base::fs::EntryKind::File)
            })
        })
    }

    /// Loads one file and its imports; `false` when there was nothing to load.
    fn file(&mut self, path: &str, file_type: FileType) -> bool {
        match self.read(path) {
            Some(text) => {
                self.push(path, file_type, &text, None, &mut Vec::new());
                true
            }
            None => false,
        }
    }

    /// The head of a file as text; `None` when missing, a directory, or unreadable (reported).
    fn read(&mut self, path: &str) -> Option<(String, bool)> {
        match self.fs.read_head(path, u32::MAX, MAX_READ_BYTES) {
            Ok(head) => {
                let decoded = text::decode(&head.data, head.truncated);
                for d in decoded.diagnostics {
                    self.diagnostics.push(format!("{path} {d}"));
                }
                Some((text::normalize_newlines(&decoded.text).0, head.truncated))
            }
            Err(FsError::NotFound(_) | FsError::IsADirectory(_) | FsError::NotADirectory(_)) => None,
            Err(e) => {
                self.diagnostics.push(format!("{e}; not loaded"));
                None
            }
        }
    }

    /// Adds a file (already read) and, depth first, the files it imports.
    fn push(
        &mut self,
        path: &str,
        file_type: FileType,
        (raw, read_cut): &(String, bool),
        imported_by: Option<&str>,
        chain: &mut Vec<String>,
    ) {
        let key = self.fs.real_path(path).unwrap_or_else(|_| path.to_string());
        if !self.seen.insert(key.clone()) {
            return;
        }
        let (content, chars, truncated) = cap(raw, *read_cut);
        let at = self.files.len();
        self.files.push(InstructionFile {
            path: path.to_string(),
            file_type,
            content,
            chars,
            truncated,
            imports: Vec::new(),
            imported_by: imported_by.map(str::to_string),
            diagnostics: large(chars).into_iter().collect(),
        });
        chain.push(key);
        let dir = parent(path).unwrap_or("/").to_string();
        let mut diagnostics = Vec::new();
        for reference in import_references(&self.files[at].content) {
            let Some(target) = self.resolve_import(&dir, &reference) else {
                continue;
            };
            let target_key = self.fs.real_path(&target).ok();
            if let Some(k) = &target_key
                && let Some(start) = chain.iter().position(|c| c == k)
            {
                let cycle: Vec<&str> =
                    chain[start..].iter().map(String::as_str).chain([k.as_str()]).collect();
                diagnostics.push(format!("import cycle not followed: {}", cycle.join(" → ")));
                continue;
            }
            // Outside the project (`~/`, absolute, `../` leading out), only once approved:
            // a cloned repository must not pull `~/.ssh/id_rsa` into a prompt.
            let real = target_key.clone().unwrap_or_else(|| target.clone());
            if !self.external_approved && !is_within(&real, &self.project_root) {
                diagnostics.push(format!(
                    "@{reference}: outside the project; not loaded until you approve imports from outside it \
                     (memdir instructions --approve-external)"
                ));
                continue;
            }
            if chain.len() > MAX_IMPORT_DEPTH {
                diagnostics.push(format!(
                    "@{reference}: imports nest more than {MAX_IMPORT_DEPTH} deep; not followed"
                ));
                continue;
            }
            match self.read(&target) {
                Some(text) => {
                    self.files[at].imports.push(target.clone());
                    self.push(&target, file_type, &text, Some(path), chain);
                }
                None if explicit_path(&reference) => diagnostics.push(format!("@{reference}: not found")),
                None => {}
            }
        }
        chain.pop();
        self.files[at].diagnostics.extend(diagnostics);
    }

    /// An import reference made absolute: relative to the importing file, `~` for home.
    fn resolve_import(&mut self, dir: &str, reference: &str) -> Option<String> {
        Some(match reference.strip_prefix("~/") {
            Some(rest) => resolve(self.home.as_deref()?, rest),
            None => resolve(dir, reference),
        })
    }

    /// `rules/**/*.md` in path order (byte order of the path relative to `rules`). Rules with
    /// `paths:` apply only when a touched file matches, relative to `base`.
    fn rules(&mut self, rules_dir: &str, file_type: FileType, base: &str) {
        let mut found = Vec::new();
        self.collect_rules(rules_dir, "", &mut found);
        found.sort();
        for rel in found {
            let path = join(rules_dir, &rel);
            let Some((raw, cut)) = self.read(&path) else { continue };
            let (applies, body, diagnostic) = self.rule_applies(&raw, base);
            if !applies {
                continue;
            }
            let before = self.files.len();
            self.push(&path, file_type, &(body, cut), None, &mut Vec::new());
            if let (Some(d), Some(file)) = (diagnostic, self.files.get_mut(before)) {
                file.diagnostics.insert(0, d);
            }
        }
    }

    fn collect_rules(&mut self, dir: &str, rel: &str, found: &mut Vec<String>) {
        let entries = match self.fs.list_dir(dir) {
            Ok(entries) => entries,
            Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => return,
            Err(e) => {
                self.diagnostics.push(format!("{e}; rules not loaded"));
                return;
            }
        };
        for entry in entries {
            if entry.name.starts_with('.') {
                continue;
            }
            let child_rel = if rel.is_empty() { entry.name.clone() } else { format!("{rel}/{}", entry.name) };
            let kind = match entry.kind {
                // A link to a file counts; a link to a directory is not followed (no cycles).
                EntryKind::Symlink => {
                    self.fs.stat(&join(dir, &entry.name)).map(|s| s.kind).unwrap_or(EntryKind::Other)
                }
                kind => kind,
            };
            match kind {
                EntryKind::Dir if entry.kind == EntryKind::Dir => {
                    self.collect_rules(&join(dir, &entry.name), &child_rel, found)
                }
                EntryKind::File if entry.name.ends_with(".md") => found.push(child_rel),
                _ => {}
            }
        }
    }

    /// Whether a rule applies, its text without frontmatter, and a diagnostic.
    fn rule_applies(&self, raw: &str, base: &str) -> (bool, String, Option<String>) {
        let Some((block, body)) = frontmatter::split(raw) else {
            return (true, raw.to_string(), None);
        };
        let body = body.to_string();
        let globs: Vec<String> = match yaml::parse(block) {
            Ok(doc) => match doc.get("paths") {
                None | Some(yaml::Value::Null) => return (true, body, None),
                Some(yaml::Value::Scalar(s)) => s.split(',').map(|p| p.trim().to_string()).collect(),
                Some(yaml::Value::Seq(items)) => {
                    items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
                }
                Some(_) => {
                    return (
                        true,
                        body,
                        Some("`paths:` must be a list of globs; the rule applies everywhere".into()),
                    );
                }
            },
            Err(e) => {
                let note = format!("frontmatter is not valid YAML ({e}); the rule applies everywhere");
                return (true, body, Some(note));
            }
        };
        let globs: Vec<String> = globs.into_iter().filter(|g| !g.is_empty()).collect();
        let applies = self.touching.iter().any(|touched| {
            let rel = relative_to(touched, base).or_else(|| relative_to(touched, &self.project_root));
            rel.is_some_and(|rel| globs.iter().any(|g| glob::matches(g, &rel)))
        });
        (applies, body, None)
    }

    /// Loads MEMORY.md (cut to its limits) as an AutoMem or TeamMem entry.
    fn index_file(&mut self, path: &str, file_type: FileType) {
        let loaded = match index::load(self.fs, path) {
            // An empty index adds no section (R6.2, revised).
            Ok(loaded) if loaded.text.trim().is_empty() => return,
            Ok(loaded) => loaded,
            Err(crate::base::error::Error::Fs(FsError::NotFound(_))) => return,
            Err(e) => {
                self.diagnostics.push(format!("{e}; index not loaded"));
                return;
            }
        };
        self.files.push(InstructionFile {
            path: path.to_string(),
            file_type,
            content: loaded.text.clone(),
            chars: loaded.text.chars().count(),
            truncated: loaded.truncated.is_some(),
            imports: Vec::new(),
            imported_by: None,
            diagnostics: loaded.diagnostics,
        });
    }
}

/// `path` relative to `base`, when inside it.
fn relative_to(path: &str, base: &str) -> Option<String> {
    let base = base.trim_end_matches('/');
    path.strip_prefix(base)?.strip_prefix('/').map(str::to_string)
}

/// A file's text as loaded: whole (R3.4, revised), with the visible marker only when the read
/// itself stopped at [`MAX_READ_BYTES`]: (content, chars, truncated).
fn cap(raw: &str, read_cut: bool) -> (String, usize, bool) {
    let chars = raw.chars().count();
    if read_cut { (format!("{raw}{}", cut_marker()), chars, true) } else { (raw.to_string(), chars, false) }
}

fn cut_marker() -> String {
    format!(
        "\n\n[memdir: this file is longer than {} MiB; the rest was not read. Split it into .claude/rules/.]",
        MAX_READ_BYTES / (1024 * 1024)
    )
}

/// The diagnostic for a file above [`MAX_CHARS`] characters: loaded whole, but large.
fn large(chars: usize) -> Option<String> {
    (chars > MAX_CHARS).then(|| {
        format!("large instruction file: {chars} characters; consider splitting into .claude/rules/")
    })
}

/// True when a reference is unmistakably a path (so a missing file is worth reporting).
fn explicit_path(reference: &str) -> bool {
    ["./", "../", "~/", "/"].iter().any(|p| reference.starts_with(p))
}

/// The `@path` references in a text, outside fenced code blocks and inline code spans. A
/// reference starts a word (`ana@example.com` is an address) and is made of path characters.
/// An explicit path (`./`, `../`, `~/`, `/`) that is missing is reported; any other reference
/// (`@docs/style.md`, `@scope/package`, `@maria`) loads when such a file exists (R3.4, revised)
/// and is otherwise taken for prose.
pub fn import_references(text: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            fence = Some("```");
            continue;
        }
        if trimmed.starts_with("~~~") {
            fence = Some("~~~");
            continue;
        }
        for (i, segment) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue; // inside an inline code span
            }
            for word in segment.split_whitespace() {
                let Some(reference) = word.strip_prefix('@') else { continue };
                let reference =
                    reference.trim_end_matches([',', ';', ':', ')', ']', '}', '"', '\'', '!', '?']);
                // A sentence's full stop is not part of the name.
                let reference = reference.strip_suffix('.').unwrap_or(reference);
                let path_like = |c: char| c.is_alphanumeric() || "._~/-+@".contains(c);
                if !reference.is_empty() && reference.chars().all(path_like) {
                    refs.push(reference.to_string());
                }
            }
        }
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_found_outside_code_and_not_confused_with_packages_or_addresses() {
        let text = "See @docs/style.md and @./local.md.\n\
                    Mail ana@example.com, install @scope/package, ping @maria.\n\
                    Inline `@not/this.md` code.\n\
                    ```\n@fenced.md\n```\n\
                    Home: @~/notes/x.md, abs @/etc/x.md)\n";
        assert_eq!(
            import_references(text),
            ["docs/style.md", "./local.md", "scope/package", "maria", "~/notes/x.md", "/etc/x.md"]
        );
    }

    #[test]
    fn long_files_load_whole_with_a_diagnostic() {
        let long = "é".repeat(MAX_CHARS + 10);
        let (content, chars, truncated) = cap(&long, false);
        assert!(!truncated);
        assert_eq!((content.as_str(), chars), (long.as_str(), MAX_CHARS + 10));
        assert_eq!(
            large(chars).as_deref(),
            Some("large instruction file: 40010 characters; consider splitting into .claude/rules/")
        );
        assert_eq!(large(MAX_CHARS), None);
        assert_eq!(cap("short", false), ("short".into(), 5, false));
    }
}
