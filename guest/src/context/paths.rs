//! Where a project's memory lives (R2.1, R2.2): `<config>/projects/<slug>/memory/`, keyed by
//! the canonical project root so that every worktree of a repository shares one memory.

use crate::base::error::{Error, Result};
use crate::base::fs::{EntryKind, Fs, FsError, join, parent, resolve};
use crate::context::switches::Env;

/// Slugs longer than this keep a prefix of this length and gain a hash.
pub const MAX_SLUG_LEN: usize = 200;
/// A `.git` file or `commondir` larger than this is not git metadata.
const MAX_GIT_FILE_BYTES: u64 = 4096;

/// A working directory's memory location.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MemoryLocation {
    /// The canonical project root.
    pub project_root: String,
    /// The checkout holding the working directory (where `.claude/` lives); differs from
    /// `project_root` in a linked worktree.
    pub work_tree: String,
    /// True when the root came from a git repository.
    pub from_git: bool,
    /// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
    pub config_dir: String,
    /// Folder name under `<config>/projects/`.
    pub slug: String,
    /// `<config>/projects/<slug>/memory`, or what `autoMemoryDirectory` names.
    pub memory_dir: String,
    /// The user settings file whose `autoMemoryDirectory` replaced the computed memory
    /// directory (R2.1, revised); `None` when it is the computed one.
    pub memory_dir_setting: Option<String>,
    /// The user-wide memory directory, `<config>/memdir/user-memory`, when `userMemory` is on
    /// in the user's settings (issue 28): recalled in every project.
    pub user_memory_dir: Option<String>,
    /// The group of projects this one shares a memory with, when the user's `memoryGroups`
    /// lists its root (issue 28).
    pub group: Option<MemoryGroup>,
}

/// A memory shared by a group of projects the user named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MemoryGroup {
    /// The group's name in `memoryGroups`.
    pub name: String,
    /// `<config>/memdir/groups/<name>`.
    pub dir: String,
}

/// Where memdir keeps what the terminal agent does not know about, under the config directory.
const MEMDIR_DIR: &str = "memdir";

/// The slug of a project root, compatible with the terminal agent's: each UTF-16 code unit
/// outside `[A-Za-z0-9]` becomes `-` (so a character outside the BMP becomes `--`); a slug over
/// [`MAX_SLUG_LEN`] keeps that many and gains `-` and a base-36 hash of the root.
pub fn slug(project_root: &str) -> String {
    let units: Vec<u16> = project_root.encode_utf16().collect();
    let sanitized: String = units
        .iter()
        .map(|&u| match u {
            0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A => char::from(u as u8),
            _ => '-',
        })
        .collect();
    if sanitized.len() <= MAX_SLUG_LEN {
        return sanitized;
    }
    format!("{}-{}", &sanitized[..MAX_SLUG_LEN], base36(djb2(&units).unsigned_abs()))
}

/// At most this many directories are listed looking for a slug's project.
const PROJECT_SEARCH_DIRS: usize = 400;

/// The project root whose [`slug`] is `slug`, found by walking the filesystem from `/` along
/// the directories whose names the slug spells (issue 48: which project a memory directory
/// under `projects/` belongs to, when no setting says). `None` when none does, when the slug is
/// hashed (over [`MAX_SLUG_LEN`]) or when the walk grows past [`PROJECT_SEARCH_DIRS`]. Several
/// roots can share a slug (`a-b` and `a/b`); the first found in name order is given.
pub fn project_of(fs: &dyn Fs, slug_: &str) -> Option<String> {
    if slug_.len() > MAX_SLUG_LEN || !slug_.starts_with('-') {
        return None;
    }
    let mut budget = PROJECT_SEARCH_DIRS;
    walk_to(fs, "/", slug_, &mut budget)
}

/// A directory under `dir` (itself, or deeper) whose slug is `slug_`: `dir`'s slug is a prefix.
fn walk_to(fs: &dyn Fs, dir: &str, slug_: &str, budget: &mut usize) -> Option<String> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let mut entries = fs.list_dir(dir).ok()?;
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let base = if dir == "/" { String::new() } else { slug(dir) };
    for entry in entries.iter().filter(|e| e.kind == EntryKind::Dir) {
        let path = join(dir, &entry.name);
        let spelled = format!("{base}-{}", slug(&entry.name));
        if spelled == slug_ {
            return Some(path);
        }
        if slug_.starts_with(&format!("{spelled}-"))
            && let Some(found) = walk_to(fs, &path, slug_, budget)
        {
            return Some(found);
        }
    }
    None
}

