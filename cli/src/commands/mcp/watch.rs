//! Resource notifications (issue 15): the memory directory is polled, and the client hears
//! `notifications/resources/list_changed` when memories come or go and
//! `notifications/resources/updated` for the ones it subscribed to, whoever changed them (this
//! server, another agent, `memdir save` in a terminal, a team sync, an editor).
//!
//! Polling, not inotify: a walk of file sizes and times twice a second costs little for a directory
//! of hundreds of files, works on every platform without a dependency, and sees changes made
//! through any path to the directory.

use rmcp::RoleServer;
use rmcp::service::Peer;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// How often the directory is looked at.
const POLL: Duration = Duration::from_millis(500);
/// Files looked at per poll, at most: a directory bigger than this is not watched past it.
const MAX_FILES: usize = 10_000;
/// How deep under the memory directory (team/, logs/…).
const MAX_DEPTH: usize = 4;

/// What the protocol side and the worker share with the watcher.
#[derive(Default)]
pub struct Watch {
    /// The memory directory of the project being served (it moves when roots move it), and
    /// what it held when last looked at.
    seen: Mutex<Option<(PathBuf, Snapshot)>>,
    /// The resource URIs the client subscribed to.
    pub subscribed: Mutex<BTreeSet<String>>,
    /// The client, once it has initialized.
    pub peer: Mutex<Option<Peer<RoleServer>>>,
    pub stop: AtomicBool,
}

/// A file's size and modification time, by path relative to the memory directory.
type Snapshot = BTreeMap<String, (u64, Option<SystemTime>)>;

impl Watch {
    /// Watches `dir` from now on: what it holds now is what later changes are measured from,
    /// so a change right after this call is not missed.
    pub fn watch(&self, dir: Option<PathBuf>) {
        let seen = dir.map(|dir| {
            let now = snapshot(&dir);
            (dir, now)
        });
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = seen;
    }

    /// Polls until `stop`, sending notifications through `runtime`.
    pub fn run(&self, runtime: tokio::runtime::Handle, uri: impl Fn(&str) -> String) {
        while !self.stop.load(Ordering::Relaxed) {
            std::thread::sleep(POLL);
            let Some(dir) = self.seen.lock().ok().and_then(|s| s.as_ref().map(|(dir, _)| dir.clone())) else {
                continue;
            };
            let now = snapshot(&dir);
            let before = {
                let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                match seen.as_mut() {
                    // Unless the directory moved meanwhile.
                    Some((current, before)) if *current == dir => std::mem::replace(before, now.clone()),
                    _ => continue,
                }
            };
            let (listed, changed) = compare(&before, &now);
            let Some(peer) = self.peer.lock().ok().and_then(|p| p.clone()) else { continue };
            let subscribed = self.subscribed.lock().map(|s| s.clone()).unwrap_or_default();
            let updated: Vec<String> =
                changed.iter().map(|path| uri(path)).filter(|u| subscribed.contains(u)).collect();
            if !listed && updated.is_empty() {
                continue;
            }
            runtime.spawn(async move {
                if listed {
                    let _ = peer.notify_resource_list_changed().await;
                }
                for uri in updated {
                    let _ = peer
                        .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(uri))
                        .await;
                }
            });
        }
    }
}

/// Whether the set of Markdown files changed, and which files were added, changed or removed.
fn compare(before: &Snapshot, now: &Snapshot) -> (bool, Vec<String>) {
    let listed = before.keys().ne(now.keys());
    let mut changed: Vec<String> =
        now.iter().filter(|(path, stamp)| before.get(*path) != Some(stamp)).map(|(p, _)| p.clone()).collect();
    changed.extend(before.keys().filter(|p| !now.contains_key(*p)).cloned());
    (listed, changed)
}

/// The Markdown files under `dir`, without following links or entering hidden directories.
fn snapshot(dir: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    let mut pending = vec![(dir.to_path_buf(), String::new(), 0)];
    while let Some((at, prefix, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else { continue };
        for entry in entries.flatten() {
            if files.len() >= MAX_FILES {
                return files;
            }
            let Ok(name) = entry.file_name().into_string() else { continue };
            let Ok(kind) = entry.file_type() else { continue };
            let rel = format!("{prefix}{name}");
            if kind.is_dir() && !name.starts_with('.') && depth < MAX_DEPTH {
                pending.push((entry.path(), format!("{rel}/"), depth + 1));
            } else if kind.is_file() && name.ends_with(".md") {
                let meta = entry.metadata().ok();
                files.insert(
                    rel,
                    (meta.as_ref().map_or(0, |m| m.len()), meta.and_then(|m| m.modified().ok())),
                );
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_changes_the_list_and_an_edit_only_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.md"), "one").unwrap();
        std::fs::create_dir(tmp.path().join(".git")).unwrap();
        std::fs::write(tmp.path().join(".git/x.md"), "hidden").unwrap();
        let first = snapshot(tmp.path());
        assert_eq!(first.keys().collect::<Vec<_>>(), ["a.md"]);
        std::fs::create_dir(tmp.path().join("team")).unwrap();
        std::fs::write(tmp.path().join("team/b.md"), "two").unwrap();
        let second = snapshot(tmp.path());
        assert_eq!(compare(&first, &second), (true, vec!["team/b.md".to_string()]));
        std::fs::write(tmp.path().join("a.md"), "one, longer").unwrap();
        assert_eq!(compare(&second, &snapshot(tmp.path())), (false, vec!["a.md".to_string()]));
    }
}
