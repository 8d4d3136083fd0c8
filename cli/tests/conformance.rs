//! The conformance runner: every folder under `tests/conformance/` is one case, run through the
//! `memdir` CLI on the component and on the native core, against the same expected output.
//! `BLESS=1` rewrites the expected output from the component run. See `tests/README.md`.

use memdir_harness::ComponentRuntime;
use memdir_harness::calls::{Call, Log};
use memdir_harness::native;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// Every file's mtime unless the case says otherwise: 2026-01-01T00:00:00.000Z.
const DEFAULT_MTIME_MS: i64 = 1_767_225_600_000;

/// `case.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case checks, citing the SPEC.
    description: String,
    /// Arguments after `memdir`; `{input}` is the memory tree, `{tmp}` the case's root.
    args: Vec<String>,
    /// Expected exit status.
    #[serde(default)]
    status: i32,
    /// Environment for the command; `{tmp}` and `{input}` are substituted. `HOME` defaults to
    /// `{tmp}/home`.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// mtimes by path relative to the input (ms since the epoch, or RFC 3339).
    #[serde(default)]
    mtimes: BTreeMap<String, serde_json::Value>,
    /// Files too large or too many to keep in git, written before the run.
    #[serde(default)]
    generate: Vec<Generate>,
    /// Symbolic links to create: link path (relative to the input) → target, as given.
    #[serde(default)]
    symlinks: BTreeMap<String, String>,
    /// Files written beside the input, in `{tmp}/outside`, which the command is not granted.
    #[serde(default)]
    outside: BTreeMap<String, String>,
    /// `git` commands run in the input after it is prepared (real repositories and worktrees).
    #[serde(default)]
    git: Vec<Vec<String>>,
    /// Further `memdir` commands run after `args`, in the same tree; each one's output follows
    /// a `--- memdir ARGS` line (its exit status must be 0).
    #[serde(default)]
    then: Vec<Vec<String>>,
    /// Standard input of `args` and of each `then` command (a hook's payload), with `{tmp}` and
    /// `{input}` substituted; none: empty.
    #[serde(default)]
    stdin: Option<String>,
    /// Files (relative to the input) printed after the commands, each after a `--- PATH` line:
    /// what a writer left on disk.
    #[serde(default)]
    show: Vec<String>,
}

/// Generated input: `count` files (default 1) named by `path`, `{i}` replaced by the index
/// (zero-padded to `pad` digits), holding `prefix` + `repeat` × `times` + `suffix`, each with
/// mtime `DEFAULT + i × mtime_step_ms`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Generate {
    path: String,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    pad: usize,
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    repeat: String,
    #[serde(default)]
    times: usize,
    #[serde(default)]
    suffix: String,
    #[serde(default)]
    mtime_step_ms: i64,
}

struct Outcome {
    status: i32,
    stdout: String,
    stderr: String,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .expect("tests/conformance exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    cases.sort();
    let (mut passed, mut failed) = (0, 0);
    let mut scripts = (0, 0);
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let case: Case = serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap())
            .unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        assert!(!case.description.is_empty(), "{name}: describe the case");
        let mut component: Option<Outcome> = None;
        for backend in ["component", "native"] {
            let log = (backend == "component").then(Log::default);
            let (outcome, names) = run_case(dir, &case, backend, log.clone());
            if let Some(log) = log {
                let calls = std::mem::take(&mut *log.lock().unwrap());
                let verdict = record_script(dir, &case, &names, calls, bless);
                count(&mut scripts, &name, "recorded", verdict);
            }
            let verdict = if bless && backend == "component" {
                write_expected(dir, &outcome);
                Ok(())
            } else {
                check(dir, &case, &outcome)
            }
            .and_then(|()| match &component {
                Some(c) if c.stdout != outcome.stdout || c.stderr != outcome.stderr => {
                    Err("output differs from the component's".to_string())
                }
                _ => Ok(()),
            });
            match verdict {
                Ok(()) => {
                    println!("ok   {name} [{backend}]");
                    passed += 1;
                }
                Err(why) => {
                    println!("FAIL {name} [{backend}]: {why}");
                    failed += 1;
                }
            }
            component.get_or_insert(outcome);
        }
    }
    let runtime = ComponentRuntime::load().expect("the component loads");
    let (mut native, mut wasmtime) = ((0, 0), (0, 0));
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) || !dir.join(CALLS).is_file() {
            continue;
        }
        let case: Case = serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        let native_verdict = replay(dir, &case, |fs, f, a| native::call(&fs, f, a));
        count(&mut native, &name, "native", native_verdict);
        let wasmtime_verdict = replay(dir, &case, |fs, f, a| runtime.call_json(fs, f, a));
        count(&mut wasmtime, &name, "wasmtime", wasmtime_verdict);
    }
    println!("\nconformance: {passed} passed, {failed} failed");
    println!("calls-recorded: {} passed, {} failed", scripts.0, scripts.1);
    println!("calls-native: {} passed, {} failed", native.0, native.1);
    println!("calls-wasmtime: {} passed, {} failed", wasmtime.0, wasmtime.1);
    if failed + scripts.1 + native.1 + wasmtime.1 > 0 {
        std::process::exit(1);
    }
    // A run that checked nothing (a filter matching no case, cases gone missing) is no pass
    // (issue 45).
    if passed == 0 || native.0 == 0 || wasmtime.0 == 0 {
        eprintln!(
            "conformance: no case or call script ran{}",
            filter.map(|f| format!(" (filter {f:?})")).unwrap_or_default()
        );
        std::process::exit(1);
    }
}