/// The 32-bit djb2 variant (`hash * 31 + unit`, wrapping) over UTF-16 code units.
fn djb2(units: &[u16]) -> i32 {
    units.iter().fold(0i32, |hash, &u| (hash << 5).wrapping_sub(hash).wrapping_add(i32::from(u)))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("base-36 digits are ASCII")
}

/// Resolves the memory location of `cwd` with the environment the host passes in.
///
/// In remote mode (`CLAUDE_CODE_REMOTE`) with `CLAUDE_CODE_REMOTE_MEMORY_DIR` set, memories
/// live under that directory instead of the configuration directory.
pub fn memory_location(fs: &dyn Fs, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation> {
    let config_dir = config_dir(env)?;
    let cwd = fs.real_path(cwd)?;
    let (project_root, work_tree, from_git) = match git_layout(fs, &cwd) {
        Some(git) => (git.canonical_root, git.work_tree, true),
        None => (cwd.clone(), cwd, false),
    };
    let vars = Env(env);
    let base = match vars.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") {
        Some(dir) if vars.flag("CLAUDE_CODE_REMOTE") == Some(true) => dir.trim_end_matches('/').to_string(),
        _ => config_dir.clone(),
    };
    let slug = slug(&project_root);
    let settings_path = join(&config_dir, "settings.json");
    // Only the user's own settings place memory: a repository's settings could otherwise point
    // a clone's writes, or another project's recall, wherever it liked.
    let settings = user_settings(fs, &settings_path);
    let setting = |key: &str| settings.as_ref().and_then(|v| v.get(key));
    let (memory_dir, memory_dir_setting) = match setting("autoMemoryDirectory").and_then(|v| absolute(v, env))
    {
        Some(dir) => (dir, Some(settings_path)),
        None => (join(&join(&join(&base, "projects"), &slug), "memory"), None),
    };
    let shared = join(&base, MEMDIR_DIR);
    let user_memory_dir =
        (setting("userMemory") == Some(&serde_json::Value::Bool(true))).then(|| join(&shared, "user-memory"));
    let group =
        setting("memoryGroups").and_then(|groups| group_of(fs, groups, &project_root, env)).map(|name| {
            let dir = join(&join(&shared, "groups"), &name);
            MemoryGroup { name, dir }
        });
    Ok(MemoryLocation {
        project_root,
        work_tree,
        from_git,
        config_dir,
        slug,
        memory_dir,
        memory_dir_setting,
        user_memory_dir,
        group,
    })
}

/// The user's settings file as JSON, when it is readable and valid (the switches report it
/// when it is not).
fn user_settings(fs: &dyn Fs, path: &str) -> Option<serde_json::Value> {
    serde_json::from_slice(&fs.read_file(path, 1 << 20).ok()?).ok()
}

/// A settings value naming a directory: an absolute path, or one under `~/`. Anything else —
/// not a string, relative, empty — names nothing.
fn absolute(value: &serde_json::Value, env: &[(String, String)]) -> Option<String> {
    let dir = value.as_str()?.trim();
    let dir = match dir.strip_prefix("~/") {
        Some(rest) => join(home_dir(Env(env).get("HOME")?), rest),
        None if crate::base::fs::is_absolute(dir) => dir.to_string(),
        None => return None,
    };
    let dir = dir.trim_end_matches('/');
    (!dir.is_empty()).then(|| dir.to_string())
}

/// The group whose list in `memoryGroups` (`{"web": ["~/src/shop", "/srv/admin"]}`) holds
/// `project_root`, compared as real paths; the first in name order when several do. A group's
/// name becomes a folder, so only letters, digits, `.`, `_` and `-` are taken, not leading `.`.
fn group_of(
    fs: &dyn Fs,
    groups: &serde_json::Value,
    project_root: &str,
    env: &[(String, String)],
) -> Option<String> {
    let valid = |name: &str| {
        !name.is_empty()
            && name.len() <= 64
            && !name.starts_with('.')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    let mut names: Vec<&String> = groups.as_object()?.keys().filter(|n| valid(n)).collect();
    names.sort();
    names
        .into_iter()
        .find(|name| {
            groups[name.as_str()].as_array().is_some_and(|roots| {
                roots.iter().filter_map(|root| absolute(root, env)).any(|root| {
                    let real = fs.real_path(&root).unwrap_or(root);
                    real == project_root
                })
            })
        })
        .cloned()
}

/// `$CLAUDE_CONFIG_DIR` when set and not empty, else `$HOME/.claude`.
pub fn config_dir(env: &[(String, String)]) -> Result<String> {
    let vars = Env(env);
    if let Some(dir) = vars.get("CLAUDE_CONFIG_DIR") {
        let dir = dir.trim_end_matches('/');
        return Ok(if dir.is_empty() { "/".into() } else { dir.to_string() });
    }
    if let Some(home) = vars.get("HOME") {
        return Ok(join(home_dir(home), ".claude"));
    }
    Err(Error::InvalidInput(
        "cannot tell where the configuration directory is: set CLAUDE_CONFIG_DIR or HOME".into(),
    ))
}

fn home_dir(home: &str) -> &str {
    let trimmed = home.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }
}

