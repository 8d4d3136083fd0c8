//! The offline selector (R7.7): BM25 over each memory's path, name and description, for hosts
//! without a model. English words are lowercased and lightly stemmed; CJK text, which has no
//! spaces, is indexed as single characters and character pairs.

use crate::format::memory_type::MemoryType;
use crate::format::scan::MemoryHeader;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that say nothing about which memory helps (checked before stemming): the commonest
/// function words of English, German, Spanish and French, the languages written with spaces
/// that memories and requests come in. Without them a German or Spanish request matches any
/// memory in its language by its articles, and a single such memory makes the article look like
/// a rare word. Words that are also words of code ("comment", "dies", "sin") are left out.
/// Sorted by their bytes: they are looked up by binary search.
const STOP_WORDS: &[&str] = &[
    "a", "aber", "about", "al", "algo", "als", "am", "an", "and", "are", "as", "at", "au", "auch", "auf",
    "aus", "aux", "avec", "be", "bei", "bin", "bis", "bitte", "by", "can", "ce", "ces", "cette", "como",
    "con", "cuál", "cuándo", "cómo", "dans", "das", "dass", "de", "del", "dem", "den", "der", "des", "die",
    "diese", "dieser", "dieses", "do", "doch", "does", "du", "dónde", "ein", "eine", "einem", "einen",
    "einer", "el", "ella", "elle", "en", "er", "es", "esa", "ese", "eso", "est", "esta", "este", "esto",
    "estoy", "está", "et", "for", "from", "für", "get", "gibt", "habe", "haben", "hay", "how", "i", "ich",
    "ihr", "il", "ils", "im", "in", "is", "ist", "it", "je", "kann", "kannst", "know", "la", "las", "le",
    "les", "leur", "lo", "los", "ma", "mais", "me", "mein", "meine", "mes", "mi", "mich", "mir", "mis",
    "mit", "moi", "mon", "muy", "my", "mí", "nach", "ne", "need", "nicht", "noch", "nos", "not", "nous",
    "nur", "o", "oder", "of", "on", "or", "ou", "our", "où", "par", "para", "pas", "pero", "peux", "plus",
    "por", "porque", "pour", "pourquoi", "puedo", "quand", "que", "quel", "quelle", "qui", "quiero", "qué",
    "sa", "se", "sein", "ser", "ses", "should", "si", "sich", "sie", "sind", "so", "son", "sont", "su",
    "sur", "sus", "sí", "ta", "te", "tengo", "tes", "that", "the", "there", "this", "to", "ton", "tu", "tú",
    "um", "un", "una", "und", "une", "uno", "unos", "uns", "use", "used", "uses", "using", "von", "vor",
    "vous", "warum", "was", "we", "weil", "welche", "wenn", "what", "when", "where", "which", "why", "wie",
    "wir", "wird", "with", "wo", "y", "ya", "you", "zu", "zum", "zur", "à",
];

/// The longest of [`STOP_WORDS`], in bytes: longer words are not looked up.
const LONGEST_STOP_WORD: usize = 8;

/// Chinese characters that only build sentences (particles, pronouns, "please", "how"). Alone
/// they make no term, nor does a pair of two of them ("这个", "怎么"); a pair with another
/// character still does ("性能", performance). Hiragana, below, makes none in any pair. Sorted,
/// for binary search.
const STOP_CHARS: &[char] = &[
    '一', '下', '不', '与', '个', '为', '么', '也', '了', '什', '他', '以', '们', '会', '何', '你', '可',
    '吗', '吧', '呢', '和', '啊', '在', '她', '好', '如', '它', '就', '帮', '得', '怎', '我', '或', '把',
    '是', '有', '没', '的', '着', '给', '能', '被', '要', '让', '请', '还', '这', '那', '都',
];

/// True for a character of [`STOP_CHARS`] or any hiragana: neither makes a term alone.
fn is_stop_char(c: char) -> bool {
    is_hiragana(c) || STOP_CHARS.binary_search(&c).is_ok()
}

/// Japanese writes its grammar in hiragana, its terms in kanji and katakana: hiragana makes
/// no term, alone or in a pair ("トを", "書い").
fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}')
}

