//! The offline selector (R7.7): BM25 over each memory's path, name and description, for hosts
//! without a model. English words are lowercased and lightly stemmed; CJK text, which has no
//! spaces, is indexed as single characters and character pairs.

use crate::memory_type::MemoryType;
use crate::scan::MemoryHeader;
use std::collections::BTreeMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that say nothing about which memory helps (checked before stemming). Sorted: they are
/// looked up by binary search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get",
    "how", "i", "in", "is", "it", "know", "me", "my", "need", "not", "of", "on", "or", "our", "should",
    "that", "the", "there", "this", "to", "use", "used", "uses", "using", "we", "what", "when", "where",
    "which", "why", "with", "you",
];

/// How offline recall chooses among scored candidates (issue 17, item 2).
#[derive(Clone, Copy, Debug)]
pub struct Cutoff {
    /// At most this many.
    pub limit: usize,
    /// Kept only while a score is at least this share of the best one.
    pub relative: f64,
    /// Nothing is chosen unless the best score reaches this many times what one shared word
    /// found in a single memory scores (scores grow with the number of memories, so the
    /// evidence asked for is relative to the directory)...
    pub min_evidence: f64,
    /// ...or holds at least this share of the request's words (which may be common ones).
    pub min_coverage: f64,
}

/// What offline recall names at all (issue 17, revised by issue 27 on half of the labelled set,
/// the other half held out; docs/recall.md): a memory scoring under half the best one is
/// usually there for a word it shares with the request by chance, and a best match worth less
/// than one and a half rare words, holding under three quarters of the request's words, is
/// common words only. Those not [`STRONG`] are named by their entry, at most three.
pub const OFFLINE: Cutoff = Cutoff {
    limit: crate::budget::SELECT_COUNT as usize,
    relative: 0.5,
    min_evidence: 1.5,
    min_coverage: 0.75,
};

/// At most this many plausible memories are named by their entry in one turn.
pub const MENTION_LIMIT: usize = 3;

/// How sure offline recall is that a memory bears on a request (issue 27, item 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confidence {
    /// Injected whole.
    Strong,
    /// Named by its one-line manifest entry, for the agent to open if it is relevant.
    Plausible,
}

/// What offline recall injects whole: a best match worth two rare words, or holding three
/// quarters of the request's words, and what scores close to it. Below this a match is only
/// plausible: one shared word is as often chance as meaning (docs/recall.md).
pub const STRONG: Cutoff = Cutoff {
    limit: crate::budget::SELECT_COUNT as usize,
    relative: 0.75,
    min_evidence: 2.0,
    min_coverage: 0.75,
};

/// The memories offline recall offers for `query`, best first, each with how sure it is:
/// those past [`OFFLINE`], the ones also past [`STRONG`] strong, the rest plausible.
pub fn rank(query: &str, candidates: &[MemoryHeader]) -> Vec<(String, Confidence)> {
    let scored = scores(query, candidates);
    let strong = cut(query, candidates, &scored, STRONG);
    let plausible = cut(query, candidates, &scored, OFFLINE)
        .into_iter()
        .filter(|i| !strong.contains(i))
        .take(MENTION_LIMIT);
    let path = |i: usize| candidates[i].path.clone();
    strong
        .iter()
        .map(|&i| (path(i), Confidence::Strong))
        .chain(plausible.map(|i| (path(i), Confidence::Plausible)))
        .collect()
}

/// How offline recall reads cosines from the user's embeddings model (issue 27, item 2). A
/// cosine means little alone (each model has its own range), so a memory counts by how far it
/// stands above the directory's typical memory (the median) for this request, and by how close
/// it comes to the best.
#[derive(Clone, Copy, Debug)]
pub struct MeaningCutoff {
    /// At least this far above the median cosine...
    pub above_median: f32,
    /// ...and at most this far below the best one.
    pub below_best: f32,
}

