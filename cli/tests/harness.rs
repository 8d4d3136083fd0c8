//! Host-level tests: the component's interface, import refusal, traps, the compiled-component
//! cache, host filesystem faults, and the scan's bounded I/O (R0.2, R5.1, R13.1, R13.3).

mod common;

use common::FaultyFs;
use memdir_core::FsError;
use memdir_harness::{ComponentRuntime, ConfinedFs, Core, Error, NativeCore, cache};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, UNIX_EPOCH};

fn runtime() -> ComponentRuntime {
    ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, None).expect("the built component loads")
}

fn write_memory(dir: &Path, rel: &str, mtime_ms: u64) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let kind = ["user", "feedback", "project", "reference"][rel.len() % 4];
    fs::write(&path, format!("---\nname: {rel}\ndescription: about {rel}\ntype: {kind}\n---\nBody.\n"))
        .unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(UNIX_EPOCH + Duration::from_millis(mtime_ms))
        .unwrap();
}

fn canonical(dir: &Path) -> String {
    fs::canonicalize(dir).unwrap().to_str().unwrap().to_string()
}

/// The built component's whole world (imports included) as WIT text.
fn component_world() -> String {
    let decoded = wit_component::decode(memdir_harness::CORE_WASM).expect("the component decodes");
    let resolve = decoded.resolve();
    let main = decoded.package();
    let nested: Vec<_> = resolve.packages.iter().map(|(id, _)| id).filter(|id| *id != main).collect();
    let mut printer = wit_component::WitPrinter::default();
    printer.emit_docs(false);
    printer.print(resolve, main, &nested).expect("the world prints");
    printer.output.to_string()
}

#[test]
fn the_component_world_matches_the_golden_file() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/component-world.wit");
    let actual = component_world();
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        fs::create_dir_all(golden.parent().unwrap()).unwrap();
        fs::write(&golden, &actual).unwrap();
    }
    let expected = fs::read_to_string(&golden).expect("tests/golden/component-world.wit exists");
    assert!(
        actual == expected,
        "the component's interface drifted from tests/golden/component-world.wit; if the change is \
         intended, run with BLESS=1 and review the diff:\n{actual}"
    );
    for forbidden in ["wasi:filesystem", "wasi:sockets", "wasi:random", "wasi:clocks", "wasi:http"] {
        assert!(!actual.contains(forbidden), "the component imports {forbidden}");
    }
}

#[test]
fn every_import_of_the_built_component_is_on_the_allow_list() {
    for name in runtime().import_names() {
        assert!(
            memdir_harness::ALLOWED_IMPORTS.iter().any(|allowed| name.starts_with(allowed)),
            "{name} is not allowed"
        );
    }
}

/// Issue 45: the import allow-list is written once, in the Rust harness; the JS and Python
/// hosts carry copies (their languages cannot import it), and this test holds them to it.
#[test]
fn every_host_allows_the_same_imports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let listed = |file: &str, open: &str, close: &str| -> Vec<String> {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let start = text.find(open).unwrap_or_else(|| panic!("{file}: no {open}")) + open.len();
        let body = &text[start..start + text[start..].find(close).unwrap()];
        body.split('"')
            .skip(1)
            .step_by(2)
            .map(|s| s.replace("{WIT_VERSION}", memdir_harness::WIT_VERSION))
            .collect()
    };
    let rust: Vec<String> = memdir_harness::ALLOWED_IMPORTS.iter().map(|s| s.to_string()).collect();
    let python = listed("packages/python/src/memdir_core/host.py", "ALLOWED_IMPORTS = (", ")");
    assert_eq!(python, rust, "the Python host's list");
    let mut js = listed("packages/core-js/src/core.ts", "export const ALLOWED_IMPORTS = [", "];");
    let mut unversioned: Vec<String> =
        rust.iter().map(|s| s.split('@').next().unwrap().to_string()).collect();
    js.sort();
    unversioned.sort();
    assert_eq!(js, unversioned, "the JS host's list (jco's keys carry no version)");
}