/// [`STOP_WORDS`] as [`word_key`]s, in the same order: every word of every memory is looked
/// up, and comparing integers rather than strings took a tenth of a recall over 10,000 memories.
const STOP_KEYS: [u64; STOP_WORDS.len()] = {
    let mut keys = [0; STOP_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = word_key(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// A word of at most eight bytes as one integer, its bytes from the top down and ASCII
/// lowercased, so integers sort as their lowercase words do.
const fn word_key(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < 8 {
        key = key << 8 | if i < word.len() { word[i].to_ascii_lowercase() as u64 } else { 0 };
        i += 1;
    }
    key
}

/// True for a stop word in any ASCII case.
fn is_stop_word(word: &[u8]) -> bool {
    word.len() <= LONGEST_STOP_WORD && STOP_KEYS.binary_search(&word_key(word)).is_ok()
}

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
    limit: crate::retrieval::budget::SELECT_COUNT as usize,
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
    limit: crate::retrieval::budget::SELECT_COUNT as usize,
    relative: 0.75,
    min_evidence: 2.0,
    min_coverage: 0.75,
};

/// The memories offline recall offers for `query`, best first, each with how sure it is:
/// those past [`OFFLINE`], the ones also past [`STRONG`] strong, the rest plausible.
pub fn rank(query: &str, candidates: &[MemoryHeader]) -> Vec<(String, Confidence)> {
    // Each memory's terms are counted once: the scores and the best match's coverage read them.
    let terms = Terms::of(query);
    let docs: Vec<Counts> = candidates.iter().map(|c| terms.count(&document(c))).collect();
    let scored = scores_of(&terms, &docs);
    let strong = cut(&terms, &docs, &scored, STRONG);
    let plausible =
        cut(&terms, &docs, &scored, OFFLINE).into_iter().filter(|i| !strong.contains(i)).take(MENTION_LIMIT);
    let path = |i: usize| candidates[i].path.clone();
    strong
        .iter()
        .map(|&i| (path(i), Confidence::Strong))
        .chain(plausible.map(|i| (path(i), Confidence::Plausible)))
        .collect()
}

/// How offline recall reads cosines from the user's embeddings model (issue 27, item 2). A
/// cosine means little alone: each model has its own range (all-MiniLM-L6-v2 puts unrelated
/// texts near 0.06, multilingual-e5-small near 0.8). So only the best match counts, by how far
/// it stands above the directory's typical memory (the median) for this request, as a share of
/// the way from there to a perfect match (1).
///
/// Injected whole by meaning: standing more than half the way up. Chosen with
/// all-MiniLM-L6-v2 on the labelled set's design half (docs/recall.md): lower, and requests
/// that need no memory get one.
pub const MEANING_STRONG: f32 = 0.55;
/// Named by its entry by meaning: half the way up.
pub const MEANING_PLAUSIBLE: f32 = 0.5;

/// [`rank`] with a second signal, each candidate's cosine with the request (`cosines`, in the
/// candidates' order): a memory is strong when either signal finds it strong, plausible when
/// either finds it plausible. Words first, then meaning, best first within each.
pub fn rank_with_meaning(
    query: &str,
    candidates: &[MemoryHeader],
    cosines: &[f32],
) -> Vec<(String, Confidence)> {
    let lexical = rank(query, candidates);
    let meaning = |share: f32| by_meaning(cosines, share);
    let path = |i: usize| candidates[i].path.clone();
    let of = |confidence| lexical.iter().filter(move |(_, c)| *c == confidence).map(|(p, _)| p.clone());
    let mut strong: Vec<String> = of(Confidence::Strong).collect();
    for p in meaning(MEANING_STRONG).into_iter().map(path) {
        if !strong.contains(&p) {
            strong.push(p);
        }
    }
    strong.truncate(crate::retrieval::budget::SELECT_COUNT as usize);
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

/// The best match by `cosines` when it stands `share` of the way from the median to 1.
fn by_meaning(cosines: &[f32], share: f32) -> Option<usize> {
    let order = closest_first(cosines);
    let &best = order.first()?;
    let median = cosines[order[order.len() / 2]];
    let stands_out = cosines[best] > median && cosines[best] >= median + share * (1.0 - median);
    stands_out.then_some(best)
}

/// The indexes of the `scored` candidates `cutoff` keeps, best first.
fn cut(terms: &Terms, docs: &[Counts], scored: &[(f64, usize)], cutoff: Cutoff) -> Vec<usize> {
    let Some(&(best, first)) = scored.first() else { return Vec::new() };
    let enough = best >= cutoff.min_evidence * idf(docs.len() as f64, 1.0)
        || docs[first].coverage(terms) >= cutoff.min_coverage;
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
    near: &[String],
    size: usize,
) -> Vec<MemoryHeader> {
    if size == 0 || candidates.len() <= size {
        return candidates;
    }
    let terms = Terms::of(query);
    let docs = candidates
        .iter()
        .zip(bodies.iter().map(String::as_str).chain(std::iter::repeat("")))
        .map(|(header, body)| {
            let mut counts = terms.count(&document(header));
            counts.add(&terms, body);
            counts
        })
        .collect::<Vec<_>>();
    let scored = scores_of(&terms, &docs);
    let related = related_to_best(&candidates, &scored);
    // Then the rest by kind: who the user is and how they want work done apply to most
    // requests whatever their words; then project state, then references. Newest first.
    let kind = |i: &usize| match candidates[*i].memory_type {
        Some(MemoryType::User) => 0,
        Some(MemoryType::Feedback) => 1,
        Some(MemoryType::Project) => 2,
        _ => 3,
    };
    let mut placed = vec![false; candidates.len()];
    let mut order: Vec<usize> = Vec::with_capacity(candidates.len());
    let near = near.iter().filter_map(|path| candidates.iter().position(|c| c.path == *path));
    for i in scored.iter().map(|(_, i)| *i).chain(near).chain(related) {
        if !placed[i] {
            placed[i] = true;
            order.push(i);
        }
    }
    let mut rest: Vec<usize> = (0..candidates.len()).filter(|i| !placed[*i]).collect();
    rest.sort_by_key(kind);
    let mut keep = vec![false; candidates.len()];
    for i in order.into_iter().chain(rest).take(size) {
        keep[i] = true;
    }
    candidates.into_iter().zip(keep).filter_map(|(c, k)| k.then_some(c)).collect()
}

/// How many memories closest in meaning to the request a model is offered whatever their
/// words, when the host has an embeddings model.
pub const NEAREST: usize = 10;

/// The paths of the [`NEAREST`] candidates by `cosines` (in the candidates' order), closest
/// first: for the shortlist, where meaning reaches what words miss (a request in English for a
/// rule written in Chinese). A model judges them; nothing is injected for being near.
pub fn nearest(candidates: &[MemoryHeader], cosines: &[f32]) -> Vec<String> {
    let order = closest_first(&cosines[..cosines.len().min(candidates.len())]);
    order.into_iter().take(NEAREST).map(|i| candidates[i].path.clone()).collect()
}

/// The indexes of `cosines`, highest first (ties in index order).
fn closest_first(cosines: &[f32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cosines.len()).collect();
    order.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(&b)));
    order
}

/// How many of the best matches lend their topic to the shortlist.
const RELATED_TO: usize = 3;

/// The candidates that share a topic with the best matches of the request (`scored`), most
/// related first: memories of one project or subject are named alike (`project_homelab_heating`,
/// `feedback_homelab_home_assistant`), so the words of the best matches' file names, beyond
/// their kind, find the memories a request needs without saying so ("the bedroom is cold" finds
/// the heating project by its words, and the Home Assistant rule by the project's name).
/// Pseudo-relevance feedback, for the shortlist only: it widens what a model is offered, never
/// what is injected without one.
fn related_to_best(candidates: &[MemoryHeader], scored: &[(f64, usize)]) -> Vec<usize> {
    let mut topic = String::new();
    for &(_, i) in scored.iter().take(RELATED_TO) {
        let file = file_name(&candidates[i]);
        for word in file.split(|c: char| !c.is_alphanumeric()).filter(|w| MemoryType::parse(w).is_none()) {
            topic.push_str(word);
            topic.push(' ');
        }
    }
    // The request's own words add nothing here: a memory that holds one is already scored.
    let terms = Terms::of(&topic);
    let docs: Vec<Counts> = candidates.iter().map(|c| terms.count(&[file_name(c)])).collect();
    scores_of(&terms, &docs).into_iter().map(|(_, i)| i).collect()
}

/// The request's terms: each one as often as the request says it (each occurrence weighs), and
/// the distinct ones a document's counts are kept for.
struct Terms {
    all: Vec<String>,
    distinct: Vec<String>,
    /// The first two bytes of `distinct`, as bits: a document's word starting otherwise is only
    /// counted (most words of most memories).
    starts: Vec<u64>,
}

/// A word's first two bytes (the second 0 for a one-byte word), as a bit number.
fn start(word: &[u8]) -> usize {
    usize::from(word[0]) << 8 | usize::from(word.get(1).copied().unwrap_or(0))
}

/// How a document bears on the request: its length in terms, and how often it holds each of
/// the request's distinct terms. Counting needs no term of its own kept (at 10,000 memories,
/// making each into a string was half a recall).
struct Counts {
    len: usize,
    tf: Vec<u32>,
}

impl Terms {
    fn of(query: &str) -> Terms {
        let all = tokens(query);
        let mut distinct = all.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let mut starts = vec![0u64; 1 << 10];
        for term in &distinct {
            let bit = start(term.as_bytes());
            starts[bit / 64] |= 1 << (bit % 64);
        }
        Terms { all, distinct, starts }
    }

    fn wants(&self, word: &[u8]) -> bool {
        let bit = start(word);
        self.starts[bit / 64] & (1 << (bit % 64)) != 0
    }

    fn count(&self, parts: &[&str]) -> Counts {
        let mut counts = Counts { len: 0, tf: vec![0; self.distinct.len()] };
        for part in parts {
            counts.add(self, part);
        }
        counts
    }
}

impl Counts {
    /// The share of the request's distinct terms this document holds.
    fn coverage(&self, terms: &Terms) -> f64 {
        self.tf.iter().filter(|tf| **tf > 0).count() as f64 / terms.distinct.len().max(1) as f64
    }

    fn add(&mut self, terms: &Terms, text: &str) {
        if text.is_ascii() {
            self.add_ascii(terms, text.as_bytes());
        } else {
            self.add_any(terms, text);
        }
    }

    /// [`Counts::add`] for ASCII text, the common case, a word at a time in place: a word
    /// that cannot be one of the request's terms is counted without being copied or stemmed.
    /// Counts exactly what [`each_term`] would (a test compares them).
    fn add_ascii(&mut self, terms: &Terms, text: &[u8]) {
        let mut term = String::new();
        for word in text.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
            if is_stop_word(word) {
                continue;
            }
            self.len += 1;
            let head = [word[0].to_ascii_lowercase(), word.get(1).map_or(0, u8::to_ascii_lowercase)];
            if !terms.wants(&head) {
                continue;
            }
            term.clear();
            term.extend(word.iter().map(|b| char::from(b.to_ascii_lowercase())));
            stem(&mut term);
            if let Some(i) = terms.distinct.iter().position(|t| *t == term) {
                self.tf[i] += 1;
            }
        }
    }

    fn add_any(&mut self, terms: &Terms, text: &str) {
        each_term(
            text,
            |word| terms.wants(word),
            |term| {
                self.len += 1;
                if let Some(i) = term.and_then(|term| terms.distinct.iter().position(|t| t == term)) {
                    self.tf[i] += 1;
                }
            },
        );
    }
}

