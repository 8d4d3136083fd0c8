//! Putting setup's text in place of a client's file that the client may rewrite at any moment
//! (issue 24, defect 12).
//!
//! Agents rewrite their own files, in place or by a rename, and take no lock that setup could
//! take too. A look before a plain rename leaves a gap in which their write is lost. So the new
//! text is swapped in atomically (Linux's `RENAME_EXCHANGE`, macOS's `RENAME_SWAP`), which hands
//! back exactly what it displaced. Unless that is the file setup read, unchanged and open to no
//! writer, their write came in between, and it is kept. On Linux a write lease on the new file
//! holds off everyone who opens it until that is settled, so no one reads setup's text before
//! it is known to be right; on a race the other write is copied into it first. Elsewhere the
//! displaced file is swapped back, and without an exchange (Windows, a few filesystems) the last
//! look comes right before the rename: gaps of microseconds.

use std::fs::{File, Permissions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tempfile::{NamedTempFile, TempPath};

/// A replacement for a file, written and synced beside it, not yet in place.
pub struct Prepared {
    file: PathBuf,
    /// The file as setup found it, open: what a rename displaces is compared with it.
    old: Option<File>,
    new: NamedTempFile,
    /// The file goes instead (`new` is only a name to move it to).
    delete: bool,
}

/// `file`'s replacement, `after` (None: its removal), with the file's permissions.
pub fn prepare(file: &Path, after: Option<&str>) -> io::Result<Prepared> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let old = match File::open(file) {
        Ok(old) => Some(old),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let mut new = NamedTempFile::new_in(dir)?;
    if let Some(after) = after {
        new.write_all(after.as_bytes())?;
        if let Some(old) = &old {
            new.as_file().set_permissions(old.metadata()?.permissions())?;
        }
        new.as_file().sync_all()?;
    }
    Ok(Prepared { file: file.to_path_buf(), old, new, delete: after.is_none() })
}

impl Prepared {
    /// The permissions of the file as setup found it.
    pub fn permissions(&self) -> io::Result<Option<Permissions>> {
        self.old.as_ref().map(|old| old.metadata().map(|m| m.permissions())).transpose()
    }

    /// Puts the replacement in place, provided the file still holds `before` (None: no file).
    pub fn commit(self, before: Option<&[u8]>) -> io::Result<()> {
        let Prepared { file, old, new, delete } = self;
        // The client (Claude Code rewrites its file often) or the user may have written it
        // since the plan was made, while setup asked: then nothing is written.
        let unchanged = match (&old, before) {
            (Some(old), Some(before)) => holds(old, before)?,
            (old, before) => old.is_none() && before.is_none(),
        };
        if !unchanged {
            return Err(io::Error::other(
                "it changed while setup was waiting; nothing was written (run setup again)",
            ));
        }
        match (old, before) {
            (Some(old), Some(before)) if delete => remove(&file, new.into_temp_path(), &old, before),
            (Some(old), Some(before)) => replace(&file, new, &old, before),
            // A file that appeared meanwhile is not replaced.
            _ => new.persist_noclobber(&file).map(drop).map_err(|e| match e.error.kind() {
                io::ErrorKind::AlreadyExists => raced(),
                _ => e.error,
            }),
        }
    }
}

fn replace(file: &Path, new: NamedTempFile, old: &File, before: &[u8]) -> io::Result<()> {
    let (ours, path) = new.into_parts();
    let lease = Lease::take(&ours);
    match exchange(&path, file) {
        Ok(()) => {}
        // No exchange here: the last look comes right before the rename.
        Err(e) if e.kind() == io::ErrorKind::Unsupported => {
            return match untouched(&File::open(file)?, old, before)? {
                true => path.persist(file).map_err(|e| e.error),
                false => Err(raced()),
            };
        }
        Err(e) => return Err(e),
    }
    let displaced = File::open(&path)?;
    // What cannot be read back counts as changed.
    if untouched(&displaced, old, before).unwrap_or(false) {
        return Ok(());
    }
    if lease.is_some() {
        // No one has opened setup's file since the swap: the other write goes into it, in place,
        // before anyone can read it.
        until_written(&displaced);
        let theirs = contents(&displaced)?;
        ours.set_len(0)?;
        (&ours).rewind()?;
        (&ours).write_all(&theirs)?;
        ours.set_permissions(displaced.metadata()?.permissions())?;
        ours.sync_all()?;
    } else {
        until_written(&displaced);
        exchange(&path, file)?;
    }
    Err(raced())
}

/// Moves the file aside, then deletes it unless it was not the one setup read as it was.
fn remove(file: &Path, aside: TempPath, old: &File, before: &[u8]) -> io::Result<()> {
    std::fs::rename(file, &aside)?;
    let displaced = File::open(&aside)?;
    if untouched(&displaced, old, before).unwrap_or(false) {
        return Ok(());
    }
    until_written(&displaced);
    // Back, unless the client has made a new one meanwhile.
    match aside.persist_noclobber(file) {
        Err(e) if e.error.kind() != io::ErrorKind::AlreadyExists => Err(e.error),
        _ => Err(raced()),
    }
}

fn raced() -> io::Error {
    io::Error::other(
        "it changed while setup was writing; the other change is kept and setup's is not (run setup again)",
    )
}

/// Whether `displaced` is `old`, no one has it open to write, and it still holds `before`.
fn untouched(displaced: &File, old: &File, before: &[u8]) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (now, was) = (displaced.metadata()?, old.metadata()?);
        if (now.dev(), now.ino()) != (was.dev(), was.ino()) {
            return Ok(false);
        }
    }
    // Windows has no inode to compare: the content alone tells.
    #[cfg(not(unix))]
    let _ = old;
    Ok(!open_to_write(displaced) && holds(displaced, before)?)
}