/// Issue 45, item 2: the filesystem errors' wording lives in the core (`FsError`'s messages); the
/// JS host, which renders the WIT error itself, holds a copy that must read the same.
#[test]
fn every_host_words_filesystem_errors_alike() {
    use memdir_core::FsError as F;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("packages/core-js/src/core.ts")).unwrap();
    let open = "const FS_MESSAGES: Record<string, string> = {";
    let start = text.find(open).expect("core.ts: no FS_MESSAGES") + open.len();
    let body = &text[start..start + text[start..].find("};").unwrap()];
    let js: Vec<(String, String)> = body
        .lines()
        .filter_map(|l| l.trim().trim_end_matches(',').split_once(": "))
        .map(|(k, v)| (k.trim_matches('"').to_string(), v.trim_matches('"').to_string()))
        .collect();
    let rust: Vec<(String, String)> = [
        ("not-found", F::NotFound("P".into())),
        ("permission-denied", F::PermissionDenied("P".into())),
        ("outside-root", F::OutsideRoot("P".into())),
        ("read-only", F::ReadOnly("P".into())),
        ("not-a-directory", F::NotADirectory("P".into())),
        ("is-a-directory", F::IsADirectory("P".into())),
        ("invalid-path", F::InvalidPath("P".into())),
    ]
    .into_iter()
    .map(|(tag, e)| (tag.to_string(), e.to_string().strip_prefix("P: ").unwrap().to_string()))
    .collect();
    assert_eq!(js, rust, "core.ts's FS_MESSAGES against the core's FsError");
}

#[test]
fn a_component_that_imports_the_filesystem_is_refused() {
    let wasm = wat::parse_str(
        r#"(component
            (import "wasi:filesystem/preopens@0.2.6" (instance))
            (import "wasi:sockets/tcp@0.2.6" (instance)))"#,
    )
    .unwrap();
    match ComponentRuntime::from_wasm(&wasm, None) {
        Err(Error::ForbiddenImport(names)) => {
            assert!(names.contains("wasi:filesystem/preopens@0.2.6"), "{names}");
            assert!(names.contains("wasi:sockets/tcp@0.2.6"), "{names}");
        }
        Err(other) => panic!("refused for the wrong reason: {other}"),
        Ok(_) => panic!("a component importing wasi:filesystem was accepted"),
    }
}

/// Issue 45: a core of another contract version is refused with both versions named.
#[test]
fn a_component_of_another_contract_version_is_refused_naming_both_versions() {
    let wasm = wat::parse_str(
        r#"(component
            (import "memdir:memory/types@0.2.0" (instance))
            (import "memdir:memory/host-fs@0.2.0" (instance)))"#,
    )
    .unwrap();
    match ComponentRuntime::from_wasm(&wasm, None) {
        Err(e @ Error::OtherVersion { .. }) => {
            let message = e.to_string();
            assert!(message.contains("memdir:memory@0.2.0"), "{message}");
            assert!(message.contains(&format!("memdir:memory@{}", memdir_harness::WIT_VERSION)), "{message}");
        }
        Err(other) => panic!("refused for the wrong reason: {other}"),
        Ok(_) => panic!("a 0.2.0 component was accepted"),
    }
}

#[test]
fn a_trap_names_the_operation_and_the_next_call_gets_a_fresh_instance() {
    let runtime = runtime().with_memory_limit(4 * 1024 * 1024);
    let mut core = runtime.core(ConfinedFs::new());
    let huge = "- entry\n".repeat(1024 * 1024);
    match core.truncate_index(&huge) {
        Err(Error::Trap { operation, message }) => {
            assert_eq!(operation, "index.truncate");
            assert!(!message.is_empty());
        }
        other => panic!("expected a trap, got {other:?}"),
    }
    let small = core.truncate_index("- [A](a.md) — a\n").expect("a fresh instance answers");
    assert_eq!(small.text, "- [A](a.md) — a");
}