/// The words of `query` that `texts` share with it, as the request wrote them, at most
/// [`MATCHED_WORDS`]: why recall found a memory (issue 48). A CJK run is not one word: its
/// characters and pairs that match are given instead.
pub fn matched_words(query: &str, texts: &[&str]) -> Vec<String> {
    let terms = Terms::of(query);
    let counts = terms.count(texts);
    let hit: Vec<&str> =
        terms.distinct.iter().zip(&counts.tf).filter(|(_, tf)| **tf > 0).map(|(t, _)| t.as_str()).collect();
    let mut out: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let matched = tokens(word).into_iter().filter(|t| hit.contains(&t.as_str()));
        let found: Vec<String> = if word.chars().any(is_cjk) {
            matched.collect()
        } else {
            matched.take(1).map(|_| word.to_string()).collect()
        };
        for f in found {
            if out.len() < MATCHED_WORDS && !out.iter().any(|o| o.to_lowercase() == f.to_lowercase()) {
                out.push(f);
            }
        }
    }
    out
}

/// The most words [`matched_words`] gives.
pub const MATCHED_WORDS: usize = 8;

/// BM25 scores of the documents that share a term with the request, best first (ties keep the
/// documents' order), each with the document's index.
fn scores_of(terms: &Terms, docs: &[Counts]) -> Vec<(f64, usize)> {
    if terms.all.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    let avg_len = docs.iter().map(|d| d.len).sum::<usize>() as f64 / n.max(1.0);
    let mut doc_freq = vec![0usize; terms.distinct.len()];
    for doc in docs {
        for (df, tf) in doc_freq.iter_mut().zip(&doc.tf) {
            *df += usize::from(*tf > 0);
        }
    }
    // Each occurrence in the request weighs once: the distinct term it is.
    let which: Vec<usize> =
        terms.all.iter().map(|t| terms.distinct.binary_search(t).expect("a distinct term")).collect();
    let mut scored: Vec<(f64, usize)> = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            let len = doc.len as f64;
            let score = which
                .iter()
                .map(|&t| {
                    let tf = f64::from(doc.tf[t]);
                    if tf == 0.0 {
                        return 0.0;
                    }
                    idf(n, doc_freq[t] as f64) * tf * (K1 + 1.0)
                        / (tf + K1 * (1.0 - B + B * len / avg_len.max(1.0)))
                })
                .sum::<f64>();
            (score, i)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
}