/// The call script of a case, beside its `case.json`.
const CALLS: &str = "calls.json";

/// Strings at least this long that are the whole text of a file the case prepares (`outside`,
/// or `generate`d once) are written as `{"$file": PATH}` in scripts, so a 10 MB model reply is
/// not stored twice; a replay reads the file from its own tree.
const FILE_REF_BYTES: usize = 4096;

fn count(tally: &mut (usize, usize), name: &str, what: &str, verdict: Result<(), String>) {
    match verdict {
        Ok(()) => tally.0 += 1,
        Err(why) => {
            println!("FAIL {name} [calls: {what}]: {why}");
            tally.1 += 1;
        }
    }
}

/// Maps every string in `value` through `f`, and every `{"$file": PATH}` through `file`.
fn map_strings(value: &Value, f: &dyn Fn(&str) -> Value, file: &dyn Fn(&str) -> Value) -> Value {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => Value::Array(items.iter().map(|v| map_strings(v, f, file)).collect()),
        Value::Object(fields) => match (fields.len(), fields.get("$file")) {
            (1, Some(Value::String(path))) => file(path),
            _ => Value::Object(fields.iter().map(|(k, v)| (k.clone(), map_strings(v, f, file))).collect()),
        },
        other => other.clone(),
    }
}

/// The files a case prepares that never change, with their text: `outside` ones and single
/// generated ones.
fn static_files(case: &Case, names: &[(&str, &str)]) -> Vec<(String, String)> {
    let outside = case.outside.iter().map(|(name, text)| (text.clone(), format!("{{tmp}}/outside/{name}")));
    let generated = case
        .generate
        .iter()
        .filter(|g| g.count.is_none())
        .map(|g| (generated_text(g, 0, names), format!("{{input}}/{}", g.path)));
    outside.chain(generated).collect()
}

/// Writes (with `bless`) or checks the call script the CLI's calls make, paths named.
fn record_script(
    dir: &Path,
    case: &Case,
    names: &Names,
    calls: Vec<Call>,
    bless: bool,
) -> Result<(), String> {
    let pairs: Vec<(&str, &str)> = names.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let files: Vec<(String, String)> =
        static_files(case, &pairs).into_iter().filter(|(text, _)| text.len() >= FILE_REF_BYTES).collect();
    let named = |s: &str| -> Value {
        if let Some((_, path)) = files.iter().find(|(text, _)| text.as_str() == s) {
            return serde_json::json!({"$file": path});
        }
        Value::String(names.iter().fold(s.to_string(), |t, (name, value)| t.replace(value, name)))
    };
    let unexpected = |path: &str| panic!("a recorded call holds a file reference {path}");
    let script: Vec<Value> =
        calls.iter().map(|c| map_strings(&serde_json::to_value(c).unwrap(), &named, &unexpected)).collect();
    let path = dir.join(CALLS);
    if bless {
        if script.is_empty() {
            let _ = fs::remove_file(path);
        } else {
            fs::write(path, serde_json::to_string_pretty(&script).unwrap() + "\n").unwrap();
        }
        return Ok(());
    }
    let stored: Vec<Value> = match fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{CALLS}: {e}"))?,
        Err(_) => Vec::new(),
    };
    if stored != script {
        return Err(format!(
            "the CLI's calls are not the ones in {CALLS}: bless the case to record them again"
        ));
    }
    Ok(())
}

