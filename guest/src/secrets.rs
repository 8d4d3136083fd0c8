//! The secret scanner every write path runs (R1.5, R12.2): common key, token and password shapes
//! and private-key blocks. A finding names the kind and the line, never the secret.

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of secret it looks like.
    pub kind: &'static str,
    /// 1-based line number.
    pub line: usize,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on line {}", self.kind, self.line)
    }
}

/// A token shape: a literal prefix, the kind it names, the characters that may follow, and how
/// many at least.
type TokenShape = (&'static str, &'static str, fn(char) -> bool, usize);

const TOKENS: &[TokenShape] = &[
    ("AKIA", "AWS access key ID", upper_alnum, 16),
    ("ASIA", "AWS temporary access key ID", upper_alnum, 16),
    ("ghp_", "GitHub token", alnum, 30),
    ("gho_", "GitHub token", alnum, 30),
    ("ghu_", "GitHub token", alnum, 30),
    ("ghs_", "GitHub token", alnum, 30),
    ("ghr_", "GitHub token", alnum, 30),
    ("github_pat_", "GitHub token", word, 40),
    ("glpat-", "GitLab token", token, 20),
    ("xoxb-", "Slack token", token, 20),
    ("xoxp-", "Slack token", token, 20),
    ("xoxa-", "Slack token", token, 20),
    ("sk-ant-", "Anthropic API key", token, 30),
    ("sk-proj-", "OpenAI API key", token, 30),
    ("sk-", "API secret key", token, 32),
    ("sk_live_", "Stripe secret key", alnum, 20),
    ("rk_live_", "Stripe restricted key", alnum, 20),
    ("AIza", "Google API key", token, 35),
    ("npm_", "npm token", alnum, 36),
    ("hf_", "Hugging Face token", alnum, 30),
];

/// Words that make an assignment's key secret-named (`AWS_SECRET_ACCESS_KEY=…`,
/// `"api_key": "…"`), with the kind they report. A password is flagged at any length; any other
/// value must also look random, so `SECRET_KEY_NAME=docs` stays allowed.
const SECRET_WORDS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("pwd", "password"),
    ("secret", "secret value"),
    ("token", "secret value"),
    ("api_key", "secret value"),
    ("apikey", "secret value"),
    ("access_key", "secret value"),
    ("private_key", "secret value"),
    ("credential", "secret value"),
];

fn upper_alnum(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}
fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}
fn word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}
fn token(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Every secret-shaped thing in `text`, at most one finding per line.
pub fn scan(text: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut in_key_block = false;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        // Every PEM or PGP private-key block: RSA, EC, OPENSSH, ENCRYPTED, `PGP PRIVATE KEY BLOCK`.
        if line.contains("-----BEGIN") && line.contains("PRIVATE KEY") {
            findings.push(Finding { kind: "private key block", line: line_no });
            in_key_block = true;
            continue;
        }
        if in_key_block {
            in_key_block = !line.contains("-----END");
            continue;
        }
        if let Some(kind) = token_on(line).or_else(|| jwt_on(line)).or_else(|| assignment_on(line)) {
            findings.push(Finding { kind, line: line_no });
        }
    }
    findings
}

fn token_on(line: &str) -> Option<&'static str> {
    for (start, _) in line.char_indices() {
        // A token starts a word: `task-ghp_x` is not a GitHub token.
        if start > 0 && line[..start].chars().next_back().is_some_and(token) {
            continue;
        }
        let rest = &line[start..];
        for &(prefix, kind, allowed, min) in TOKENS {
            if let Some(tail) = rest.strip_prefix(prefix) {
                let run = tail.chars().take_while(|&c| allowed(c)).count();
                let varied = tail.chars().take(run).any(|c| c.is_ascii_digit())
                    && tail.chars().take(run).any(|c| c.is_ascii_alphabetic());
                if run >= min && varied {
                    return Some(kind);
                }
            }
        }
    }
    None
}

/// `eyJ….eyJ….sig`: a JSON Web Token.
fn jwt_on(line: &str) -> Option<&'static str> {
    line.split(|c: char| !(token(c) || c == '.')).find_map(|word| {
        let parts: Vec<&str> = word.split('.').collect();
        (parts.len() == 3
            && parts[0].starts_with("eyJ")
            && parts[1].starts_with("eyJ")
            && parts[2].len() >= 16)
            .then_some("JSON Web Token")
    })
}

