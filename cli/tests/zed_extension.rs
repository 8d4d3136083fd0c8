//! The Zed extension (`extension/zed/`), built for `wasm32-wasip2` and loaded headless in
//! wasmtime against the WIT that `zed_extension_api` 0.7 ships (world `zed:extension`,
//! `since_v0.6.0`). The host here plays Zed's part: it answers `get-settings` with a scenario's
//! settings, runs `process:exec` commands for real but only those `extension.toml` grants,
//! serves a fake GitHub release from local files (`latest-github-release`, `download-file`) into
//! the extension's work directory, and traps on every other import. Each scenario checks the
//! command, arguments and environment the extension returns; the last one starts that command
//! and talks MCP to it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use wasmtime::component::{Component, Linker, Resource, ResourceAny, ResourceTable, ResourceType, Val};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository").to_path_buf()
}

/// Builds the extension once per test run, in its own target directory (cargo is running us).
fn extension_wasm() -> &'static Path {
    static WASM: OnceLock<PathBuf> = OnceLock::new();
    WASM.get_or_init(|| {
        let target_dir = repo().join("target/zed-extension");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(repo())
            .args([
                "build",
                "--locked",
                "--profile",
                "guest",
                "-p",
                "memdir-zed",
                "--target",
                "wasm32-wasip2",
            ])
            .arg("--target-dir")
            .arg(&target_dir)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the Zed extension builds for wasm32-wasip2");
        target_dir.join("wasm32-wasip2/guest/memdir_zed.wasm")
    })
}

/// What Zed would know: the user's settings for the server, the PATH it runs commands with,
/// and whether it grants the extension's `process:exec` capability.
struct Zed {
    settings: serde_json::Value,
    path: String,
    grant_exec: bool,
    /// The latest release Zed would find on GitHub: its version and assets (name, local file).
    release: Option<(String, Vec<(String, PathBuf)>)>,
    /// How often the extension asked for the latest release, and downloaded a file.
    release_asked: u32,
    downloads: u32,
    /// The extension's work directory on this machine (its `.` inside the sandbox).
    work: Option<PathBuf>,
    wasi: WasiCtx,
    table: ResourceTable,
}

/// Where Zed puts the extension's work directory, as the extension sees it.
const WORK: &str = "/extensions/work/memdir";

