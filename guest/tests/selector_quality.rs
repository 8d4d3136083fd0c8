//! The offline selector and the model shortlist on the hand-labelled set (issue 17, items 2 and
//! 3; R7.7). `SELECTOR_VERBOSE=1` prints each miss. Quality, not speed: the figures are deterministic, so the floors below are what
//! the selector reaches today, and a change that lowers one fails here. `memdir bench
//! --selector` measures the same set through the component and the whole recall.

use memdir_core::scan::MemoryHeader;
use memdir_core::select;
use serde_json::Value;

const SET: &str = include_str!("../../tests/offline-selector/labelled.json");

#[derive(Default, Debug)]
struct Tally {
    expected: usize,
    /// Expected memories injected whole.
    found: usize,
    /// Expected memories injected whole or named by their entry (issue 27, item 4).
    found_or_named: usize,
    /// Memories injected whole.
    selected: usize,
    none_requests: usize,
    none_kept_empty: usize,
    shortlisted: usize,
}

fn headers(dir: &Value) -> Vec<MemoryHeader> {
    // Newest first, as a scan hands them to recall: the set's memories are written in file
    // name order, an hour apart (as `memdir bench --selector` does).
    let mut out: Vec<MemoryHeader> = dir["memories"]
        .as_object()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(n, (path, m))| MemoryHeader {
            path: path.clone(),
            mtime_ms: n as i64 * 3_600_000,
            name: m["name"].as_str().map(String::from),
            description: Some(format!(
                "{} {}",
                m["description"].as_str().unwrap(),
                if std::env::var_os("BODY").is_some() { m["body"].as_str().unwrap() } else { "" }
            )),
            memory_type: m["type"].as_str().and_then(memdir_core::MemoryType::parse),
            diagnostics: vec![],
            freshness: Default::default(),
            links: vec![],
            backlinks: vec![],
        })
        .collect();
    out.reverse();
    out
}

fn measure(verbose: bool) -> Tally {
    let set: Value = serde_json::from_str(SET).unwrap();
    let mut t = Tally::default();
    for request in set["requests"].as_array().unwrap() {
        let candidates = headers(&set["directories"][request["dir"].as_str().unwrap()]);
        let query = request["query"].as_str().unwrap();
        let expected: Vec<&str> =
            request["expected"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let ranked = select::rank(query, &candidates);
        let strong = |c: &select::Confidence| *c == select::Confidence::Strong;
        let selected: Vec<&String> = ranked.iter().filter(|(_, c)| strong(c)).map(|(p, _)| p).collect();
        let named: Vec<&String> = ranked.iter().filter(|(_, c)| !strong(c)).map(|(p, _)| p).collect();
        let dir = &set["directories"][request["dir"].as_str().unwrap()]["memories"];
        let bodies: Vec<String> =
            candidates.iter().map(|c| dir[&c.path]["body"].as_str().unwrap().to_string()).collect();
        let shortlist: Vec<String> = select::shortlist(
            query,
            candidates.clone(),
            &bodies,
            &[],
            memdir_core::switches::DEFAULT_RECALL_SHORTLIST as usize,
        )
        .into_iter()
        .map(|h| h.path)
        .collect();
        let hits = expected.iter().filter(|e| selected.iter().any(|s| s == *e)).count();
        if verbose && (hits < expected.len() || selected.len() > hits) {
            eprintln!("{query:?}\n    expected {expected:?}\n    selected {selected:?}\n    named {named:?}");
        }
        if verbose {
            for e in expected.iter().filter(|e| !shortlist.iter().any(|s| s == *e)) {
                eprintln!("{query:?}\n    the shortlist misses {e}");
            }
        }
        t.expected += expected.len();
        t.found += hits;
        t.found_or_named += expected.iter().filter(|e| ranked.iter().any(|(p, _)| p == *e)).count();
        t.selected += selected.len();
        t.shortlisted += expected.iter().filter(|e| shortlist.iter().any(|s| s == *e)).count();
        if expected.is_empty() {
            t.none_requests += 1;
            t.none_kept_empty += usize::from(ranked.is_empty());
        }
    }
    t
}

// What the selector reaches today: a change that lowers one fails here.
const FLOOR_PRECISION: f64 = 0.65;
const FLOOR_RECALL: f64 = 0.41;
const FLOOR_RECALL_NAMED: f64 = 0.56;
const FLOOR_NONE: f64 = 0.69;

#[test]
fn the_selector_meets_its_floors_on_the_labelled_set() {
    let t = measure(std::env::var_os("SELECTOR_VERBOSE").is_some());
    let precision = t.found as f64 / t.selected.max(1) as f64;
    let recall = t.found as f64 / t.expected as f64;
    let recall_named = t.found_or_named as f64 / t.expected as f64;
    let none = t.none_kept_empty as f64 / t.none_requests as f64;
    let shortlist = t.shortlisted as f64 / t.expected as f64;
    eprintln!(
        "precision {precision:.3} recall@5 {recall:.3} with entries {recall_named:.3} none kept empty {none:.3} shortlist recall {shortlist:.3} {t:?}"
    );
    // What the selector reaches (issue 27 asks 0.6, 0.9, 0.8 and 0.98: docs/recall.md says
    // what the misses are). Whole injections only before issue 27: precision 0.24, recall
    // 0.66, none 0.18.
    assert!(precision >= FLOOR_PRECISION, "precision {precision:.3}");
    assert!(recall >= FLOOR_RECALL, "recall@5 {recall:.3}");
    assert!(recall_named >= FLOOR_RECALL_NAMED, "recall@5 with entries {recall_named:.3}");
    assert!(none >= FLOOR_NONE, "none kept empty {none:.3}");
    assert!(shortlist >= 0.98, "shortlist recall {shortlist:.3}");
}
