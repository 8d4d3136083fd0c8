//! The offline selector (R7.7): BM25 over each memory's path, name and description, for hosts
//! without a model. English words are lowercased and lightly stemmed; CJK text, which has no
//! spaces, is indexed as single characters and character pairs.

use crate::scan::MemoryHeader;
use std::collections::BTreeMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that say nothing about which memory helps (checked before stemming).
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get",
    "how", "i", "in", "is", "it", "know", "me", "my", "need", "not", "of", "on", "or", "our", "should",
    "that", "the", "there", "this", "to", "use", "used", "uses", "using", "we", "what", "when", "where",
    "which", "why", "with", "you",
];

/// The paths of at most `limit` candidates that share terms with `query`, best first (ties keep
/// the candidates' order, newest first). Nothing scores without a shared term.
pub fn rank(query: &str, candidates: &[MemoryHeader], limit: usize) -> Vec<String> {
    let query_terms = tokens(query);
    if query_terms.is_empty() {
        return Vec::new();
    }
    let docs: Vec<Vec<String>> = candidates.iter().map(document).collect();
    let n = docs.len() as f64;
    let avg_len = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
    let mut doc_freq: BTreeMap<&str, usize> = BTreeMap::new();
    for doc in &docs {
        let mut unique: Vec<&str> = doc.iter().map(String::as_str).collect();
        unique.sort_unstable();
        unique.dedup();
        for term in unique {
            *doc_freq.entry(term).or_default() += 1;
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
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len.max(1.0)))
                })
                .sum::<f64>();
            (score, i)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, i)| candidates[i].path.clone()).collect()
}

fn document(header: &MemoryHeader) -> Vec<String> {
    let mut text = header.path.trim_end_matches(".md").to_string();
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
        if !word.is_empty() && !STOP_WORDS.contains(&word.as_str()) {
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
        if is_cjk(c) {
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

    #[test]
    fn cjk_text_is_indexed_as_characters_and_pairs() {
        assert_eq!(tokens("部署"), ["部", "部署", "署"]);
        let candidates = [
            header("reference_deploy.md", "部署流程", "生产环境的部署步骤"),
            header("user_role.md", "角色", "用户是后端负责人"),
        ];
        assert_eq!(rank("怎么部署到生产", &candidates, 5), ["reference_deploy.md"]);
    }

    #[test]
    fn ranks_by_shared_terms_and_returns_nothing_without_them() {
        let candidates = [
            header("feedback_testing.md", "Real database in tests", "Integration tests hit a real Postgres"),
            header("reference_grafana.md", "Grafana", "Latency dashboards for the API"),
        ];
        assert_eq!(rank("why are the integration tests slow", &candidates, 5), ["feedback_testing.md"]);
        assert!(rank("kubernetes helm", &candidates, 5).is_empty());
    }
}
