//! Glob patterns for rules files' `paths:` (R3.4): `*` and `?` within one path segment, `**`
//! across segments, `[abc]` / `[a-z]` / `[!x]` classes and `{a,b}` alternatives. Paths and
//! patterns use `/`.

/// True when `path` matches `pattern` as a whole.
pub fn matches(pattern: &str, path: &str) -> bool {
    expand_braces(pattern).iter().any(|p| {
        let pattern: Vec<char> = p.chars().collect();
        let path: Vec<char> = path.chars().collect();
        match_here(&pattern, &path)
    })
}

/// `{a,b}` alternatives expanded into plain patterns (nesting allowed).
fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_string()];
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
        return vec![pattern.to_string()];
    };
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    bounds
        .windows(2)
        .flat_map(|w| expand_braces(&format!("{head}{}{tail}", &pattern[w[0] + 1..w[1]])))
        .collect()
}

fn match_here(p: &[char], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some('*') if p.get(1) == Some(&'*') => {
            // `**` matches any number of whole segments; `**/` may also match nothing.
            let rest = &p[2..];
            let rest_after_slash = rest.strip_prefix(&['/']).unwrap_or(rest);
            (0..=s.len()).any(|i| {
                ((i == 0 || s[i - 1] == '/') && match_here(rest_after_slash, &s[i..]))
                    || match_here(rest, &s[i..])
            })
        }
        Some('*') => {
            (0..=s.len()).take_while(|&i| i == 0 || s[i - 1] != '/').any(|i| match_here(&p[1..], &s[i..]))
        }
        Some('?') => s.first().is_some_and(|&c| c != '/') && match_here(&p[1..], &s[1..]),
        Some('[') => match (class(p), s.first()) {
            (Some((hit, len)), Some(&c)) if c != '/' => hit(c) && match_here(&p[len..], &s[1..]),
            (None, Some(&'[')) => match_here(&p[1..], &s[1..]),
            _ => false,
        },
        Some(&c) => s.first() == Some(&c) && match_here(&p[1..], &s[1..]),
    }
}

/// A `[...]` class at the start of `p`: a predicate and the pattern length it used.
fn class(p: &[char]) -> Option<(impl Fn(char) -> bool, usize)> {
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
    }
}
