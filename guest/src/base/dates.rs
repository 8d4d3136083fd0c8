//! Absolute dates in project memories (R1.4): relative expressions drift once saved, so the
//! unambiguous ones are converted against "now" and the ambiguous ones refused with a message
//! that says what to write instead.

use chrono::{Datelike, Days, NaiveDate, Weekday};

/// One conversion made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Conversion {
    /// The words as written.
    pub from: String,
    /// The date written instead, `YYYY-MM-DD`.
    pub to: String,
}

const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

/// Rewrites `text` with absolute dates, given `today`. Converts: today, yesterday, tomorrow,
/// `N days ago`, `in N days`, `next <weekday>` (the first one after today), `last <weekday>` (the
/// last one before today). Refuses, with a message naming the words and the line: a bare weekday,
/// `this <weekday>`, and `this/next/last week|month|year`.
pub fn absolutize(text: &str, today: NaiveDate) -> Result<(String, Vec<Conversion>), String> {
    let words = words(text);
    let lower: Vec<String> = words.iter().map(|&(s, e)| text[s..e].to_ascii_lowercase()).collect();
    let mut out = String::with_capacity(text.len());
    let mut conversions = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < words.len() {
        let w = lower[i].as_str();
        let next = lower.get(i + 1).map(String::as_str);
        let next2 = lower.get(i + 2).map(String::as_str);
        let (date, used) = match (w, next, next2) {
            ("today", ..) => (Some(today), 1),
            ("yesterday", ..) => (today.checked_sub_days(Days::new(1)), 1),
            ("tomorrow", ..) => (today.checked_add_days(Days::new(1)), 1),
            (n, Some("day" | "days"), Some("ago")) if n.parse::<u64>().is_ok() => {
                (today.checked_sub_days(Days::new(n.parse().unwrap_or(0))), 3)
            }
            ("in", Some(n), Some("day" | "days")) if n.parse::<u64>().is_ok() => {
                (today.checked_add_days(Days::new(n.parse().unwrap_or(0))), 3)
            }
            ("next" | "last", Some(day), _) if weekday(day).is_some() => {
                (Some(step_to(today, weekday(day).unwrap_or(Weekday::Mon), w == "next")), 2)
            }
            ("this" | "next" | "last", Some(unit @ ("week" | "month" | "year" | "weekend")), _) => {
                return Err(ambiguous(text, words[i].0, &format!("{w} {unit}")));
            }
            ("this", Some(day), _) if weekday(day).is_some() => {
                return Err(ambiguous(text, words[i].0, &format!("this {day}")));
            }
            (day, ..) if weekday(day).is_some() => return Err(ambiguous(text, words[i].0, day)),
            _ => (None, 0),
        };
        match date {
            Some(date) if used > 0 => {
                let (start, end) = (words[i].0, words[i + used - 1].1);
                out.push_str(&text[copied..start]);
                let to = date.format("%Y-%m-%d").to_string();
                out.push_str(&to);
                conversions.push(Conversion { from: text[start..end].to_string(), to });
                copied = end;
                i += used;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    Ok((out, conversions))
}

/// Byte spans of the alphanumeric words of `text`.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

fn weekday(word: &str) -> Option<Weekday> {
    WEEKDAYS.iter().find(|(name, _)| *name == word).map(|&(_, d)| d)
}

/// The first `day` after `today` (forward) or the last one before it.
fn step_to(today: NaiveDate, day: Weekday, forward: bool) -> NaiveDate {
    let mut date = today;
    loop {
        date = if forward { date.succ_opt().unwrap_or(date) } else { date.pred_opt().unwrap_or(date) };
        if date.weekday() == day {
            return date;
        }
    }
}

fn ambiguous(text: &str, at: usize, words: &str) -> String {
    let line = text[..at].matches('\n').count() + 1;
    format!(
        "\"{words}\" on line {line} is a relative date that would drift once saved, and it is not clear \
         which day it means: write the date as YYYY-MM-DD"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn converts_the_unambiguous_expressions() {
        // 2026-03-04 is a Wednesday.
        let (text, conversions) = absolutize(
            "Decided yesterday; ships Tomorrow. Bug seen 3 days ago, review in 2 days, demo next Thursday, sync was last Monday.",
            day("2026-03-04"),
        )
        .unwrap();
        assert_eq!(
            text,
            "Decided 2026-03-03; ships 2026-03-05. Bug seen 2026-03-01, review 2026-03-06, demo 2026-03-05, sync was 2026-03-02."
        );
        assert_eq!(conversions[0], Conversion { from: "yesterday".into(), to: "2026-03-03".into() });
        assert_eq!(conversions.len(), 6);
    }

    #[test]
    fn refuses_the_ambiguous_with_what_to_write() {
        let err = absolutize("Freeze starts\non Thursday", day("2026-03-04")).unwrap_err();
        assert!(err.contains("\"thursday\" on line 2") && err.contains("YYYY-MM-DD"), "{err}");
        assert!(absolutize("done next week", day("2026-03-04")).is_err());
        assert!(absolutize("this Friday", day("2026-03-04")).is_err());
        assert_eq!(absolutize("no dates here", day("2026-03-04")).unwrap().1, []);
    }
}
