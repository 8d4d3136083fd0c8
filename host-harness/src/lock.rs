//! The writers' lock, one protocol for every memdir host on every platform: this harness (CLI,
//! MCP server) and the VS Code extension (`packages/core-js/src/lock.ts`), with no native
//! module and no helper program.
//!
//! The lock is held by whoever created `.memdir.lock` (create-exclusive: `O_CREAT|O_EXCL`,
//! `CREATE_NEW`), which is atomic on every local filesystem. The file holds one line naming the
//! holder:
//!
//! ```text
//! memdir-lock 1 pid=4242 host=ana-laptop since=1764547200000 token=9f2c…
//! ```
//!
//! Releasing removes the file, if it still holds the holder's token. A holder that died leaves
//! the file behind, so a waiter judges it *stale*:
//! - on the same host, when the holder's process no longer exists;
//! - in any case, when the file's modification time is older than [`STALE_AFTER`]. A Rust
//!   holder refreshes it every second. The extension's holds are synchronous, so they are
//!   short and do not need refreshing.
//! - when the record cannot be read and the file is older than [`UNREADABLE_AFTER`]. This is a
//!   holder killed between creating the file and writing it, or a lock file an older memdir
//!   left.
//!
//! A stale lock is broken under a second exclusive file, `.memdir.lock.break`, after reading
//! the record again, so two waiters never both break it and one never removes a lock the other
//! just took.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A lock whose file has not been refreshed for this long is stale, whoever holds it.
pub const STALE_AFTER: Duration = Duration::from_secs(10);
/// A lock file without a readable record is stale after this long.
pub const UNREADABLE_AFTER: Duration = Duration::from_secs(2);
/// How often a holder refreshes its lock file.
const HEARTBEAT: Duration = Duration::from_secs(1);
const MAGIC: &str = "memdir-lock 1";

/// A lock this process holds; dropping it releases the lock.
#[derive(Debug)]
pub struct Held {
    path: PathBuf,
    token: String,
    stop: Arc<AtomicBool>,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Only our own lock: one broken as stale and taken by another writer is theirs now.
        if read_record(&self.path).is_some_and(|r| r.token == self.token) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// The outcome of one attempt.
#[derive(Debug)]
pub enum Attempt {
    /// The lock is ours.
    Held(Held),
    /// Another writer holds it: who, in words.
    Busy(String),
}

/// The holder's record.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    pid: u32,
    host: String,
    since_ms: i64,
    token: String,
}

impl Record {
    fn line(&self) -> String {
        format!("{MAGIC} pid={} host={} since={} token={}\n", self.pid, self.host, self.since_ms, self.token)
    }

    fn parse(text: &str) -> Option<Record> {
        let rest = text.lines().next()?.strip_prefix(MAGIC)?;
        let field = |key: &str| rest.split_whitespace().find_map(|f| f.strip_prefix(key)?.strip_prefix('='));
        Some(Record {
            pid: field("pid")?.parse().ok()?,
            host: field("host")?.to_string(),
            since_ms: field("since")?.parse().ok()?,
            token: field("token")?.to_string(),
        })
    }
}

/// Tries once to take the lock at `path`, breaking a stale one first.
pub fn try_acquire(path: &Path) -> io::Result<Attempt> {
    for _ in 0..3 {
        match create_new(path) {
            Ok(mut file) => {
                let record =
                    Record { pid: std::process::id(), host: host_name(), since_ms: now_ms(), token: token() };
                file.write_all(record.line().as_bytes())?;
                let stop = Arc::new(AtomicBool::new(false));
                heartbeat(file, stop.clone());
                return Ok(Attempt::Held(Held { path: path.to_path_buf(), token: record.token, stop }));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // released meanwhile
            Err(e) => return Err(e),
        };
        // Never read a FIFO (it would block) nor follow a link.
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file; memdir locks only a regular file"));
        }
        let age =
            meta.modified().ok().and_then(|m| SystemTime::now().duration_since(m).ok()).unwrap_or_default();
        let record = read_record(path);
        match stale(record.as_ref(), age) {
            None => break_stale(path, record.as_ref())?,
            Some(holder) => return Ok(Attempt::Busy(holder)),
        }
    }
    Ok(Attempt::Busy("a writer that keeps taking it".into()))
}

/// `None` when the lock is stale; otherwise who holds it.
fn stale(record: Option<&Record>, age: Duration) -> Option<String> {
    let Some(r) = record else {
        return (age < UNREADABLE_AFTER).then(|| "a writer that is just starting".to_string());
    };
    if age >= STALE_AFTER {
        return None;
    }
    if r.host == host_name() && !process_alive(r.pid) {
        return None;
    }
    Some(format!("process {} on {}", r.pid, r.host))
}

