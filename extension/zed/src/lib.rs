//! The memdir extension for Zed: registers `memdir mcp` as a context server, so Zed's agent
//! gets the same memory as the user's other agents and editors.
//!
//! Zed starts a context server in the project's root directory, and the extension API hands
//! `context_server_command` a project without its paths, so the server's own working
//! directory is the project unless `project_dir` says otherwise. The extension only decides
//! the command: which binary, which arguments, which switches as environment variables.
//!
//! The binary, in order: `binary_path`; `memdir` on PATH; else the latest release of the
//! release repository for this platform, downloaded once and kept only when it matches the
//! release's SHA256SUMS (unless `download` is false). Without GitHub, the newest release
//! downloaded before. The extension API has a PATH lookup (`Worktree::which`) only for language
//! servers: a context server is given a project without worktrees, so PATH is searched through
//! the granted `process:exec` commands, `sh -c "command -v memdir"` on Unix and `where.exe
//! memdir` on Windows.
//!
//! Settings from a project's `.zed/settings.json` (a `binary_path`, a `release_repo`) take effect
//! only once the user trusts that worktree: Zed's Restricted Mode runs and downloads nothing for
//! an untrusted one.

use schemars::JsonSchema;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use zed_extension_api::settings::ContextServerSettings;
use zed_extension_api::{
    self as zed, Architecture, Command, ContextServerConfiguration, ContextServerId, DownloadedFileType,
    GithubReleaseOptions, Os, Project, Result,
};

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
    /// Download the latest release binary when memdir is not on PATH (default true). It is
    /// checked against the release's SHA256SUMS before it is used. This guards against a
    /// corrupted download; it trusts the release as much as GitHub does.
    pub download: Option<bool>,
    /// The GitHub repository ("owner/name") releases are downloaded from. By default the one
    /// this extension was built from, when that is a GitHub repository.
    pub release_repo: Option<String>,
}

/// How to install memdir, shown when Zed cannot start the server.
pub const INSTALL: &str = "memdir was not found. Build it from the memdir repository with \
`cargo install --locked --path cli` (it installs `memdir` into ~/.cargo/bin), make sure \
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

    /// `binary_path`; else `memdir` on PATH; else a release binary (`checked` remembers the one
    /// this Zed session settled on, so GitHub is asked once a session); else the installation
    /// message.
    fn binary(&self, checked: &mut Option<String>) -> Result<String> {
        if let Some(path) = &self.binary_path {
            return Ok(path.clone());
        }
        let searched = match on_path() {
            Ok(Some(path)) => return Ok(path),
            Ok(None) => String::new(),
            Err(e) => format!(" (PATH could not be searched: {e})"),
        };
        if self.download == Some(false) {
            return Err(format!("{INSTALL}{searched}"));
        }
        let Some(repo) = self.release_repo.clone().or_else(default_repo) else {
            return Err(format!(
                "{INSTALL}{searched} (no release to download: this build names no GitHub repository; set \
                 release_repo to \"owner/name\")"
            ));
        };
        if let Some(path) = checked.as_ref().filter(|p| std::fs::metadata(p).is_ok()) {
            return Ok(path.clone());
        }
        let path = release(&repo)
            .map_err(|e| format!("{INSTALL}{searched} (downloading a release from {repo}: {e})"))?;
        *checked = Some(path.clone());
        Ok(path)
    }
}

