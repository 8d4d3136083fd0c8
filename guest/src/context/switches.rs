//! The switches that turn instruction files and auto memory on and off (R4), decided from the
//! environment the host passes in and the settings files, never from the process itself.

use crate::base::fs::{Fs, FsError, join};

/// Settings files larger than this are not settings.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// The environment as the host passed it: the last definition of a name wins, and an empty
/// value counts as unset.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a>(pub &'a [(String, String)]);

impl<'a> Env<'a> {
    /// The value of `name`, when set and not empty.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        let (_, value) = self.0.iter().rev().find(|(k, _)| k == name)?;
        (!value.is_empty()).then_some(value.as_str())
    }

    /// `name` read as a boolean: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` (any case);
    /// `None` when unset or anything else.
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.get(name)?.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" => Some(false),
            _ => None,
        }
    }
}

/// Which rule of the auto-memory chain (R4.2) decided.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum DecidedBy {
    /// `CLAUDE_CODE_DISABLE_AUTO_MEMORY`.
    Env,
    /// Bare mode (`CLAUDE_CODE_SIMPLE`).
    Bare,
    /// Remote mode without `CLAUDE_CODE_REMOTE_MEMORY_DIR`.
    Remote,
    /// `autoMemoryEnabled` in this settings file.
    Settings(String),
    /// Nothing else was defined.
    Default,
}

impl DecidedBy {
    /// `env`, `bare`, `remote`, `settings:<path>` or `default`.
    pub fn label(&self) -> String {
        match self {
            DecidedBy::Env => "env".into(),
            DecidedBy::Bare => "bare".into(),
            DecidedBy::Remote => "remote".into(),
            DecidedBy::Settings(path) => format!("settings:{path}"),
            DecidedBy::Default => "default".into(),
        }
    }
}

/// The switches in force for one working directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Switches {
    /// Instruction files (Managed, User, Project, Local) are loaded (R4.1).
    pub instructions: bool,
    /// Bare mode: no auto-discovery, only explicitly added directories (R4.1).
    pub bare: bool,
    /// Auto memory is on (R4.2).
    pub auto_memory: bool,
    /// Which rule decided `auto_memory`.
    pub decided_by: DecidedBy,
    /// Team memory is on (R10.1): `MEMDIR_TEAM_MEMORY`, else `teamMemoryEnabled` in settings.
    pub team_memory: bool,
    /// Daily-log mode (R9.4): `MEMDIR_DAILY_LOG`, else `dailyLogEnabled` in settings. Writers
    /// append to the day's log and a dream builds the topic files and the index later.
    pub daily_log: bool,
    /// When memory synced through git syncs (issue 13): `MEMDIR_TEAM_SYNC`, else `teamSync`
    /// in the user's settings (a project's settings cannot start network traffic).
    pub team_sync: TeamSync,
    /// How many memories recall offers a model to choose from, the offline ranker's best
    /// (issue 17); 0 offers all. `MEMDIR_RECALL_SHORTLIST`, else `recallShortlist` in the
    /// user's settings (what a model is sent is the user's cost, not a project's choice).
    pub recall_shortlist: u32,
    /// Who may write each type of memory (issue 28): `MEMDIR_MEMORY_WRITES`, else `memoryWrites`
    /// in the user's settings, made only stricter by a project's.
    pub memory_writes: crate::context::policy::WritePolicy,
    /// Malformed settings files and unreadable values, each naming the file.
    pub diagnostics: Vec<String>,
}

/// When memory synced through git syncs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TeamSync {
    /// Never: agents' sync tools and editor commands refuse (the `memdir team` CLI still runs).
    Off,
    /// When asked: the CLI, the MCP tool, the editor command.
    #[default]
    Manual,
    /// Also at the start of a session and after writes, in the background.
    Auto,
}

impl TeamSync {
    fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "off" => Some(TeamSync::Off),
            "manual" => Some(TeamSync::Manual),
            "auto" => Some(TeamSync::Auto),
            _ => None,
        }
    }
}

