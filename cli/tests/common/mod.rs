//! A host filesystem for tests: the real confined one, with head reads counted and faults
//! injected where a test asks for them.
#![allow(dead_code)]

use memdir_core::{DirEntry, FileHead, FileStat, Fs, FsError};
use memdir_harness::ConfinedFs;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// [`ConfinedFs`] with counting and fault injection.
pub struct FaultyFs {
    /// The real filesystem underneath.
    pub inner: ConfinedFs,
    /// Head reads made so far.
    pub heads: Arc<AtomicUsize>,
    /// Head reads of paths containing this fail with an I/O error.
    pub fail_heads_containing: Option<&'static str>,
    /// Listings of directories containing this fail with `permission-denied`.
    pub fail_dirs_containing: Option<&'static str>,
    /// Writes of paths ending in this fail with "no space left".
    pub fail_writes_ending: Option<&'static str>,
}

impl FaultyFs {
    /// No faults yet.
    pub fn new(inner: ConfinedFs) -> Self {
        FaultyFs {
            inner,
            heads: Arc::new(AtomicUsize::new(0)),
            fail_heads_containing: None,
            fail_dirs_containing: None,
            fail_writes_ending: None,
        }
    }
}

impl Fs for FaultyFs {
    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        match self.fail_dirs_containing {
            Some(bad) if path.contains(bad) => Err(FsError::PermissionDenied(path.into())),
            _ => self.inner.list_dir(path),
        }
    }
    fn read_head(&self, path: &str, max_lines: u32, max_bytes: u32) -> Result<FileHead, FsError> {
        self.heads.fetch_add(1, Ordering::SeqCst);
        match self.fail_heads_containing {
            Some(bad) if path.contains(bad) => Err(FsError::Other(format!("{path}: I/O error (injected)"))),
            _ => self.inner.read_head(path, max_lines, max_bytes),
        }
    }
    fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        self.inner.stat(path)
    }
    fn real_path(&self, path: &str) -> Result<String, FsError> {
        self.inner.real_path(path)
    }
    fn read_file(&self, path: &str, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        self.inner.read_file(path, max_bytes)
    }
    fn write_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        match self.fail_writes_ending {
            Some(bad) if path.ends_with(bad) => {
                Err(FsError::Other(format!("{path}: no space left on device (injected)")))
            }
            _ => self.inner.write_file(path, data),
        }
    }
    fn append_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        self.inner.append_file(path, data)
    }
    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.inner.rename(from, to)
    }
    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.inner.remove_file(path)
    }
    fn create_dir_all(&self, path: &str) -> Result<(), FsError> {
        self.inner.create_dir_all(path)
    }
    fn lock(&self, path: &str, timeout_ms: u32) -> Result<(), FsError> {
        self.inner.lock(path, timeout_ms)
    }
    fn unlock(&self, path: &str) -> Result<(), FsError> {
        self.inner.unlock(path)
    }
}

/// Every file below `dir` whose extension is one of `extensions`: the repository guards
/// (layering, settings) read the sources as text.
pub fn source_files(dir: &std::path::Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(source_files(&path, extensions));
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
            files.push(path);
        }
    }
    files
}
