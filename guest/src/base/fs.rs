//! The filesystem the core is given. Natively it is any [`Fs`] implementation; in the component
//! it is the `host-fs` import. The core never touches `std::fs`.

use thiserror::Error;

/// What a directory entry or stat result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (only from [`Fs::list_dir`], which does not follow links).
    Symlink,
    /// Anything else.
    Other,
}

/// One directory entry with its own metadata (links not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// File name, no separators.
    pub name: String,
    /// Kind of the entry itself.
    pub kind: EntryKind,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ms since the epoch.
    pub mtime_ms: i64,
}

/// The first part of a file, read in one open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHead {
    /// At most the requested lines and bytes; not necessarily UTF-8.
    pub data: Vec<u8>,
    /// Size of the whole file.
    pub size: u64,
    /// Modification time, ms since the epoch.
    pub mtime_ms: i64,
    /// True when the file goes on past `data`.
    pub truncated: bool,
}

/// Metadata of a path, links followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// What the path is.
    pub kind: EntryKind,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ms since the epoch.
    pub mtime_ms: i64,
}

/// A host filesystem error; each message names the path.
#[derive(Debug, Clone, PartialEq, Eq, Error, serde::Serialize, serde::Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum FsError {
    /// The path does not exist.
    #[error("{0}: not found")]
    NotFound(String),
    /// The operating system refused access.
    #[error("{0}: permission denied")]
    PermissionDenied(String),
    /// The path resolves outside every granted root.
    #[error("{0}: outside the directories memdir may use")]
    OutsideRoot(String),
    /// The root holding the path is read-only.
    #[error("{0}: read-only")]
    ReadOnly(String),
    /// A directory was expected.
    #[error("{0}: not a directory")]
    NotADirectory(String),
    /// A file was expected.
    #[error("{0}: is a directory")]
    IsADirectory(String),
    /// The path is empty, relative or holds a NUL byte.
    #[error("{0}: invalid path")]
    InvalidPath(String),
    /// Any other failure, with the host's message.
    #[error("{0}")]
    Other(String),
}

impl FsError {
    /// True for [`FsError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, FsError::NotFound(_))
    }
}

/// The synchronous filesystem operations the core needs (the `host-fs` WIT interface).
/// Paths are absolute with `/` separators; implementations confine them to granted roots.
pub trait Fs {
    /// Entries of a directory with their own metadata, links not followed.
    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, FsError>;
    /// Up to `max_lines` lines and `max_bytes` bytes of a file, with its size and mtime.
    fn read_head(&self, path: &str, max_lines: u32, max_bytes: u32) -> Result<FileHead, FsError>;
    /// Metadata of a path, links followed.
    fn stat(&self, path: &str) -> Result<FileStat, FsError>;
    /// Canonical absolute form of an existing path.
    fn real_path(&self, path: &str) -> Result<String, FsError>;
    /// A whole file, failing when it is larger than `max_bytes`.
    fn read_file(&self, path: &str, max_bytes: u64) -> Result<Vec<u8>, FsError>;
    /// Replaces a file atomically.
    fn write_file(&self, path: &str, data: &[u8]) -> Result<(), FsError>;
    /// Appends to a file, creating it when missing.
    fn append_file(&self, path: &str, data: &[u8]) -> Result<(), FsError>;
    /// Renames a file, replacing the destination.
    fn rename(&self, from: &str, to: &str) -> Result<(), FsError>;
    /// Removes a file.
    fn remove_file(&self, path: &str) -> Result<(), FsError>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, path: &str) -> Result<(), FsError>;
    /// Takes the exclusive lock `path`, waiting at most `timeout_ms`.
    fn lock(&self, path: &str, timeout_ms: u32) -> Result<(), FsError>;
    /// Releases the lock `path`.
    fn unlock(&self, path: &str) -> Result<(), FsError>;
}

/// Joins a directory and a relative path with `/`.
pub fn join(dir: &str, rel: &str) -> String {
    if dir.ends_with('/') { format!("{dir}{rel}") } else { format!("{dir}/{rel}") }
}

/// `target` made absolute against the directory `base` (unless it already is) and normalised
/// lexically: `.` and `..` removed, no trailing `/`. Links are not resolved.
pub fn resolve(base: &str, target: &str) -> String {
    let joined = if target.starts_with('/') { target.to_string() } else { join(base, target) };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The parent of an absolute `/`-separated path; `None` for `/`.
pub fn parent(path: &str) -> Option<&str> {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return None;
    }
    match trimmed.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&trimmed[..i]),
        None => None,
    }
}

/// True for an absolute path: `/…`, or a Windows drive path (`C:/…`, `C:\\…`).
pub fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\'))
}

/// True when `path` is `root` or lies under it (both canonical, `/`-separated).
pub fn is_within(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    path == root || root.is_empty() || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 16, item 6: confinement on Windows- and macOS-shaped roots. A sibling whose name
    /// extends the root's is outside. A path spelled in another case is outside too: on a
    /// case-insensitive file system that refuses a path that is really inside, which is the
    /// safe way to be wrong. Hosts pass real paths, so one folder has one spelling.
    #[test]
    fn within_holds_at_component_boundaries_for_drive_and_mac_paths() {
        assert!(is_within("C:/Users/ana/mem/a.md", "C:/Users/ana/mem"));
        assert!(is_within("C:/Users/ana/mem", "C:/Users/ana/mem/"));
        assert!(!is_within("C:/Users/ana/mem2/a.md", "C:/Users/ana/mem"));
        assert!(!is_within("D:/Users/ana/mem/a.md", "C:/Users/ana/mem"));
        assert!(!is_within("c:/users/ana/mem/a.md", "C:/Users/ana/mem"), "another case is refused");
        assert!(is_within("/Users/Ana/Library/mem/a.md", "/Users/Ana/Library/mem"));
        assert!(!is_within("/Users/ana/library/mem/a.md", "/Users/Ana/Library/mem"));
        assert_eq!(join("C:/Users/ana/mem", "team/a.md"), "C:/Users/ana/mem/team/a.md");
        assert_eq!(parent("C:/Users/ana/mem/a.md"), Some("C:/Users/ana/mem"));
    }
}