/// `memdir` on PATH, through the search command this platform has.
fn on_path() -> Result<Option<String>> {
    let (os, _) = zed::current_platform();
    let output = match os {
        Os::Windows => zed::process::Command::new("where.exe").arg("memdir").output()?,
        Os::Mac | Os::Linux => zed::process::Command::new("sh").args(["-c", "command -v memdir"]).output()?,
    };
    if output.status != Some(0) {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let first = text.lines().next().unwrap_or("").trim().to_string();
    let absolute = first.starts_with('/') || first.get(1..3) == Some(":\\");
    Ok(absolute.then_some(first))
}

/// The repository a release build names (`CARGO_PKG_REPOSITORY` of a GitHub URL).
fn default_repo() -> Option<String> {
    let url = env!("CARGO_PKG_REPOSITORY");
    let rest = url.strip_prefix("https://github.com/")?.trim_end_matches('/').trim_end_matches(".git");
    (rest.split('/').count() == 2).then(|| rest.to_string())
}

/// The Rust target a release names its binary after.
fn release_target() -> Result<(&'static str, &'static str)> {
    Ok(match zed::current_platform() {
        (Os::Linux, Architecture::X8664) => ("x86_64-unknown-linux-gnu", ""),
        (Os::Linux, Architecture::Aarch64) => ("aarch64-unknown-linux-gnu", ""),
        (Os::Mac, Architecture::Aarch64) => ("aarch64-apple-darwin", ""),
        (Os::Mac, Architecture::X8664) => ("x86_64-apple-darwin", ""),
        (Os::Windows, Architecture::X8664) => ("x86_64-pc-windows-gnu", ".exe"),
        (os, arch) => return Err(format!("no release is built for {os:?} on {arch:?}")),
    })
}

/// Where a repository's releases go, under the extension's work directory:
/// `downloads/<owner>/<name>/<version>/`. A repository name is GitHub's: letters, digits, `.`,
/// `-`, `_`.
fn download_dir(repo: &str) -> Result<String> {
    let parts: Vec<&str> = repo.split('/').collect();
    let valid = |p: &&str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    if parts.len() != 2 || !parts.iter().all(valid) {
        return Err(format!("{repo:?} is not a GitHub repository (owner/name)"));
    }
    Ok(format!("downloads/{repo}"))
}

/// A release version fit to be a directory name: `1.2.3`, `1.2.3-rc.1`.
fn valid_version(version: &str) -> bool {
    !version.is_empty()
        && version.len() <= 64
        && version.starts_with(|c: char| c.is_ascii_digit())
        && version.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
}

/// How versions order: numerically part by part (`0.10.0` after `0.9.0`).
fn version_key(version: &str) -> Vec<(u64, String)> {
    version.split(['.', '-', '+']).map(|part| (part.parse().unwrap_or(0), part.to_string())).collect()
}

/// The newest release of `repo` downloaded and checked before (only a checked binary is ever
/// renamed into place).
fn downloaded(repo: &str) -> Option<String> {
    let (_, exe) = release_target().ok()?;
    let dir = download_dir(repo).ok()?;
    let mut versions: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|v| valid_version(v) && std::fs::metadata(format!("{dir}/{v}/memdir{exe}")).is_ok())
        .collect();
    versions.sort_by_key(|v| version_key(v));
    absolute(&format!("{dir}/{}/memdir{exe}", versions.pop()?)).ok()
}