/// How many memories recall offers a model by default. On the labelled set, at 200 memories,
/// 60 keeps 95% of the relevant ones for a third of the request (40: 93% for a fifth); a
/// directory of 60 or fewer is offered whole (docs/performance.md).
pub const DEFAULT_RECALL_SHORTLIST: u32 = 60;

/// The settings files in precedence order: the project's `.claude/settings.local.json`, its
/// `.claude/settings.json`, then `<config>/settings.json`.
pub fn settings_files(project_dir: &str, config_dir: &str) -> [String; 3] {
    [
        join(project_dir, ".claude/settings.local.json"),
        join(project_dir, ".claude/settings.json"),
        join(config_dir, "settings.json"),
    ]
}

/// Decides the switches. `project_dir` is the working tree's root (where `.claude/` lives).
pub fn resolve(fs: &dyn Fs, env: Env<'_>, project_dir: &str, config_dir: &str) -> Switches {
    let mut diagnostics = Vec::new();
    let settings: Vec<(String, serde_json::Value)> = settings_files(project_dir, config_dir)
        .into_iter()
        .filter_map(|path| read_settings(fs, &path, &mut diagnostics).map(|v| (path, v)))
        .collect();
    let setting = |key: &str, diagnostics: &mut Vec<String>| {
        settings.iter().find_map(|(path, value)| match value.get(key)? {
            serde_json::Value::Bool(b) => Some((*b, path.clone())),
            other => {
                diagnostics.push(format!("{path}: `{key}` must be true or false, not {other}; ignored"));
                None
            }
        })
    };

    let bare = env.flag("CLAUDE_CODE_SIMPLE") == Some(true);
    let remote = env.flag("CLAUDE_CODE_REMOTE") == Some(true);
    if env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY").is_some()
        && env.flag("CLAUDE_CODE_DISABLE_AUTO_MEMORY").is_none()
    {
        diagnostics.push("CLAUDE_CODE_DISABLE_AUTO_MEMORY is neither 1/true nor 0/false; ignored".into());
    }
    let (auto_memory, decided_by) = if let Some(disabled) = env.flag("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        (!disabled, DecidedBy::Env)
    } else if bare {
        (false, DecidedBy::Bare)
    } else if remote && env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").is_none() {
        (false, DecidedBy::Remote)
    } else if let Some((on, path)) = auto_memory_setting(&settings, &mut diagnostics) {
        (on, DecidedBy::Settings(path))
    } else {
        (true, DecidedBy::Default)
    };
    let team_memory = match env.flag("MEMDIR_TEAM_MEMORY") {
        Some(on) => on,
        None => setting("teamMemoryEnabled", &mut diagnostics).is_some_and(|(on, _)| on),
    };
    let daily_log = match env.flag("MEMDIR_DAILY_LOG") {
        Some(on) => on,
        None => setting("dailyLogEnabled", &mut diagnostics).is_some_and(|(on, _)| on),
    };
    let user_settings = settings.iter().find(|(path, _)| *path == join(config_dir, "settings.json"));
    let team_sync = match env.get("MEMDIR_TEAM_SYNC") {
        Some(text) => TeamSync::parse(text).unwrap_or_else(|| {
            diagnostics.push(format!("MEMDIR_TEAM_SYNC is {text:?}, not off, manual or auto; manual used"));
            TeamSync::default()
        }),
        None => match user_settings.and_then(|(path, v)| Some((path, v.get("teamSync")?))) {
            None => TeamSync::default(),
            Some((path, value)) => value.as_str().and_then(TeamSync::parse).unwrap_or_else(|| {
                diagnostics.push(format!(
                    "{path}: `teamSync` must be \"off\", \"manual\" or \"auto\", not {value}; manual used"
                ));
                TeamSync::default()
            }),
        },
    };
    let recall_shortlist = match env.get("MEMDIR_RECALL_SHORTLIST") {
        Some(text) => text.trim().parse().unwrap_or_else(|_| {
            diagnostics.push(format!(
                "MEMDIR_RECALL_SHORTLIST is {text:?}, not a count; {DEFAULT_RECALL_SHORTLIST} used"
            ));
            DEFAULT_RECALL_SHORTLIST
        }),
        None => match user_settings.and_then(|(path, v)| Some((path, v.get("recallShortlist")?))) {
            None => DEFAULT_RECALL_SHORTLIST,
            Some((path, value)) => value.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or_else(|| {
                diagnostics.push(format!(
                    "{path}: `recallShortlist` must be a count, not {value}; {DEFAULT_RECALL_SHORTLIST} used"
                ));
                DEFAULT_RECALL_SHORTLIST
            }),
        },
    };
    let memory_writes = crate::context::policy::WritePolicy::resolve(
        env.get("MEMDIR_MEMORY_WRITES"),
        &settings,
        &join(config_dir, "settings.json"),
        &mut diagnostics,
    );
    Switches {
        instructions: env.flag("CLAUDE_CODE_DISABLE_CLAUDE_MDS") != Some(true),
        bare,
        auto_memory,
        decided_by,
        team_memory,
        daily_log,
        team_sync,
        recall_shortlist,
        memory_writes,
        diagnostics,
    }
}

