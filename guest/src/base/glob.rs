//! Glob patterns for rules files' `paths:` (R3.4): `*` and `?` within one path segment, `**`
//! across segments, `[abc]` / `[a-z]` / `[!x]` classes and `{a,b}` alternatives. Paths and
//! patterns use `/`.

/// At most this many plain patterns come out of one pattern's `{a,b}` alternatives; a pattern
/// that would expand to more (`{a,b}` repeated twenty times is a million) matches nothing.
pub const MAX_ALTERNATIVES: usize = 256;

/// True when `path` matches `pattern` as a whole. Time is linear in the pattern's length times
/// the path's (a table over both, no backtracking), whatever the pattern: a hostile rules file
/// cannot stall instruction loading (issue 18).
pub fn matches(pattern: &str, path: &str) -> bool {
    let Some(patterns) = expand_braces(pattern, MAX_ALTERNATIVES) else {
        return false;
    };
    let path: Vec<char> = path.chars().collect();
    patterns.iter().any(|p| match_tokens(&tokens(p), &path))
}

/// `{a,b}` alternatives expanded into plain patterns (nesting allowed); `None` past `budget`.
fn expand_braces(pattern: &str, budget: usize) -> Option<Vec<String>> {
    let Some(open) = pattern.find('{') else {
        return Some(vec![pattern.to_string()]);
    };
    let mut depth = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in pattern[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return Some(vec![pattern.to_string()]);
    };
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let left = budget.checked_sub(out.len()).filter(|&n| n > 0)?;
        out.extend(expand_braces(&format!("{head}{}{tail}", &pattern[w[0] + 1..w[1]]), left)?);
    }
    (out.len() <= budget).then_some(out)
}

/// One element of a plain pattern.
enum Token {
    /// `**`: any number of characters, `/` included.
    AnyPath,
    /// `*`: any number of characters within a segment.
    AnySegment,
    /// `?`: one character within a segment.
    One,
    /// `[...]`: one character of the class, within a segment.
    Class(Box<dyn Fn(char) -> bool>),
    /// A character as itself.
    Literal(char),
}

fn tokens(pattern: &str) -> Vec<Token> {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if p.get(i + 1) == Some(&'*') => {
                out.push(Token::AnyPath);
                i += 2;
            }
            '*' => {
                out.push(Token::AnySegment);
                i += 1;
            }
            '?' => {
                out.push(Token::One);
                i += 1;
            }
            '[' => match class(&p[i..]) {
                Some((hit, len)) => {
                    out.push(Token::Class(Box::new(hit)));
                    i += len;
                }
                None => {
                    out.push(Token::Literal('['));
                    i += 1;
                }
            },
            c => {
                out.push(Token::Literal(c));
                i += 1;
            }
        }
    }
    out
}

/// Whether `tokens` match all of `s`, filled in from the ends of both: `at[t][i]` says whether
/// `tokens[t..]` match `s[i..]`. A `**` also remembers whether it stands at a segment start,
/// since `**/` may match nothing there.
fn match_tokens(tokens: &[Token], s: &[char]) -> bool {
    let (t_len, n) = (tokens.len(), s.len());
    let width = n + 1;
    let mut at = vec![false; (t_len + 1) * width];
    // For `**` tokens: [i * 2 + b], b = 1 when what it consumed so far is empty or ends in `/`.
    let mut any_path = vec![false; (t_len + 1) * width * 2];
    let idx = |t: usize, i: usize| t * width + i;
    for i in (0..=n).rev() {
        at[idx(t_len, i)] = i == n;
        for t in (0..t_len).rev() {
            let next = |i: usize| at[idx(t + 1, i)];
            let inside = i < n && s[i] != '/';
            at[idx(t, i)] = match &tokens[t] {
                Token::Literal(c) => i < n && s[i] == *c && next(i + 1),
                Token::One => inside && next(i + 1),
                Token::Class(hit) => inside && hit(s[i]) && next(i + 1),
                Token::AnySegment => next(i) || (inside && at[idx(t, i + 1)]),
                Token::AnyPath => {
                    // `**/` may match nothing at a segment start: skip the `/` after it.
                    let after_slash = match tokens.get(t + 1) {
                        Some(Token::Literal('/')) => t + 2,
                        _ => t + 1,
                    };
                    for boundary in [false, true] {
                        let here = (boundary && at[idx(after_slash, i)])
                            || next(i)
                            || (i < n && any_path[(idx(t, i + 1)) * 2 + usize::from(s[i] == '/')]);
                        any_path[idx(t, i) * 2 + usize::from(boundary)] = here;
                    }
                    any_path[idx(t, i) * 2 + 1]
                }
            };
        }
    }
    at[idx(0, 0)]
}

