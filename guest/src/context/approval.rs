//! Approval of imports from outside the project (R3.4, revised): a cloned repository's
//! CLAUDE.md may say `@~/.ssh/id_rsa`, so an `@import` that resolves outside the project is
//! loaded only once the user approved external imports for that project — the flag the
//! terminal agent keeps in `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is
//! set): `projects["<project root>"].hasClaudeMdExternalIncludesApproved`.

use crate::base::error::{Error, Result};
use crate::base::fs::{Fs, FsError, join};
use crate::context::paths;
use crate::context::switches::Env;
use serde_json::{Map, Value};

/// The flag, as the terminal agent names it.
pub const FLAG: &str = "hasClaudeMdExternalIncludesApproved";
/// The agent's state file is large; anything past this is not a state file.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The agent's state file: `$CLAUDE_CONFIG_DIR/.claude.json`, else `$HOME/.claude.json`.
pub fn state_file(env: &[(String, String)]) -> Option<String> {
    let env = Env(env);
    match env.get("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(join(dir, ".claude.json")),
        None => paths::home(env.0).map(|home| join(&home, ".claude.json")),
    }
}

/// Whether the user approved external imports for `project_root`. A missing or unreadable
/// file, or one that is not JSON, approves nothing.
pub fn approved(fs: &dyn Fs, env: &[(String, String)], project_root: &str) -> bool {
    let Some(file) = state_file(env) else { return false };
    let Ok(bytes) = fs.read_file(&file, MAX_BYTES) else { return false };
    let Ok(state) = serde_json::from_slice::<Value>(&bytes) else { return false };
    state["projects"][project_root][FLAG] == Value::Bool(true)
}

/// Records the approval for the project of `cwd`, keeping every other key of the state file;
/// returns the file written. A file that is not a JSON object is refused, never overwritten.
pub fn approve(fs: &dyn Fs, cwd: &str, env: &[(String, String)]) -> Result<String> {
    let root = paths::memory_location(fs, cwd, env)?.project_root;
    let file = state_file(env).ok_or_else(|| {
        Error::InvalidInput("cannot tell where ~/.claude.json is: set HOME or CLAUDE_CONFIG_DIR".into())
    })?;
    let mut state = match fs.read_file(&file, MAX_BYTES) {
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => map,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "{file} is not a JSON object; not changed (fix it, then approve again)"
                )));
            }
        },
        Err(FsError::NotFound(_)) => Map::new(),
        Err(e) => return Err(e.into()),
    };
    let projects = state.entry("projects").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(projects) = projects else {
        return Err(Error::InvalidInput(format!("{file}: `projects` is not an object; not changed")));
    };
    let project = projects.entry(root).or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(project) = project else {
        return Err(Error::InvalidInput(format!(
            "{file}: this project's entry is not an object; not changed"
        )));
    };
    project.insert(FLAG.to_string(), Value::Bool(true));
    let text = serde_json::to_string_pretty(&Value::Object(state)).expect("JSON values serialise");
    fs.write_file(&file, format!("{text}\n").as_bytes())?;
    Ok(file)
}