/// `$HOME`, for `~` in imports.
pub fn home(env: &[(String, String)]) -> Option<String> {
    Env(env).get("HOME").map(|h| home_dir(h).to_string())
}

/// The three scopes of a subagent's own memory (R11.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentScope {
    /// `<config>/agent-memory/<agentType>/`: the user's, for every project.
    User,
    /// `<work tree>/.claude/agent-memory/<agentType>/`: checked in with the project.
    Project,
    /// `<work tree>/.claude/agent-memory-local/<agentType>/`: this checkout only, not checked in.
    Local,
}

impl AgentScope {
    /// Every scope, in the order a person is offered them.
    pub const ALL: [AgentScope; 3] = [AgentScope::User, AgentScope::Project, AgentScope::Local];

    /// `user`, `project` or `local`, as the agent's settings write it.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentScope::User => "user",
            AgentScope::Project => "project",
            AgentScope::Local => "local",
        }
    }
}

/// The memory directory of subagent `agent_type` in `scope`. Agent types are names, not
/// paths: letters, digits, `.`, `_`, `-` and `:` (a plugin's `plugin:agent`, stored as
/// `plugin-agent`), not starting with a dot.
pub fn agent_memory_dir(
    fs: &dyn Fs,
    cwd: &str,
    env: &[(String, String)],
    agent_type: &str,
    scope: AgentScope,
) -> Result<String> {
    let valid = !agent_type.is_empty()
        && !agent_type.starts_with('.')
        && agent_type.chars().all(|c| c.is_ascii_alphanumeric() || "._-:".contains(c));
    if !valid {
        return Err(Error::InvalidInput(format!(
            "agent type {agent_type:?} is not a name: use letters, digits, `.`, `_`, `-` or `:`"
        )));
    }
    let folder = agent_type.replace(':', "-");
    Ok(match scope {
        AgentScope::User => join(&join(&config_dir(env)?, "agent-memory"), &folder),
        AgentScope::Project | AgentScope::Local => {
            let cwd = fs.real_path(cwd)?;
            let work_tree = git_layout(fs, &cwd).map_or(cwd, |g| g.work_tree);
            let kind = if scope == AgentScope::Project { "agent-memory" } else { "agent-memory-local" };
            join(&join(&join(&work_tree, ".claude"), kind), &folder)
        }
    })
}

/// Where a working directory sits in git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitLayout {
    /// The checkout holding the working directory (the directory with the `.git` entry).
    pub work_tree: String,
    /// The main working tree (or bare directory) shared by all worktrees: the memory key.
    pub canonical_root: String,
    /// True when `work_tree` is a linked worktree of another repository root.
    pub linked: bool,
}

/// The main working tree of the repository holding `cwd` (canonical), or `None` outside git.
pub fn canonical_git_root(fs: &dyn Fs, cwd: &str) -> Option<String> {
    git_layout(fs, cwd).map(|g| g.canonical_root)
}

/// Finds the repository holding `cwd` from files alone (`.git`, `gitdir:`, `commondir`).
///
/// A linked worktree's `.git` file names its git dir, whose `commondir` names the repository's
/// shared git dir; the main working tree is that dir's parent. A worktree whose git dir is not
/// registered under `<common>/worktrees/` is not trusted to name another repository, and keeps
/// its own root. A bare repository's worktrees share the bare directory as their root.
pub fn git_layout(fs: &dyn Fs, cwd: &str) -> Option<GitLayout> {
    let (work_tree, git_dir) = find_git_dir(fs, cwd)?;
    let own = |work_tree: String| GitLayout { canonical_root: work_tree.clone(), work_tree, linked: false };
    let Some(common) = read_git_file(fs, &join(&git_dir, "commondir")) else {
        return Some(own(work_tree));
    };
    let Ok(common) = fs.real_path(&resolve(&git_dir, &common)) else {
        return Some(own(work_tree));
    };
    let registered = parent(&git_dir) == Some(join(&common, "worktrees").as_str());
    if !registered {
        return Some(own(work_tree));
    }
    let canonical_root = if common.rsplit('/').next() == Some(".git") {
        parent(&common).map_or_else(|| common.clone(), str::to_string)
    } else {
        common
    };
    Some(GitLayout { linked: canonical_root != work_tree, canonical_root, work_tree })
}