/// BM25's weight of a term found in `df` of `n` memories.
fn idf(n: f64, df: f64) -> f64 {
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// What a memory's terms are read from: its file name without `.md`, its name and its
/// description.
pub fn document(header: &MemoryHeader) -> [&str; 3] {
    let name = header.name.as_deref().unwrap_or_default();
    [path_words(header), name, header.description.as_deref().unwrap_or_default()]
}

/// The words of a memory's path: relative to the memory directory, without `.md`.
fn path_words(header: &MemoryHeader) -> &str {
    // A shared memory's path is absolute: only its file name says what it is about.
    let path = if crate::base::fs::is_absolute(&header.path) { file_name(header) } else { &header.path };
    path.trim_end_matches(".md")
}

/// A memory's file name, without `.md`.
fn file_name(header: &MemoryHeader) -> &str {
    header.path.rsplit('/').next().unwrap_or_default().trim_end_matches(".md")
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
    each_term(text, |_| true, |term| out.extend(term.map(str::to_string)));
    out
}

/// Calls `f` once for each of [`tokens`]' terms in turn, from one reused buffer: with the term
/// when `wanted(its word)` holds, else with `None` (it still counts). Stemming leaves at least
/// a word's first two characters, so a term starts with its word's first two bytes: `wanted`
/// can decide by them, and a term not wanted is never stemmed.
fn each_term(text: &str, wanted: impl Fn(&[u8]) -> bool, mut f: impl FnMut(Option<&str>)) {
    let mut word = String::new();
    let mut cjk_run: Vec<char> = Vec::new();
    let mut pair = String::new();
    let flush_word = |word: &mut String, f: &mut dyn FnMut(Option<&str>)| {
        if !word.is_empty() && !is_stop_word(word.as_bytes()) {
            if wanted(word.as_bytes()) {
                stem(word);
                f(Some(word));
            } else {
                f(None);
            }
        }
        word.clear();
    };
    let mut flush_cjk = |run: &mut Vec<char>, f: &mut dyn FnMut(Option<&str>)| {
        for (i, c) in run.iter().enumerate() {
            pair.clear();
            pair.push(*c);
            let single = !is_stop_char(*c);
            let next = run
                .get(i + 1)
                .filter(|next| (single || !is_stop_char(**next)) && !is_hiragana(*c) && !is_hiragana(**next));
            if !wanted(pair.as_bytes()) {
                if single {
                    f(None);
                }
                if next.is_some() {
                    f(None);
                }
                continue;
            }
            if single {
                f(Some(&pair));
            }
            if let Some(next) = next {
                pair.push(*next);
                f(Some(&pair));
            }
        }
        run.clear();
    };
    for c in text.chars() {
        // Most text is ASCII: one test and no case tables for it.
        if c.is_ascii_alphanumeric() {
            flush_cjk(&mut cjk_run, &mut f);
            word.push(c.to_ascii_lowercase());
        } else if is_cjk(c) {
            flush_word(&mut word, &mut f);
            cjk_run.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk_run, &mut f);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut f);
            flush_cjk(&mut cjk_run, &mut f);
        }
    }
    flush_word(&mut word, &mut f);
    flush_cjk(&mut cjk_run, &mut f);
}

