//! The host filesystem: the real one, confined to the roots the host granted.
//!
//! Every path is resolved (symbolic links included) before it is used; a path that resolves
//! outside every granted root is [`FsError::OutsideRoot`] and is never opened. This one type
//! serves both backends: the native core calls it through [`memdir_core::Fs`], the component
//! through the `host-fs` import (see `host_fs.rs`).

use memdir_core::{DirEntry, EntryKind, FileHead, FileStat, Fs, FsError};
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

/// A filesystem shared by a core and the instances it creates.
pub type SharedFs = std::sync::Arc<dyn Fs + Send + Sync>;

/// A granted directory.
#[derive(Debug, Clone)]
struct Root {
    path: PathBuf,
    writable: bool,
    /// The directory itself, opened when granted: files are opened beneath it (Linux).
    #[cfg(target_os = "linux")]
    dir: Option<std::sync::Arc<std::os::fd::OwnedFd>>,
}

/// The real filesystem, confined to granted roots.
#[derive(Debug, Clone, Default)]
pub struct ConfinedFs {
    roots: Vec<Root>,
    /// Writers' locks held, by resolved path; dropping one releases it.
    locks: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, crate::lock::Held>>>,
}

impl ConfinedFs {
    /// A filesystem with no roots: every call fails with `outside-root`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grants read access to `dir` and everything under it.
    pub fn grant_read(mut self, dir: impl AsRef<Path>) -> io::Result<Self> {
        self.push_root(dir.as_ref(), false)?;
        Ok(self)
    }

    /// Grants read and write access to `dir` and everything under it.
    pub fn grant_write(mut self, dir: impl AsRef<Path>) -> io::Result<Self> {
        self.push_root(dir.as_ref(), true)?;
        Ok(self)
    }

    /// The granted roots, canonical, each with whether it is writable.
    pub fn roots(&self) -> Vec<(PathBuf, bool)> {
        self.roots.iter().map(|r| (r.path.clone(), r.writable)).collect()
    }

    fn push_root(&mut self, dir: &Path, writable: bool) -> io::Result<()> {
        let path = fs::canonicalize(dir)?;
        #[cfg(target_os = "linux")]
        let dir = beneath::open_root(&path).map(std::sync::Arc::new);
        self.roots.push(Root {
            path,
            writable,
            #[cfg(target_os = "linux")]
            dir,
        });
        Ok(())
    }

    /// The root holding a canonical path, if any; writable roots win over read-only ones.
    fn root_of(&self, canonical: &Path) -> Option<&Root> {
        self.roots.iter().filter(|r| canonical.starts_with(&r.path)).max_by_key(|r| r.writable)
    }

    /// Resolves an existing path for reading.
    fn resolve(&self, path: &str) -> Result<PathBuf, FsError> {
        let raw = checked(path)?;
        let canonical = fs::canonicalize(raw).map_err(|e| io_error(path, e))?;
        match self.root_of(&canonical) {
            Some(_) => Ok(canonical),
            None => Err(FsError::OutsideRoot(path.to_string())),
        }
    }

    /// Opens an existing file for reading, refusing one that resolves outside the roots.
    ///
    /// On Linux the file is first opened beneath the granted root that holds its path, the
    /// kernel refusing any step out of it (`openat2` with `RESOLVE_BENEATH`): no check after the
    /// open, and no window between a check and the open. A path that leaves its root on the way
    /// (a link into another root), or a kernel without `openat2`, takes the next way: the file
    /// is opened and the kernel then says which file that is (`/proc/self/fd`), one `readlink`
    /// instead of one per path component. Opening is non-blocking, so a FIFO cannot hang the
    /// host, and never acquires a controlling terminal. Elsewhere the path is resolved, then
    /// opened.
    fn open_for_read(&self, path: &str) -> Result<File, FsError> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let raw = checked(path)?;
            let beneath_a_root = self.roots.iter().find_map(|root| {
                let relative = raw.strip_prefix(&root.path).ok()?;
                beneath::open(root.dir.as_deref()?, relative)
            });
            if let Some(file) = beneath_a_root {
                return Ok(file);
            }
            let file = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
                .open(raw)
                .map_err(|e| io_error(path, e))?;
            if let Ok(real) = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
                return match self.root_of(&real) {
                    Some(_) => Ok(file),
                    None => Err(FsError::OutsideRoot(path.to_string())),
                };
            }
        }
        let canonical = self.resolve(path)?;
        File::open(canonical).map_err(|e| io_error(path, e))
    }

    /// Resolves a path that may not exist yet, for writing: its deepest existing ancestor is
    /// canonicalised and the rest appended, which may not hold `..`.
    fn resolve_for_write(&self, path: &str) -> Result<PathBuf, FsError> {
        let raw = checked(path)?;
        let mut existing = raw.to_path_buf();
        let mut missing = Vec::new();
        let canonical = loop {
            match fs::canonicalize(&existing) {
                Ok(c) => break c,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    // A link that points nowhere is not a missing file: writing there would
                    // follow it wherever it points (issue 18). It is never written through.
                    if fs::symlink_metadata(&existing).is_ok_and(|m| m.file_type().is_symlink()) {
                        return Err(FsError::Other(format!(
                            "{path}: a symbolic link that points nowhere; memdir does not write through it"
                        )));
                    }
                    let Some(name) = existing.file_name() else {
                        return Err(io_error(path, e));
                    };
                    missing.push(name.to_owned());
                    if !existing.pop() {
                        return Err(io_error(path, e));
                    }
                }
                Err(e) => return Err(io_error(path, e)),
            }
        };
        let mut full = canonical;
        for name in missing.into_iter().rev() {
            full.push(name);
        }
        match self.root_of(&full) {
            Some(root) if root.writable => Ok(full),
            Some(_) => Err(FsError::ReadOnly(path.to_string())),
            None => Err(FsError::OutsideRoot(path.to_string())),
        }
    }
}