/// The latest release's binary for this platform: already downloaded, or downloaded now with
/// its SHA256SUMS and kept only when its digest is the one listed. Without an answer from
/// GitHub, the newest one downloaded before.
fn release(repo: &str) -> Result<String> {
    let (target, exe) = release_target()?;
    let dir = download_dir(repo)?;
    let options = GithubReleaseOptions { require_assets: true, pre_release: false };
    let release = match zed::latest_github_release(repo, options) {
        Ok(release) => release,
        Err(e) => return downloaded(repo).ok_or(e),
    };
    let version = release.version.trim_start_matches('v');
    if !valid_version(version) {
        return Err(format!("the release's version {:?} is not a version", release.version));
    }
    let dir = format!("{dir}/{version}");
    let binary = format!("{dir}/memdir{exe}");
    if std::fs::metadata(&binary).is_ok() {
        return absolute(&binary);
    }
    let name = format!("memdir-{version}-{target}{exe}");
    let asset = |wanted: &str| {
        release
            .assets
            .iter()
            .find(|a| a.name == wanted)
            .ok_or_else(|| format!("release {version} has no {wanted}"))
    };
    let (binary_asset, sums_asset) = (asset(&name)?, asset("SHA256SUMS")?);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
    let (sums, part) = (format!("{dir}/SHA256SUMS"), format!("{dir}/memdir.part"));
    zed::download_file(&sums_asset.download_url, &sums, DownloadedFileType::Uncompressed)?;
    zed::download_file(&binary_asset.download_url, &part, DownloadedFileType::Uncompressed)?;
    let listed = std::fs::read_to_string(&sums).map_err(|e| format!("SHA256SUMS: {e}"))?;
    let expected = listed_digest(&listed, &name).ok_or_else(|| format!("SHA256SUMS lists no {name}"))?;
    let bytes = std::fs::read(&part).map_err(|e| format!("{part}: {e}"))?;
    let actual: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    if actual != expected {
        let _ = std::fs::remove_file(&part);
        return Err(format!(
            "{name} does not match its checksum in SHA256SUMS (got {actual}); it was deleted"
        ));
    }
    std::fs::rename(&part, &binary).map_err(|e| format!("{binary}: {e}"))?;
    zed::make_file_executable(&binary)?;
    absolute(&binary)
}

/// The digest `sha256sum` listed for `name` (`<hex>  <name>`, the name maybe `./`-prefixed).
pub fn listed_digest(sums: &str, name: &str) -> Option<String> {
    sums.lines().find_map(|line| {
        let (hex, file) = line.split_once(char::is_whitespace)?;
        let file = file.trim_start().trim_start_matches('*').trim_start_matches("./");
        (file == name && hex.len() == 64).then(|| hex.to_ascii_lowercase())
    })
}

/// A path under the extension's work directory, absolute (Zed starts servers elsewhere).
fn absolute(relative: &str) -> Result<String> {
    let dir = std::env::current_dir().map_err(|e| format!("the extension's directory: {e}"))?;
    Ok(dir.join(relative).to_string_lossy().into_owned())
}

/// The settings schema, as Zed validates the user's settings against it.
pub fn settings_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Settings)).expect("a schema serialises")
}

struct MemdirExtension {
    /// The release binary this Zed session settled on.
    checked: Option<String>,
}

impl zed::Extension for MemdirExtension {
    fn new() -> Self {
        MemdirExtension { checked: None }
    }

    fn context_server_command(&mut self, id: &ContextServerId, project: &Project) -> Result<Command> {
        if id.as_ref() != SERVER_ID {
            return Err(format!("the memdir extension has no context server {:?}", id.as_ref()));
        }
        let settings = Settings::from_json(ContextServerSettings::for_project(SERVER_ID, project)?.settings)?;
        let binary = settings.binary(&mut self.checked)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_number_and_only_plain_ones_are_kept() {
        let mut versions = vec!["0.10.0", "0.9.0", "0.9.12", "1.0.0-rc.1"];
        versions.sort_by_key(|v| version_key(v));
        assert_eq!(versions, ["0.9.0", "0.9.12", "0.10.0", "1.0.0-rc.1"]);
        for bad in ["", "../1", ".1", "1/2", "v1.0", "1.0\0"] {
            assert!(!valid_version(bad), "{bad:?}");
        }
        assert!(valid_version("1.2.3+build.4"));
    }

    #[test]
    fn a_checksum_line_names_its_file_exactly() {
        let hex = "a".repeat(64);
        let sums = format!("{hex}  ./memdir-1-x\n{}  memdir-1-x.sig\n", "b".repeat(64));
        assert_eq!(listed_digest(&sums, "memdir-1-x"), Some(hex));
        assert_eq!(listed_digest(&sums, "memdir-1"), None);
        assert_eq!(listed_digest("short  memdir-1-x\n", "memdir-1-x"), None);
    }
}