impl WasiView for Zed {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

struct Project;

/// The `process:exec` capabilities `extension.toml` declares, read from the manifest itself.
fn granted_exec() -> Vec<(String, Vec<String>)> {
    let manifest = std::fs::read_to_string(repo().join("extension/zed/extension.toml")).unwrap();
    let manifest: toml_edit::DocumentMut = manifest.parse().unwrap();
    let capabilities = manifest["capabilities"].as_array_of_tables().unwrap();
    capabilities
        .iter()
        .filter(|c| c["kind"].as_str() == Some("process:exec"))
        .map(|c| {
            let args =
                c["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
            (c["command"].as_str().unwrap().to_string(), args)
        })
        .collect()
}

/// A Val of a WIT `result<_, string>`.
fn unit_result(outcome: Result<(), String>) -> Val {
    Val::Result(outcome.map(|()| None).map_err(|e| Some(Box::new(Val::String(e)))))
}

fn string(v: &Val) -> String {
    match v {
        Val::String(s) => s.clone(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn field<'a>(record: &'a Val, name: &str) -> &'a Val {
    match record {
        Val::Record(fields) => {
            &fields.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name}")).1
        }
        other => panic!("expected a record, got {other:?}"),
    }
}

/// Zed's side of the imports the extension uses; every other import traps.
fn linker(engine: &Engine, component: &Component) -> Linker<Zed> {
    let mut linker = Linker::<Zed>::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
    let mut root = linker.root();
    root.resource("project", ResourceType::host::<Project>(), |_, _| Ok(())).unwrap();
    root.func_wrap("[method]project.worktree-ids", |_, (_,): (Resource<Project>,)| Ok((vec![7u64],)))
        .unwrap();
    root.func_new("get-settings", |store, _, params, results| {
        let category = string(&params[1]);
        let key = match &params[2] {
            Val::Option(Some(k)) => string(k),
            _ => String::new(),
        };
        let answer = if category == "context_servers" && key == "memdir" {
            Ok(serde_json::json!({ "settings": store.data().settings }).to_string())
        } else {
            Err(format!("no settings {category}.{key}"))
        };
        results[0] = Val::Result(
            answer.map(|s| Some(Box::new(Val::String(s)))).map_err(|e| Some(Box::new(Val::String(e)))),
        );
        Ok(())
    })
    .unwrap();
    let mut process = linker.instance("zed:extension/process").unwrap();
    process
        .func_new("run-command", |store, _, params, results| {
            let command = string(field(&params[0], "command"));
            let args: Vec<String> = match field(&params[0], "args") {
                Val::List(items) => items.iter().map(string).collect(),
                other => panic!("args: {other:?}"),
            };
            let granted = granted_exec().contains(&(command.clone(), args.clone()));
            let answer = if !store.data().grant_exec || !granted {
                Err(Val::String(format!("capability process:exec {command} {args:?} was not granted")))
            } else {
                let output = Command::new(&command)
                    .args(&args)
                    .env_clear()
                    .env("PATH", &store.data().path)
                    .output()
                    .unwrap();
                let bytes = |b: Vec<u8>| Val::List(b.into_iter().map(Val::U8).collect());
                Ok(Val::Record(vec![
                    ("status".into(), Val::Option(output.status.code().map(|c| Box::new(Val::S32(c))))),
                    ("stdout".into(), bytes(output.stdout)),
                    ("stderr".into(), bytes(output.stderr)),
                ]))
            };
            results[0] = Val::Result(answer.map(|v| Some(Box::new(v))).map_err(|e| Some(Box::new(e))));
            Ok(())
        })
        .unwrap();
    let mut platform = linker.instance("zed:extension/platform").unwrap();
    platform
        .func_new("current-platform", |_, _, _, results| {
            let arch = if cfg!(target_arch = "aarch64") { "aarch64" } else { "x8664" };
            results[0] = Val::Tuple(vec![Val::Enum("linux".into()), Val::Enum(arch.into())]);
            Ok(())
        })
        .unwrap();
    let mut github = linker.instance("zed:extension/github").unwrap();
    github
        .func_new("latest-github-release", |mut store, _, params, results| {
            store.data_mut().release_asked += 1;
            let repo = string(&params[0]);
            results[0] = match (&store.data().release, repo.as_str()) {
                (Some((version, assets)), "memdir-dev/memdir") => {
                    let assets = assets
                        .iter()
                        .map(|(name, file)| {
                            Val::Record(vec![
                                ("name".into(), Val::String(name.clone())),
                                ("download-url".into(), Val::String(format!("file://{}", file.display()))),
                            ])
                        })
                        .collect();
                    let release = Val::Record(vec![
                        ("version".into(), Val::String(version.clone())),
                        ("assets".into(), Val::List(assets)),
                    ]);
                    Val::Result(Ok(Some(Box::new(release))))
                }
                _ => Val::Result(Err(Some(Box::new(Val::String(format!("no releases for {repo}")))))),
            };
            Ok(())
        })
        .unwrap();
    // Zed downloads into the extension's work directory; here the URL is a local file.
    linker
        .root()
        .func_new("download-file", |mut store, _, params, results| {
            store.data_mut().downloads += 1;
            let (url, to) = (string(&params[0]), string(&params[1]));
            let outcome = match (&store.data().work, url.strip_prefix("file://")) {
                (Some(work), Some(from)) if !to.starts_with('/') && !to.contains("..") => {
                    std::fs::copy(from, work.join(&to)).map(|_| ()).map_err(|e| format!("{to}: {e}"))
                }
                _ => Err(format!("cannot download {url} to {to}")),
            };
            results[0] = unit_result(outcome);
            Ok(())
        })
        .unwrap();
    linker
        .root()
        .func_new("make-file-executable", |store, _, params, results| {
            use std::os::unix::fs::PermissionsExt;
            let path = string(&params[0]);
            let work = store.data().work.clone().expect("a work directory");
            let outcome = std::fs::set_permissions(work.join(&path), std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("{path}: {e}"));
            results[0] = unit_result(outcome);
            Ok(())
        })
        .unwrap();
    stub_the_rest(&mut linker, engine, component);
    linker
}

struct Stub;

/// Defines every other non-WASI import as a trap. (`define_unknown_imports_as_traps` would
/// also stub the WASI 0.2.6 names the extension imports, which the linker's WASI satisfies
/// only by semver matching at instantiation.)
fn stub_the_rest(linker: &mut Linker<Zed>, engine: &Engine, component: &Component) {
    use wasmtime::component::types::ComponentItem;
    let defined = [
        "project",
        "[method]project.worktree-ids",
        "get-settings",
        "run-command",
        "current-platform",
        "latest-github-release",
        "download-file",
        "make-file-executable",
    ];
    let trap = |name: String| {
        move |_: wasmtime::StoreContextMut<'_, Zed>,
              _: wasmtime::component::types::ComponentFunc,
              _: &[Val],
              _: &mut [Val]| {
            Err(wasmtime::Error::msg(format!(
                "the extension called {name}, which this test does not provide"
            )))
        }
    };
    for (name, item) in component.component_type().imports(engine) {
        if name.starts_with("wasi:") {
            continue;
        }
        match item.ty {
            ComponentItem::ComponentFunc(_) if !defined.contains(&name) => {
                linker.root().func_new(name, trap(name.to_string())).unwrap()
            }
            ComponentItem::Resource(_) if !defined.contains(&name) => {
                linker.root().resource(name, ResourceType::host::<Stub>(), |_, _| Ok(())).unwrap()
            }
            ComponentItem::ComponentInstance(instance) => {
                let mut inner = linker.instance(name).unwrap();
                for (export, item) in instance.exports(engine) {
                    match item.ty {
                        ComponentItem::ComponentFunc(_) if !defined.contains(&export) => {
                            inner.func_new(export, trap(format!("{name}#{export}"))).unwrap()
                        }
                        ComponentItem::Resource(_) => {
                            inner.resource(export, ResourceType::host::<Stub>(), |_, _| Ok(())).unwrap()
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// The command Zed would get, or the extension's error message.
#[derive(Debug)]
struct Started {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn call(
    export: &str,
    server: &str,
    settings: serde_json::Value,
    path: &str,
    grant_exec: bool,
) -> Result<Val, String> {
    call_in(export, server, zed(settings, path, grant_exec)).0
}

/// What Zed knows, with no release and no work directory.
fn zed(settings: serde_json::Value, path: &str, grant_exec: bool) -> Zed {
    Zed {
        settings,
        path: path.into(),
        grant_exec,
        release: None,
        release_asked: 0,
        downloads: 0,
        work: None,
        wasi: WasiCtx::builder().build(),
        table: ResourceTable::new(),
    }
}

/// Calls `export` with Zed in the given state; the answer, and Zed afterwards.
fn call_in(export: &str, server: &str, mut zed: Zed) -> (Result<Val, String>, Zed) {
    // Compiled once per test run: each scenario then instantiates it afresh.
    static COMPILED: OnceLock<(Engine, Component)> = OnceLock::new();
    let (engine, component) = COMPILED.get_or_init(|| {
        let engine = Engine::default();
        let component = Component::from_file(&engine, extension_wasm()).unwrap();
        (engine, component)
    });
    let linker = linker(engine, component);
    // Zed gives every extension its work directory as PWD (the API's start-up reads it) and
    // as the one directory it may touch, preopened as `.` (relative paths) and by its path.
    let mut wasi = WasiCtx::builder();
    wasi.env("PWD", WORK);
    if let Some(work) = &zed.work {
        wasi.preopened_dir(work, ".", wasmtime_wasi::FsPerms::ReadWrite).unwrap();
        wasi.preopened_dir(work, WORK, wasmtime_wasi::FsPerms::ReadWrite).unwrap();
    }
    zed.wasi = wasi.build();
    let mut store = Store::new(engine, zed);
    let instance = linker.instantiate(&mut store, component).unwrap();
    let init = instance.get_func(&mut store, "init-extension").unwrap();
    init.call(&mut store, &[], &mut []).unwrap();
    let project = ResourceAny::try_from_resource(Resource::<Project>::new_own(0), &mut store).unwrap();
    let func = instance.get_func(&mut store, export).unwrap_or_else(|| panic!("no export {export}"));
    let mut results = [Val::Bool(false)];
    func.call(&mut store, &[Val::String(server.into()), Val::Resource(project)], &mut results).unwrap();
    let answer = match std::mem::replace(&mut results[0], Val::Bool(false)) {
        Val::Result(Ok(value)) => Ok(*value.expect("a value")),
        Val::Result(Err(message)) => Err(string(&message.expect("a message"))),
        other => panic!("expected a result, got {other:?}"),
    };
    (answer, store.into_data())
}

fn command(settings: serde_json::Value, path: &str) -> Result<Started, String> {
    started(call("context-server-command", "memdir", settings, path, true)?)
}

fn started(command: Val) -> Result<Started, String> {
    let list = |v: &Val| match v {
        Val::List(items) => items.clone(),
        other => panic!("expected a list, got {other:?}"),
    };
    Ok(Started {
        command: string(field(&command, "command")),
        args: list(field(&command, "args")).iter().map(string).collect(),
        env: list(field(&command, "env"))
            .iter()
            .map(|pair| match pair {
                Val::Tuple(kv) => (string(&kv[0]), string(&kv[1])),
                other => panic!("expected a pair, got {other:?}"),
            })
            .collect(),
    })
}

/// A directory holding an executable `memdir` that is the real binary.
fn path_with_memdir() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_memdir"), dir.path().join("memdir")).unwrap();
    let path = format!("{}:/usr/bin:/bin", dir.path().display());
    (dir, path)
}

#[test]
fn memdir_on_path_starts_with_no_switches() {
    let (dir, path) = path_with_memdir();
    let started = command(serde_json::Value::Null, &path).unwrap();
    assert_eq!(started.command, dir.path().join("memdir").to_str().unwrap());
    assert_eq!(started.args, ["mcp"]);
    assert!(started.env.is_empty(), "{:?}", started.env);
}

#[test]
fn settings_become_arguments_and_switches() {
    let settings = serde_json::json!({
        "binary_path": "/opt/memdir/bin/memdir",
        "project_dir": "/home/ana/web",
        "llm": "anthropic:claude-haiku-4-5",
        "auto_memory": true,
        "daily_log": true,
        "team_memory": false,
        "config_dir": "/home/ana/.config/claude",
    });
    // binary_path wins: PATH is not even searched.
    let started = command(settings, "/nonexistent").unwrap();
    assert_eq!(started.command, "/opt/memdir/bin/memdir");
    assert_eq!(started.args, ["mcp", "--cwd", "/home/ana/web", "--llm", "anthropic:claude-haiku-4-5"]);
    let env: Vec<(&str, &str)> = started.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        env,
        [
            ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0"),
            ("MEMDIR_DAILY_LOG", "1"),
            ("MEMDIR_TEAM_MEMORY", "0"),
            ("CLAUDE_CONFIG_DIR", "/home/ana/.config/claude"),
        ]
    );
    let off = command(serde_json::json!({ "binary_path": "/b/memdir", "auto_memory": false }), "/x").unwrap();
    assert_eq!(off.env, [("CLAUDE_CODE_DISABLE_AUTO_MEMORY".to_string(), "1".to_string())]);
}

#[test]
fn a_missing_binary_says_how_to_install_it() {
    let empty = tempfile::tempdir().unwrap();
    let message = command(serde_json::json!({}), &format!("{}:/usr/bin:/bin", empty.path().display()))
        .expect_err("no memdir on PATH is an error");
    assert!(message.contains("memdir was not found"), "{message}");
    assert!(message.contains("cargo install --locked --path cli"), "{message}");
    assert!(message.contains("binary_path"), "{message}");
    // Without the exec capability the message is the same, with the reason.
    let (_dir, path) = path_with_memdir();
    let denied = call("context-server-command", "memdir", serde_json::Value::Null, &path, false)
        .expect_err("no PATH search without the capability");
    assert!(denied.contains("memdir was not found") && denied.contains("not granted"), "{denied}");
}

#[test]
fn bad_settings_and_unknown_servers_are_refused() {
    let message = command(serde_json::json!({ "binary": "/x" }), "/x").unwrap_err();
    assert!(
        message.contains("context_servers.memdir.settings") && message.contains("unknown field `binary`"),
        "{message}"
    );
    let message = command(serde_json::json!({ "daily_log": "yes" }), "/x").unwrap_err();
    assert!(message.contains("invalid type"), "{message}");
    let message =
        call("context-server-command", "postgres", serde_json::Value::Null, "/x", true).unwrap_err();
    assert!(message.contains("no context server \"postgres\""), "{message}");
}

#[test]
fn configuration_offers_a_schema_and_defaults() {
    let config = call("context-server-configuration", "memdir", serde_json::Value::Null, "/x", true).unwrap();
    let Val::Option(Some(config)) = config else { panic!("a configuration") };
    let schema: serde_json::Value = serde_json::from_str(&string(field(&config, "settings-schema"))).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    for key in ["binary_path", "project_dir", "llm", "auto_memory", "daily_log", "team_memory", "config_dir"]
    {
        assert!(properties[key]["description"].as_str().is_some_and(|d| !d.is_empty()), "{key} is described");
    }
    assert_eq!(schema["additionalProperties"], false);
    let defaults: serde_json::Value =
        serde_json::from_str(&string(field(&config, "default-settings"))).unwrap();
    // The defaults are valid settings: the command builds from them.
    let (_dir, path) = path_with_memdir();
    assert_eq!(command(defaults, &path).unwrap().args, ["mcp", "--llm", "offline"]);
    assert!(string(field(&config, "installation-instructions")).contains("binary_path"));
}

#[test]
fn the_command_starts_a_working_server() {
    let (_dir, path) = path_with_memdir();
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let settings = serde_json::json!({ "project_dir": project.path(), "llm": "offline" });
    let started = command(settings, &path).unwrap();
    let mut child = Command::new(&started.command)
        .args(&started.args)
        .envs(started.env)
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let hello = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "zed", "version": "1"}}});
    writeln!(stdin, "{hello}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    drop(stdin);
    let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(reply["result"]["serverInfo"]["name"], "memdir", "{line}");
    assert!(child.wait().unwrap().success());
}

/// What the fake release ships as its binary: a small program that says which it is (the real
/// debug binary is hundreds of megabytes, and hashing it in the sandbox is slow).
const FAKE_BINARY: &str = "#!/bin/sh\necho 'memdir 9.9.9 (the fake release)'\n";

/// A fake release of memdir 9.9.9 for this machine: a binary and a SHA256SUMS, whose digest for
/// the binary is `digest` (None: the true one).
fn fake_release(dir: &Path, digest: Option<&str>) -> (String, Vec<(String, PathBuf)>) {
    use sha2::Digest;
    let arch = if cfg!(target_arch = "aarch64") { "aarch64" } else { "x86_64" };
    let name = format!("memdir-9.9.9-{arch}-unknown-linux-gnu");
    let binary = FAKE_BINARY.as_bytes();
    std::fs::write(dir.join(&name), binary).unwrap();
    let hex: String = sha2::Sha256::digest(binary).iter().map(|b| format!("{b:02x}")).collect();
    let sums = format!("{}  ./memdir.1\n{}  ./{name}\n", "0".repeat(64), digest.unwrap_or(&hex));
    std::fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    ("v9.9.9".into(), vec![(name.clone(), dir.join(&name)), ("SHA256SUMS".into(), dir.join("SHA256SUMS"))])
}

/// Where the fake release's binary lands, as the extension sees it and on this machine.
const KEPT: &str = "downloads/memdir-dev/memdir/9.9.9/memdir";

/// Zed with no memdir on PATH, a work directory, and the fake release (None: GitHub unreachable).
fn without_memdir(
    settings: serde_json::Value,
    work: &Path,
    release: Option<(String, Vec<(String, PathBuf)>)>,
) -> Zed {
    // sh and where the system keeps its tools, and no memdir.
    let mut state = zed(settings, "/usr/bin:/bin", true);
    state.release = release;
    state.work = Some(work.to_path_buf());
    state
}

#[test]
fn without_memdir_a_release_is_downloaded_checked_and_kept() {
    let (release_dir, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let settings = serde_json::json!({ "release_repo": "memdir-dev/memdir" });
    let release = || Some(fake_release(release_dir.path(), None));
    let (answer, after) =
        call_in("context-server-command", "memdir", without_memdir(settings.clone(), work.path(), release()));
    assert_eq!(started(answer.unwrap()).unwrap().command, format!("{WORK}/{KEPT}"));
    assert_eq!(
        (after.release_asked, after.downloads),
        (1, 2),
        "the release was asked for, SHA256SUMS and the binary fetched"
    );
    let kept = work.path().join(KEPT);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), FAKE_BINARY);
    // The kept binary runs (it was made executable).
    let version = Command::new(&kept).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "memdir 9.9.9 (the fake release)\n");

    // The next session asks GitHub once more and, the release being the same, downloads nothing.
    let (answer, after) =
        call_in("context-server-command", "memdir", without_memdir(settings.clone(), work.path(), release()));
    assert_eq!(started(answer.unwrap()).unwrap().command, format!("{WORK}/{KEPT}"));
    assert_eq!((after.release_asked, after.downloads), (1, 0));

    // Without GitHub, the release downloaded before still starts.
    let (answer, _) =
        call_in("context-server-command", "memdir", without_memdir(settings, work.path(), None));
    assert_eq!(started(answer.unwrap()).unwrap().command, format!("{WORK}/{KEPT}"));
}

#[test]
fn a_download_that_does_not_match_its_checksum_is_deleted_and_refused() {
    let (release_dir, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let release = Some(fake_release(release_dir.path(), Some(&"ab".repeat(32))));
    let state =
        without_memdir(serde_json::json!({ "release_repo": "memdir-dev/memdir" }), work.path(), release);
    let message = call_in("context-server-command", "memdir", state).0.unwrap_err();
    assert!(message.contains("does not match its checksum in SHA256SUMS"), "{message}");
    assert!(message.contains("memdir was not found"), "{message}");
    let dir = work.path().join("downloads/memdir-dev/memdir/9.9.9");
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["SHA256SUMS"], "no binary is left behind");
}

#[test]
fn a_hostile_release_or_repository_name_is_refused() {
    let (release_dir, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_, assets) = fake_release(release_dir.path(), None);
    let hostile = Some(("../../../escape".to_string(), assets));
    let state =
        without_memdir(serde_json::json!({ "release_repo": "memdir-dev/memdir" }), work.path(), hostile);
    let message = call_in("context-server-command", "memdir", state).0.unwrap_err();
    assert!(message.contains("is not a version"), "{message}");
    for repo in ["../x", "a/b/c", "a/..", ".hidden/x", "a b/c"] {
        let state = without_memdir(serde_json::json!({ "release_repo": repo }), work.path(), None);
        let message = call_in("context-server-command", "memdir", state).0.unwrap_err();
        assert!(message.contains("is not a GitHub repository"), "{repo}: {message}");
    }
    assert_eq!(std::fs::read_dir(work.path()).unwrap().count(), 0, "nothing was written");
}

#[test]
fn download_false_no_repository_or_no_release_fall_back_to_the_install_message() {
    let (release_dir, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let off = serde_json::json!({ "release_repo": "memdir-dev/memdir", "download": false });
    let (answer, after) = call_in(
        "context-server-command",
        "memdir",
        without_memdir(off, work.path(), Some(fake_release(release_dir.path(), None))),
    );
    assert!(answer.unwrap_err().contains("memdir was not found"));
    assert_eq!(after.release_asked, 0, "download: false asks nothing");

    // This checkout's Cargo.toml names no GitHub repository, so there is nothing to download.
    let (answer, after) =
        call_in("context-server-command", "memdir", without_memdir(serde_json::json!({}), work.path(), None));
    let message = answer.unwrap_err();
    assert!(message.contains("no release to download") && message.contains("release_repo"), "{message}");
    assert_eq!(after.release_asked, 0);

    let elsewhere = without_memdir(serde_json::json!({ "release_repo": "someone/else" }), work.path(), None);
    let message = call_in("context-server-command", "memdir", elsewhere).0.unwrap_err();
    assert!(message.contains("downloading a release from someone/else: no releases"), "{message}");
}

#[test]
fn the_extension_folder_carries_an_accepted_licence() {
    // Zed's registry inspects files named LICENSE* at the extension's root.
    let dir = repo().join("extension/zed");
    let licences: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().to_ascii_uppercase().starts_with("LICENSE"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(licences.iter().any(|t| t.contains("MIT License") || t.contains("Permission is hereby granted")));
    assert!(licences.iter().any(|t| t.contains("Apache License")));
}
