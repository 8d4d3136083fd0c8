//! The agents `memdir setup` knows: where each keeps its user-scope MCP servers, in what
//! format, the entry it expects, and how to tell it is installed. Formats are checked against
//! each client's own documentation (docs/mcp.md lists the sources).

use super::edit::{Format, Place};
use serde_json::{Value, json};
use std::path::PathBuf;

/// One client.
#[derive(Debug)]
pub struct Client {
    /// What `--client` takes.
    pub id: &'static str,
    /// How output names it.
    pub title: &'static str,
    /// Where it keeps its MCP servers; None for a client whose server list is in a format setup
    /// does not edit (cn's YAML).
    pub server: Option<ServerFile>,
    /// Directories whose presence means the client has been installed or run.
    pub marks: Vec<PathBuf>,
    /// Executables on PATH that mean the same.
    pub executables: &'static [&'static str],
    /// Where memdir's own extension for this client would be installed: a directory and the
    /// name of its entry. With it installed, the client already has memdir, and setup leaves it
    /// alone.
    pub extension: Option<(PathBuf, Installed)>,
    /// Its lifecycle hooks, where it has hooks memdir installs (R14).
    pub hooks: Option<HookFile>,
    /// Its lifecycle hooks as one executable per event in a folder it scans (Cline).
    pub scripts: Option<HookScripts>,
    /// Where memdir's plugin goes, for a client whose hooks are plugins in its own process
    /// (opencode): a small file setup writes whole, which loads `@memdir/opencode`.
    pub plugin: Option<PathBuf>,
    shape: Shape,
}

/// A client's file of MCP servers.
#[derive(Debug)]
pub struct ServerFile {
    /// Where in the file the servers are.
    pub place: Place,
    pub file: PathBuf,
}

/// Hooks that are executables named after their event, in one folder (Cline runs
/// `~/Documents/Cline/Hooks/<Event>` with bash). Each is a small script setup writes whole.
#[derive(Debug)]
pub struct HookScripts {
    pub dir: PathBuf,
    /// What `memdir hook` takes as the client.
    pub client: &'static str,
    /// The client's event names (the file names) and `memdir hook`'s.
    pub events: &'static [(&'static str, &'static str)],
}

/// The first line after the shebang of every hook script setup writes: how setup knows the
/// file is its own.
const SCRIPT_MARK: &str =
    "# memdir's hook: automatic memory. Written by `memdir setup`; `memdir setup --remove` deletes it.";

impl HookScripts {
    /// Each script's path and text: `exec program hook CLIENT EVENT`, the stop with `llm`.
    pub fn scripts(&self, program: &str, llm: Option<&str>) -> Vec<(PathBuf, String)> {
        self.events
            .iter()
            .map(|(name, ours)| {
                let command = hook_command(program, self.client, ours, llm);
                (self.dir.join(name), format!("#!/bin/sh\n{SCRIPT_MARK}\nexec {command}\n"))
            })
            .collect()
    }

    /// Whether `text` is a script setup wrote.
    pub fn is_memdirs(text: &str) -> bool {
        text.lines().nth(1) == Some(SCRIPT_MARK)
    }
}

/// A client's user-level hook file and the items memdir puts in it.
#[derive(Debug)]
pub struct HookFile {
    pub file: PathBuf,
    /// What `memdir hook` takes as the client.
    pub client: &'static str,
    /// The client's event names and `memdir hook`'s, in the order they are written.
    pub events: &'static [(&'static str, &'static str)],
    pub style: HookStyle,
    /// What the user must do before the client runs them, if anything.
    pub trust: Option<&'static str>,
}

/// How a client spells one hook.
#[derive(Debug, Clone, Copy)]
pub enum HookStyle {
    /// The terminal agent's nesting, `{"hooks": [{"type": "command", "command", "timeout"}]}`;
    /// Gemini CLI also names each one and counts the timeout in milliseconds.
    Nested { timeout: u64, named: bool },
    /// `{"type": "command", "command", "timeout"}` (Copilot).
    Flat { timeout: u64 },
    /// `{"command"}` under a file-level `"version": 1` (Cursor).
    Cursor,
}