/// A light English stemmer, in place: enough that "deploys", "deploying" and "deployed" meet
/// "deploy".
fn stem(w: &mut String) {
    let n = w.chars().count();
    let ends = |w: &String, suffix: &str, min: usize| n >= min && w.ends_with(suffix);
    if ends(w, "ies", 5) {
        w.truncate(w.len() - 3);
        w.push('y');
        return;
    }
    for (suffix, min) in [("ing", 6), ("ed", 5), ("ly", 5)] {
        if ends(w, suffix, min) {
            w.truncate(w.len() - suffix.len());
            return;
        }
    }
    if ends(w, "es", 5) && ["s", "x", "z", "ch", "sh"].iter().any(|e| w[..w.len() - 2].ends_with(e)) {
        w.truncate(w.len() - 2);
        return;
    }
    if n >= 4 && w.ends_with('s') && !w.ends_with("ss") {
        w.truncate(w.len() - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::memory_type::MemoryType;

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
        for (word, stemmed) in
            [("deployed", "deploy"), ("dependencies", "dependency"), ("class", "class"), ("classes", "class")]
        {
            assert_eq!(tokens(word), [stemmed]);
        }
    }

    /// What offline recall offers, whole or by entry.
    fn named(query: &str, candidates: &[MemoryHeader]) -> Vec<String> {
        rank(query, candidates).into_iter().map(|(path, _)| path).collect()
    }

    /// A memory of the kind its file name begins with.
    fn typed(path: &str, name: &str, description: &str) -> MemoryHeader {
        MemoryHeader {
            memory_type: MemoryType::parse(path.split('_').next().unwrap()),
            ..header(path, name, description)
        }
    }

    #[test]
    fn no_stop_word_is_longer_than_the_lookup_allows() {
        assert_eq!(STOP_WORDS.iter().map(|w| w.len()).max(), Some(LONGEST_STOP_WORD));
    }

    #[test]
    fn ascii_text_is_counted_as_any_text_is() {
        // Words that stem, stop words in any case, digits, one-letter words, punctuation.
        let words = [
            "Deploys",
            "deploying",
            "deployed",
            "policies",
            "policy",
            "THE",
            "The",
            "a",
            "I",
            "x",
            "42",
            "k8s",
            "boxes",
            "class",
            "classes",
            "tests",
            "testing",
            "use",
            "Using",
            "db",
            "dB",
            "aboutx",
            "-",
            ", ",
            "  ",
            "/",
            "_",
            "--",
            ".md",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2_000 {
            let mut text = |len: usize| {
                let mut t = String::new();
                for _ in 0..len {
                    t.push_str(words[next(words.len())]);
                    if next(3) > 0 {
                        t.push(' ');
                    }
                }
                t
            };
            let (query, doc) = (text(6), text(12));
            let terms = Terms::of(&query);
            let empty = || Counts { len: 0, tf: vec![0; terms.distinct.len()] };
            let (mut ascii, mut any) = (empty(), empty());
            ascii.add_ascii(&terms, doc.as_bytes());
            any.add_any(&terms, &doc);
            assert_eq!((ascii.len, &ascii.tf), (any.len, &any.tf), "{query:?} in {doc:?}");
        }
    }

    #[test]
    fn stop_words_are_sorted_for_their_binary_search() {
        assert!(STOP_KEYS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| is_stop_word(w.as_bytes())));
        assert!(!["abou", "ab", "thes", "usingx", "", "ä"].iter().any(|w| is_stop_word(w.as_bytes())));
    }

    #[test]
    fn function_words_of_each_language_are_no_terms() {
        for (text, terms) in [
            ("Wie kehre ich einen String in Go um?", &["kehre", "str", "go"][..]),
            ("¿Cómo ordeno un diccionario por valor?", &["ordeno", "diccionario", "valor"]),
            ("Où est la config pour le déploiement ?", &["config", "déploiement"]),
            // Words that are also words of code stay ("dies" stems to "die").
            ("comment sin dies", &["comment", "sin", "die"]),
            // Chinese particles and pronouns are none alone or paired ("帮我", "这个"); a pair
            // with another character is one ("性能", performance).
            ("帮我看这个性能", &["我看", "看", "看这", "个性", "性", "性能"]),
            // Japanese grammar is hiragana: the terms are the kanji and katakana.
            ("テストを書いて", &["テ", "テス", "ス", "スト", "ト", "書"]),
        ] {
            assert_eq!(tokens(text), terms, "{text}");
        }
    }

    #[test]
    fn matched_words_are_the_requests_own_as_written() {
        let texts = ["feedback_real_db", "Real database in tests", "Integration tests hit a real Postgres"];
        assert_eq!(
            matched_words("How should I run the Integration-Tests against postgres?", &texts),
            ["Integration", "Tests", "postgres"]
        );
        // Stop words and words the memory lacks are not reasons; a word is given once.
        assert!(matched_words("the deploy window, the DEPLOY window", &texts).is_empty());
        assert_eq!(matched_words("tests tests TESTS", &texts), ["tests"]);
        // A CJK run gives its matching characters and pairs, not the whole run.
        let got = matched_words("数据库性能怎么样", &["数据库连接池"]);
        assert!(got.contains(&"数据".to_string()) && !got.iter().any(|w| w.contains('性')), "{got:?}");
        let many = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
        assert_eq!(matched_words(many, &[many]).len(), MATCHED_WORDS);
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
        let candidates = vec![
            typed("project_a.md", "Release train", "Dates of the spring release"),
            typed("feedback_b.md", "Terse replies", "No closing summaries"),
            typed("reference_c.md", "Grafana", "Dashboards"),
            typed("project_d.md", "Billing rewrite", "Status of the rewrite"),
        ];
        let bodies = [
            "".to_string(),
            "".to_string(),
            "".to_string(),
            "The Stripe webhooks move to the ledger.".to_string(),
        ];
        let paths = |list: Vec<MemoryHeader>| list.into_iter().map(|h| h.path).collect::<Vec<_>>();
        // "stripe" is only in a body; then the feedback memory; kept in the candidates' order.
        assert_eq!(
            paths(shortlist("retry the stripe webhooks", candidates.clone(), &bodies, &[], 2)),
            ["feedback_b.md", "project_d.md"]
        );
        assert_eq!(
            paths(shortlist("retry the stripe webhooks", candidates.clone(), &[], &[], 2)),
            ["project_a.md", "feedback_b.md"]
        );
        assert_eq!(shortlist("anything", candidates.clone(), &bodies, &[], 0).len(), 4);
    }

    #[test]
    fn meaning_counts_the_best_match_by_how_far_it_stands_out_in_the_models_own_range() {
        // The same standing in a model that spreads cosines (0.05 typical) and in one that
        // packs them near 0.8 (multilingual-e5): the best stands out in both.
        let wide = [0.05, 0.02, 0.62, 0.07, 0.04];
        let packed = [0.80, 0.79, 0.915, 0.81, 0.80];
        for cosines in [&wide[..], &packed[..]] {
            assert_eq!(by_meaning(cosines, MEANING_STRONG), Some(2), "{cosines:?}");
        }
        // Half the way up: plausible, not strong.
        let near = [0.80, 0.79, 0.905, 0.81, 0.80];
        assert_eq!(by_meaning(&near, MEANING_STRONG), None);
        assert_eq!(by_meaning(&near, MEANING_PLAUSIBLE), Some(2));
        // All alike (a model that returns one vector for everything): nothing stands out.
        assert_eq!(by_meaning(&[1.0, 1.0, 1.0], MEANING_PLAUSIBLE), None);
        assert_eq!(by_meaning(&[], MEANING_PLAUSIBLE), None);
    }

    #[test]
    fn the_shortlist_brings_memories_named_like_the_best_matches() {
        let candidates = vec![
            typed("feedback_style.md", "Terse replies", "No closing summaries"),
            typed("feedback_homelab_home_assistant.md", "Home Assistant in git", "Automations are YAML"),
            typed("project_homelab_heating.md", "Heating schedule", "Radiators in every room"),
            typed("project_billing.md", "Billing rewrite", "Invoices move to the ledger"),
        ];
        let paths = |list: Vec<MemoryHeader>| list.into_iter().map(|h| h.path).collect::<Vec<_>>();
        // Only the heating project shares a word with the request; the Home Assistant rule
        // shares its project's name, and comes before memories shortlisted for their kind.
        assert_eq!(
            paths(shortlist("the bedroom is cold, turn up the radiators", candidates.clone(), &[], &[], 2)),
            ["feedback_homelab_home_assistant.md", "project_homelab_heating.md"]
        );
        // A kind is not a topic: the other project is not brought along, the feedback is.
        assert_eq!(
            paths(shortlist("turn up the radiators", candidates, &[], &[], 3)),
            ["feedback_style.md", "feedback_homelab_home_assistant.md", "project_homelab_heating.md"]
        );
    }
}