/// Replays a case's call script in a fresh tree through `call`, result by result.
fn replay(
    dir: &Path,
    case: &Case,
    call: impl Fn(memdir_harness::ConfinedFs, &str, &[Value]) -> Result<Value, String>,
) -> Result<(), String> {
    let script: Vec<Call> = serde_json::from_str(&fs::read_to_string(dir.join(CALLS)).unwrap())
        .map_err(|e| format!("{CALLS}: {e}"))?;
    let prepared = prepare(dir, case);
    let read = |path: &str| Value::String(fs::read_to_string(prepared.subst(path)).unwrap_or_default());
    let resolve = |v: &Value| map_strings(v, &|s| Value::String(prepared.subst(s)), &read);
    for (i, c) in script.iter().enumerate() {
        let grant: memdir_harness::calls::Grant =
            serde_json::from_value(resolve(&serde_json::to_value(&c.grant).unwrap())).unwrap();
        let fs =
            memdir_harness::grant_fs(&grant).map_err(|e| format!("call {i} ({}): grant: {e}", c.func))?;
        let args: Vec<Value> = c.args.iter().map(&resolve).collect();
        let got = call(fs, &c.func, &args).map_err(|e| format!("call {i} ({}): {e}", c.func))?;
        let expected = resolve(&c.result);
        if got != expected {
            let show = |v: &Value| {
                let text = v.to_string();
                if text.len() > 600 { format!("{}…", &text[..text.floor_char_boundary(600)]) } else { text }
            };
            return Err(format!(
                "call {i} ({}):\n  expected {}\n  got      {}",
                c.func,
                show(&expected),
                show(&got)
            ));
        }
    }
    Ok(())
}

/// "Now" for a command that names none: a day after the default mtime, so that output that
/// depends on the clock (freshness, staleness) does not change from one day to the next.
const DEFAULT_NOW: &str = "2026-01-02T00:00:00Z";

/// `memdir --backend B`, with `--now` unless the arguments give it.
fn memdir(backend: &str, args: &[String]) -> Vec<String> {
    let mut argv = vec!["memdir".to_string(), "--backend".into(), backend.into()];
    if !args.iter().any(|a| a == "--now") {
        argv.extend(["--now".to_string(), DEFAULT_NOW.to_string()]);
    }
    argv
}

/// The process's working directory, changed for as long as this lives (cases run one at a time).
struct CurrentDir(PathBuf);

impl CurrentDir {
    fn enter(dir: &Path) -> Self {
        let previous = std::env::current_dir().unwrap();
        std::env::set_current_dir(dir).unwrap();
        CurrentDir(previous)
    }
}

impl Drop for CurrentDir {
    fn drop(&mut self) {
        std::env::set_current_dir(&self.0).unwrap();
    }
}

/// Placeholders and the temporary paths they stood for in one run.
type Names = Vec<(String, String)>;

/// A case's tree, prepared in a fresh temporary directory, and the names its paths go by.
struct Prepared {
    _tmp: tempfile::TempDir,
    input: PathBuf,
    /// `{exe}`, `{input}`, `{tmp}` and `{tmp-slug}` with what they stand for; none holds another.
    names: Vec<(&'static str, String)>,
}

impl Prepared {
    /// Replaces the names in `text` with what they stand for.
    fn subst(&self, text: &str) -> String {
        self.names.iter().fold(text.to_string(), |t, (name, value)| t.replace(name, value))
    }

