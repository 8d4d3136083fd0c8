//! Pairs of memories worth a second look (issue 14): two that say nearly the same thing, and two
//! about the same subject that say opposite things ("use X" against "never use X").
//!
//! Near duplicates: the Jaccard similarity of the word sets (the selector's tokens: stemmed,
//! stop words out, CJK as characters and pairs) of name, description and body is at least
//! [`NEAR_DUPLICATE`]. Contradictions: the descriptions' word sets without their negations
//! overlap by at least [`SAME_SUBJECT`], and exactly one of the two is negated. The thresholds
//! were set on `tests/conformance/check-duplicates-and-contradictions` and the sample directory:
//! two paraphrases of one fact scored 0.40, unrelated memories of one project 0.07 at most.

use crate::format::scan::MemoryHeader;
use crate::retrieval::select::tokens;
use std::collections::BTreeSet;

/// Similarity at or above which two memories are near duplicates.
pub const NEAR_DUPLICATE: f64 = 0.35;
/// Overlap of two descriptions at or above which they are about the same subject.
pub const SAME_SUBJECT: f64 = 0.5;
/// Words that turn a statement into its opposite. A bare "not" or "no" is left out: it more
/// often negates an object ("a real database, not mocks") than the statement.
const NEGATIONS: &[&str] = &["never", "don't", "dont", "avoid", "shouldn't", "mustn't", "doesn't", "won't"];
/// Two-word negations.
const NEGATION_PAIRS: &[(&str, &str)] =
    &[("do", "not"), ("must", "not"), ("should", "not"), ("no", "longer")];

/// Why two memories are paired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pair {
    /// They say nearly the same thing, with this similarity.
    NearDuplicate(f64),
    /// They say opposite things about one subject.
    Contradiction,
}

/// Each pair worth a look, `(first path, second path, why)`, the first in path order.
pub fn pairs<'a>(
    memories: impl Iterator<Item = (&'a str, &'a MemoryHeader, &'a str)>,
) -> Vec<(String, String, Pair)> {
    let prepared: Vec<(&str, BTreeSet<String>, BTreeSet<String>, bool)> = memories
        .map(|(path, header, text)| {
            let name = header.name.as_deref().unwrap_or("");
            let description = header.description.as_deref().unwrap_or("");
            let body = crate::format::frontmatter::split(text).map_or(text, |(_, body)| body);
            let all: BTreeSet<String> = tokens(&format!("{name} {description} {body}")).into_iter().collect();
            let (subject, negated) = subject(description);
            (path, all, subject, negated)
        })
        .collect();
    let mut out = Vec::new();
    for (i, a) in prepared.iter().enumerate() {
        for b in &prepared[i + 1..] {
            let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
            let score = jaccard(&first.1, &second.1);
            // Opposites share most of their words: the contradiction is the finding, not the
            // likeness.
            if first.3 != second.3 && !first.2.is_empty() && jaccard(&first.2, &second.2) >= SAME_SUBJECT {
                out.push((first.0.to_string(), second.0.to_string(), Pair::Contradiction));
            } else if score >= NEAR_DUPLICATE {
                out.push((first.0.to_string(), second.0.to_string(), Pair::NearDuplicate(score)));
            }
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// A description's words without its negations, and whether it had any.
fn subject(description: &str) -> (BTreeSet<String>, bool) {
    let lower = description.to_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect();
    let pair_at =
        |i: usize| NEGATION_PAIRS.iter().any(|(a, b)| words[i] == *a && words.get(i + 1) == Some(b));
    let negated = words.iter().any(|w| NEGATIONS.contains(w)) || (0..words.len()).any(pair_at);
    let mut kept = Vec::new();
    let mut skip_next = false;
    for (i, w) in words.iter().enumerate() {
        if std::mem::take(&mut skip_next) || NEGATIONS.contains(w) {
            continue;
        }
        if pair_at(i) {
            skip_next = true;
            continue;
        }
        kept.push(*w);
    }
    (tokens(&kept.join(" ")).into_iter().collect(), negated)
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, description: &str) -> MemoryHeader {
        MemoryHeader {
            path: String::new(),
            mtime_ms: 0,
            name: Some(name.into()),
            description: Some(description.into()),
            memory_type: None,
            diagnostics: vec![],
            freshness: Default::default(),
            links: vec![],
            backlinks: vec![],
        }
    }

    #[test]
    fn paraphrases_pair_and_opposites_contradict() {
        let a = header("real-db", "Integration tests use the real Postgres database");
        let b = header("no-mocks", "Integration tests hit the real Postgres database, not mocks");
        let c = header("mock-db", "Never use the real Postgres database in integration tests");
        let d = header("release", "Merges stop from 2026-12-03 for the mobile release");
        let all = [("a.md", &a, "x"), ("b.md", &b, "x"), ("c.md", &c, "x"), ("d.md", &d, "x")];
        let found = pairs(all.into_iter());
        assert!(
            found.iter().any(|(x, y, p)| x == "a.md" && y == "b.md" && matches!(p, Pair::NearDuplicate(_))),
            "{found:?}"
        );
        assert!(
            found.iter().any(|(x, y, p)| x == "a.md" && y == "c.md" && *p == Pair::Contradiction),
            "{found:?}"
        );
        assert!(!found.iter().any(|(x, y, _)| x == "d.md" || y == "d.md"), "{found:?}");
    }
}