#[test]
fn a_stale_or_corrupt_cache_entry_falls_back_to_compiling() {
    let dir = tempfile::tempdir().unwrap();
    let first = ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, Some(dir.path())).unwrap();
    drop(first);
    let entries: Vec<PathBuf> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(entries.len(), 1, "one cache entry is written");
    fs::write(&entries[0], b"not a compiled component").unwrap();
    let runtime = ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, Some(dir.path())).unwrap();
    assert_eq!(runtime.core(ConfinedFs::new()).truncate_index("x").unwrap().text, "x");
    assert!(fs::read(&entries[0]).unwrap().len() > 1024, "the corrupt entry is rewritten");
    let unwritable = dir.path().join("file-not-dir");
    fs::write(&unwritable, b"").unwrap();
    assert!(ComponentRuntime::from_wasm(memdir_harness::CORE_WASM, Some(&unwritable)).is_ok());
}

#[test]
fn the_cache_directory_follows_the_environment() {
    let env = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
    };
    assert_eq!(cache::dir_from_env(&env(&[("HOME", "/h")])), Some(PathBuf::from("/h/.cache/memdir")));
    assert_eq!(
        cache::dir_from_env(&env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")])),
        Some(PathBuf::from("/x/memdir"))
    );
    assert_eq!(cache::dir_from_env(&env(&[("HOME", "/h"), ("MEMDIR_CACHE_DIR", "")])), None);
}

fn probe(dir: &Path, heads: &Arc<AtomicUsize>) -> FaultyFs {
    FaultyFs { heads: heads.clone(), ..FaultyFs::new(ConfinedFs::new().grant_read(dir).unwrap()) }
}

#[test]
fn only_the_newest_200_heads_are_read_and_the_result_equals_reading_all() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..700u64 {
        // Scrambled mtimes with ties, so order comes from sorting, not from creation.
        write_memory(
            tmp.path(),
            &format!("d{}/m{i:03}.md", i % 7),
            1_767_225_600_000 + (i * 7919 % 500) * 1000,
        );
    }
    let dir = canonical(tmp.path());
    let heads = Arc::new(AtomicUsize::new(0));
    let capped = memdir_core::scan::scan(&probe(tmp.path(), &heads), &dir, 0).unwrap();
    assert_eq!(heads.load(Ordering::SeqCst), 200);
    assert_eq!((capped.headers.len(), capped.found), (200, 700));

    let mut all =
        memdir_core::scan::scan_with_limit(&probe(tmp.path(), &heads), &dir, usize::MAX, 0).unwrap();
    all.headers.truncate(200);
    assert_eq!(capped.headers, all.headers);

    let heads = Arc::new(AtomicUsize::new(0));
    let runtime = runtime();
    let through_component = runtime.core(probe(tmp.path(), &heads)).scan(&dir, 0).unwrap();
    assert_eq!(heads.load(Ordering::SeqCst), 200);
    assert_eq!(through_component, capped);
}

#[test]
fn host_filesystem_errors_become_diagnostics_and_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    write_memory(tmp.path(), "user_ok.md", 3_000);
    write_memory(tmp.path(), "feedback_broken.md", 2_000);
    write_memory(tmp.path(), "locked/project_x.md", 1_000);
    let dir = canonical(tmp.path());
    let heads = Arc::new(AtomicUsize::new(0));
    let faulty = || FaultyFs {
        fail_heads_containing: Some("broken"),
        fail_dirs_containing: Some("locked"),
        ..probe(tmp.path(), &heads)
    };
    let runtime = runtime();
    let native = NativeCore::new(faulty()).scan(&dir, 0).unwrap();
    let component = runtime.core(faulty()).scan(&dir, 0).unwrap();
    assert_eq!(native, component);
    let paths: Vec<&str> = native.headers.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["user_ok.md", "feedback_broken.md"]);
    assert!(native.headers[1].diagnostics[0].contains("could not be read"), "{:?}", native.headers[1]);
    assert_eq!(native.headers[1].mtime_ms, 2_000, "the listing's mtime stands in");
    assert_eq!(native.skipped.len(), 1);
    assert!(native.skipped[0].reason.contains("permission denied"), "{:?}", native.skipped);
}

