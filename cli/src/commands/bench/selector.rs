//! `memdir bench --selector SET`: how well recall chooses, on a labelled set (issue 17).
//!
//! Each directory of the set is written as a memory directory; each request is recalled
//! through the core (`--backend`, the component by default), offline (what is injected), and once more as the model would be
//! asked (which memories the shortlist offers, and how large the request is) with the
//! configured shortlist and with every memory. A benchmark: it reports, it asserts nothing.

use crate::context::{Context, Failure, Outcome};
use memdir_harness::ConfinedFs;
use memdir_harness::contract::model::ModelCall;
use memdir_harness::contract::recall;
use memdir_harness::contract::target::Target;
use memdir_harness::steps::drive_with;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The labelled set (`tests/offline-selector/labelled.json`).
#[derive(Deserialize)]
pub(super) struct Set {
    pub(super) directories: BTreeMap<String, Directory>,
    pub(super) requests: Vec<Request>,
}

#[derive(Deserialize)]
pub(super) struct Directory {
    pub(super) memories: BTreeMap<String, Memory>,
}

#[derive(Deserialize)]
pub(super) struct Memory {
    #[serde(rename = "type")]
    memory_type: String,
    name: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
pub(super) struct Request {
    pub(super) dir: String,
    lang: String,
    pub(super) query: String,
    pub(super) expected: Vec<String>,
}

impl Set {
    /// The labelled set at `path`.
    pub(super) fn read(path: &Path) -> Result<Set, Failure> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::input(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text)
            .map_err(|e| Failure::input(format!("{} is not a labelled set: {e}", path.display())))
    }
}

/// What one configuration measured over the whole set.
#[derive(Default)]
struct Tally {
    requests: usize,
    expected: usize,
    found: usize,
    /// Expected memories injected whole or named by their entry.
    found_or_named: usize,
    selected: usize,
    relevant_selected: usize,
    none_requests: usize,
    none_kept_empty: usize,
    bytes: u64,
    shortlisted: usize,
    request_bytes: u64,
    full_request_bytes: u64,
    model_requests: usize,
}

/// Runs the benchmark over the set `args.set`, with the shortlist and embeddings model `args`
/// name.
pub fn run(ctx: &Context, args: &super::Args, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let (shortlist, verbose) = (args.shortlist, args.verbose);
    // One embedder for each recall, as `memdir recall` makes: its calls share one deadline.
    let embedder = || crate::ops::recall::recall_embedder(ctx, args.embeddings.as_deref());
    let embeddings_label = embedder()?.map(|e| e.label());
    let set = Set::read(&args.set)?;
    let temp = tempfile::Builder::new().prefix("memdir-bench-selector-").tempdir()?;
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home)?;
    let mut dirs = BTreeMap::new();
    for (id, dir) in &set.directories {
        let abs = crate::context::absolute(&temp.path().join(id))?;
        write_directory(Path::new(&abs), dir)?;
        dirs.insert(id.clone(), (abs, dir.memories.len()));
    }
    // Writable, so the embeddings are cached once per memory, as in use.
    let mut core = ctx.core(ConfinedFs::new().grant_write(temp.path())?)?;
    let now_ms = chrono::Utc::now().timestamp_millis();
    let mut by_dir: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_lang: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    // Even requests were looked at while choosing the cutoffs; odd ones were held out.
    let mut halves: [Tally; 2] = Default::default();
    // Recalls the embeddings model failed (a timeout, say): their figures are words alone.
    let mut fell_back = 0;
    for (n, request) in set.requests.iter().enumerate() {
        let (dir, _) = dirs
            .get(&request.dir)
            .ok_or_else(|| Failure::input(format!("request {:?} names no directory", request.query)))?;
        let env = |shortlist: u32| {
            vec![
                ("HOME".to_string(), home.display().to_string()),
                ("MEMDIR_RECALL_SHORTLIST".to_string(), shortlist.to_string()),
            ]
        };
        let input = |offline: bool, shortlist: u32| recall::Input {
            target: Target { cwd: dir.clone(), env: env(shortlist), memory_dir: Some(dir.clone()), by: None },
            query: request.query.clone(),
            now_ms,
            offline,
            embeddings: embeddings_label.clone(),
            ..recall::Input::default()
        };
        let first = core.recall_start(&input(true, shortlist))?;
        let mut offline_embedder = embedder()?;
        let embeddings = offline_embedder.as_deref_mut().map(|e| e as &mut dyn memdir_harness::llm::Embedder);
        let offline =
            drive_with(first, None, embeddings, |state, reply| core.recall_resume(state, reply), |_| {})?;
        let words_alone = offline.diagnostics.iter().any(|d| d.contains("by words alone"));
        fell_back += usize::from(words_alone);
        if verbose && words_alone {
            writeln!(err, "    {:?}", offline.diagnostics)?;
        }
        // What a model would be asked: the recall is driven (vectors first, with an embeddings
        // model) up to its question, which is kept, and left unanswered.
        let mut asked = |shortlist: u32| -> Result<_, Failure> {
            let mut request = None;
            let first = core.recall_start(&input(false, shortlist))?;
            let mut embedder = embedder()?;
            let embeddings = embedder.as_deref_mut().map(|e| e as &mut dyn memdir_harness::llm::Embedder);
            let keep = |call: &ModelCall| request = Some(call.request.clone());
            drive_with(first, None, embeddings, |state, reply| core.recall_resume(state, reply), keep)?;
            Ok(request)
        };
        let short = asked(shortlist)?;
        let full = asked(0)?;
        let hits = request.expected.iter().filter(|e| offline.selected.contains(e)).count();
        let named: Vec<&str> =
            offline.attachments.iter().filter(|a| !a.whole).map(|a| a.path.as_str()).collect();
        let hits_or_named = request
            .expected
            .iter()
            .filter(|e| offline.selected.contains(e) || named.contains(&e.as_str()))
            .count();
        let not_offered: Vec<&String> = short
            .as_ref()
            .map_or_else(Vec::new, |r| request.expected.iter().filter(|e| !offers(&r.user, e)).collect());
        let offered = if short.is_some() { request.expected.len() - not_offered.len() } else { 0 };
        if verbose {
            writeln!(
                err,
                "{:>3}/{:<2} {:<2} {:?} expected {:?} selected {:?} named {:?} not shortlisted {:?}",
                hits,
                request.expected.len(),
                request.lang,
                request.query,
                request.expected,
                offline.selected,
                named,
                not_offered
            )?;
        }
        for tally in [
            &mut all,
            by_dir.entry(&request.dir).or_default(),
            by_lang.entry(&request.lang).or_default(),
            &mut halves[n % 2],
        ] {
            tally.requests += 1;
            tally.expected += request.expected.len();
            tally.found += hits;
            tally.found_or_named += hits_or_named;
            tally.selected += offline.selected.len();
            tally.relevant_selected += hits;
            tally.bytes += u64::from(offline.turn_bytes);
            if request.expected.is_empty() {
                tally.none_requests += 1;
                tally.none_kept_empty += usize::from(offline.attachments.is_empty());
            }
            tally.shortlisted += offered;
            if let (Some(short), Some(full)) = (&short, &full) {
                tally.model_requests += 1;
                tally.request_bytes += (short.system.len() + short.user.len()) as u64;
                tally.full_request_bytes += (full.system.len() + full.user.len()) as u64;
            }
        }
    }
    writeln!(
        out,
        "Offline selector{} and model shortlist ({shortlist}) on {} ({} requests)\n",
        embeddings_label.as_ref().map_or(String::new(), |label| format!(" with embeddings `{label}`")),
        args.set.file_name().unwrap_or_default().to_string_lossy(),
        all.requests
    )?;
    writeln!(
        out,
        "| requests | memories | precision | recall@5 | recall@5 with entries | none kept empty | bytes per relevant memory | shortlist recall | model request bytes (shortlist / all) |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    for (label, memories, tally) in by_dir
        .iter()
        .map(|(id, t)| (format!("`{id}`"), dirs[*id].1.to_string(), t))
        .chain(by_lang.iter().map(|(lang, t)| (format!("in {lang}"), "–".to_string(), t)))
        .chain([
            ("design half".to_string(), "–".to_string(), &halves[0]),
            ("held-out half".to_string(), "–".to_string(), &halves[1]),
            ("all".to_string(), "–".to_string(), &all),
        ])
    {
        writeln!(out, "| {label} ({}) | {memories} | {} |", tally.requests, row(tally))?;
    }
    if embeddings_label.is_some() {
        writeln!(
            out,
            "\nRecalls the embeddings model failed, left to words alone: {fell_back} of {}",
            all.requests
        )?;
    }
    Ok(())
}