/// Whether `file` holds exactly `bytes` (reading no more than it takes to tell).
fn holds(mut file: &File, bytes: &[u8]) -> io::Result<bool> {
    file.rewind()?;
    let mut now = Vec::with_capacity(bytes.len() + 1);
    file.take(bytes.len() as u64 + 1).read_to_end(&mut now)?;
    Ok(now == bytes)
}

/// Waits, two seconds at most, until no one has `file` open to write: a writer that opened it
/// before the swap may still be writing it.
fn until_written(file: &File) {
    for _ in 0..200 {
        if !open_to_write(file) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// All of an open file, from its start.
fn contents(mut file: &File) -> io::Result<Vec<u8>> {
    file.rewind()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Swaps two paths atomically.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    // SAFETY: two NUL-terminated paths that outlive the call.
    let done = unsafe {
        libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE)
    };
    #[cfg(target_os = "macos")]
    #[allow(unsafe_code)]
    // SAFETY: as above.
    let done = unsafe { libc::renamex_np(a.as_ptr(), b.as_ptr(), libc::RENAME_SWAP) };
    match (done, io::Error::last_os_error()) {
        (0, _) => Ok(()),
        // An old kernel, or a filesystem that cannot exchange.
        (_, e) if [libc::ENOSYS, libc::EINVAL, libc::ENOTSUP].contains(&e.raw_os_error().unwrap_or(0)) => {
            Err(io::ErrorKind::Unsupported.into())
        }
        (_, e) => Err(e),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A Linux write lease on a file no one else has open: whoever opens it waits until it is let
/// go (on drop), up to the system's lease-break time (45 s by default).
struct Lease<'a>(&'a File);

impl<'a> Lease<'a> {
    /// None where leases are not supported.
    fn take(file: &'a File) -> Option<Lease<'a>> {
        lease(file, Kind::Write).ok().map(|()| Lease(file))
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let _ = lease(self.0, Kind::Unlock);
    }
}

/// Whether another process has `file` open to write: Linux grants a read lease only when no one
/// has (it is let go at once). Elsewhere no one is taken to have it open.
fn open_to_write(file: &File) -> bool {
    match lease(file, Kind::Read) {
        Ok(()) => lease(file, Kind::Unlock).is_err(),
        Err(e) => e.kind() == io::ErrorKind::WouldBlock,
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Read,
    Write,
    Unlock,
}

/// `fcntl(F_SETLEASE)`.
#[cfg(target_os = "linux")]
fn lease(file: &File, kind: Kind) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let kind = match kind {
        Kind::Read => libc::F_RDLCK,
        Kind::Write => libc::F_WRLCK,
        Kind::Unlock => libc::F_UNLCK,
    };
    #[allow(unsafe_code)]
    // SAFETY: fcntl on a descriptor borrowed for the call. Someone opening a leased file sends
    // the holder SIGIO, which would end setup: it uses no SIGIO, so it ignores it.
    let done = unsafe {
        libc::signal(libc::SIGIO, libc::SIG_IGN);
        libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, kind)
    };
    if done == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn lease(_: &File, _: Kind) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}
