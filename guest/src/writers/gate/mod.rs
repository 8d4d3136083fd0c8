//! The gate before extraction (issue 46): did a turn's user messages teach anything worth
//! keeping? Most turns do not ("run the tests again", "thanks", a pasted error), and each one
//! that reaches the model costs the user a call of their own agent. Offline and in the six
//! languages of the recall set, each message is weighed twice:
//!
//! - by how it reads: a statement of how things are teaches far more often than a question, a
//!   request to do something now, a pasted error or a "thanks";
//! - by its cues ([`words`]): words that announce a lesson ("remember", "from now on", "记住",
//!   "今後は"), state a preference, a decision, a fact about the user or the project, or point
//!   to a resource, and words that keep what is said to this task ("for this PR", "still").
//!
//! A turn passes when one of its messages scores [`PASS`]. It leans towards passing: a turn
//! wrongly passed costs one extraction that writes nothing, a turn wrongly stopped loses a
//! lesson. `tests/learning-gate/` holds the labelled turns; `memdir bench --gate` measures the
//! part it was designed on and a part written afterwards by someone who saw neither
//! (docs/writers.md).

mod words;

use serde::{Deserialize, Serialize};
use words::{
    ACK, CORRECTION, DECISION, DO_NOW, DO_NOW_ANYWHERE, DO_NOW_ENDINGS, LASTING, NOW_ONLY, PASSING, POINTER,
    PREFERENCE, PROJECT, USER,
};

/// What the gate decided about one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Verdict {
    /// The turn may have taught something: extraction runs.
    pub teaches: bool,
    /// The deciding message's score: its reading plus its cues.
    pub score: i32,
    /// How the deciding message read, then the cues found in it, as [`words`] spells them.
    pub cues: Vec<String>,
}

/// The score at which a turn passes.
const PASS: i32 = 2;

/// A cue: text looked for in the lower-cased message, and its weight.
pub(crate) type Cue = (&'static str, i32);

/// How a message reads: a statement of how things are teaches more often than anything else; a
/// question, a request to do something, a pasted error or a word of acknowledgement does not.
fn mood(text: &str) -> (i32, &'static str) {
    let trimmed = text.trim();
    let cjk = trimmed.chars().filter(|c| is_cjk(*c)).count();
    let words = trimmed.split_whitespace().count();
    if is_dump(trimmed) {
        return (-3, "pasted output");
    }
    if (cjk == 0 && words <= 3) || (cjk > 0 && cjk <= 6 && words <= 2) {
        return (-2, "short");
    }
    let prose = without_code(trimmed);
    let sentences = sentences(&prose);
    let statement = sentences.iter().any(|s| !is_question(s) && !is_ack(s) && !clauses(s).any(is_request));
    if statement {
        (2, "statement")
    } else if sentences.iter().all(|s| is_question(s) || is_ack(s)) {
        (-2, "question")
    } else {
        (-1, "request")
    }
}

/// `text` without its `code` spans: what code says is not how the message reads.
fn without_code(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The sentences of `text`: ended by a full stop, `!` or `?` before a space or the end (not the
/// dot in `users.csv` or `3.2`), by their CJK forms, or by a line end. Those with fewer than
/// three letters or digits are left out.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        let ends = matches!(c, '。' | '！' | '？' | '\n')
            || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace));
        if ends {
            out.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        .collect()
}

fn clauses(sentence: &str) -> impl Iterator<Item = &str> {
    sentence.split([',', '，', '、', ';', '；']).map(str::trim).filter(|c| !c.is_empty())
}

fn is_question(sentence: &str) -> bool {
    let body = sentence.trim_end_matches(['。', '.']);
    body.ends_with(['?', '？']) || ["ですか", "ますか", "の？", "かな"].iter().any(|e| body.ends_with(e))
}

fn is_ack(sentence: &str) -> bool {
    let short = sentence.split_whitespace().count() <= 4 && sentence.chars().count() <= 24;
    short && ACK.iter().any(|a| sentence.starts_with(a))
}

fn is_request(clause: &str) -> bool {
    let body = clause.trim_end_matches(['.', '!', '。', '！']);
    let prefixes = [
        "please ",
        "pls ",
        "can you ",
        "could you ",
        "bitte ",
        "stp ",
        "por favor ",
        "ok ",
        "now ",
        "then ",
        "and ",
    ];
    let start = prefixes.iter().fold(body, |rest, p| rest.strip_prefix(p).unwrap_or(rest));
    let first = start.split(|c: char| c.is_whitespace() || c == '-').next().unwrap_or("");
    let verb = |v: &&str| {
        if v.chars().all(is_cjk) {
            start.starts_with(*v)
        } else {
            first == *v || start.starts_with(&format!("{v} "))
        }
    };
    DO_NOW.iter().any(verb)
        || DO_NOW_ANYWHERE.iter().any(|m| start.contains(m))
        || DO_NOW_ENDINGS.iter().any(|e| body.ends_with(e))
}

/// Pasted compiler, test or program output: its marks, or more symbols and digits than prose
/// has (a query plan, a log line of `key=value`s).
fn is_dump(text: &str) -> bool {
    let marks = [
        "traceback (most recent",
        "error[e",
        "npm err!",
        "exception:",
        "panicked at",
        "\n    at ",
        "failed tests/",
        "error:",
        "errno",
    ];
    let prose = without_code(text);
    let dense = prose.chars().filter(|c| c.is_ascii_digit() || "=()[]{}<>;:_".contains(*c)).count();
    marks.iter().any(|m| text.contains(m)) || (prose.len() >= 40 && dense * 4 >= prose.chars().count())
}

/// Whether `messages`, the user's messages of one turn, may have taught something: the best of
/// its messages, each weighed by how it reads and by its cues.
pub fn judge(messages: &[String]) -> Verdict {
    let mut best: Option<Verdict> = None;
    for message in messages {
        let text = normalise(message);
        let (mut score, how) = mood(&text);
        let mut cues = vec![how.to_string()];
        let tables = [LASTING, PREFERENCE, DECISION, USER, PROJECT, POINTER, CORRECTION, PASSING, NOW_ONLY];
        for (cue, weight) in tables.into_iter().flatten() {
            if contains_word(&text, cue) {
                score += weight;
                cues.push((*cue).to_string());
            }
        }
        if best.as_ref().is_none_or(|b| score > b.score) {
            best = Some(Verdict { teaches: score >= PASS, score, cues });
        }
    }
    best.unwrap_or(Verdict { teaches: false, score: 0, cues: Vec::new() })
}

/// Whether `cue` is in `text`, starting a word when it starts with a letter of a spaced script:
/// "our" is not in "your", nor "ojo" in "rojo". Cues in Chinese and Japanese match anywhere.
fn contains_word(text: &str, cue: &str) -> bool {
    let spaced = cue.chars().next().is_some_and(|c| c.is_alphabetic() && !is_cjk(c));
    text.match_indices(cue).any(|(at, _)| {
        !spaced || text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric() || is_cjk(c))
    })
}