/// Injected whole by meaning: only the best match, and only when it stands far above the
/// rest. Chosen with all-MiniLM-L6-v2 on the labelled set's design half (docs/recall.md):
/// lower, and requests that need no memory get one.
pub const MEANING_STRONG: MeaningCutoff = MeaningCutoff { above_median: 0.5, below_best: 0.0 };
/// Named by its entry by meaning: the best match, standing well above the rest.
pub const MEANING_PLAUSIBLE: MeaningCutoff = MeaningCutoff { above_median: 0.4, below_best: 0.0 };

/// [`rank`] with a second signal, each candidate's cosine with the request (`cosines`, in the
/// candidates' order): a memory is strong when either signal finds it strong, plausible when
/// either finds it plausible. Words first, then meaning, best first within each.
pub fn rank_with_meaning(
    query: &str,
    candidates: &[MemoryHeader],
    cosines: &[f32],
) -> Vec<(String, Confidence)> {
    let lexical = rank(query, candidates);
    let meaning = |cutoff: MeaningCutoff| by_meaning(cosines, cutoff);
    let path = |i: usize| candidates[i].path.clone();
    let of = |confidence| lexical.iter().filter(move |(_, c)| *c == confidence).map(|(p, _)| p.clone());
    let mut strong: Vec<String> = of(Confidence::Strong).collect();
    for p in meaning(MEANING_STRONG).into_iter().map(path) {
        if !strong.contains(&p) {
            strong.push(p);
        }
    }
    strong.truncate(crate::budget::SELECT_COUNT as usize);
    let mut plausible: Vec<String> = Vec::new();
    for p in of(Confidence::Plausible).chain(meaning(MEANING_PLAUSIBLE).into_iter().map(path)) {
        if !strong.contains(&p) && !plausible.contains(&p) {
            plausible.push(p);
        }
    }
    plausible.truncate(MENTION_LIMIT);
    strong
        .into_iter()
        .map(|p| (p, Confidence::Strong))
        .chain(plausible.into_iter().map(|p| (p, Confidence::Plausible)))
        .collect()
}

/// The indexes of the candidates whose cosine passes `cutoff`, best first.
fn by_meaning(cosines: &[f32], cutoff: MeaningCutoff) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cosines.len()).collect();
    order.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(&b)));
    let Some(&first) = order.first() else { return Vec::new() };
    let best = cosines[first];
    let median = cosines[order[order.len() / 2]];
    order
        .into_iter()
        .take_while(|&i| cosines[i] >= best - cutoff.below_best)
        .filter(|&i| cosines[i] >= median + cutoff.above_median)
        .take(crate::budget::SELECT_COUNT as usize)
        .collect()
}

/// The indexes of the `scored` candidates `cutoff` keeps, best first.
fn cut(query: &str, candidates: &[MemoryHeader], scored: &[(f64, usize)], cutoff: Cutoff) -> Vec<usize> {
    let Some(&(best, first)) = scored.first() else { return Vec::new() };
    let enough = best >= cutoff.min_evidence * idf(candidates.len() as f64, 1.0)
        || coverage(query, &candidates[first]) >= cutoff.min_coverage;
    if !enough {
        return Vec::new();
    }
    scored
        .iter()
        .take_while(|(score, _)| *score >= best * cutoff.relative)
        .take(cutoff.limit)
        .map(|&(_, i)| i)
        .collect()
}

/// The candidates a model is offered when there are more than `size` (issue 17): those that
/// share terms with the request, scored on their headers and `bodies` (one per candidate, ""
/// when unread), best first; then the rest by kind; until `size`. Kept in the candidates' own
/// order. `size` 0 keeps all.
pub fn shortlist(
    query: &str,
    candidates: Vec<MemoryHeader>,
    bodies: &[String],
    size: usize,
) -> Vec<MemoryHeader> {
    if size == 0 || candidates.len() <= size {
        return candidates;
    }
    let docs = candidates
        .iter()
        .zip(bodies.iter().map(String::as_str).chain(std::iter::repeat("")))
        .map(|(header, body)| {
            let mut doc = document(header);
            doc.extend(tokens(body));
            doc
        })
        .collect();
    let scored = scores_of(query, docs);
    // Then the rest by kind: who the user is and how they want work done apply to most
    // requests whatever their words; then project state, then references. Newest first.
    let kind = |i: &usize| match candidates[*i].memory_type {
        Some(MemoryType::User) => 0,
        Some(MemoryType::Feedback) => 1,
        Some(MemoryType::Project) => 2,
        _ => 3,
    };
    let mut was_scored = vec![false; candidates.len()];
    for (_, i) in &scored {
        was_scored[*i] = true;
    }
    let mut rest: Vec<usize> = (0..candidates.len()).filter(|i| !was_scored[*i]).collect();
    rest.sort_by_key(kind);
    let mut keep = vec![false; candidates.len()];
    for i in scored.iter().map(|(_, i)| *i).chain(rest).take(size) {
        keep[i] = true;
    }
    candidates.into_iter().zip(keep).filter_map(|(c, k)| k.then_some(c)).collect()
}

