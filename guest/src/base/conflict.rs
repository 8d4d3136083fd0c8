//! Conflict copies: where team sync keeps this machine's version of a file both sides changed
//! (`<stem>.conflict-<host>-<date>.md`), and how `check` recognises one.

/// Where this machine's version of `path` is kept: `<stem>.conflict-<host>-<date>.md`, then
/// `-2` … when that is taken.
pub fn conflict_name(path: &str, host: &str, now_ms: i64, n: u32) -> String {
    let date = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default().format("%Y-%m-%d");
    let (stem, ext) = match path.strip_suffix(".md") {
        Some(stem) => (stem, ".md"),
        None => (path, ""),
    };
    let suffix = if n > 1 { format!("-{n}") } else { String::new() };
    format!("{stem}.conflict-{}-{date}{suffix}{ext}", host_slug(host))
}

/// True for a conflict copy sync left (`check` lists them).
pub fn is_conflict_copy(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once(".conflict-").is_some_and(|(stem, rest)| !stem.is_empty() && rest.len() > 11)
}

/// A host name as it can appear in a file name: lower-case letters, digits and `-`.
pub(crate) fn host_slug(host: &str) -> String {
    let slug: String = host
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let slug: String = slug.chars().take(32).collect();
    if slug.is_empty() { "host".into() } else { slug }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_copies_are_named_by_host_and_date() {
        let name = conflict_name("deploy-freeze.md", "Ben's MacBook.local", 1_764_547_200_000, 1);
        assert_eq!(name, "deploy-freeze.conflict-ben-s-macbook-local-2025-12-01.md");
        assert!(is_conflict_copy(&name));
        assert!(!is_conflict_copy("deploy-freeze.md"));
        assert_eq!(conflict_name("a.md", "", 0, 2), "a.conflict-host-1970-01-01-2.md");
    }
}