/// Han, kana and the CJK punctuation and full-width forms.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{ff00}'..='\u{ffef}')
}

/// Lower-cased, with typographic apostrophes made plain and whitespace runs one space, so one
/// spelling of each cue is enough.
fn normalise(message: &str) -> String {
    let lower = message.to_lowercase().replace(['’', '‘'], "'");
    let mut out = String::with_capacity(lower.len() + 1);
    let mut space = false;
    for c in lower.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out.push(' ');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(text: &str) -> Vec<String> {
        vec![text.to_string()]
    }

    #[test]
    fn a_lesson_passes_and_a_request_does_not() {
        assert!(judge(&turn("I always use the fish shell, remember that")).teaches);
        assert!(judge(&turn("以后提交信息都用英文写")).teaches);
        assert!(!judge(&turn("hi")).teaches);
        assert!(!judge(&turn("run the tests again")).teaches);
        assert!(!judge(&turn("do you remember how we parse dates?")).teaches);
    }

    #[test]
    fn the_cues_say_why() {
        let verdict = judge(&turn("From now on, run make lint first"));
        assert_eq!(verdict.cues, ["request", "from now on"]);
        assert_eq!(verdict.score, 2);
    }
}

#[cfg(test)]
mod labelled {
    /// A guard, not the measurement (`memdir bench --gate` is): on the turns it was designed on
    /// (`design` and `seen`), the gate keeps passing what teaches and stopping what does not.
    #[test]
    fn the_turns_the_gate_was_designed_on_stay_judged_as_labelled() {
        let (mut teaching, mut passed, mut idle, mut idle_passed) = (0, 0, 0, 0);
        for lang in ["en", "de", "fr", "zh", "ja", "es"] {
            let text = std::fs::read_to_string(format!("../tests/learning-gate/{lang}.json")).unwrap();
            let turns: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            for turn in &turns {
                let messages: Vec<String> = turn["turn"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect();
                let teaches = super::judge(&messages).teaches;
                if turn["teaches"] == true {
                    teaching += 1;
                    passed += u32::from(teaches);
                } else {
                    idle += 1;
                    idle_passed += u32::from(teaches);
                }
            }
        }
        assert_eq!((teaching, idle), (168, 168));
        assert!(passed * 100 >= teaching * 95, "{passed} of {teaching} teaching turns passed");
        assert!(idle_passed * 100 <= idle * 10, "{idle_passed} of {idle} idle turns passed");
    }
}