/// Rejects what no host may accept: empty, relative, NUL bytes, `..` components.
fn checked(path: &str) -> Result<&Path, FsError> {
    let p = Path::new(path);
    if path.is_empty()
        || path.contains('\0')
        || !p.is_absolute()
        || p.components().any(|c| c == Component::ParentDir)
    {
        return Err(FsError::InvalidPath(path.to_string()));
    }
    Ok(p)
}

/// The crash-consistency tests' kill switch: with `MEMDIR_CRASH_AFTER_CHANGES=N` in its
/// environment, the process aborts right after its Nth change to a file (a write, append,
/// rename or removal), as `kill -9` would stop it there. Unset, it costs one atomic load. Only
/// in builds with the `crash-switch` feature, which the tests turn on and neither the shipped
/// binary nor the library's default does: an embedder's process never aborts on a variable.
#[cfg(feature = "crash-switch")]
fn crash_point() {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static LEFT: OnceLock<Option<AtomicU64>> = OnceLock::new();
    let left = LEFT.get_or_init(|| {
        std::env::var("MEMDIR_CRASH_AFTER_CHANGES").ok().and_then(|n| n.parse().ok()).map(AtomicU64::new)
    });
    if let Some(left) = left
        && left.fetch_sub(1, Ordering::SeqCst) == 1
    {
        std::process::abort();
    }
}

#[cfg(not(feature = "crash-switch"))]
fn crash_point() {}

/// An error without the temporary file's path tempfile adds to it: the user needs to know which
/// memory failed, not which scratch file (the kind says what went wrong).
fn without_temp_path(e: io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(_) => e,
        None if e.get_ref().is_some() => io::Error::from(e.kind()),
        None => e,
    }
}

fn io_error(path: &str, err: io::Error) -> FsError {
    let path = path.to_string();
    match err.kind() {
        io::ErrorKind::NotFound => FsError::NotFound(path),
        io::ErrorKind::PermissionDenied => FsError::PermissionDenied(path),
        io::ErrorKind::NotADirectory => FsError::NotADirectory(path),
        io::ErrorKind::IsADirectory => FsError::IsADirectory(path),
        _ => FsError::Other(format!("{path}: {err}")),
    }
}

fn kind_of(meta: &Metadata) -> EntryKind {
    let ft = meta.file_type();
    if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_dir() {
        EntryKind::Dir
    } else if ft.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

/// Modification time in ms since the epoch; times before the epoch are negative.
fn mtime_ms(meta: &Metadata) -> i64 {
    match meta.modified() {
        Ok(t) => match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
        },
        Err(_) => 0,
    }
}

/// Directories at least this large are stat'ed on two threads.
const PARALLEL_STAT_MIN: usize = 512;

/// Each entry with its own metadata; an entry that vanished since the listing is left out.
fn stat_entries(part: &[(String, fs::DirEntry)]) -> Vec<DirEntry> {
    part.iter()
        .filter_map(|(name, entry)| {
            let stat = stat_of(&entry.metadata().ok()?);
            Some(DirEntry { name: name.clone(), kind: stat.kind, size: stat.size, mtime_ms: stat.mtime_ms })
        })
        .collect()
}

