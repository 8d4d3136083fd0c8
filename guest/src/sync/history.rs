//! The git log of memory synced through git (issue 48): who committed what, when, with the
//! diff, for a person to read beside a memory's own timeline. Team memory's history across
//! machines is git's, not the local timeline's.
//!
//! Commits come from teammates, so everything here is data from an attacker. The log's fields
//! are split at NUL, which git keeps out of commit messages and names; and the commits must
//! read back as `git rev-list` listed them (ids only, no text), so a subject crafted to look
//! like the start of another commit is caught, not shown as one. Text loses its control
//! characters, and each diff is capped.

use serde::{Deserialize, Serialize};

/// At most this many commits are asked for.
pub const MAX_COMMITS: u32 = 50;
/// A commit's diff past this many bytes is cut (at a line).
const MAX_DIFF_BYTES: usize = 16 * 1024;
/// A commit's author or subject past this many characters is cut.
const MAX_TEXT_CHARS: usize = 200;

/// What `git log` prints before each commit's patch: its fields, each after a NUL.
pub const FORMAT: &str = "--format=%x00%H%x00%at%x00%an%x00%s%x00";

/// Which commits: those touching one file (relative to the synced directory) or any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LogOptions {
    /// A memory file in the synced directory; `None`: every file.
    pub path: Option<String>,
    /// The newest this many commits (at most [`MAX_COMMITS`]).
    pub limit: u32,
}

/// One commit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Commit {
    /// The commit's id.
    pub id: String,
    /// Its author's name, as the author set it.
    pub author: String,
    /// When it was authored, ms since the epoch.
    pub at_ms: i64,
    /// The first line of its message.
    pub subject: String,
    /// Its changes to the memory files, as a unified diff.
    pub diff: String,
    /// The diff was cut at [`MAX_DIFF_BYTES`].
    pub diff_truncated: bool,
}

/// A file `log` may be asked about: a `.md` path inside the synced directory.
pub fn check_path(path: &str) -> Result<(), String> {
    let inside = !path.starts_with('/')
        && !path.starts_with('-')
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
        && !path.chars().any(|c| c.is_control() || c == '\\' || c == ':');
    if inside && path.ends_with(".md") {
        Ok(())
    } else {
        Err(format!("{path:?} is not a memory file inside the synced directory"))
    }
}

/// The commit ids `git rev-list` printed, one a line.
pub fn ids(stdout: &str) -> Vec<String> {
    stdout.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect()
}

/// The commits in `git log --patch` [`FORMAT`]'s output, which must be the commits `ids`
/// names, in that order.
pub fn parse(stdout: &str, ids: &[String]) -> Result<Vec<Commit>, String> {
    let unreadable = || {
        "the team's git log did not read back as git listed its commits: a commit's text may be crafted; run `git log` in the directory to look".to_string()
    };
    let mut fields = stdout.split('\0');
    if !fields.next().is_some_and(|lead| lead.trim().is_empty()) {
        return Err(unreadable());
    }
    let fields: Vec<&str> = fields.collect();
    if fields.len() != ids.len() * 5 {
        return Err(unreadable());
    }
    fields
        .chunks(5)
        .zip(ids)
        .map(|(f, id)| {
            let at: i64 = f[1].trim().parse().map_err(|_| unreadable())?;
            if f[0] != id.as_str() {
                return Err(unreadable());
            }
            let (diff, diff_truncated) = cap(f[4].trim_start_matches('\n'));
            Ok(Commit {
                id: id.clone(),
                author: clean(f[2]),
                at_ms: at.saturating_mul(1000),
                subject: clean(f[3]),
                diff,
                diff_truncated,
            })
        })
        .collect()
}

/// One line of text without control characters, at most [`MAX_TEXT_CHARS`].
fn clean(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(MAX_TEXT_CHARS).collect::<String>().trim().to_string()
}

/// `patch` cut at the last line that fits [`MAX_DIFF_BYTES`].
fn cap(patch: &str) -> (String, bool) {
    if patch.len() <= MAX_DIFF_BYTES {
        return (patch.to_string(), false);
    }
    let mut end = MAX_DIFF_BYTES;
    while !patch.is_char_boundary(end) {
        end -= 1;
    }
    let end = patch[..end].rfind('\n').map_or(end, |i| i + 1);
    (patch[..end].to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef01234567";
    const B: &str = "89abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn commits_parse_with_their_diffs_and_text_loses_its_controls() {
        let out = format!(
            "\0{A}\x001764590400\x00Ana\x00Deploy freeze\x00\n\ndiff --git a/x.md b/x.md\n+new\n\
             \0{B}\x001764590000\x00Eve\u{1b}[2J\x00line\rtwo\u{1e}\x00\n"
        );
        let commits = parse(&out, &ids(&format!("{A}\n{B}\n"))).unwrap();
        assert_eq!(commits.len(), 2, "{commits:?}");
        assert_eq!(commits[0].author, "Ana");
        assert_eq!(commits[0].at_ms, 1_764_590_400_000);
        assert_eq!(commits[0].diff, "diff --git a/x.md b/x.md\n+new\n");
        assert_eq!((commits[1].author.as_str(), commits[1].subject.as_str()), ("Eve[2J", "linetwo"));
    }

    #[test]
    fn a_log_that_does_not_read_back_as_git_listed_it_is_refused() {
        let listed = ids(&format!("{A}\n{B}\n"));
        let good = format!("\0{A}\x001\x00Ana\x00one\x00\n\0{B}\x002\x00Eve\x00two\x00\n");
        assert!(parse(&good, &listed).is_ok());
        // One commit's text pretending a commit starts: a field too many, or one whose id is
        // not the one git listed there.
        let crafted = format!(
            "\0{A}\x001\x00Ana\x00one\x00\0{B}\x009\x00Ana\x00fake\x00\n\0{B}\x002\x00Eve\x00two\x00\n"
        );
        assert!(parse(&crafted, &listed).is_err());
        let swapped = format!("\0{B}\x001\x00Ana\x00one\x00\n\0{A}\x002\x00Eve\x00two\x00\n");
        assert!(parse(&swapped, &listed).is_err());
        assert!(parse(&format!("junk\0{A}\x001\x00Ana\x00one\x00\n"), &listed[..1]).is_err());
        assert!(parse(&format!("\0{A}\x00soon\x00Ana\x00one\x00\n"), &listed[..1]).is_err());
        assert_eq!(parse("", &[]), Ok(vec![]));
    }

    #[test]
    fn a_huge_diff_is_cut_at_a_line() {
        let patch = "+line of a big memory\n".repeat(2000);
        let (diff, cut) = cap(&patch);
        assert!(cut && diff.len() <= MAX_DIFF_BYTES && diff.ends_with('\n'));
        assert_eq!(cap("+small\n"), ("+small\n".to_string(), false));
    }

    #[test]
    fn only_memory_files_inside_the_directory_may_be_asked_about() {
        assert!(check_path("deploy-freeze.md").is_ok());
        assert!(check_path("notes/deploy.md").is_ok());
        for bad in [
            "../secret.md",
            "/etc/x.md",
            "--output=x.md",
            "a/../../b.md",
            "x.txt",
            "a//b.md",
            "c:x.md",
            "a\nb.md",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