/// Removes a stale lock, unless it changed since it was judged.
fn break_stale(path: &Path, judged: Option<&Record>) -> io::Result<()> {
    let breaker = path.with_extension("lock.break");
    match create_new(&breaker) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            // Another waiter is breaking it; a breaker that died leaves its file, old.
            let old = fs::symlink_metadata(&breaker)
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|m| SystemTime::now().duration_since(m).ok())
                .is_some_and(|age| age >= UNREADABLE_AFTER);
            if old {
                let _ = fs::remove_file(&breaker);
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    }
    if read_record(path).as_ref() == judged {
        let _ = fs::remove_file(path);
    }
    fs::remove_file(&breaker)
}

fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

fn read_record(path: &Path) -> Option<Record> {
    if !fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    File::open(path).ok()?.take(4096).read_to_string(&mut text).ok()?;
    Record::parse(&text)
}

/// Refreshes the lock file's modification time until the lock is released.
fn heartbeat(file: File, stop: Arc<AtomicBool>) {
    // Short ticks so a release stops the thread at once; a refresh every tenth.
    const TICKS: u32 = 10;
    std::thread::spawn(move || {
        for tick in 1u32.. {
            std::thread::sleep(HEARTBEAT / TICKS);
            if stop.load(Ordering::SeqCst) {
                return;
            }
            if tick % TICKS == 0 {
                let _ = file.set_modified(SystemTime::now());
            }
        }
    });
}

/// Whether a process of this host exists. Where that cannot be asked (Windows, from Rust
/// without more dependencies), it is assumed to, and the modification time decides.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        // SAFETY: signal 0 sends nothing and kill(2) touches no memory of ours; it only asks
        // whether the process exists.
        #[allow(unsafe_code)]
        let sent = unsafe { libc::kill(pid, 0) };
        sent == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// This host's name as Node's `os.hostname()` gives it, so both sides recognise each other.
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
        #[allow(unsafe_code)]
        let named = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if named == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).split_whitespace().collect();
        }
    }
    std::env::var("COMPUTERNAME").unwrap_or_default().split_whitespace().collect()
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or_default()
}

/// A token no other holder has: the pid, the time and the address of a fresh allocation.
fn token() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let local = Box::new(0u8);
    format!("{:x}{:x}{:x}", std::process::id(), nanos, &*local as *const u8 as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_garbage_is_unreadable() {
        let r = Record { pid: 7, host: "ana".into(), since_ms: 12, token: "ab".into() };
        assert_eq!(Record::parse(&r.line()), Some(r));
        assert_eq!(Record::parse(""), None);
        assert_eq!(Record::parse("memdir-lock 1 pid=x host=a since=1 token=t"), None);
    }

    #[test]
    fn one_holder_at_a_time_and_release_removes_only_our_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".memdir.lock");
        let Attempt::Held(held) = try_acquire(&path).unwrap() else { panic!("free lock not taken") };
        let Attempt::Busy(who) = try_acquire(&path).unwrap() else { panic!("taken twice") };
        assert!(who.contains(&std::process::id().to_string()), "{who}");
        drop(held);
        assert!(!path.exists());
        assert!(matches!(try_acquire(&path).unwrap(), Attempt::Held(_)));
    }

    #[test]
    fn a_dead_holder_an_old_file_and_an_old_empty_file_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".memdir.lock");
        // A holder on this host whose process is gone: stale at once.
        let dead = Record { pid: u32::MAX - 1, host: host_name(), since_ms: 0, token: "t".into() };
        fs::write(&path, dead.line()).unwrap();
        assert!(matches!(try_acquire(&path).unwrap(), Attempt::Held(_)));
        // A holder on another host, not refreshed for longer than STALE_AFTER.
        let remote = Record { pid: 1, host: "elsewhere".into(), since_ms: 0, token: "t".into() };
        fs::write(&path, remote.line()).unwrap();
        assert!(matches!(try_acquire(&path).unwrap(), Attempt::Busy(_)));
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(SystemTime::now() - STALE_AFTER)
            .unwrap();
        assert!(matches!(try_acquire(&path).unwrap(), Attempt::Held(_)));
        // An empty lock file an older memdir left.
        fs::write(&path, "").unwrap();
        assert!(
            matches!(try_acquire(&path).unwrap(), Attempt::Busy(_)),
            "fresh and empty: someone is starting"
        );
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(SystemTime::now() - UNREADABLE_AFTER)
            .unwrap();
        assert!(matches!(try_acquire(&path).unwrap(), Attempt::Held(_)));
    }
}