/// BM25 scores of the candidates that share a term with `query`, best first (ties keep the
/// candidates' order), each with the candidate's index.
fn scores(query: &str, candidates: &[MemoryHeader]) -> Vec<(f64, usize)> {
    scores_of(query, candidates.iter().map(document).collect())
}

/// [`scores`] over documents already made into terms.
fn scores_of(query: &str, docs: Vec<Vec<String>>) -> Vec<(f64, usize)> {
    let query_terms = tokens(query);
    if query_terms.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    let avg_len = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
    // Only the request's terms are weighed, so only theirs are counted.
    let mut doc_freq: BTreeMap<&str, usize> = query_terms.iter().map(|t| (t.as_str(), 0)).collect();
    for doc in &docs {
        for (term, count) in doc_freq.iter_mut() {
            if doc.iter().any(|t| t == term) {
                *count += 1;
            }
        }
    }
    let mut scored: Vec<(f64, usize)> = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            let len = doc.len() as f64;
            let score = query_terms
                .iter()
                .map(|term| {
                    let tf = doc.iter().filter(|t| *t == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = *doc_freq.get(term.as_str()).unwrap_or(&0) as f64;
                    idf(n, df) * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len.max(1.0)))
                })
                .sum::<f64>();
            (score, i)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
}

/// The share of the request's distinct terms that `header` holds.
fn coverage(query: &str, header: &MemoryHeader) -> f64 {
    let mut terms = tokens(query);
    terms.sort_unstable();
    terms.dedup();
    let doc = document(header);
    terms.iter().filter(|t| doc.contains(t)).count() as f64 / terms.len().max(1) as f64
}

/// BM25's weight of a term found in `df` of `n` memories.
fn idf(n: f64, df: f64) -> f64 {
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

fn document(header: &MemoryHeader) -> Vec<String> {
    // A shared memory's path is absolute: only its file name says what it is about.
    let path = if crate::fs::is_absolute(&header.path) {
        header.path.rsplit('/').next().unwrap_or_default()
    } else {
        &header.path
    };
    let mut text = path.trim_end_matches(".md").to_string();
    for part in [&header.name, &header.description].into_iter().flatten() {
        text.push(' ');
        text.push_str(part);
    }
    tokens(&text)
}

/// True for characters of scripts written without spaces between words (CJK).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // CJK Extensions B–F
}

/// Index terms: stemmed lowercase words without stop words, and CJK unigrams and bigrams.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk_run: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() && STOP_WORDS.binary_search(&word.as_str()).is_err() {
            out.push(stem(word));
        }
        word.clear();
    };
    let flush_cjk = |run: &mut Vec<char>, out: &mut Vec<String>| {
        for (i, c) in run.iter().enumerate() {
            out.push(c.to_string());
            if let Some(next) = run.get(i + 1) {
                out.push(format!("{c}{next}"));
            }
        }
        run.clear();
    };
    for c in text.chars() {
        // Most text is ASCII: one test and no case tables for it.
        if c.is_ascii_alphanumeric() {
            flush_cjk(&mut cjk_run, &mut out);
            word.push(c.to_ascii_lowercase());
        } else if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk_run.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk_run, &mut out);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk_run, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk_run, &mut out);
    out
}