#[test]
fn the_scan_root_must_be_granted_and_must_exist() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("granted")).unwrap();
    fs::create_dir(tmp.path().join("other")).unwrap();
    let runtime = runtime();
    let mut core = runtime.core(ConfinedFs::new().grant_read(tmp.path().join("granted")).unwrap());
    let other = canonical(&tmp.path().join("other"));
    assert!(matches!(
        core.scan(&other, 0),
        Err(Error::Core(memdir_core::Error::Fs(FsError::OutsideRoot(_))))
    ));
    let missing = format!("{}/granted/missing", canonical(tmp.path()));
    assert!(matches!(core.scan(&missing, 0), Err(Error::Core(memdir_core::Error::Fs(FsError::NotFound(_))))));
    assert!(matches!(
        core.scan("relative/path", 0),
        Err(Error::Core(memdir_core::Error::Fs(FsError::InvalidPath(_))))
    ));
}

#[test]
fn both_backends_report_the_same_limits() {
    let runtime = runtime();
    let component = runtime.core(ConfinedFs::new()).limits().unwrap();
    let native = NativeCore::new(ConfinedFs::new()).limits().unwrap();
    assert_eq!(component, native);
    assert_eq!((native.index_lines, native.index_chars, native.session_bytes), (200, 25_000, 61_440));
}

#[test]
fn a_hundred_thousand_files_under_a_low_descriptor_limit_give_the_same_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..100_000u64 {
        let path = tmp.path().join(format!("s{:02}/m{i:06}.md", i % 50));
        if i < 50 {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
        }
        fs::write(&path, format!("---\nname: m{i}\ndescription: memory {i}\ntype: user\n---\n")).unwrap();
    }
    let exe = env!("CARGO_BIN_EXE_memdir");
    let cache = tempfile::tempdir().unwrap();
    let run = |limit: Option<u32>| {
        let script = match limit {
            Some(n) => format!("ulimit -n {n} && exec \"$0\" manifest \"$1\""),
            None => "exec \"$0\" manifest \"$1\"".to_string(),
        };
        let out = std::process::Command::new("sh")
            .args(["-c", &script, exe, tmp.path().to_str().unwrap()])
            .env("MEMDIR_CACHE_DIR", cache.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let unlimited = run(None);
    assert_eq!(unlimited.lines().count(), 200);
    assert_eq!(run(Some(256)), unlimited);
}

#[test]
fn every_command_has_help_and_bad_arguments_exit_2() {
    for command in [
        "manifest",
        "scan",
        "index",
        "path",
        "instructions",
        "prompt",
        "status",
        "recall",
        "session",
        "save",
        "forget",
        "demo",
        "bench",
    ] {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status =
            memdir_cli::run(["memdir", command, "--help"].map(String::from), vec![], &mut out, &mut err);
        assert_eq!(status, 0, "{command} --help");
        assert!(String::from_utf8(out).unwrap().contains("Usage: memdir"), "{command}");
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = memdir_cli::run(["memdir", "scan"].map(String::from), vec![], &mut out, &mut err);
    assert_eq!(status, 2);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args = ["memdir", "--now", "yesterday", "demo"].map(String::from);
    assert_eq!(memdir_cli::run(args, vec![], &mut out, &mut err), 2);
    assert!(String::from_utf8(err).unwrap().contains("RFC 3339"));
}

/// Issue 17, item 5: `memdir bench --selector` measures a labelled set through the core, and a
/// file that is not one is a clear error.
#[test]
fn the_selector_benchmark_reads_a_labelled_set_and_refuses_anything_else() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("set.json");
    std::fs::write(
        &set,
        r#"{"directories": {"d": {"memories": {
            "feedback_tests.md": {"type": "feedback", "name": "Real Postgres in tests", "description": "Integration tests hit a real Postgres", "body": "Mocks hid a broken migration."},
            "reference_grafana.md": {"type": "reference", "name": "Grafana", "description": "Latency dashboards", "body": "grafana.internal/d/api"}}}},
          "requests": [
            {"dir": "d", "lang": "en", "query": "why are the postgres integration tests slow", "expected": ["feedback_tests.md"]},
            {"dir": "d", "lang": "en", "query": "rename this variable", "expected": []}]}"#,
    )
    .unwrap();
    let run = |path: &std::path::Path| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args = ["memdir", "bench", "--selector", "--set", path.to_str().unwrap()].map(String::from);
        let status = memdir_cli::run(args, vec![], &mut out, &mut err);
        (status, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    let (status, out, err) = run(&set);
    assert_eq!(status, 0, "{err}");
    // One relevant memory found and nothing else kept; the nothing-request kept empty.
    assert!(out.contains("| all (2) | – | 1.00 | 1.00 | 1.00 | 1.00 (1/1) |"), "{out}");
    std::fs::write(&set, "{\"requests\": 3}").unwrap();
    let (status, _, err) = run(&set);
    assert_ne!(status, 0);
    assert!(err.contains("is not a labelled set"), "{err}");
}