/// `key: value` or `key = value` whose key names a secret and whose value is not a placeholder.
fn assignment_on(line: &str) -> Option<&'static str> {
    let is_key = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    for (at, sep) in line.char_indices().filter(|&(_, c)| c == '=' || c == ':') {
        let before = line[..at].trim_end().trim_end_matches(['"', '\'']);
        // The key runs back to the last character that cannot be in one (any width: the fuzzer
        // found `日本語description:` cut inside a character here).
        let key_start =
            before.char_indices().rev().find(|&(_, c)| !is_key(c)).map_or(0, |(i, c)| i + c.len_utf8());
        let key = before[key_start..].to_ascii_lowercase().replace('-', "_");
        let Some(&(_, kind)) = SECRET_WORDS.iter().find(|(word, _)| key.contains(word)) else { continue };
        let rest = line[at + sep.len_utf8()..].trim_start().trim_start_matches(['"', '\'']);
        let value: String =
            rest.chars().take_while(|&c| !c.is_whitespace() && !"\"',;".contains(c)).collect();
        if is_placeholder(&value) {
            continue;
        }
        let flagged = match kind {
            "password" => value.chars().count() >= 6,
            _ => looks_random(&value),
        };
        if flagged {
            return Some(kind);
        }
    }
    None
}

/// A value written to be replaced: empty, a variable or template, a mask, a stock word.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.is_empty()
        || value.starts_with(['<', '$', '{', '*', '%'])
        || value.chars().all(|c| "xX*.-_".contains(c))
        || ["changeme", "redacted", "none", "null", "example", "env", "true", "false", "todo"]
            .contains(&lower.as_str())
        || lower.starts_with("your")
}

/// At least 12 characters, letters and digits mixed, and at least 3 bits of entropy per
/// character: how generated keys look, and how words and paths do not.
fn looks_random(value: &str) -> bool {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() < 12
        || !chars.iter().any(char::is_ascii_digit)
        || !chars.iter().any(|c| c.is_ascii_alphabetic())
    {
        return false;
    }
    let mut counts = std::collections::BTreeMap::new();
    for c in &chars {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = chars.len() as f64;
    let entropy: f64 = counts.values().map(|&k| -(k as f64 / n) * (k as f64 / n).log2()).sum();
    entropy >= 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&'static str, usize)> {
        scan(text).into_iter().map(|f| (f.kind, f.line)).collect()
    }

    #[test]
    fn finds_common_shapes_and_names_kind_and_line() {
        let text = "intro\nAWS: AKIAIOSFODNN7EXAMPL3\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\n\
                    password = hunter22x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----\n\
                    jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnopqrstu\n";
        assert_eq!(
            kinds(text),
            [
                ("AWS access key ID", 2),
                ("GitHub token", 3),
                ("password", 4),
                ("private key block", 5),
                ("JSON Web Token", 8)
            ]
        );
    }

    #[test]
    fn ordinary_prose_and_placeholders_are_not_secrets() {
        let text = "Use the staging password manager.\npassword: <from 1Password>\napi_key = $API_KEY\n\
                    the token bucket limits requests\nsk-learn is a library\nbranch task-ghp_fix\n";
        assert_eq!(kinds(text), []);
    }

    /// One positive and one negative case per rule (issue 18, item 6).
    #[test]
    fn each_rule_has_a_case_that_fires_and_one_that_does_not() {
        let cases: &[(&str, Option<&str>)] = &[
            ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", Some("secret value")),
            ("AWS_REGION=eu-west-1", None),
            ("SECRET_KEY = 'k3J9xQ2mV8pL5nR1tZ7w'", Some("secret value")),
            ("SECRET_KEY_NAME=docs", None),
            ("API_SECRET_KEY: 9fX2kQ7mN4pR8sT1vW6y", Some("secret value")),
            ("api_key = $API_KEY", None),
            ("\"access_token\": \"ya29a0AfH6SMBx3k9Q2mL7pN4r\"", Some("secret value")),
            ("token_bucket: 100", None),
            ("tokenizer_path = ./models/tokenizer.json", None),
            ("DB_PASSWORD=hunter22x", Some("password")),
            ("password: <from 1Password>", None),
            ("-----BEGIN PGP PRIVATE KEY BLOCK-----", Some("private key block")),
            ("-----BEGIN OPENSSH PRIVATE KEY-----", Some("private key block")),
            ("-----BEGIN ENCRYPTED PRIVATE KEY-----", Some("private key block")),
            ("-----BEGIN PUBLIC KEY-----", None),
            ("xoxb-123456789012-abcdefghijklmnop", Some("Slack token")),
            ("xoxb-", None),
            ("AKIAIOSFODNN7EXAMPL3", Some("AWS access key ID")),
            ("AKIA is the prefix of AWS key IDs", None),
        ];
        for (text, expected) in cases {
            assert_eq!(scan(text).first().map(|f| f.kind), *expected, "{text}");
        }
    }

    #[test]
    fn the_finding_never_contains_the_secret() {
        let finding = scan("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345").remove(0);
        assert_eq!(finding.to_string(), "Anthropic API key on line 1");
    }
}