/// A light English stemmer: enough that "deploys", "deploying" and "deployed" meet "deploy".
fn stem(word: &str) -> String {
    let w = word;
    let n = w.chars().count();
    let strip =
        |suffix: &str, min: usize| (n >= min && w.ends_with(suffix)).then(|| &w[..w.len() - suffix.len()]);
    if let Some(s) = strip("ies", 5) {
        return format!("{s}y");
    }
    for (suffix, min) in [("ing", 6), ("ed", 5), ("ly", 5)] {
        if let Some(s) = strip(suffix, min) {
            return s.to_string();
        }
    }
    if let Some(s) = strip("es", 5).filter(|s| ["s", "x", "z", "ch", "sh"].iter().any(|e| s.ends_with(e))) {
        return s.to_string();
    }
    if n >= 4 && w.ends_with('s') && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryType;

    fn header(path: &str, name: &str, description: &str) -> MemoryHeader {
        MemoryHeader {
            path: path.into(),
            mtime_ms: 0,
            name: Some(name.into()),
            description: Some(description.into()),
            memory_type: Some(MemoryType::Reference),
            diagnostics: vec![],
            freshness: Default::default(),
            links: vec![],
            backlinks: vec![],
        }
    }

    #[test]
    fn stems_meet_and_stop_words_do_not_score() {
        assert_eq!(tokens("Deploying the Services"), ["deploy", "service"]);
        assert_eq!(stem("deployed"), "deploy");
        assert_eq!(stem("dependencies"), "dependency");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("classes"), "class");
    }

    /// What offline recall offers, whole or by entry.
    fn named(query: &str, candidates: &[MemoryHeader]) -> Vec<String> {
        rank(query, candidates).into_iter().map(|(path, _)| path).collect()
    }

    #[test]
    fn stop_words_are_sorted_for_their_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn cjk_text_is_indexed_as_characters_and_pairs() {
        assert_eq!(tokens("部署"), ["部", "部署", "署"]);
        let candidates = [
            header("reference_deploy.md", "部署流程", "生产环境的部署步骤"),
            header("user_role.md", "角色", "用户是后端负责人"),
        ];
        assert_eq!(named("怎么部署到生产", &candidates), ["reference_deploy.md"]);
    }

    #[test]
    fn ranks_by_shared_terms_and_returns_nothing_without_them() {
        let candidates = [
            header("feedback_testing.md", "Real database in tests", "Integration tests hit a real Postgres"),
            header("reference_grafana.md", "Grafana", "Latency dashboards for the API"),
        ];
        assert_eq!(named("why are the integration tests slow", &candidates), ["feedback_testing.md"]);
        assert!(named("kubernetes helm", &candidates).is_empty());
    }

    #[test]
    fn the_shortlist_reads_bodies_then_fills_with_user_and_feedback_memories() {
        let mut candidates = vec![
            header("project_a.md", "Release train", "Dates of the spring release"),
            header("feedback_b.md", "Terse replies", "No closing summaries"),
            header("reference_c.md", "Grafana", "Dashboards"),
            header("project_d.md", "Billing rewrite", "Status of the rewrite"),
        ];
        candidates[1].memory_type = Some(MemoryType::Feedback);
        candidates[0].memory_type = Some(MemoryType::Project);
        candidates[3].memory_type = Some(MemoryType::Project);
        let bodies = [
            "".to_string(),
            "".to_string(),
            "".to_string(),
            "The Stripe webhooks move to the ledger.".to_string(),
        ];
        let paths = |list: Vec<MemoryHeader>| list.into_iter().map(|h| h.path).collect::<Vec<_>>();
        // "stripe" is only in a body; then the feedback memory; kept in the candidates' order.
        assert_eq!(
            paths(shortlist("retry the stripe webhooks", candidates.clone(), &bodies, 2)),
            ["feedback_b.md", "project_d.md"]
        );
        assert_eq!(
            paths(shortlist("retry the stripe webhooks", candidates.clone(), &[], 2)),
            ["project_a.md", "feedback_b.md"]
        );
        assert_eq!(shortlist("anything", candidates.clone(), &bodies, 0).len(), 4);
    }
}