    /// Replaces temporary paths in `text` with their names.
    fn unsubst(&self, text: &str) -> String {
        self.names.iter().fold(text.to_string(), |t, (name, value)| t.replace(value, name))
    }
}

fn prepare(dir: &Path, case: &Case) -> Prepared {
    let tmp = tempfile::tempdir().expect("temp dir");
    let tmp_path = fs::canonicalize(tmp.path()).unwrap();
    let tmp_str = tmp_path.to_str().unwrap().to_string();
    let input = tmp_path.join("input");
    let input_str = input.to_str().unwrap().to_string();
    copy_tree(&dir.join("input"), &input);
    fs::create_dir_all(&input).unwrap();
    fs::create_dir_all(tmp_path.join("home")).unwrap();
    set_mtimes(&input, DEFAULT_MTIME_MS);
    for (rel, text) in &case.outside {
        let path = tmp_path.join("outside").join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let tmp_slug = memdir_core::paths::slug(&tmp_str);
    // `team init` names the running binary as git's merge driver: a path of this build.
    let exe = std::env::current_exe().unwrap().to_str().unwrap().to_string();
    let names = vec![("{exe}", exe), ("{input}", input_str), ("{tmp}", tmp_str), ("{tmp-slug}", tmp_slug)];
    let prepared = Prepared { _tmp: tmp, input, names };
    for args in &case.git {
        run_git(&prepared.input, &tmp_path, args.iter().map(|a| prepared.subst(a)));
    }
    let names: Vec<(&str, &str)> = prepared.names.iter().map(|(n, v)| (*n, v.as_str())).collect();
    for g in &case.generate {
        generate(&prepared.input, g, &names);
    }
    for (rel, when) in &case.mtimes {
        set_mtime(&prepared.input.join(rel), parse_mtime(when));
    }
    for (link, target) in &case.symlinks {
        std::os::unix::fs::symlink(prepared.subst(target), prepared.input.join(link)).unwrap();
    }
    prepared
}

/// Runs the case's commands on `backend`; the calls they make on the core go to `record`.
fn run_case(dir: &Path, case: &Case, backend: &str, record: Option<Log>) -> (Outcome, Names) {
    let prepared = prepare(dir, case);
    let input = &prepared.input;
    // Commands run in the case's own directory, so "the current directory" (and what git and
    // the settings say about it) is the same on every machine and in every recorded call.
    let _cwd = CurrentDir::enter(input.parent().unwrap());
    let subst = |s: &str| prepared.subst(s);
    let mut args = memdir(backend, &case.args);
    args.extend(case.args.iter().map(|a| subst(a)));
    // This machine's name reaches the recorded calls (a tool call carries it for team sync):
    // every case names the same one unless it names its own.
    let mut env: Vec<(String, String)> = vec![("HOME".into(), subst("{tmp}/home"))];
    if !case.env.contains_key("MEMDIR_HOST_NAME") {
        env.push(("MEMDIR_HOST_NAME".into(), "conformance".into()));
    }
    env.extend(case.env.iter().map(|(k, v)| (k.clone(), subst(v))));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let stdin = || Some(case.stdin.as_deref().map(subst).unwrap_or_default().into_bytes());
    let status = memdir_cli::run_with_stdin(args, env.clone(), stdin(), &mut out, &mut err, record.clone());
    for next in &case.then {
        let mut argv = memdir(backend, next);
        argv.extend(next.iter().map(|a| subst(a)));
        writeln!(out, "--- memdir {}", next.join(" ")).unwrap();
        let then_status =
            memdir_cli::run_with_stdin(argv, env.clone(), stdin(), &mut out, &mut err, record.clone());
        writeln!(err, "(exit {then_status})").unwrap();
    }
    for rel in &case.show {
        writeln!(out, "--- {rel}").unwrap();
        match fs::read_to_string(input.join(subst(rel))) {
            Ok(text) => out.extend_from_slice(text.as_bytes()),
            Err(_) => writeln!(out, "(missing)").unwrap(),
        }
    }
    let unsubst = |bytes: Vec<u8>| prepared.unsubst(&String::from_utf8_lossy(&bytes));
    let names = prepared.names.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
    (Outcome { status, stdout: unsubst(out), stderr: unsubst(err) }, names)
}

fn check(dir: &Path, case: &Case, outcome: &Outcome) -> Result<(), String> {
    if outcome.status != case.status {
        return Err(format!(
            "exit status {} (expected {}); stderr: {}",
            outcome.status, case.status, outcome.stderr
        ));
    }
    let expected_out = fs::read_to_string(dir.join("expected.out")).unwrap_or_default();
    if outcome.stdout != expected_out {
        return Err(format!("stdout differs:\n--- expected\n{expected_out}\n--- got\n{}", outcome.stdout));
    }
    let expected_err = fs::read_to_string(dir.join("expected.err")).unwrap_or_default();
    if outcome.stderr != expected_err {
        return Err(format!("stderr differs:\n--- expected\n{expected_err}\n--- got\n{}", outcome.stderr));
    }
    Ok(())
}

fn write_expected(dir: &Path, outcome: &Outcome) {
    for (file, text) in [("expected.out", &outcome.stdout), ("expected.err", &outcome.stderr)] {
        let path = dir.join(file);
        if text.is_empty() {
            let _ = fs::remove_file(path);
        } else {
            fs::write(path, text).unwrap();
        }
    }
}

/// Copies a tree; a path component named `dot-git` becomes `.git` (git cannot hold a `.git`).
fn copy_tree(from: &Path, to: &Path) {
    let Ok(entries) = fs::read_dir(from) else { return };
    fs::create_dir_all(to).unwrap();
    for entry in entries {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = if name == "dot-git" { ".git".into() } else { name };
        let ft = entry.file_type().unwrap();
        if ft.is_dir() {
            copy_tree(&entry.path(), &to.join(name));
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), to.join(name)).unwrap();
        } else {
            fs::copy(entry.path(), to.join(name)).unwrap();
        }
    }
}