/// Walks up from `dir` to the first directory with a `.git` entry: (work tree, git dir).
fn find_git_dir(fs: &dyn Fs, dir: &str) -> Option<(String, String)> {
    let mut dir = dir.to_string();
    loop {
        let dot_git = join(&dir, ".git");
        match fs.stat(&dot_git) {
            Ok(stat) if stat.kind == EntryKind::Dir => return Some((dir, dot_git)),
            Ok(stat) if stat.kind == EntryKind::File => {
                let target = read_git_file(fs, &dot_git)?;
                let target = target.strip_prefix("gitdir:")?.trim();
                let git_dir = fs.real_path(&resolve(&dir, target)).ok()?;
                return Some((dir, git_dir));
            }
            Ok(_) | Err(FsError::NotFound(_)) | Err(FsError::NotADirectory(_)) => {}
            // The host did not grant the parents, or refused them: stop looking.
            Err(_) => return None,
        }
        dir = parent(&dir)?.to_string();
    }
}

fn read_git_file(fs: &dyn Fs, path: &str) -> Option<String> {
    let bytes = fs.read_file(path, MAX_GIT_FILE_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().next()?.trim().to_string();
    (!line.is_empty()).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 16, item 6: the slug is computed from the root exactly as the host gives it, as the
    /// terminal agent computes it from its working directory. A drive letter's `:` and every
    /// `\` become `-`, so `C:\Users\ana\web` is `C--Users-ana-web`. Case is kept, so on a
    /// case-insensitive file system, two spellings of one folder are two slugs. Hosts pass the
    /// real path (what `realpath`/git give), so one folder has one spelling.
    #[test]
    fn windows_and_macos_shaped_roots_slug_like_the_terminal_agent() {
        assert_eq!(slug(r"C:\Users\ana\web"), "C--Users-ana-web");
        assert_eq!(slug(r"\\server\share\proj"), "--server-share-proj");
        assert_eq!(slug("C:/Users/ana/web"), "C--Users-ana-web");
        assert_eq!(slug("/Users/Ana/My Project"), "-Users-Ana-My-Project");
        assert_ne!(slug("/Users/Ana/web"), slug("/Users/ana/web"), "case is kept, not folded");
        // A macOS path in decomposed form (NFD é = e + U+0301) differs from the composed one.
        assert_eq!(slug("/Users/ana/caf\u{e9}"), "-Users-ana-caf-");
        assert_eq!(slug("/Users/ana/cafe\u{301}"), "-Users-ana-cafe-");
    }

    #[test]
    fn slug_replaces_every_character_outside_the_allowed_set() {
        assert_eq!(slug("/home/ana/web.app"), "-home-ana-web-app");
        assert_eq!(slug("/tmp/a_b c"), "-tmp-a-b-c");
        assert_eq!(slug("/x/日本"), "-x---");
        assert_eq!(slug("/x/😀"), "-x---");
    }

    #[test]
    fn an_overlong_slug_keeps_a_prefix_and_gains_a_hash() {
        let root = format!("/{}", "a".repeat(300));
        let s = slug(&root);
        assert!(s.starts_with(&slug(&root)[..200]));
        assert_eq!(
            s.len(),
            200 + 1 + base36(djb2(&root.encode_utf16().collect::<Vec<_>>()).unsigned_abs()).len()
        );
        assert_ne!(slug(&format!("/{}", "a".repeat(301))), s);
    }

    #[test]
    fn djb2_matches_the_javascript_reference() {
        // ((h << 5) - h + c) | 0 over "abc" in JavaScript gives 96354.
        assert_eq!(djb2(&"abc".encode_utf16().collect::<Vec<_>>()), 96354);
        assert_eq!(base36(96354), "22ci");
    }

    #[test]
    fn config_dir_prefers_claude_config_dir_then_home() {
        let env = |pairs: &[(&str, &str)]| {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
        };
        assert_eq!(
            config_dir(&env(&[("HOME", "/home/ana"), ("CLAUDE_CONFIG_DIR", "/cfg/")])).unwrap(),
            "/cfg"
        );
        assert_eq!(
            config_dir(&env(&[("HOME", "/home/ana"), ("CLAUDE_CONFIG_DIR", "")])).unwrap(),
            "/home/ana/.claude"
        );
        assert!(config_dir(&env(&[])).is_err());
    }

    #[test]
    fn resolve_normalises_relative_targets() {
        assert_eq!(resolve("/repo/wt", "../main/.git/worktrees/wt"), "/repo/main/.git/worktrees/wt");
        assert_eq!(resolve("/repo", "/abs/.git"), "/abs/.git");
    }
}
