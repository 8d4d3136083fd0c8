//! The layering guard (issue 45): no crate of the workspace has an import circle between its
//! modules. A circle arrived two hours after the last one was removed, and nothing noticed; this
//! test is what notices now.
//!
//! A module's imports are the `crate::`, `super::` and `self::` paths its code names outside
//! comments and its unit tests (a `#[cfg(test)] mod tests` may reach anywhere). Each path lands on the deepest
//! module of the crate it names. Naming the crate root (which declares every module) is no
//! layer; a parent and a child that name each other are a circle like any other.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 3] = ["guest/src", "host-harness/src", "cli/src"];

#[test]
fn no_crate_has_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut found = Vec::new();
    for src in CRATES {
        let graph = imports(&root.join(src));
        assert!(graph.len() > 5, "{src}: found only {} modules; is the path right?", graph.len());
        found.extend(circles(&graph).into_iter().map(|c| format!("{src}: {}", c.join(" -> "))));
    }
    assert!(
        found.is_empty(),
        "import circles (break each by moving what both need lower):\n{}",
        found.join("\n")
    );
}

/// Issue 45, item 3: the core stands in wings, each importing only wings on the floors below
/// it: base, then format, then context, then retrieval and writers, then sync and hygiene, then
/// agents, whose tool calls reach all of them (and `exports.rs`, the glue, over all). A module
/// may import its own wing.
#[test]
fn the_cores_wings_import_only_the_wings_below_them() {
    const FLOORS: [&[&str]; 6] =
        [&["base"], &["format"], &["context"], &["retrieval", "writers"], &["sync", "hygiene"], &["agents"]];
    let floor = |module: &str| {
        let wing = module.split("::").next().unwrap();
        FLOORS.iter().position(|f| f.contains(&wing)).map(|n| (wing.to_string(), n))
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let graph = imports(&root.join("guest/src"));
    let mut wings = BTreeSet::new();
    let mut upward = Vec::new();
    for (from, targets) in &graph {
        let Some((from_wing, from_floor)) = floor(from) else { continue };
        wings.insert(from_wing.clone());
        for to in targets {
            let (to_wing, to_floor) = floor(to).unwrap_or_else(|| panic!("{from} imports {to}, in no wing"));
            if to_wing != from_wing && to_floor >= from_floor {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    assert_eq!(wings.len(), 8, "{wings:?}");
    assert!(upward.is_empty(), "imports of a wing on the same floor or above:\n{}", upward.join("\n"));
}

/// Issue 45, item 3: outside the core, Rust reaches it through the host library's API only
/// (`memdir_harness`, its `contract` types included). The CLI does not depend on the core
/// crate, and no source file of it names the crate; its tests may, to test the core itself.
#[test]
fn the_cli_reaches_the_core_only_through_the_host_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let naming: Vec<String> = rust_files(&root.join("src"))
        .into_iter()
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("memdir_core"))
        .map(|f| f.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(naming.is_empty(), "these CLI files name memdir_core; use memdir_harness instead: {naming:?}");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let dependencies = manifest.split("\n[").find(|t| t.starts_with("dependencies]")).unwrap();
    assert!(dependencies.contains("memdir-harness"), "{dependencies}");
    assert!(!dependencies.contains("memdir-core"), "the CLI depends on the core crate: {dependencies}");
}

#[test]
fn the_guard_sees_a_circle_through_use_groups_and_super() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\nmod f;\n"),
        ("a.rs", "use crate::{b::Thing, c};\n"),
        ("b.rs", "pub fn f() { crate::d::g() }\n"),
        ("c.rs", "\n"),
        ("d.rs", "mod inner;\nuse crate::{c, a as alias};\n"),
        ("d/inner.rs", "use super::super::e;\n"),
        ("e.rs", "#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n"),
        ("f.rs", "\n"),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let graph = imports(dir.path());
    assert_eq!(graph["d::inner"], BTreeSet::from(["e".to_string()]));
    assert!(graph["e"].is_empty(), "unit tests are not imports");
    let found = circles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0], ["a", "b", "d", "a"]);
}

/// Each module of the crate under `src` (`commands::hook`), with the modules it imports.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(src);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let text = match text.find("#[cfg(test)]\nmod tests") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        // Comments (doc links included) name what they explain, not what the code needs.
        let code: String =
            text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        let mut targets = BTreeSet::new();
        for path in paths(&code) {
            let Some(absolute) = resolve(module, &path) else { continue };
            if let Some(target) = deepest(&modules, &absolute)
                && target != *module
                && !is_root(&target)
            {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    common::source_files(dir, &["rs"])
}

/// `commands/hook.rs` and `commands/hook/mod.rs` are `commands::hook`; `lib.rs` and `main.rs` the
/// crate root, `""`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

/// Every path the text names from `crate::`, `super::` or `self::`, use groups spread out:
/// `use crate::{a::B, c}` names `crate::a::B` and `crate::c`.
fn paths(text: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
        if starts_word && ["crate::", "super::", "self::"].iter().any(|k| rest.starts_with(k)) {
            let mut end = i;
            tree(&chars, &mut end, Vec::new(), &mut out);
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads one use tree at `*i` (segments `a::b::`, then a name or a `{...}` group) under `prefix`.
fn tree(chars: &[char], i: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        skip_space(chars, i);
        if chars.get(*i) == Some(&'{') {
            *i += 1;
            loop {
                skip_space(chars, i);
                if chars.get(*i) == Some(&'}') {
                    *i += 1;
                    break;
                }
                tree(chars, i, prefix.clone(), out);
                skip_space(chars, i);
                match chars.get(*i) {
                    Some(',') => *i += 1,
                    Some('}') => {
                        *i += 1;
                        break;
                    }
                    _ => break,
                }
            }
            return;
        }
        let start = *i;
        while *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
            *i += 1;
        }
        if start == *i {
            if !prefix.is_empty() {
                out.push(prefix);
            }
            return;
        }
        prefix.push(chars[start..*i].iter().collect());
        if chars.get(*i..*i + 2) == Some(&[':', ':']) {
            *i += 2;
        } else {
            out.push(prefix);
            return;
        }
    }
}

fn skip_space(chars: &[char], i: &mut usize) {
    while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
        *i += 1;
    }
}

/// The path from the crate root: `super` and `self` taken against `module`.
fn resolve(module: &str, path: &[String]) -> Option<Vec<String>> {
    let mut here: Vec<String> =
        if module.is_empty() { Vec::new() } else { module.split("::").map(String::from).collect() };
    let mut rest = path;
    match rest.first()?.as_str() {
        "crate" => {
            here.clear();
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                here.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    here.extend(rest.iter().cloned());
    Some(here)
}

/// The deepest module that `path` (from the crate root) lies in.
fn deepest(modules: &BTreeMap<String, PathBuf>, path: &[String]) -> Option<String> {
    (0..=path.len()).rev().map(|n| path[..n].join("::")).find(|m| modules.contains_key(m))
}

/// The crate root declares every module and re-exports a few: naming it is no layer.
fn is_root(module: &str) -> bool {
    module.is_empty()
}

/// The circles of the graph, each once: a path that comes back to where it started.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut seen_cycles = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut visited = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    let mut members: Vec<String> = path.clone();
                    members.sort();
                    if seen_cycles.insert(members) {
                        let mut cycle = path.clone();
                        cycle.push(start.clone());
                        found.push(cycle);
                    }
                } else if next > start && visited.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}