#[test]
fn the_native_table_answers_every_export_of_the_component() {
    // One contract, one table (issue 25, item 2): an export missing from the native table (`exports::call`) would
    // leave the native backend and the call-script replays behind the component.
    let names = runtime().export_names();
    assert!(names.len() > 40, "{names:?}");
    assert!(names.contains(&"team.start".to_string()) && names.contains(&"hook.fit".to_string()));
    let fs = ConfinedFs::new();
    for name in &names {
        if let Err(message) = memdir_harness::native::call(&fs, name, &[]) {
            assert!(!message.contains("no exported function"), "{name}: {message}");
        }
    }
    let message = memdir_harness::native::call(&fs, "scan.nothing", &[]).unwrap_err();
    assert!(message.contains("no exported function"), "{message}");
}

#[test]
fn a_call_that_fits_no_export_is_refused_and_the_instance_lives_on() {
    let runtime = runtime();
    let mut core = runtime.core(ConfinedFs::new());
    for (func, args) in [
        ("scan.nothing", vec![]),
        ("nothing", vec![]),
        ("index.truncate", vec![]),
        ("index.truncate", vec![serde_json::json!(42)]),
        ("budget.session-totals", vec![serde_json::json!({"tag": "ok"})]),
        ("budget.session-totals", vec![serde_json::Value::Null]),
        ("hook.fit", vec![serde_json::json!("text"), serde_json::json!(-5)]),
        ("hook.fit", vec![serde_json::json!("text"), serde_json::json!(1u64 << 40)]),
        (
            "paths.agent-dir",
            vec![
                serde_json::json!("/"),
                serde_json::json!([]),
                serde_json::json!("a"),
                serde_json::json!("nowhere"),
            ],
        ),
        ("paths.locate", vec![serde_json::json!("/"), serde_json::json!([["ONE"]])]),
        ("writer.trash", vec![serde_json::json!({"cwd": "/"})]),
        // Variants wasmtime would refuse mid-call (a trap, the instance lost) are refused first.
        ("recall.resume", vec![serde_json::json!("s"), serde_json::json!({"tag": "bogus"})]),
        ("recall.resume", vec![serde_json::json!("s"), serde_json::json!({"tag": "text"})]),
        ("recall.resume", vec![serde_json::json!("s"), serde_json::json!({"tag": "bogus", "val": "x"})]),
    ] {
        let args: Vec<memdir_harness::Arg<'_>> = args.iter().map(memdir_harness::Arg::new).collect();
        match core.call(func, &args) {
            Err(Error::Contract(message)) => {
                assert!(message.contains(func) || message.contains("exports no"))
            }
            other => panic!("{func}: expected a broken contract, got {:?}", other.map(|r| r.into_json())),
        }
    }
    let index = core.truncate_index("- [A](a.md) — a\n").expect("the instance still answers");
    assert_eq!(index.text, "- [A](a.md) — a");
}

#[test]
fn both_backends_refuse_a_call_with_more_arguments_than_its_export_takes() {
    // Issue 25, item 2: a malformed call is refused by the native table as by the component.
    let runtime = runtime();
    let extra = [serde_json::json!("- a\n"), serde_json::json!("extra")];
    let none = [serde_json::json!(1)];
    let cores: Vec<Box<dyn Core + '_>> =
        vec![Box::new(runtime.core(ConfinedFs::new())), Box::new(NativeCore::new(ConfinedFs::new()))];
    for mut core in cores {
        for (func, args) in [("index.truncate", &extra[..]), ("budget.limits", &none[..])] {
            let args: Vec<memdir_harness::Arg<'_>> = args.iter().map(memdir_harness::Arg::new).collect();
            match core.call(func, &args) {
                Err(Error::Contract(_)) => {}
                other => panic!("{} {func}: {:?}", core.backend(), other.map(|r| r.into_json())),
            }
        }
        assert_eq!(core.truncate_index("x").unwrap().text, "x", "{}", core.backend());
    }
}