fn stat_of(meta: &Metadata) -> FileStat {
    FileStat { kind: kind_of(meta), size: meta.len(), mtime_ms: mtime_ms(meta) }
}

impl Fs for ConfinedFs {
    fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        let dir = self.resolve(path)?;
        let err = |e| io_error(path, e);
        let mut named = Vec::new();
        for entry in fs::read_dir(&dir).map_err(err)? {
            let entry = entry.map_err(err)?;
            if let Ok(name) = entry.file_name().into_string() {
                named.push((name, entry));
            }
        }
        if named.len() < PARALLEL_STAT_MIN {
            return Ok(stat_entries(&named));
        }
        // One stat per entry dominates a large directory; two threads halve the wait.
        let (first, second) = named.split_at(named.len() / 2);
        Ok(std::thread::scope(|scope| {
            let other = scope.spawn(|| stat_entries(second));
            let mut entries = stat_entries(first);
            entries.extend(other.join().expect("stat worker panicked"));
            entries
        }))
    }

    fn read_head(&self, path: &str, max_lines: u32, max_bytes: u32) -> Result<FileHead, FsError> {
        let err = |e| io_error(path, e);
        let mut file = self.open_for_read(path)?;
        let meta = file.metadata().map_err(err)?;
        if meta.is_dir() {
            return Err(FsError::IsADirectory(path.to_string()));
        }
        let max_bytes = max_bytes as usize;
        let mut data = vec![0u8; max_bytes.min(meta.len() as usize + 1).max(1)];
        let mut filled = 0;
        let mut lines = 0u32;
        let mut end = None;
        // The size from the same open says when the end is reached, without a read that returns 0.
        let expected = (meta.len() as usize).min(max_bytes);
        while filled < expected && end.is_none() {
            if filled == data.len() {
                data.resize((data.len() * 2).min(max_bytes), 0);
            }
            let n = file.read(&mut data[filled..]).map_err(err)?;
            if n == 0 {
                break;
            }
            for (i, &b) in data[filled..filled + n].iter().enumerate() {
                if b == b'\n' {
                    lines += 1;
                    if lines == max_lines {
                        end = Some(filled + i + 1);
                        break;
                    }
                }
            }
            filled += n;
        }
        data.truncate(end.unwrap_or(filled));
        let truncated = (data.len() as u64) < meta.len();
        Ok(FileHead { data, size: meta.len(), mtime_ms: mtime_ms(&meta), truncated })
    }

    fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        let p = self.resolve(path)?;
        fs::metadata(&p).map(|m| stat_of(&m)).map_err(|e| io_error(path, e))
    }

    fn real_path(&self, path: &str) -> Result<String, FsError> {
        let p = self.resolve(path)?;
        p.into_os_string()
            .into_string()
            .map_err(|_| FsError::InvalidPath(format!("{path} (resolves to a name that is not UTF-8)")))
    }

    fn read_file(&self, path: &str, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        let err = |e| io_error(path, e);
        let mut file = self.open_for_read(path)?;
        let meta = file.metadata().map_err(err)?;
        if meta.is_dir() {
            return Err(FsError::IsADirectory(path.to_string()));
        }
        if meta.len() > max_bytes {
            return Err(FsError::Other(format!(
                "{path}: {} bytes, more than the {max_bytes} allowed",
                meta.len()
            )));
        }
        let mut data = Vec::with_capacity(meta.len() as usize);
        Read::by_ref(&mut file).take(max_bytes + 1).read_to_end(&mut data).map_err(err)?;
        if data.len() as u64 > max_bytes {
            return Err(FsError::Other(format!("{path}: grew past the {max_bytes} bytes allowed")));
        }
        Ok(data)
    }

    fn write_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        let dir = target.parent().ok_or_else(|| FsError::InvalidPath(path.to_string()))?;
        // tempfile names its temporary file in its errors; the user needs the memory's name.
        let err = |e: io::Error| io_error(path, without_temp_path(e));
        let mut tmp =
            tempfile::Builder::new().prefix(memdir_core::scan::TEMP_PREFIX).tempfile_in(dir).map_err(err)?;
        tmp.as_file_mut().write_all(data).map_err(err)?;
        // A replaced file keeps its permissions; a new one gets what an editor would give it.
        match fs::metadata(&target) {
            Ok(meta) => tmp.as_file().set_permissions(meta.permissions()).map_err(err)?,
            #[cfg(unix)]
            Err(_) => {
                let editor: fs::Permissions = std::os::unix::fs::PermissionsExt::from_mode(0o644);
                tmp.as_file().set_permissions(editor).map_err(err)?
            }
            // Elsewhere a new file gets the directory's defaults.
            #[cfg(not(unix))]
            Err(_) => {}
        }
        tmp.as_file().sync_all().map_err(err)?;
        tmp.persist(&target).map_err(|e| err(e.error))?;
        crash_point();
        Ok(())
    }

    fn append_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        let err = |e| io_error(path, e);
        // No-follow on the last component: a link put there after the check is not followed.
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        options.custom_flags(libc::O_NOFOLLOW);
        let mut file = options.open(&target).map_err(err)?;
        file.write_all(data).map_err(err)?;
        crash_point();
        Ok(())
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        let source = self.resolve_for_write(from)?;
        let target = self.resolve_for_write(to)?;
        fs::rename(&source, &target).map_err(|e| io_error(from, e))?;
        crash_point();
        Ok(())
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        fs::remove_file(&target).map_err(|e| io_error(path, e))?;
        crash_point();
        Ok(())
    }

    fn create_dir_all(&self, path: &str) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        fs::create_dir_all(&target).map_err(|e| io_error(path, e))
    }

    fn lock(&self, path: &str, timeout_ms: u32) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms.into());
        // One protocol with every other writer, in this process or another, on any platform
        // (see `lock.rs`).
        loop {
            let holder = match crate::lock::try_acquire(&target) {
                Ok(crate::lock::Attempt::Held(held)) => {
                    self.locks.lock().unwrap_or_else(|e| e.into_inner()).insert(target, held);
                    return Ok(());
                }
                Ok(crate::lock::Attempt::Busy(holder)) => holder,
                Err(e) => return Err(io_error(path, e)),
            };
            if std::time::Instant::now() >= deadline {
                return Err(FsError::Other(format!(
                    "{path}: still locked by another writer ({holder}) after {timeout_ms} ms"
                )));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    fn unlock(&self, path: &str) -> Result<(), FsError> {
        let target = self.resolve_for_write(path)?;
        self.locks.lock().unwrap_or_else(|e| e.into_inner()).remove(&target);
        Ok(())
    }
}

/// Opening beneath a granted root, on Linux: the kernel resolves the path, links included, and
/// refuses any step outside the root's directory.
#[cfg(target_os = "linux")]
mod beneath {
    use std::ffi::CString;
    use std::fs::File;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// `struct open_how` of `linux/openat2.h` (libc's cannot be built outside libc).
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }

    /// The root's directory, for opening beneath it; none if it cannot be opened.
    pub(super) fn open_root(path: &Path) -> Option<OwnedFd> {
        let path = CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: a NUL-terminated path; the descriptor returned is owned here alone.
        #[allow(unsafe_code)]
        unsafe {
            let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC);
            (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
        }
    }

    /// `relative` opened for reading beneath `root`, never outside it; none when that cannot be
    /// done for any reason (missing, a link out of the root, no `openat2`), which the caller
    /// then answers its own way.
    pub(super) fn open(root: &OwnedFd, relative: &Path) -> Option<File> {
        use std::os::fd::AsRawFd;
        let relative = if relative.as_os_str().is_empty() { Path::new(".") } else { relative };
        let name = CString::new(relative.as_os_str().as_bytes()).ok()?;
        let how = OpenHow {
            flags: (libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC) as u64,
            mode: 0,
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS,
        };
        // SAFETY: a live directory descriptor, a NUL-terminated path and an `open_how` of the
        // size passed; the descriptor returned is owned by the `File` alone.
        #[allow(unsafe_code)]
        unsafe {
            let fd = libc::syscall(
                libc::SYS_openat2,
                root.as_raw_fd(),
                name.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            );
            (fd >= 0).then(|| File::from_raw_fd(fd as i32))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, ConfinedFs, String) {
        let tmp = tempfile::tempdir().unwrap();
        let mem = tmp.path().join("mem");
        fs::create_dir(&mem).unwrap();
        fs::write(tmp.path().join("secret.md"), "outside").unwrap();
        let cfs = ConfinedFs::new().grant_write(&mem).unwrap();
        let mem = fs::canonicalize(mem).unwrap().to_str().unwrap().to_string();
        (tmp, cfs, mem)
    }

    #[test]
    fn a_path_outside_the_roots_is_never_read() {
        let (_tmp, cfs, mem) = tree();
        assert!(matches!(cfs.read_file(&format!("{mem}/../secret.md"), 100), Err(FsError::InvalidPath(_))));
        std::os::unix::fs::symlink(format!("{mem}/../secret.md"), format!("{mem}/link.md")).unwrap();
        assert!(matches!(cfs.read_head(&format!("{mem}/link.md"), 30, 100), Err(FsError::OutsideRoot(_))));
        assert!(matches!(cfs.write_file("/etc/x.md", b"x"), Err(FsError::OutsideRoot(_))));
        assert!(matches!(cfs.list_dir("relative"), Err(FsError::InvalidPath(_))));
    }

    #[test]
    fn links_are_followed_inside_the_roots_and_never_out_of_them() {
        let (tmp, cfs, mem) = tree();
        let other = tmp.path().join("other");
        fs::create_dir_all(other.join("deep")).unwrap();
        fs::write(other.join("deep/b.md"), "in the other root").unwrap();
        let cfs = cfs.grant_read(&other).unwrap();
        let other = fs::canonicalize(other).unwrap().to_str().unwrap().to_string();
        fs::create_dir(format!("{mem}/sub")).unwrap();
        fs::write(format!("{mem}/a.md"), "plain").unwrap();
        let link =
            |target: &str, name: &str| std::os::unix::fs::symlink(target, format!("{mem}/{name}")).unwrap();
        link("../a.md", "sub/up.md"); // relative, and stays in the root
        link(&format!("{mem}/a.md"), "absolute.md"); // absolute, into the same root
        link(&format!("{other}/deep/b.md"), "across.md"); // into another granted root
        link(&format!("{other}/deep"), "dir"); // a directory in another root, then a file
        link("../secret.md", "out.md"); // out of every root
        link(&format!("{mem}/sub/../../secret.md"), "sneaky.md");
        let read = |name: &str| cfs.read_head(&format!("{mem}/{name}"), 30, 100).map(|h| h.data);
        assert_eq!(read("a.md").unwrap(), b"plain");
        assert_eq!(read("sub/up.md").unwrap(), b"plain");
        assert_eq!(read("absolute.md").unwrap(), b"plain");
        assert_eq!(read("across.md").unwrap(), b"in the other root");
        assert_eq!(read("dir/b.md").unwrap(), b"in the other root");
        for name in ["out.md", "sneaky.md"] {
            assert!(matches!(read(name), Err(FsError::OutsideRoot(_))), "{name}");
        }
        assert!(matches!(read("missing.md"), Err(FsError::NotFound(_))));
        // The kernel's own refusal, before any fallback: beneath the root, or nothing.
        #[cfg(target_os = "linux")]
        {
            let root = super::beneath::open_root(Path::new(&mem)).unwrap();
            assert!(super::beneath::open(&root, Path::new("a.md")).is_some());
            assert!(super::beneath::open(&root, Path::new("out.md")).is_none());
            assert!(super::beneath::open(&root, Path::new("across.md")).is_none());
        }
    }

    #[test]
    fn read_head_stops_at_the_line_or_byte_limit() {
        let (_tmp, cfs, mem) = tree();
        let path = format!("{mem}/a.md");
        fs::write(&path, "1\n2\n3\n4\n").unwrap();
        let head = cfs.read_head(&path, 2, 100).unwrap();
        assert_eq!((head.data.as_slice(), head.truncated, head.size), (&b"1\n2\n"[..], true, 8));
        let head = cfs.read_head(&path, 30, 3).unwrap();
        assert_eq!((head.data.as_slice(), head.truncated), (&b"1\n2"[..], true));
        let head = cfs.read_head(&path, 30, 100).unwrap();
        assert_eq!((head.data.len(), head.truncated), (8, false));
    }

    #[test]
    fn writes_are_atomic_and_confined_to_writable_roots() {
        let (tmp, cfs, mem) = tree();
        cfs.create_dir_all(&format!("{mem}/team/x")).unwrap();
        cfs.write_file(&format!("{mem}/team/x/a.md"), b"one").unwrap();
        cfs.write_file(&format!("{mem}/team/x/a.md"), b"two").unwrap();
        assert_eq!(fs::read(format!("{mem}/team/x/a.md")).unwrap(), b"two");
        let ro = ConfinedFs::new().grant_read(tmp.path()).unwrap();
        assert!(matches!(ro.write_file(&format!("{mem}/b.md"), b"x"), Err(FsError::ReadOnly(_))));
        let leftovers = fs::read_dir(format!("{mem}/team/x")).unwrap().count();
        assert_eq!(leftovers, 1);
    }
}
