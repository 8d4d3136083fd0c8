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

/// Assignment keys whose value is a secret: `password = hunter22`, `"api_key": "..."`.
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "api_key",
    "apikey",
    "access_token",
    "auth_token",
    "client_secret",
    "private_key",
    "token",
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
        if line.contains("-----BEGIN") && line.contains("PRIVATE KEY-----") {
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

/// `key: value` or `key = value` with a secret-named key and a value that is not a placeholder.
fn assignment_on(line: &str) -> Option<&'static str> {
    let lower = line.to_ascii_lowercase();
    for key in SECRET_KEYS {
        let Some(at) = lower.find(key) else { continue };
        if at > 0 && lower[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let after = lower[at + key.len()..].trim_start_matches(['"', '\'', ' ']);
        let Some(value) = after.strip_prefix([':', '=']) else { continue };
        let value = line[line.len() - value.len()..].trim().trim_matches(['"', '\'', ',', ';']);
        let placeholder = value.is_empty()
            || value.starts_with(['<', '$', '{', '*'])
            || value.chars().all(|c| c == 'x' || c == 'X' || c == '*' || c == '.')
            || ["changeme", "example", "redacted", "none", "null", "env", "your"]
                .iter()
                .any(|p| value.to_ascii_lowercase().contains(p));
        if value.len() >= 6 && !value.contains(' ') && !placeholder {
            return Some(if key.contains("pass") || *key == "pwd" { "password" } else { "secret value" });
        }
    }
    None
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

    #[test]
    fn the_finding_never_contains_the_secret() {
        let finding = scan("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345").remove(0);
        assert_eq!(finding.to_string(), "Anthropic API key on line 1");
    }
}