/// Precision, recall@5, none kept empty, bytes per relevant memory, shortlist recall, and the
/// model request's size.
fn row(t: &Tally) -> String {
    let ratio =
        |a: usize, b: usize| if b == 0 { "–".to_string() } else { format!("{:.2}", a as f64 / b as f64) };
    let mean = |total: u64| if t.model_requests == 0 { 0 } else { total / t.model_requests as u64 };
    let per_relevant = if t.relevant_selected == 0 {
        "–".to_string()
    } else {
        (t.bytes / t.relevant_selected as u64).to_string()
    };
    format!(
        "{} | {} | {} | {} ({}/{}) | {per_relevant} | {} ({}/{}) | {} / {} ({:.1}×)",
        ratio(t.relevant_selected, t.selected),
        ratio(t.found, t.expected),
        ratio(t.found_or_named, t.expected),
        ratio(t.none_kept_empty, t.none_requests),
        t.none_kept_empty,
        t.none_requests,
        ratio(t.shortlisted, t.expected),
        t.shortlisted,
        t.expected,
        mean(t.request_bytes),
        mean(t.full_request_bytes),
        mean(t.full_request_bytes) as f64 / mean(t.request_bytes).max(1) as f64,
    )
}

/// True when the model request's manifest lists `file`.
fn offers(user: &str, file: &str) -> bool {
    user.lines().any(|line| line.split_whitespace().nth(2) == Some(file))
}

/// Writes the directory's memories and their index, oldest first, an hour apart, so that
/// "newest first" is the order the set lists them in reverse.
pub(super) fn write_directory(dir: &Path, set: &Directory) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)?;
    let mut index = String::new();
    let base = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400 * 30);
    for (n, (file, m)) in set.memories.iter().enumerate() {
        // JSON strings are YAML's double-quoted scalars: a colon in a name stays text.
        let quote = |s: &str| serde_json::to_string(s).expect("a string serializes");
        let text = format!(
            "---\nname: {}\ndescription: {}\nmetadata:\n  type: {}\n---\n\n{}\n",
            quote(&m.name),
            quote(&m.description),
            m.memory_type,
            m.body
        );
        let path = dir.join(file);
        std::fs::write(&path, text)?;
        let file_handle = std::fs::File::options().write(true).open(&path)?;
        file_handle.set_modified(base + std::time::Duration::from_secs(n as u64 * 3600))?;
        index.push_str(&format!("- [{}]({file}) — {}\n", m.name, m.description));
    }
    std::fs::write(dir.join("MEMORY.md"), index)?;
    Ok(())
}