impl HookFile {
    /// memdir's items: `program hook CLIENT EVENT` for each event; the stop hook with `llm`.
    pub fn set(&self, program: &str, llm: Option<&str>) -> super::hooks::HookSet {
        let items = self
            .events
            .iter()
            .map(|(event, ours)| {
                let command = hook_command(program, self.client, ours, llm);
                let item = match self.style {
                    HookStyle::Nested { timeout, named } => {
                        let mut hook = json!({ "type": "command", "command": command, "timeout": timeout });
                        if named {
                            hook["name"] = json!(format!("memdir-{ours}"));
                        }
                        json!({ "hooks": [hook] })
                    }
                    HookStyle::Flat { timeout } => {
                        json!({ "type": "command", "command": command, "timeout": timeout })
                    }
                    HookStyle::Cursor => json!({ "command": command }),
                };
                (event.to_string(), item)
            })
            .collect();
        let header = match self.style {
            HookStyle::Cursor => vec![("version", json!(1))],
            _ => Vec::new(),
        };
        super::hooks::HookSet { header, items }
    }
}

/// `program hook CLIENT EVENT` as a shell command; the stop with `--llm` (prompt time never
/// waits for a model).
fn hook_command(program: &str, client: &str, event: &str, llm: Option<&str>) -> String {
    let mut command = format!("{} hook {client} {event}", super::hooks::shell_word(program));
    if let (Some(llm), "stop") = (llm, event) {
        command.push_str(&format!(" --llm {}", super::hooks::shell_word(llm)));
    }
    command
}

/// How an editor names an installed extension's directory.
#[derive(Debug, Clone, Copy)]
pub enum Installed {
    /// Exactly its id (Zed).
    As(&'static str),
    /// Its id, `-` and its version (VS Code: `memdir.memdir-0.3.0`).
    Versioned(&'static str),
}

/// How a client spells a stdio server.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `{"command", "args"}`.
    Plain,
    /// `{"type": "stdio", "command", "args"}`.
    Typed,
    /// Zed: `{"command", "args", "env": {}}` (its `"source": "custom"` is deprecated; Zed's
    /// settings migration drops it).
    WithEnv,
    /// Claude Code: `{"type": "stdio", "command", "args", "env": {}}`, as `claude mcp add` writes.
    Claude,
    /// opencode: `{"type": "local", "command": [program, args…], "enabled": true}`.
    Opencode,
}

impl Client {
    /// memdir's own extension for this client is installed.
    pub fn has_memdir_extension(&self) -> bool {
        let Some((dir, installed)) = &self.extension else { return false };
        let Ok(entries) = std::fs::read_dir(dir) else { return false };
        entries.flatten().filter_map(|e| e.file_name().into_string().ok()).any(|entry| match installed {
            Installed::As(name) => entry == *name,
            Installed::Versioned(name) => entry
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit())),
        })
    }

    /// The entry that starts `program mcp`. An earlier memdir entry (`old`, one that runs `mcp`)
    /// keeps what the user added to it: the arguments after `mcp` (such as the `--llm` that
    /// docs/mcp.md recommends) and every key but the ones that say what to start (`env`, a
    /// timeout…). Someone else's entry under the name is replaced whole; the backup keeps it.
    pub fn entry(&self, program: &str, old: Option<&Value>) -> Value {
        let mine = old.and_then(|old| {
            let (_, args) = Client::command_of(old)?;
            let after = args.iter().position(|a| a == "mcp")? + 1;
            Some((old.as_object()?, args[after..].to_vec()))
        });
        let mut args = vec!["mcp".to_string()];
        if let Some((_, extra)) = &mine {
            args.extend_from_slice(extra);
        }
        let mut entry = match self.shape {
            Shape::Plain => json!({ "command": program, "args": args }),
            Shape::Typed => json!({ "type": "stdio", "command": program, "args": args }),
            Shape::WithEnv => json!({ "command": program, "args": args, "env": {} }),
            Shape::Claude => json!({ "type": "stdio", "command": program, "args": args, "env": {} }),
            Shape::Opencode => {
                let command: Vec<&str> =
                    std::iter::once(program).chain(args.iter().map(String::as_str)).collect();
                json!({ "type": "local", "command": command, "enabled": true })
            }
        };
        if let (Some((old, _)), Value::Object(entry)) = (mine, &mut entry) {
            for (key, value) in old.iter().filter(|(k, _)| !["type", "command", "args"].contains(&k.as_str()))
            {
                entry.insert(key.clone(), value.clone());
            }
        }
        entry
    }

    /// The program and arguments a registered entry starts, in any of the shapes.
    pub fn command_of(entry: &Value) -> Option<(String, Vec<String>)> {
        let strings = |v: &Value| -> Option<Vec<String>> {
            v.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect()
        };
        match entry.get("command")? {
            Value::String(program) => {
                let args = entry.get("args").map(strings).unwrap_or(Some(Vec::new()))?;
                Some((program.clone(), args))
            }
            command => {
                let mut all = strings(command)?;
                (!all.is_empty()).then(|| (all.remove(0), all))
            }
        }
    }
}