/// `autoMemoryEnabled` across the settings files (R4.2 step 4), and the file that decided. The
/// terminal agent lets the first file that defines it win; memdir's own runs (hooks,
/// extraction, the dream, MCP writes) let any file turn memory off and none turn it back on
/// (issue 44): a cloned repository's `true` never overrides the user's `false`, and a
/// diagnostic says so.
fn auto_memory_setting(
    settings: &[(String, serde_json::Value)],
    diagnostics: &mut Vec<String>,
) -> Option<(bool, String)> {
    let mut defined = Vec::new();
    for (path, value) in settings {
        match value.get("autoMemoryEnabled") {
            None => {}
            Some(serde_json::Value::Bool(on)) => defined.push((*on, path.clone())),
            Some(other) => diagnostics
                .push(format!("{path}: `autoMemoryEnabled` must be true or false, not {other}; ignored")),
        }
    }
    let first = defined.first()?.clone();
    match defined.iter().find(|(on, _)| !on) {
        Some(off) if first.0 => {
            diagnostics.push(format!(
                "{}: `autoMemoryEnabled: true` is not followed: {} turns auto memory off, and settings \
                 may only turn it off, never back on (CLAUDE_CODE_DISABLE_AUTO_MEMORY=0 turns it on)",
                first.1, off.1
            ));
            Some(off.clone())
        }
        _ => Some(first),
    }
}

/// A settings file as JSON; `None` when missing, unreadable or malformed (with a diagnostic
/// for the last two).
fn read_settings(fs: &dyn Fs, path: &str, diagnostics: &mut Vec<String>) -> Option<serde_json::Value> {
    let bytes = match fs.read_file(path, MAX_SETTINGS_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_) | FsError::NotADirectory(_)) => return None,
        Err(e) => {
            diagnostics.push(format!("{e}; settings ignored"));
            return None;
        }
    };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(value @ serde_json::Value::Object(_)) => Some(value),
        Ok(_) => {
            diagnostics.push(format!("{path}: settings must be a JSON object; ignored"));
            None
        }
        Err(e) => {
            diagnostics.push(format!(
                "{path}: not valid JSON (line {}, column {}: {}); ignored",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ));
            None
        }
    }
}

/// serde_json appends " at line L column C"; the message above says it already.
fn strip_position(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn flags_read_common_spellings_and_the_last_definition_wins() {
        let e = env(&[("A", "TRUE"), ("B", "off"), ("C", "maybe"), ("A", "0")]);
        let e = Env(&e);
        assert_eq!(
            (e.flag("A"), e.flag("B"), e.flag("C"), e.flag("D")),
            (Some(false), Some(false), None, None)
        );
    }
}
