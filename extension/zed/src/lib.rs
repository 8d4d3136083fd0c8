//! The memdir extension for Zed: registers `memdir mcp` as a context server, so Zed's agent
//! gets the same memory as the user's other agents and editors.
//!
//! Zed starts a context server in the project's root directory, and the extension API hands
//! `context_server_command` a project without its paths, so the server's own working
//! directory is the project unless `project_dir` says otherwise. The extension only decides
//! the command: which binary, which arguments, which switches as environment variables.

use schemars::JsonSchema;
use serde::Deserialize;
use zed_extension_api::settings::ContextServerSettings;
use zed_extension_api::{self as zed, Command, ContextServerConfiguration, ContextServerId, Project, Result};

/// The context server's id, as `extension.toml` registers it.
pub const SERVER_ID: &str = "memdir";

/// What the user can set under `context_servers.memdir.settings`.
#[derive(Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The `memdir` binary. By default it is looked up on PATH.
    pub binary_path: Option<String>,
    /// The project whose memory to serve. By default the directory Zed starts the server in,
    /// which is the project's root.
    pub project_dir: Option<String>,
    /// The model recall uses: "offline", "command:CMD", "anthropic:MODEL" or "openai:MODEL".
    /// By default $MEMDIR_LLM, else the offline selector.
    pub llm: Option<String>,
    /// Turn auto memory on or off. By default the shared settings
    /// (`autoMemoryEnabled` in settings.json) decide.
    pub auto_memory: Option<bool>,
    /// Daily-log mode: the agent appends to a log and a dream folds it into memories.
    pub daily_log: Option<bool>,
    /// Team memory: project and reference memories go to the shared `team/` folder.
    pub team_memory: Option<bool>,
    /// The configuration directory the memories live under (default ~/.claude).
    pub config_dir: Option<String>,
}

/// How to install memdir, shown when Zed cannot start the server.
pub const INSTALL: &str = "memdir was not found. Build it from the memdir repository with \
`cargo install --locked --path host-harness` (it installs `memdir` into ~/.cargo/bin), make sure \
that directory is on the PATH Zed starts with, or point the extension at the binary in your \
Zed settings: `\"context_servers\": { \"memdir\": { \"settings\": { \"binary_path\": \
\"/path/to/memdir\" } } }`.";

/// The settings template Zed offers when the server is first configured.
pub const DEFAULT_SETTINGS: &str = "{\n  \"llm\": \"offline\"\n}";

impl Settings {
    /// Parses the `settings` object of the server's entry (absent means all defaults).
    pub fn from_json(value: Option<serde_json::Value>) -> Result<Settings> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(Settings::default()),
            Some(value) => serde_json::from_value(value).map_err(|e| {
                format!("context_servers.memdir.settings: {e}; see the memdir extension's settings schema")
            }),
        }
    }

    /// The command that starts the server with `binary`.
    pub fn command(&self, binary: String) -> Command {
        let mut args = vec!["mcp".to_string()];
        if let Some(dir) = &self.project_dir {
            args.extend(["--cwd".to_string(), dir.clone()]);
        }
        if let Some(llm) = &self.llm {
            args.extend(["--llm".to_string(), llm.clone()]);
        }
        let flag = |on: bool| if on { "1" } else { "0" }.to_string();
        let mut env = Vec::new();
        if let Some(on) = self.auto_memory {
            env.push(("CLAUDE_CODE_DISABLE_AUTO_MEMORY".to_string(), flag(!on)));
        }
        if let Some(on) = self.daily_log {
            env.push(("MEMDIR_DAILY_LOG".to_string(), flag(on)));
        }
        if let Some(on) = self.team_memory {
            env.push(("MEMDIR_TEAM_MEMORY".to_string(), flag(on)));
        }
        if let Some(dir) = &self.config_dir {
            env.push(("CLAUDE_CONFIG_DIR".to_string(), dir.clone()));
        }
        Command { command: binary, args, env }
    }

    /// `binary_path`, else `memdir` found on PATH, else the installation message.
    fn binary(&self) -> Result<String> {
        if let Some(path) = &self.binary_path {
            return Ok(path.clone());
        }
        let found = zed::process::Command::new("sh").args(["-c", "command -v memdir"]).output();
        match found {
            Ok(output) if output.status == Some(0) => {
                let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
                if path.starts_with('/') { Ok(path) } else { Err(INSTALL.to_string()) }
            }
            Ok(_) => Err(INSTALL.to_string()),
            Err(e) => Err(format!("{INSTALL} (PATH could not be searched: {e})")),
        }
    }
}

/// The settings schema, as Zed validates the user's settings against it.
pub fn settings_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Settings)).expect("a schema serialises")
}

struct MemdirExtension;

impl zed::Extension for MemdirExtension {
    fn new() -> Self {
        MemdirExtension
    }

    fn context_server_command(&mut self, id: &ContextServerId, project: &Project) -> Result<Command> {
        if id.as_ref() != SERVER_ID {
            return Err(format!("the memdir extension has no context server {:?}", id.as_ref()));
        }
        let settings = Settings::from_json(ContextServerSettings::for_project(SERVER_ID, project)?.settings)?;
        let binary = settings.binary()?;
        Ok(settings.command(binary))
    }

    fn context_server_configuration(
        &mut self,
        _id: &ContextServerId,
        _project: &Project,
    ) -> Result<Option<ContextServerConfiguration>> {
        Ok(Some(ContextServerConfiguration {
            installation_instructions: INSTALL.to_string(),
            settings_schema: settings_schema(),
            default_settings: DEFAULT_SETTINGS.to_string(),
        }))
    }
}

// The macro's exported items carry no docs of their own.
#[allow(missing_docs)]
mod registration {
    use super::{MemdirExtension, zed};
    zed::register_extension!(MemdirExtension);
}