/// Where the user's files are, from the environment the command was given.
pub struct Dirs {
    /// `$HOME` (or `%USERPROFILE%`).
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config` (where Zed and opencode look on every Unix).
    pub xdg_config: PathBuf,
    /// Where VS Code keeps its user profile's parent: `~/.config` on Linux, `~/Library/Application
    /// Support` on macOS, `%APPDATA%` on Windows.
    pub app_config: PathBuf,
    /// `$XDG_DATA_HOME`, else `~/.local/share` (where Zed installs extensions on Linux).
    pub xdg_data: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    /// `$CLAUDE_CONFIG_DIR`: Claude Code's directory, and where its `.claude.json` is instead of
    /// the home.
    pub claude_config: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME`, which replaces the home directory for Gemini CLI.
    pub gemini_home: PathBuf,
    /// Cline's data: `$CLINE_DATA_DIR`, else `data` in `$CLINE_DIR` (else `~/.cline`).
    pub cline_data: PathBuf,
    /// Continue's: `$CONTINUE_GLOBAL_DIR`, else `~/.continue`.
    pub continue_dir: PathBuf,
}

impl Dirs {
    /// From `HOME` (or `USERPROFILE`) and the variables that move each client's directory.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Option<Dirs> {
        let home = PathBuf::from(var("HOME").or_else(|| var("USERPROFILE"))?);
        let xdg_config = var("XDG_CONFIG_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".config"));
        let app_config = if cfg!(windows) {
            var("APPDATA").map(PathBuf::from).unwrap_or_else(|| home.join("AppData/Roaming"))
        } else if cfg!(target_os = "macos") {
            home.join("Library/Application Support")
        } else {
            xdg_config.clone()
        };
        Some(Dirs {
            xdg_data: var("XDG_DATA_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".local/share")),
            gemini_home: var("GEMINI_CLI_HOME").map(PathBuf::from).unwrap_or_else(|| home.clone()),
            codex_home: var("CODEX_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".codex")),
            claude_config: var("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            cline_data: var("CLINE_DATA_DIR").map(PathBuf::from).unwrap_or_else(|| {
                var("CLINE_DIR").map(PathBuf::from).unwrap_or_else(|| home.join(".cline")).join("data")
            }),
            continue_dir: var("CONTINUE_GLOBAL_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".continue")),
            xdg_config,
            app_config,
            home,
        })
    }

    /// Where Zed installs extensions.
    fn zed_extensions(&self) -> PathBuf {
        let data = if cfg!(windows) {
            self.app_config.parent().unwrap_or(&self.app_config).join("Local/Zed")
        } else if cfg!(target_os = "macos") {
            self.home.join("Library/Application Support/Zed")
        } else {
            self.xdg_data.join("zed")
        };
        data.join("extensions/installed")
    }

    fn zed_settings(&self) -> PathBuf {
        if cfg!(windows) {
            self.app_config.join("Zed/settings.json")
        } else {
            self.xdg_config.join("zed/settings.json")
        }
    }
}

const JSON: Format = Format::Json;

/// Every client, in the order output lists them.
pub fn all(dirs: &Dirs) -> Vec<Client> {
    let home = &dirs.home;
    let claude_dir = dirs.claude_config.clone().unwrap_or_else(|| home.join(".claude"));
    let claude_file = dirs.claude_config.as_ref().unwrap_or(home).join(".claude.json");
    let vscode_user = dirs.app_config.join("Code/User");
    vec![
        Client {
            id: "claude",
            title: "Claude Code",
            marks: vec![claude_dir, claude_file.clone()],
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcpServers"] },
                file: claude_file,
            }),
            executables: &["claude"],
            extension: None,
            hooks: None,
            scripts: None,
            plugin: None,
            shape: Shape::Claude,
        },
        Client {
            id: "cursor",
            title: "Cursor",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcpServers"] },
                file: home.join(".cursor/mcp.json"),
            }),
            marks: vec![home.join(".cursor")],
            executables: &["cursor"],
            extension: None,
            hooks: Some(HookFile {
                file: home.join(".cursor/hooks.json"),
                client: "cursor",
                events: &[
                    ("sessionStart", "session-start"),
                    ("beforeSubmitPrompt", "prompt"),
                    ("stop", "stop"),
                    ("preCompact", "pre-compact"),
                ],
                style: HookStyle::Cursor,
                trust: None,
            }),
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "vscode",
            title: "VS Code",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["servers"] },
                file: vscode_user.join("mcp.json"),
            }),
            marks: vec![vscode_user.clone()],
            executables: &["code"],
            // Its tools reach agent mode through VS Code's own API.
            extension: Some((dirs.home.join(".vscode/extensions"), Installed::Versioned("memdir.memdir"))),
            hooks: None,
            scripts: None,
            plugin: None,
            shape: Shape::Typed,
        },
        Client {
            id: "copilot",
            title: "Copilot in VS Code",
            // Its MCP servers are VS Code's (the vscode client); these are its agent's hooks, in a
            // file of their own, which memdir's extension also writes.
            server: None,
            marks: vec![vscode_user, home.join(".copilot")],
            executables: &["code"],
            extension: None,
            // It cannot take text at prompt time (recall goes through the tools); the prompt
            // hook keeps the prompt for the stop.
            hooks: Some(HookFile {
                file: home.join(".copilot/hooks/memdir.json"),
                client: "copilot",
                events: &[
                    ("SessionStart", "session-start"),
                    ("UserPromptSubmit", "prompt"),
                    ("Stop", "stop"),
                    ("PreCompact", "pre-compact"),
                ],
                style: HookStyle::Flat { timeout: 10 },
                trust: None,
            }),
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "zed",
            title: "Zed",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["context_servers"] },
                file: dirs.zed_settings(),
            }),
            marks: vec![dirs.zed_settings().parent().map(PathBuf::from).unwrap_or_default()],
            executables: &["zed", "zeditor"],
            // It starts `memdir mcp` as a context server.
            extension: Some((dirs.zed_extensions(), Installed::As("memdir"))),
            hooks: None,
            scripts: None,
            plugin: None,
            shape: Shape::WithEnv,
        },
        Client {
            id: "codex",
            title: "Codex CLI",
            server: Some(ServerFile {
                place: Place { format: Format::Toml, servers: &["mcp_servers"] },
                file: dirs.codex_home.join("config.toml"),
            }),
            marks: vec![dirs.codex_home.clone()],
            executables: &["codex"],
            extension: None,
            hooks: Some(HookFile {
                file: dirs.codex_home.join("hooks.json"),
                client: "codex",
                events: &[
                    ("SessionStart", "session-start"),
                    ("UserPromptSubmit", "prompt"),
                    ("Stop", "stop"),
                    ("PreCompact", "pre-compact"),
                ],
                style: HookStyle::Nested { timeout: 10, named: false },
                trust: Some(
                    "Codex runs a new or changed hook only once you trust it: open `codex`, type /hooks and trust memdir's four",
                ),
            }),
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "gemini",
            title: "Gemini CLI",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcpServers"] },
                file: dirs.gemini_home.join(".gemini/settings.json"),
            }),
            marks: vec![dirs.gemini_home.join(".gemini")],
            executables: &["gemini"],
            extension: None,
            hooks: Some(HookFile {
                file: dirs.gemini_home.join(".gemini/settings.json"),
                client: "gemini",
                // Not PreCompress: Gemini CLI 0.61 fires it before every turn that has history.
                events: &[
                    ("SessionStart", "session-start"),
                    ("BeforeAgent", "prompt"),
                    ("AfterAgent", "stop"),
                ],
                style: HookStyle::Nested { timeout: 10_000, named: true },
                trust: None,
            }),
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "opencode",
            title: "opencode",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcp"] },
                file: dirs.xdg_config.join("opencode/opencode.json"),
            }),
            marks: vec![dirs.xdg_config.join("opencode")],
            executables: &["opencode"],
            extension: None,
            hooks: None,
            scripts: None,
            plugin: Some(dirs.xdg_config.join("opencode/plugin/memdir.js")),
            shape: Shape::Opencode,
        },
        Client {
            id: "cline",
            title: "Cline",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcpServers"] },
                file: dirs.cline_data.join("settings/cline_mcp_settings.json"),
            }),
            marks: vec![dirs.cline_data.clone(), home.join("Documents/Cline")],
            executables: &["cline"],
            extension: None,
            hooks: None,
            // Cline 3.0.65 looks here (and in ~/.cline/hooks); its VS Code extension too.
            scripts: Some(HookScripts {
                dir: home.join("Documents/Cline/Hooks"),
                client: "cline",
                events: &[
                    ("TaskStart", "session-start"),
                    ("UserPromptSubmit", "prompt"),
                    ("TaskComplete", "stop"),
                ],
            }),
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "cn",
            title: "Continue's cn",
            // Its MCP servers are in config.yaml, which setup does not edit (docs/agents.md).
            server: None,
            marks: vec![dirs.continue_dir.clone()],
            executables: &["cn"],
            extension: None,
            // cn reads the terminal agent's shape; it fires no compaction hook.
            hooks: Some(HookFile {
                file: dirs.continue_dir.join("settings.json"),
                client: "cn",
                events: &[
                    ("SessionStart", "session-start"),
                    ("UserPromptSubmit", "prompt"),
                    ("Stop", "stop"),
                ],
                style: HookStyle::Nested { timeout: 10, named: false },
                trust: None,
            }),
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
        Client {
            id: "windsurf",
            title: "Windsurf",
            server: Some(ServerFile {
                place: Place { format: JSON, servers: &["mcpServers"] },
                file: home.join(".codeium/windsurf/mcp_config.json"),
            }),
            marks: vec![home.join(".codeium/windsurf")],
            executables: &["windsurf"],
            extension: None,
            hooks: None,
            scripts: None,
            plugin: None,
            shape: Shape::Plain,
        },
    ]
}

/// Whether the client looks installed: one of its directories exists, or its program is on
/// `path` (the PATH variable's value).
pub fn installed(client: &Client, path: Option<&str>) -> bool {
    if client.marks.iter().any(|m| m.exists()) {
        return true;
    }
    let Some(path) = path else { return false };
    std::env::split_paths(path).any(|dir| {
        client.executables.iter().any(|exe| {
            let candidate = dir.join(exe);
            candidate.is_file() || (cfg!(windows) && dir.join(format!("{exe}.exe")).is_file())
        })
    })
}