/// A `[...]` class at the start of `p`: a predicate and the pattern length it used.
fn class(p: &[char]) -> Option<(impl Fn(char) -> bool + use<>, usize)> {
    let end = p.iter().skip(2).position(|&c| c == ']')? + 2;
    let body = &p[1..end];
    let (negated, body) = match body.first() {
        Some('!' | '^') => (true, &body[1..]),
        _ => (false, body),
    };
    let body = body.to_vec();
    let hit = move |c: char| {
        let mut i = 0;
        let mut found = false;
        while i < body.len() {
            if i + 2 < body.len() && body[i + 1] == '-' {
                found |= body[i] <= c && c <= body[i + 2];
                i += 3;
            } else {
                found |= body[i] == c;
                i += 1;
            }
        }
        found != negated
    };
    Some((hit, end + 1))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_stay_within_a_segment_and_double_stars_cross_them() {
        assert!(matches("src/*.ts", "src/a.ts"));
        assert!(!matches("src/*.ts", "src/x/a.ts"));
        assert!(matches("src/**/*.ts", "src/a.ts"));
        assert!(matches("src/**/*.ts", "src/x/y/a.ts"));
        assert!(matches("**/*.md", "docs/a.md"));
        assert!(matches("**/*.md", "a.md"));
        assert!(matches("docs/**", "docs/a/b.txt"));
        assert!(!matches("docs/**", "src/docs/a"));
    }

    #[test]
    fn classes_questions_and_braces() {
        assert!(matches("a?.rs", "ab.rs"));
        assert!(!matches("a?.rs", "a/.rs"));
        assert!(matches("[abc].rs", "b.rs"));
        assert!(matches("[!abc].rs", "d.rs"));
        assert!(matches("v[0-9].md", "v7.md"));
        assert!(matches("src/**/*.{ts,tsx}", "src/ui/App.tsx"));
        assert!(!matches("src/**/*.{ts,tsx}", "src/ui/App.js"));
        assert!(matches("[unclosed", "[unclosed"));
        assert!(matches("a/**/b", "a/b"));
        assert!(matches("a/**/b", "a/x/y/b"));
        assert!(!matches("a/**/b", "a/xb"));
        assert!(matches("a**b", "axyb"));
        assert!(matches("**", "a/b/c"));
    }

    /// Issue 18: patterns that took exponential time with backtracking (19 s at 30 characters,
    /// over 30 s at 60) are answered from a table over the pattern and a 4,096-character path.
    /// No timing is asserted; the test harness's own timeout is the bound.
    #[test]
    fn hostile_patterns_are_answered_without_backtracking() {
        let long = "a".repeat(4096);
        let pairs = format!("**/{}b", "*?".repeat(61));
        assert!(!matches(&pairs, &long));
        let nested = format!("{}{}b", "**/".repeat(20), "a*".repeat(9));
        assert!(!matches(&nested, &long));
        assert!(matches(&format!("{}a", "**/".repeat(20)), &format!("{}/a", long)));
        let braces = "{a,b}".repeat(20);
        assert!(!matches(&braces, "ab"), "a million alternatives match nothing");
    }
}