#[test]
fn a_projects_slug_leads_back_to_its_directory_on_both_backends() {
    // Issue 48: the workbench names another project by the directory its memory's slug spells.
    let tmp = tempfile::tempdir().unwrap();
    let root = PathBuf::from(canonical(tmp.path()));
    for dir in ["my.app/sub", "a-b", "a/b", "deep/x"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    // A link is not followed: it could lead the walk anywhere.
    std::os::unix::fs::symlink("/", root.join("deep/link")).unwrap();
    let runtime = runtime();
    for backend in ["component", "native"] {
        let fs = ConfinedFs::new().grant_read("/").unwrap();
        let mut core: Box<dyn Core> =
            if backend == "component" { Box::new(runtime.core(fs)) } else { Box::new(NativeCore::new(fs)) };
        let mut find = |rel: &str| {
            let slug = memdir_core::paths::slug(root.join(rel).to_str().unwrap());
            core.project_of(&slug).unwrap().map(|found| (memdir_core::paths::slug(&found) == slug, found))
        };
        assert_eq!(find("my.app/sub"), Some((true, root.join("my.app/sub").to_str().unwrap().to_string())));
        // Two directories spell one slug: either is the project, and the one found spells it.
        assert!(matches!(find("a-b"), Some((true, _))), "{backend}");
        assert_eq!(find("deep/nothing-here"), None, "{backend}");
        assert_eq!(find("deep/link/etc"), None, "{backend}: a link is not walked");
        assert_eq!(core.project_of("not-a-slug").unwrap(), None);
        assert_eq!(core.project_of(&format!("-{}", "x".repeat(300))).unwrap(), None);
    }
}

#[test]
fn a_turns_own_saves_are_the_memory_files_changed_since_it_began_on_both_backends() {
    // R9.3 through the stop worker: the core, not the host, lists what the agent wrote.
    let tmp = tempfile::tempdir().unwrap();
    let root = PathBuf::from(canonical(tmp.path()));
    let (home, repo) = (root.join("home"), root.join("repo"));
    fs::create_dir_all(&repo).unwrap();
    let env = vec![("HOME".to_string(), home.display().to_string())];
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(home.join(".claude/settings.json"), r#"{"userMemory": true}"#).unwrap();
    let location = {
        let fs = ConfinedFs::new().grant_read("/").unwrap();
        NativeCore::new(fs).locate(repo.to_str().unwrap(), &env).unwrap()
    };
    let memory = PathBuf::from(&location.memory_dir);
    let began = 1_767_225_600_000_u64;
    write_memory(&memory, "old.md", began - 1);
    write_memory(&memory, "topic/new.md", began + 5);
    write_memory(&memory, ".sessions/also-new.md", began + 5);
    write_memory(&memory, "new-but-not-a-memory.txt", began + 5);
    // A link is not followed, even to a file changed this turn.
    let elsewhere = root.join("elsewhere");
    write_memory(&elsewhere, "planted.md", began + 5);
    std::os::unix::fs::symlink(&elsewhere, memory.join("linked")).unwrap();
    // A shared folder that cannot be read (here a link to itself) is passed over: it does not
    // cost the turn the saves found in its own memory.
    let user = PathBuf::from(location.user_memory_dir.expect("userMemory is on"));
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&user, &user).unwrap();
    let runtime = runtime();
    for backend in ["component", "native"] {
        let fs = ConfinedFs::new().grant_read("/").unwrap();
        let mut core: Box<dyn Core> =
            if backend == "component" { Box::new(runtime.core(fs)) } else { Box::new(NativeCore::new(fs)) };
        let written = core.hook_written_since(repo.to_str().unwrap(), &env, began as i64).unwrap();
        assert_eq!(written, [memory.join("topic/new.md").display().to_string()], "{backend}");
        // A project with no memory directory wrote nothing.
        let none = core.hook_written_since(elsewhere.to_str().unwrap(), &env, 0).unwrap();
        assert!(none.is_empty(), "{backend}: {none:?}");
    }
}
