//! Issue 44, severe 2: every path that applies an operation a model wrote (extraction, the
//! dream, accepting a queued proposal, and a save or forget an agent asks for over MCP, which
//! is `writer.save` / `writer.forget` as `memdir save` / `memdir forget` call them) is driven
//! with operations that name one memory and give the name, type or links of another. Whatever
//! each path does, afterwards:
//! - no memory changed but the one the operation names, a new file, and memories whose only
//!   change is a `[[link]]` following a rename;
//! - every memory that was overwritten or removed is in the trash, as it was;
//! - no memory of a type the policy turns `off` changed, and none was written.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];
/// The memories every case starts with: file stem = name, type, and a link to another.
const SEED: [(&str, &str, &str); 4] = [
    ("deploy", "project", "notes"),
    ("notes", "user", "deploy"),
    ("style", "feedback", "notes"),
    ("wiki", "reference", ""),
];

#[derive(Debug, Clone)]
struct Case {
    op: &'static str,
    /// The file the operation names (an existing one, or a new one).
    path: String,
    /// The name it gives: another memory's, its own, or a new one.
    name: String,
    memory_type: &'static str,
    /// The type whose writes are `off`.
    off: &'static str,
}

fn case() -> impl Strategy<Value = Case> {
    let paths = prop::sample::select(vec!["deploy.md", "notes.md", "style.md", "wiki.md", "fresh.md"]);
    let names = prop::sample::select(vec!["deploy", "notes", "style", "wiki", "fresh", "renamed"]);
    (
        prop::sample::select(vec!["create", "update", "delete"]),
        paths,
        names,
        prop::sample::select(TYPES.to_vec()),
        prop::sample::select(TYPES.to_vec()),
    )
        .prop_map(|(op, path, name, memory_type, off)| Case {
            op,
            path: path.to_string(),
            name: name.to_string(),
            memory_type,
            off,
        })
}

fn body(memory_type: &str, text: &str) -> String {
    match memory_type {
        "feedback" | "project" => format!("{text}\n**Why:** it matters.\n**How to apply:** always."),
        _ => text.to_string(),
    }
}

fn memory_text(name: &str, memory_type: &str, link: &str) -> String {
    let see = if link.is_empty() { String::new() } else { format!(" See [[{link}]].") };
    format!(
        "---\nname: {name}\ndescription: about {name}\nmetadata:\n  type: {memory_type}\n---\n{}\n",
        body(memory_type, &format!("The {name} memory.{see}"))
    )
}

/// The top-level memories of `dir` (MEMORY.md aside), by file.
fn memories(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            (e.file_type().unwrap().is_file() && name.ends_with(".md") && name != "MEMORY.md")
                .then(|| (name, std::fs::read_to_string(e.path()).unwrap()))
        })
        .collect()
}

/// What the trash holds: every kept version's text.
fn trashed(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join(".trash")) else { return Vec::new() };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".index"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

fn type_of(text: &str) -> &str {
    TYPES.iter().find(|t| text.contains(&format!("  type: {t}\n"))).copied().unwrap_or("?")
}

fn memdir(backend: &str, home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["--backend", backend, "--now", "2026-03-04T10:00:00Z"])
        .args(args)
        .env("HOME", home)
        .env("MEMDIR_CACHE_DIR", home.join("cache"))
        .env_remove("MEMDIR_MEMORY_WRITES")
        .output()
        .unwrap()
}

