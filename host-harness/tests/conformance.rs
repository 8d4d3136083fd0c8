//! The conformance runner: every folder under `tests/conformance/` is one case, run through the
//! `memdir` CLI on the component and on the native core, against the same expected output.
//! `BLESS=1` rewrites the expected output from the component run. See `tests/README.md`.

use serde::Deserialize;
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
    let cache = tempfile::tempdir().expect("temp dir");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .expect("tests/conformance exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    cases.sort();
    let (mut passed, mut failed) = (0, 0);
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
            let outcome = run_case(dir, &case, backend, cache.path());
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
    println!("\nconformance: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}

fn run_case(dir: &Path, case: &Case, backend: &str, cache: &Path) -> Outcome {
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
    let subst = |s: &str| s.replace("{input}", &input_str).replace("{tmp}", &tmp_str);
    for args in &case.git {
        run_git(&input, &tmp_path, args.iter().map(|a| subst(a)));
    }
    let tmp_slug = memdir_core::paths::slug(&tmp_str);
    let names =
        [("{input}", input_str.as_str()), ("{tmp}", tmp_str.as_str()), ("{tmp-slug}", tmp_slug.as_str())];
    for g in &case.generate {
        generate(&input, g, &names);
    }
    for (rel, when) in &case.mtimes {
        set_mtime(&input.join(rel), parse_mtime(when));
    }
    for (link, target) in &case.symlinks {
        std::os::unix::fs::symlink(subst(target), input.join(link)).unwrap();
    }

    let mut args = vec!["memdir".to_string(), "--backend".into(), backend.into()];
    args.extend(case.args.iter().map(|a| subst(a)));
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), subst("{tmp}/home")),
        ("MEMDIR_CACHE_DIR".into(), cache.to_str().unwrap().into()),
    ];
    env.extend(case.env.iter().map(|(k, v)| (k.clone(), subst(v))));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = memdir_harness::cli::run(args, env.clone(), &mut out, &mut err);
    for next in &case.then {
        let mut argv = vec!["memdir".to_string(), "--backend".into(), backend.into()];
        argv.extend(next.iter().map(|a| subst(a)));
        writeln!(out, "--- memdir {}", next.join(" ")).unwrap();
        let then_status = memdir_harness::cli::run(argv, env.clone(), &mut out, &mut err);
        writeln!(err, "(exit {then_status})").unwrap();
    }
    for rel in &case.show {
        writeln!(out, "--- {rel}").unwrap();
        match fs::read_to_string(input.join(rel)) {
            Ok(text) => out.extend_from_slice(text.as_bytes()),
            Err(_) => writeln!(out, "(missing)").unwrap(),
        }
    }
    // Slugs are derived from the temporary path, so they are normalised too.
    let unsubst = |bytes: Vec<u8>| {
        String::from_utf8_lossy(&bytes)
            .replace(&input_str, "{input}")
            .replace(&tmp_str, "{tmp}")
            .replace(&tmp_slug, "{tmp-slug}")
    };
    Outcome { status, stdout: unsubst(out), stderr: unsubst(err) }
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

/// Runs `git` in `dir` with a fixed identity and no user or system configuration.
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
        .stdout(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// Writes generated files; `{i}` and the `names` (`{input}`, `{tmp}`, `{tmp-slug}`) are
/// substituted in their paths, prefixes and suffixes.
fn generate(input: &Path, g: &Generate, names: &[(&str, &str)]) {
    let count = g.count.unwrap_or(1);
    for i in 0..count {
        let index = format!("{i:0width$}", width = g.pad);
        let fill = |s: &str| {
            names.iter().fold(s.replace("{i}", &index), |text, (name, value)| text.replace(name, value))
        };
        let path = input.join(fill(&g.path));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = fill(&g.prefix);
        text.push_str(&g.repeat.repeat(g.times));
        text.push_str(&fill(&g.suffix));
        fs::write(&path, text).unwrap();
        set_mtime(&path, DEFAULT_MTIME_MS + i as i64 * g.mtime_step_ms);
    }
}
