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
    // Azure connection strings: `AccountKey=…` (storage), `SharedAccessKey=…` (Service Bus,
    // Event Hubs); issue 24, defect 15.
    ("accountkey", "Azure account key"),
    ("account_key", "Azure account key"),
    ("sharedaccesskey", "Azure shared access key"),
];

/// Longest run a rule reads after its prefix: real keys and tokens are shorter, and a bound keeps
/// every rule linear in the line however it is built (`xoxb-xoxb-xoxb-…`).
const MAX_RUN: usize = 128;

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
        let kind = token_on(line)
            .or_else(|| jwt_on(line))
            .or_else(|| sendgrid_on(line))
            .or_else(|| url_password_on(line))
            .or_else(|| slack_webhook_on(line))
            .or_else(|| authorization_on(line))
            .or_else(|| mysql_password_on(line))
            .or_else(|| assignment_on(line));
        if let Some(kind) = kind {
            findings.push(Finding { kind, line: line_no });
        }
    }
    findings
}

fn token_on(line: &str) -> Option<&'static str> {
    for (start, _) in line.char_indices() {
        // A token starts a word: `mask-sk-…` and `desk-hf_…` are not keys. A distinctive prefix
        // (four characters or more) may follow a `-` or `_`, as it does in a file name
        // (`bot-xoxb-….md`, issue 24, defect 15); the short `sk-` and `hf_` may not.
        let before = line[..start].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let joined = before.is_some_and(token);
        let rest = &line[start..];
        for &(prefix, kind, allowed, min) in TOKENS {
            if joined && prefix.len() < 4 {
                continue;
            }
            if let Some(tail) = rest.strip_prefix(prefix) {
                let (mut run, mut digit, mut letter) = (0, false, false);
                for c in tail.chars().take(MAX_RUN).take_while(|&c| allowed(c)) {
                    run += 1;
                    digit |= c.is_ascii_digit();
                    letter |= c.is_ascii_alphabetic();
                }
                if run >= min && digit && letter {
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

/// `SG.<22>.<43>`: a SendGrid API key (issue 24, defect 15).
fn sendgrid_on(line: &str) -> Option<&'static str> {
    for (at, _) in line.match_indices("SG.") {
        if line[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let rest = &line[at + 3..];
        let first = rest.chars().take(MAX_RUN).take_while(|&c| token(c)).count();
        let Some(second) = rest[first..].strip_prefix('.') else { continue };
        let second_len = second.chars().take(MAX_RUN).take_while(|&c| token(c)).count();
        let key = format!("{}{}", &rest[..first], &second[..second_len]);
        if first >= 16 && second_len >= 32 && mixed(&key) {
            return Some("SendGrid API key");
        }
    }
    None
}

/// `scheme://user:password@host`: a password in a URL's user information (issue 24, defect
/// 15). A user alone (`ssh://git@host`), an empty password (`user:@host`) and a placeholder
/// (`<password>`, `***`, `${PASS}`) are not secrets; neither is an `@` in the path or query.
fn url_password_on(line: &str) -> Option<&'static str> {
    for (at, _) in line.match_indices("://") {
        if !line[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        // The authority ends where the path, query or fragment starts, or the URL does. The
        // next `://` starts with `/`, so no two authorities overlap.
        let rest = &line[at + 3..];
        let end = rest.find(|c: char| c.is_whitespace() || "/?#\"'<>`\\".contains(c)).unwrap_or(rest.len());
        let authority = &rest[..end];
        let Some(userinfo) = authority.rfind('@').map(|i| &authority[..i]) else { continue };
        let Some((_, password)) = userinfo.split_once(':') else { continue };
        if !is_placeholder(password) {
            return Some("password in a URL");
        }
    }
    None
}

/// `https://hooks.slack.com/services/T…/B…/…`: a Slack incoming webhook, which anyone holding
/// it can post through (issue 24, defect 15). Slack's own example, `XXXX…`, is a placeholder.
fn slack_webhook_on(line: &str) -> Option<&'static str> {
    for (at, m) in line.match_indices("hooks.slack.com/services/") {
        let mut parts = line[at + m.len()..].splitn(4, '/').map(|part| {
            let run = part.chars().take(MAX_RUN).take_while(char::is_ascii_alphanumeric).count();
            &part[..run]
        });
        let (Some(team), Some(channel), Some(secret)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if team.len() >= 8
            && team.starts_with('T')
            && channel.len() >= 8
            && channel.starts_with('B')
            && secret.len() >= 16
            && !is_placeholder(secret)
        {
            return Some("Slack webhook URL");
        }
    }
    None
}

/// `Bearer <token>` (an `Authorization` header, a curl line), and `Authorization: Basic
/// <base64 of user:password>` (issue 24, defect 15). `Bearer $TOKEN`, `Bearer <token>` and
/// words (`Bearer authentication`) are not tokens.
fn authorization_on(line: &str) -> Option<&'static str> {
    // ASCII lowercasing keeps every byte offset.
    let lower = line.to_ascii_lowercase();
    // What follows a scheme word that starts a word (`Bearer`, `Basic`) and a space.
    let credential = |at: usize, scheme: &str| -> Option<&str> {
        if lower[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        let rest = &line[at + scheme.len()..];
        let value = rest.trim_start_matches([' ', '\t']);
        if value.len() == rest.len() {
            return None;
        }
        let run = value
            .chars()
            .take(MAX_RUN)
            .take_while(|&c| c.is_ascii_alphanumeric() || "-._~+/=".contains(c))
            .count();
        Some(&value[..run])
    };
    for (at, _) in lower.match_indices("bearer") {
        if credential(at, "bearer").is_some_and(|v| v.len() >= 16 && !is_placeholder(v) && looks_random(v)) {
            return Some("bearer token");
        }
    }
    let header = lower.find("authorization")?;
    for (at, _) in lower[header..].match_indices("basic") {
        if credential(header + at, "basic").is_some_and(is_basic_credential) {
            return Some("basic auth credentials");
        }
    }
    None
}

/// Base64 of `user:password`, printable, with a password that is not a placeholder.
fn is_basic_credential(value: &str) -> bool {
    let Some(decoded) = base64_decode(value.trim_end_matches('=')) else { return false };
    let Ok(text) = std::str::from_utf8(&decoded) else { return false };
    if !text.chars().all(|c| (' '..='~').contains(&c)) {
        return false;
    }
    text.split_once(':').is_some_and(|(user, password)| !user.is_empty() && !is_placeholder(password))
}

/// Standard base64, unpadded; `None` for any other character or a length no encoding has.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() < 8 || text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut bits, mut count) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// `mysql -u root -p<password>` (also `mysqldump`, `mysqladmin`, `mariadb`): the password
/// glued to `-p` (issue 24, defect 15). `-p` alone prompts; `-p$MYSQL_PWD` is a variable; `-P`
/// is the port; the options of the next command in a pipeline are not the client's.
fn mysql_password_on(line: &str) -> Option<&'static str> {
    let mut in_client = false;
    for word in line.split_whitespace() {
        if in_client
            && !word.starts_with("--")
            && let Some(value) = word.strip_prefix("-p")
        {
            let value = value.split(['|', ';', '&', '<', '>', '`', ')']).next().unwrap_or("");
            let value = value.trim_matches(['"', '\'']);
            if !value.is_empty() && !is_placeholder(value) {
                return Some("MySQL password on a command line");
            }
        }
        if word.contains(['|', ';', '&', '<', '>', '`', ')']) {
            in_client = false;
        }
        let program = word.rsplit(['/', '(', '`', '"', '\'', ';', '&', '|']).next().unwrap_or(word);
        if let Some(suffix) = program.strip_prefix("mysql").or_else(|| program.strip_prefix("mariadb"))
            && suffix.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        {
            in_client = true;
        }
    }
    None
}

/// Letters and digits both: how generated keys look.
fn mixed(value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit()) && value.chars().any(|c| c.is_ascii_alphabetic())
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
        // Bounded, so `pwd=<pwd=<pwd=<…` stays linear.
        let end = rest
            .char_indices()
            .take(MAX_RUN)
            .find(|&(_, c)| c.is_whitespace() || "\"',;".contains(c))
            .map_or_else(|| rest.char_indices().nth(MAX_RUN).map_or(rest.len(), |(i, _)| i), |(i, _)| i);
        let value = &rest[..end];
        if is_placeholder(value) {
            continue;
        }
        let flagged = match kind {
            "password" => value.chars().count() >= 6,
            _ => looks_random(value),
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
        || value.starts_with(['<', '$', '{', '[', '*', '%'])
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

/// A finding with where it is: `path line N: kind`, or `path (its name): kind` for line 0.
pub fn located(path: &str, finding: &Finding) -> String {
    match finding.line {
        0 => format!("{path} (its name): {}", finding.kind),
        line => format!("{path} line {line}: {}", finding.kind),
    }
}

/// Every secret in a `git log --patch -U0` printed with `team::OUTGOING_LOG_FORMAT`, one commit at
/// a time: in each commit's message, its files' names and the lines it adds. Each finding
/// reads `commit <sha>, <where>: <kind>`.
pub fn in_git_log(log: &str) -> Vec<String> {
    let mut list = Vec::new();
    let mut chunks = log.split('\0').skip(1);
    while let (Some(head), diff) = (chunks.next(), chunks.next().unwrap_or_default()) {
        let (sha, message) = head.split_once('\n').unwrap_or((head, ""));
        let short: String = sha.chars().take(12).collect();
        for finding in scan(message) {
            list.push(format!("commit {short}, its message line {}: {}", finding.line, finding.kind));
        }
        for (path, finding) in in_diff(diff) {
            list.push(format!("commit {short}, {}", located(&path, &finding)));
        }
    }
    list
}

/// The secrets in the lines a diff adds, each with its file and its line in that file. Runs
/// of consecutive added lines are scanned together, so a key block across lines is found.
pub fn in_diff(diff: &str) -> Vec<(String, Finding)> {
    let mut hits = Vec::new();
    let mut path: Option<String> = None;
    let mut run: Vec<&str> = Vec::new();
    let mut run_start = 0usize;
    let mut next_line = 0usize;
    let flush =
        |path: &Option<String>, run: &mut Vec<&str>, start: usize, hits: &mut Vec<(String, Finding)>| {
            if let (Some(path), false) = (path, run.is_empty()) {
                for mut finding in scan(&run.join("\n")) {
                    finding.line += start.saturating_sub(1);
                    hits.push((path.clone(), finding));
                }
            }
            run.clear();
        };
    for line in diff.lines() {
        if let Some(target) = line.strip_prefix("+++ ") {
            flush(&path, &mut run, run_start, &mut hits);
            path = target.strip_prefix("b/").map(|p| p.trim_matches('"').to_string());
            // The name travels too (issue 24, defect 6): line 0 stands for it.
            if let Some(name) = &path {
                for mut finding in scan(name) {
                    finding.line = 0;
                    hits.push((name.clone(), finding));
                }
            }
        } else if line.starts_with("@@") {
            flush(&path, &mut run, run_start, &mut hits);
            // `@@ -a,b +c,d @@`: the new side starts at line c.
            next_line = line
                .split(' ')
                .find_map(|f| f.strip_prefix('+'))
                .and_then(|f| f.split(',').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            run_start = next_line;
        } else if let Some(added) = line.strip_prefix('+') {
            if run.is_empty() {
                run_start = next_line;
            }
            run.push(added);
            next_line += 1;
        } else if line.starts_with("diff --git") {
            flush(&path, &mut run, run_start, &mut hits);
            path = None;
        }
    }
    flush(&path, &mut run, run_start, &mut hits);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_added_lines_are_found_with_their_file_line() {
        let diff = "diff --git a/x.md b/x.md\n--- a/x.md\n+++ b/x.md\n@@ -3,0 +4,2 @@\n+fine\n+key AKIAIOSFODNN7EXAMPLE here\n";
        let hits = in_diff(diff);
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!((hits[0].0.as_str(), hits[0].1.line), ("x.md", 5));
        assert!(in_diff("+++ /dev/null\n@@ -1 +0,0 @@\n").is_empty());
    }

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

    /// Issue 24, defect 15: each new shape, with the near misses beside it that must not fire.
    #[test]
    fn issue_24_defect_15_new_shapes_fire_and_their_near_misses_do_not() {
        let cases: &[(&str, Option<&str>)] = &[
            // A password in a URL.
            ("clone https://user:pass@git.example.com/repo.git", Some("password in a URL")),
            ("DATABASE_URL=postgres://u:p@h/db", Some("password in a URL")),
            ("redis://:s3cretpw@cache:6379/0", Some("password in a URL")),
            ("mongodb+srv://app:p@ss@cluster0.example.net/", Some("password in a URL")),
            ("https://user@host.example/path", None),
            ("ssh://git@github.com/org/repo.git", None),
            ("https://user:@host.example/", None),
            ("postgres://user:<password>@localhost/db", None),
            ("postgres://user:***@localhost/db", None),
            ("postgres://user:${PASS}@localhost/db", None),
            ("postgres://${USER}:${PASS}@localhost/db", None),
            ("https://example.com/search?q=a:b@c", None),
            ("https://host.example:8443/a@b", None),
            ("git@github.com:org/repo.git", None),
            ("see http://[::1]:8080/ for the dev server", None),
            // Authorization headers.
            ("curl -H 'Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a'", Some("bearer token")),
            ("Authorization: bearer ya29.a0AfH6SMBx3k9Q2mL7pN4r", Some("bearer token")),
            ("Authorization: Bearer $TOKEN", None),
            ("Authorization: Bearer <token>", None),
            ("Authorization: Bearer YOUR_ACCESS_TOKEN_HERE", None),
            ("the API wants a Bearer token in the Authorization header", None),
            ("Bearer authentication is configured in nginx", None),
            ("Authorization: Basic YWRtaW46aHVudGVyMjI=", Some("basic auth credentials")),
            ("Authorization: Basic authentication is disabled", None),
            ("Authorization: Basic PHVzZXI+OjxwYXNzd29yZD4=", None),
            ("Basic YWRtaW46aHVudGVyMjI= with no header named", None),
            // Slack webhooks.
            (
                "hook https://hooks.slack.com/services/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",
                Some("Slack webhook URL"),
            ),
            ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", None),
            ("post to https://hooks.slack.com/services/ with the bot's URL", None),
            ("https://hooks.slack.com/services/T0AB12CD34/B0EF56GH78", None),
            // Azure connection strings.
            (
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
                Some("Azure account key"),
            ),
            (
                "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=k3J9xQ2mV8pL5nR1tZ7wY4uB6cD0eF2g=",
                Some("Azure shared access key"),
            ),
            ("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=<key>", None),
            ("AccountName=acme;AccountKey=...", None),
            ("the AccountKey field holds the storage key", None),
            // SendGrid.
            (
                "SENDGRID=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",
                Some("SendGrid API key"),
            ),
            ("SG.example.key", None),
            ("the SG.x prefix marks SendGrid keys", None),
            ("MSG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", None),
            // MySQL command lines.
            ("mysql -u root -phunter2 app", Some("MySQL password on a command line")),
            ("/usr/bin/mysqldump -uroot -p's3cret' app > dump.sql", Some("MySQL password on a command line")),
            ("docker exec db mariadb -uroot -pr00t", Some("MySQL password on a command line")),
            ("mysql -u root -p app", None),
            ("mysql -u root -p$MYSQL_PWD app", None),
            ("mysql -u root -p\"$MYSQL_PWD\" app", None),
            ("mysql -u root -p<password> app", None),
            ("mysql -u root -p*** app", None),
            ("mysql -h db -P3306 -u app", None),
            ("mysql -u root --password app", None),
            ("mysql -e 'select 1' app | grep -pattern", None),
            ("mysql -e 'select 1' && mkdir -pv /tmp/x", None),
            ("mkdir -pv /tmp/x", None),
            // A Slack token joined to a word by `-` or `_`, as in a file name.
            ("bot-xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx.md", Some("Slack token")),
            ("slack_xoxb-123456789012-abcdefghijklmnop", Some("Slack token")),
            ("slackxoxb-123456789012-abcdefghijklmnop", None),
            ("notes-on-xoxb-tokens.md", None),
            ("use-sk-learn-pipelines-for-the-2024-q3-models.md", None),
            ("mask-sk-0123456789abcdefghijklmnopqrstuvwxyz", None),
        ];
        for (text, expected) in cases {
            assert_eq!(scan(text).first().map(|f| f.kind), *expected, "{text}");
        }
    }

    /// Issue 24, defect 15: the scanner stays linear however a line repeats a rule's prefix
    /// (each line is 256 KiB: linear, the slowest takes about a second in a debug build; the
    /// value rule before its bound took over ten minutes on `pwd=<pwd=<…`).
    #[test]
    fn issue_24_defect_15_the_scanner_stays_linear_on_hostile_lines() {
        let size = 256 << 10;
        for unit in [
            "xoxb-",
            "ghp_",
            "pwd=<",
            "a://",
            "u:p@",
            "hooks.slack.com/services/",
            "bearer ",
            "authorization basic ",
            "SG.",
            "SG.a.",
            "mysql -p<x ",
            "eyJ.",
            "x",
        ] {
            let line = unit.repeat(size / unit.len());
            let started = std::time::Instant::now();
            let _ = scan(&line);
            let took = started.elapsed();
            assert!(took < std::time::Duration::from_secs(20), "{unit:?}: {took:?}");
        }
    }

    #[test]
    fn the_finding_never_contains_the_secret() {
        let finding = scan("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345").remove(0);
        assert_eq!(finding.to_string(), "Anthropic API key on line 1");
    }
}