/// Runs `case` through `path` in a fresh directory and checks what changed.
fn run(case: &Case, path: &str, backend: &str) -> Result<bool, TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let (home, mem) = (tmp.path().join("home"), tmp.path().join("mem"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(mem.join("logs/2026/03")).unwrap();
    let review = path == "accept";
    let mode = if review { "review" } else { "auto" };
    let settings = format!(r#"{{"memoryWrites": {{"default": "{mode}", "{}": "off"}}}}"#, case.off);
    std::fs::write(home.join(".claude/settings.json"), settings).unwrap();
    let mut index = String::new();
    for (name, memory_type, link) in SEED {
        std::fs::write(mem.join(format!("{name}.md")), memory_text(name, memory_type, link)).unwrap();
        index.push_str(&format!("- [{name}]({name}.md) — about {name}\n"));
    }
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    std::fs::write(mem.join("logs/2026/03/2026-03-03.md"), "- Ana said something.\n").unwrap();
    let before = memories(&mem);

    let body = body(case.memory_type, "Rewritten by the model.");
    let op = if case.op == "delete" {
        serde_json::json!({"op": "delete", "path": case.path})
    } else {
        serde_json::json!({"op": case.op, "path": case.path, "type": case.memory_type, "name": case.name,
            "description": "what the model wrote", "body": body})
    };
    let reply = tmp.path().join("reply.json");
    std::fs::write(&reply, serde_json::json!({"operations": [op]}).to_string()).unwrap();
    std::fs::write(tmp.path().join("r1.json"), r#"{"read": []}"#).unwrap();
    std::fs::write(tmp.path().join("t.jsonl"), "{\"role\": \"user\", \"content\": \"Remember this.\"}\n")
        .unwrap();
    let llm = format!(
        "command:if grep -q operations; then cat {}; else cat {}; fi",
        reply.display(),
        tmp.path().join("r1.json").display()
    );
    let (mem_s, t) = (mem.to_str().unwrap(), tmp.path().join("t.jsonl"));
    let extract =
        ["extract", "--transcript", t.to_str().unwrap(), "--memory-dir", mem_s, "--utc-offset", "0"];
    match path {
        "extraction" | "accept" => {
            memdir(backend, &home, &[&extract[..], &["--llm", &llm]].concat());
            if review {
                let listed =
                    memdir(backend, &home, &["review", "--pending", "--json", "--memory-dir", mem_s]);
                let pending: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap_or_default();
                for p in pending.as_array().into_iter().flatten() {
                    let id = p["id"].as_str().unwrap();
                    memdir(
                        backend,
                        &home,
                        &["review", "--accept", id, "--memory-dir", mem_s, "--utc-offset", "0"],
                    );
                }
            }
        }
        "dream" => {
            let cat = format!("command:cat {}", reply.display());
            memdir(backend, &home, &["dream", "--memory-dir", mem_s, "--utc-offset", "0", "--llm", &cat]);
        }
        "save" => {
            if case.op == "delete" {
                memdir(backend, &home, &["forget", &case.path, "--memory-dir", mem_s]);
            } else {
                let mut args =
                    vec!["save", "--memory-dir", mem_s, "--type", case.memory_type, "--name", &case.name];
                args.extend(["--description", "what the model wrote", "--body", &body, "--file", &case.path]);
                memdir(backend, &home, &args);
            }
        }
        _ => unreachable!(),
    }

    let after = memories(&mem);
    let trash = trashed(&mem);
    let what = format!("{backend} {path} {case:?}");
    for (file, old) in &before {
        let now = after.get(file);
        if now == Some(old) {
            continue;
        }
        // Changed or removed: it is the named memory, or only its links followed a rename.
        let link_only = now.is_some_and(|now| {
            let strip = |t: &str| t.split("[[").next().unwrap_or("").to_string();
            strip(now) == strip(old)
        });
        prop_assert!(
            *file == case.path || link_only,
            "{what}: {file} changed, but the operation named {}",
            case.path
        );
        prop_assert!(trash.contains(old), "{what}: {file} changed and its old text is not in the trash");
        prop_assert!(
            type_of(old) != case.off,
            "{what}: {file} is a {} memory, whose writes are off",
            case.off
        );
    }
    let created: Vec<&String> = after.keys().filter(|f| !before.contains_key(*f)).collect();
    prop_assert!(created.len() <= 1, "{what}: several files appeared: {created:?}");
    for file in created {
        prop_assert!(
            type_of(&after[file]) != case.off,
            "{what}: {file} was written as a {} memory",
            case.off
        );
    }
    if after != before && case.op != "delete" {
        prop_assert!(case.memory_type != case.off, "{what}: a {} memory was written", case.off);
    }
    Ok(after != before)
}

#[test]
fn an_operation_changes_only_the_memory_it_names_on_every_apply_path() {
    let mut config = Config::with_cases(24);
    config.rng_seed = proptest::test_runner::RngSeed::Fixed(0x0069_7373_7565_3434);
    config.failure_persistence = None;
    let mut runner = TestRunner::new(config);
    let n = std::cell::Cell::new(0);
    // How many runs of each path changed something: a path that never writes tests nothing.
    let changed = std::cell::RefCell::new(BTreeMap::<&str, usize>::new());
    runner
        .run(&case(), |case| {
            n.set(n.get() + 1);
            // The component on a few cases (it starts slower), the native core on all.
            let backends: &[&str] = if n.get() % 6 == 0 { &["native", "component"] } else { &["native"] };
            for backend in backends {
                for path in ["extraction", "dream", "accept", "save"] {
                    if run(&case, path, backend)? {
                        *changed.borrow_mut().entry(path).or_default() += 1;
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    let changed = changed.into_inner();
    for path in ["extraction", "dream", "accept", "save"] {
        assert!(
            changed.get(path).copied().unwrap_or(0) >= 3,
            "{path} changed too little to test anything: {changed:?}"
        );
    }
}