fn set_mtimes(dir: &Path, ms: i64) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let ft = entry.file_type().unwrap();
        if ft.is_dir() {
            set_mtimes(&entry.path(), ms);
        } else if ft.is_file() {
            set_mtime(&entry.path(), ms);
        }
    }
}

fn set_mtime(path: &Path, ms: i64) {
    let when = if ms >= 0 {
        UNIX_EPOCH + Duration::from_millis(ms as u64)
    } else {
        UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs())
    };
    let file =
        fs::File::options().write(true).open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.set_modified(when).unwrap();
}

fn parse_mtime(value: &serde_json::Value) -> i64 {
    match value {
        serde_json::Value::Number(n) => n.as_i64().expect("mtime in ms"),
        serde_json::Value::String(s) => {
            chrono::DateTime::parse_from_rfc3339(s).expect("RFC 3339 mtime").timestamp_millis()
        }
        other => panic!("bad mtime {other}"),
    }
}

/// Runs `git` in `dir` with a fixed identity and date and no user or system configuration, so
/// its commits have the same ids on every run (a call script records them).
fn run_git(dir: &Path, tmp: &Path, args: impl Iterator<Item = String>) {
    let args: Vec<String> = args.collect();
    let status = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=memdir",
            "-c",
            "user.email=memdir@example.invalid",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(&args)
        .current_dir(dir)
        .env("HOME", tmp.join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// Writes generated files; `{i}` and the `names` (`{input}`, `{tmp}`, `{tmp-slug}`) are
/// substituted in their paths, prefixes and suffixes.
fn generate(input: &Path, g: &Generate, names: &[(&str, &str)]) {
    for i in 0..g.count.unwrap_or(1) {
        let path = input.join(fill(&g.path, i, g.pad, names));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, generated_text(g, i, names)).unwrap();
        set_mtime(&path, DEFAULT_MTIME_MS + i as i64 * g.mtime_step_ms);
    }
}

/// `{i}` (zero-padded to `pad` digits) and the `names` substituted in `s`.
fn fill(s: &str, i: usize, pad: usize, names: &[(&str, &str)]) -> String {
    let index = format!("{i:0pad$}");
    names.iter().fold(s.replace("{i}", &index), |text, (name, value)| text.replace(name, value))
}

/// The text of the `i`th generated file.
fn generated_text(g: &Generate, i: usize, names: &[(&str, &str)]) -> String {
    let mut text = fill(&g.prefix, i, g.pad, names);
    text.push_str(&g.repeat.repeat(g.times));
    text.push_str(&fill(&g.suffix, i, g.pad, names));
    text
}
