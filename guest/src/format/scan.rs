//! `scan`: the memory files of a directory, newest first, with their frontmatter (R5.1, R5.2).

use crate::base::error::Result;
use crate::base::fs::{EntryKind, Fs, is_within, join};
use crate::base::text;
use crate::base::text::escape_controls;
use crate::base::time::newest_then_path;
pub use crate::format::freshness::Freshness;
use crate::format::frontmatter;
use crate::format::links::{self, Link};
use crate::format::memory_type::MemoryType;
use crate::format::recall_index;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// At most this many headers are kept (R5.1, R8.1).
pub const MAX_FILES: usize = 200;
/// Lines of each file read for its frontmatter.
pub const HEAD_LINES: u32 = 30;
/// Bytes of each file read for its frontmatter; bounds a pathological first line.
pub const HEAD_BYTES: u32 = 16 * 1024;
/// Bytes of a long memory read for its links; a memory is a note (saves hold at most 64 KiB).
pub const LINK_BYTES: u32 = 256 * 1024;
/// Folders below the memory directory that the scan enters, at most. Memories are flat files,
/// with `team/` and a few topic folders at most; a tree thousands of folders deep is an attack
/// (every level costs the host a longer path to resolve, so the walk grew with the square of
/// the depth: 40 s at 2,000 levels) and is reported instead (issue 18).
pub const MAX_DEPTH: usize = 16;

/// The index file's name; never a memory.
pub const INDEX_FILE: &str = "MEMORY.md";
/// The daily-log folder at the top of a memory directory; not memories.
pub const LOGS_DIR: &str = "logs";

/// One memory file as the scan saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MemoryHeader {
    /// Path relative to the scanned directory, `/`-separated.
    pub path: String,
    /// Modification time in ms, from the read of the header.
    pub mtime_ms: i64,
    /// Frontmatter `name`.
    pub name: Option<String>,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// Content type, when valid.
    pub memory_type: Option<MemoryType>,
    /// What was wrong with the file.
    pub diagnostics: Vec<String>,
    /// How old it is as of the scan's "now", and whether it may be stale.
    pub freshness: Freshness,
    /// The `[[name]]` links its body makes, each resolved to a scanned memory or not written
    /// yet (R1.7).
    #[serde(default)]
    pub links: Vec<Link>,
    /// The scanned memories that link to it, by path.
    #[serde(default)]
    pub backlinks: Vec<String>,
}

/// An entry the scan passed over, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Path relative to the scanned directory.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// What a scan returns.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ScanReport {
    /// Newest first, at most [`MAX_FILES`].
    pub headers: Vec<MemoryHeader>,
    /// Memory files found before the cap.
    pub found: usize,
    /// Entries passed over with a reason.
    pub skipped: Vec<Skipped>,
}

/// A memory file found by the walk, before its head is read.
struct Candidate {
    rel: String,
    mtime_ms: i64,
    /// The listing's size; `None` for a link, which the recall index does not keep.
    size: Option<u64>,
}

/// Scans `dir` (R5.1): walks it, stats every memory file, then reads the heads of only the
/// newest [`MAX_FILES`]. The result is the same as reading every head, without the reads.
/// `now_ms` dates each header's [`Freshness`].
pub fn scan(fs: &dyn Fs, dir: &str, now_ms: i64) -> Result<ScanReport> {
    scan_with_limit(fs, dir, MAX_FILES, now_ms)
}

/// [`scan`] with another cap; `usize::MAX` reads every file.
pub fn scan_with_limit(fs: &dyn Fs, dir: &str, limit: usize, now_ms: i64) -> Result<ScanReport> {
    let mut report = indexed(fs, dir, limit, now_ms)?;
    finish(&mut report.headers, now_ms);
    Ok(report)
}

/// The memory index's name: every memory's header, beside the files (issue 27, item 3).
pub const INDEX_CACHE: &str = recall_index::FILE;
/// A file changed this recently is not kept in the index: filesystems with a coarse clock
/// (FAT, SMB, HFS+) could see a same-size edit within it keep its time.
const RACY_MS: i64 = 2_000;
/// A day in ms: a file dated further ahead than this is not being written now.
const DAY_MS: i64 = 86_400_000;
/// Every host writes a file whole through a temporary file named with this prefix beside it,
/// then renames it into place.
pub const TEMP_PREFIX: &str = ".memdir-tmp-";
/// A temporary file older than this is debris from a write that never finished (an hour).
const DEBRIS_MS: i64 = 3_600_000;

/// Every memory of `dir`, not only the newest [`MAX_FILES`], for recall to search (issue 27,
/// item 3). The headers carry what recall reads: no resolved links and no freshness (recall
/// dates what it attaches).
pub fn scan_every(fs: &dyn Fs, dir: &str, now_ms: i64) -> Result<ScanReport> {
    // Recall reads no backlinks, so links stay unresolved (at 10,000 memories that is a tenth
    // of the time), and dates only what it attaches (a tenth again).
    newest(fs, dir, usize::MAX, now_ms)
}

/// The newest `limit` memories of `dir`, newest first, their links unresolved and undated: for
/// readers that use neither (recall, the manifest).
pub fn newest(fs: &dyn Fs, dir: &str, limit: usize, now_ms: i64) -> Result<ScanReport> {
    let mut report = indexed(fs, dir, limit, now_ms)?;
    newest_first(&mut report.headers);
    Ok(report)
}

/// The newest `limit` memories of `dir` through the memory index (issue 27, item 3; issue 45,
/// item 6). The listings are read every time, so files written by other tools (the terminal
/// agent, an editor, a git pull) are seen at once; a file's head is read only when the index
/// has no entry for its size and modification time. The index is rewritten whole when anything
/// it keeps changed; a host that grants no write here simply gets no index. Files beyond
/// `limit` are not read: their entries are kept while they still match.
fn indexed(fs: &dyn Fs, dir: &str, limit: usize, now_ms: i64) -> Result<ScanReport> {
    let dir = trim_dir(dir);
    let mut report = ScanReport::default();
    let Listing { mut candidates, index_kind, debris } = walk(fs, dir, &mut report.skipped)?;
    report.found = candidates.len();
    // A host's temporary file left by a write that was killed before its rename: nothing else
    // would ever remove it. An hour is far longer than any write.
    for (rel, mtime_ms) in debris {
        if mtime_ms < now_ms - DEBRIS_MS {
            let _ = fs.remove_file(&join(dir, &rel));
        }
    }
    // In the index's order, newest first as the headers will be: the index is matched in one
    // pass, and the headers' sort below finds them in order (sorting them moved far larger
    // values: a tenth of a recall at 10,000 memories).
    candidates.sort_by(|a, b| newest_then_path((a.mtime_ms, &a.rel), (b.mtime_ms, &b.rel)));
    let path = join(dir, INDEX_CACHE);
    // Only a plain file is the index: a link planted in its place would have recall read, and
    // then overwrite, whatever it points to (a memory, MEMORY.md).
    let usable = matches!(index_kind, None | Some(EntryKind::File));
    let bytes = usable.then(|| fs.read_file(&path, recall_index::MAX_BYTES).ok()).flatten();
    // A line that is not an entry ends the index there; what follows is read from the files.
    let mut broken = false;
    let mut cached = bytes
        .as_deref()
        .and_then(recall_index::read)
        .into_iter()
        .flatten()
        .map_while(|entry| {
            broken |= entry.is_none();
            entry
        })
        .peekable();
    // Whether the index needs writing again: an entry no file matches, or a file read that it
    // could keep (a link or an unreadable file is read every time without rewriting it).
    let mut changed = false;
    // Each header's file as listed and whether the index may keep it, for the index.
    let mut listed = Vec::with_capacity(candidates.len().min(limit));
    // Entries of files beyond `limit` that still match: kept as they are.
    let mut beyond = Vec::new();
    // Whether every file and entry was matched: not when nothing past `limit` needed it.
    let mut whole = true;
    for (i, candidate) in candidates.into_iter().enumerate() {
        // Past the limit entries are only carried into a rewrite: with none due, they are
        // neither matched nor parsed.
        if i == limit && !changed {
            whole = false;
            break;
        }
        let key = (candidate.mtime_ms, candidate.rel.as_str());
        while cached.next_if(|(p, e)| newest_then_path((e.mtime_ms, p), key).is_lt()).is_some() {
            changed = true;
        }
        let entry = cached.next_if(|(p, e)| e.mtime_ms == candidate.mtime_ms && *p == candidate.rel);
        let hit = match (entry, candidate.size) {
            (Some((_, entry)), Some(size)) if entry.size == size && plausible(&entry) => Some(entry),
            (entry, size) => {
                // Beyond the limit nothing is read, so a file the index lacks changes nothing.
                changed |= entry.is_some() || (size.is_some() && i < limit);
                None
            }
        };
        if i >= limit {
            beyond.extend(hit.map(|entry| (candidate.rel, entry)));
            continue;
        }
        // The index says what a file holds, never where it is: the path is the listing's.
        let (header, keep) = match hit {
            Some(entry) => (header_of(entry, candidate.rel), true),
            None => read_header(fs, dir, &candidate),
        };
        listed.push((candidate.size.filter(|_| keep), candidate.mtime_ms));
        report.headers.push(header);
    }
    if whole {
        changed |= cached.next().is_some();
    }
    drop(cached);
    changed |= broken;
    if usable && changed {
        // A link (no size), a file that could not be read whole, and one changed in the last
        // [`RACY_MS`] (a same-size edit within the clock's grain would go unseen) are read
        // again next time. A time more than a day ahead (a tree copied from a machine whose
        // clock was wrong) is settled: an edit now would give the file today's time, not
        // that one. A share whose clock runs seconds ahead is not: its fresh files stay racy.
        let settled =
            |mtime_ms: i64| mtime_ms <= now_ms - RACY_MS || mtime_ms > now_ms.saturating_add(DAY_MS);
        let entries = listed
            .iter()
            .zip(&report.headers)
            .filter(|((_, mtime_ms), _)| settled(*mtime_ms))
            .filter_map(|(&(size, mtime_ms), h)| Some((h.path.as_str(), entry_of(h, size?, mtime_ms))))
            .chain(beyond.iter().map(|(path, entry)| (path.as_str(), entry.clone())))
            .collect();
        // `write_file` replaces the file whole (the host writes a temporary file and renames
        // it), so a crash leaves the old index or the new one.
        let _ = fs.write_file(&path, &recall_index::write(entries));
    }
    Ok(report)
}

/// Whether an entry could have come from a head read: no more text than a head and a long
/// memory's link read can decode to (an invalid byte becomes three), so a planted entry cannot
/// pass off a longer header; and one whose file changed while it was read (`read` is not
/// `mtime`) never matches.
fn plausible(entry: &recall_index::Entry<'_>) -> bool {
    let text = |items: &[std::borrow::Cow<'_, str>]| items.iter().map(|t| t.len()).sum::<usize>();
    entry.read_ms == entry.mtime_ms
        && entry.name.iter().chain(&entry.description).map(|t| t.len()).sum::<usize>()
            + text(&entry.diagnostics)
            <= 3 * HEAD_BYTES as usize
        && text(&entry.links) <= 3 * LINK_BYTES as usize
}

/// The header an index entry gives the file at `path`.
fn header_of(entry: recall_index::Entry<'_>, path: String) -> MemoryHeader {
    MemoryHeader {
        path,
        mtime_ms: entry.read_ms,
        name: entry.name.map(Cow::into_owned),
        description: entry.description.map(Cow::into_owned),
        memory_type: entry.memory_type,
        diagnostics: entry.diagnostics.into_iter().map(Cow::into_owned).collect(),
        freshness: Freshness::default(),
        links: entry.links.into_iter().map(|name| Link { name: name.into_owned(), path: None }).collect(),
        backlinks: Vec::new(),
    }
}

/// The index entry for a header read from a file of `size` listed at `mtime_ms`.
fn entry_of(h: &MemoryHeader, size: u64, mtime_ms: i64) -> recall_index::Entry<'_> {
    recall_index::Entry {
        size,
        mtime_ms,
        read_ms: h.mtime_ms,
        name: h.name.as_deref().map(Cow::Borrowed),
        description: h.description.as_deref().map(Cow::Borrowed),
        memory_type: h.memory_type,
        diagnostics: h.diagnostics.iter().map(|d| Cow::Borrowed(d.as_str())).collect(),
        links: h.links.iter().map(|l| Cow::Borrowed(l.name.as_str())).collect(),
    }
}

/// Freshness as of `now_ms`, newest first, links resolved.
fn finish(headers: &mut [MemoryHeader], now_ms: i64) {
    for header in headers.iter_mut() {
        header.freshness = Freshness::of(now_ms, header.mtime_ms, header.memory_type);
    }
    newest_first(headers);
    resolve_links(headers);
}

/// Newest first, by what was read (a file may have changed between the listing and the read).
pub fn newest_first(headers: &mut [MemoryHeader]) {
    headers.sort_by(|a, b| newest_then_path((a.mtime_ms, &a.path), (b.mtime_ms, &b.path)));
}

/// The path of `name` in the folder `rel_dir` (`""` for the top). At the top the name is the
/// path: moved, not copied (10,000 names a recall).
fn below(rel_dir: &str, name: String) -> String {
    if rel_dir.is_empty() { name } else { format!("{rel_dir}/{name}") }
}

/// What [`walk`] finds.
struct Listing {
    /// Every memory file.
    candidates: Vec<Candidate>,
    /// What kind of entry the recall index's name is at the top, when there is one.
    index_kind: Option<EntryKind>,
    /// Hosts' temporary files ([`TEMP_PREFIX`]), with their modification times.
    debris: Vec<(String, i64)>,
}

/// Every memory file under `dir` from its listings alone, with what was passed over.
fn walk(fs: &dyn Fs, dir: &str, skipped: &mut Vec<Skipped>) -> Result<Listing> {
    let root_real = fs.real_path(dir)?;
    let mut index_kind = None;
    let mut candidates = Vec::new();
    let mut debris = Vec::new();
    let mut pending = vec![String::new()];

    while let Some(rel_dir) = pending.pop() {
        let abs_dir = if rel_dir.is_empty() { dir.to_string() } else { join(dir, &rel_dir) };
        let entries = match fs.list_dir(&abs_dir) {
            Ok(entries) => entries,
            Err(err) if rel_dir.is_empty() => return Err(err.into()),
            Err(err) => {
                skipped.push(Skipped { path: rel_dir, reason: format!("could not be listed: {err}") });
                continue;
            }
        };
        for mut entry in entries {
            if entry.name.starts_with('.') {
                if rel_dir.is_empty() && entry.name == INDEX_CACHE {
                    index_kind = Some(entry.kind);
                } else if entry.name.starts_with(TEMP_PREFIX) && entry.kind == EntryKind::File {
                    debris.push((below(&rel_dir, entry.name), entry.mtime_ms));
                }
                continue;
            }
            let name_len = entry.name.len();
            let rel = below(&rel_dir, std::mem::take(&mut entry.name));
            let name = &rel[rel.len() - name_len..];
            // A name with a newline could pass for text of its own wherever paths reach a model
            // (the manifest, an attachment's wrapper): such an entry is reported, escaped, and
            // never read (issue 18).
            if name.chars().any(crate::base::text::hides_in_a_name) {
                skipped.push(Skipped {
                    path: escape_controls(&rel),
                    reason: "its name holds control characters; not read (rename it, or forget it by this escaped path)"
                        .to_string(),
                });
                continue;
            }
            match entry.kind {
                EntryKind::Dir => {
                    if rel.matches('/').count() >= MAX_DEPTH {
                        skipped.push(Skipped {
                            path: rel,
                            reason: format!("more than {MAX_DEPTH} folders deep; not scanned"),
                        });
                    } else if !(rel_dir.is_empty() && name == LOGS_DIR) {
                        pending.push(rel);
                    }
                }
                EntryKind::File if is_memory_file(name) => {
                    candidates.push(Candidate { rel, mtime_ms: entry.mtime_ms, size: Some(entry.size) });
                }
                EntryKind::Symlink => {
                    let abs = join(dir, &rel);
                    match follow_link(fs, &abs, &root_real) {
                        Ok(Some(mtime_ms)) if is_memory_file(name) => {
                            candidates.push(Candidate { rel, mtime_ms, size: None })
                        }
                        Ok(Some(_)) => {}
                        Ok(None) => skipped.push(Skipped {
                            path: rel,
                            reason: "symbolic link to a directory; not followed".to_string(),
                        }),
                        Err(reason) => skipped.push(Skipped { path: rel, reason }),
                    }
                }
                EntryKind::File | EntryKind::Other => {}
            }
        }
    }

    Ok(Listing { candidates, index_kind, debris })
}

/// Points each link at the memory it names (by `name:`, else by file stem; the newest when
/// two share a name) and fills in the backlinks.
fn resolve_links(headers: &mut [MemoryHeader]) {
    let mut by_slug: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (i, h) in headers.iter().enumerate() {
        let stem = h.path.rsplit('/').next().unwrap_or(&h.path).trim_end_matches(".md");
        by_slug.entry(links::slug(stem)).or_insert(i);
    }
    // Names win over stems: a second pass lets them replace a stem's entry.
    let mut named = std::collections::BTreeSet::new();
    for (i, h) in headers.iter().enumerate() {
        if let Some(key) = h.name.as_deref().map(links::slug).filter(|k| !k.is_empty())
            && named.insert(key.clone())
        {
            by_slug.insert(key, i);
        }
    }
    let targets: Vec<Vec<Option<usize>>> = headers
        .iter()
        .map(|h| h.links.iter().map(|l| by_slug.get(&links::slug(&l.name)).copied()).collect())
        .collect();
    let paths: Vec<String> = headers.iter().map(|h| h.path.clone()).collect();
    for (from, tos) in targets.iter().enumerate() {
        for (link, to) in headers[from].links.iter_mut().zip(tos) {
            link.path = to.map(|to| paths[to].clone());
        }
        for &to in tos.iter().flatten() {
            if to != from && !headers[to].backlinks.contains(&paths[from]) {
                headers[to].backlinks.push(paths[from].clone());
            }
        }
    }
    for h in headers.iter_mut() {
        h.backlinks.sort();
    }
}

fn trim_dir(dir: &str) -> &str {
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }
}

fn is_memory_file(name: &str) -> bool {
    name.ends_with(".md") && name != INDEX_FILE
}

/// Follows a symlink found in the walk: `Ok(Some(mtime))` for a file inside the directory,
/// `Ok(None)` for a directory inside it, `Err(reason)` when it leaves it or cannot be read.
fn follow_link(fs: &dyn Fs, abs: &str, root_real: &str) -> Result<Option<i64>, String> {
    let target = fs.real_path(abs).map_err(|e| match e {
        crate::base::fs::FsError::OutsideRoot(_) => leaves_dir(),
        other => format!("symbolic link could not be resolved: {other}"),
    })?;
    if !is_within(&target, root_real) {
        return Err(leaves_dir());
    }
    let stat = fs.stat(abs).map_err(|e| format!("symbolic link could not be read: {e}"))?;
    Ok(match stat.kind {
        EntryKind::Dir => None,
        _ => Some(stat.mtime_ms),
    })
}

fn leaves_dir() -> String {
    "symbolic link points outside the memory directory".to_string()
}

/// The header of a memory file, and whether the index may keep it: not when a read failed.
fn read_header(fs: &dyn Fs, dir: &str, candidate: &Candidate) -> (MemoryHeader, bool) {
    let abs = join(dir, &candidate.rel);
    let mut header = MemoryHeader {
        path: candidate.rel.clone(),
        mtime_ms: candidate.mtime_ms,
        name: None,
        description: None,
        memory_type: None,
        diagnostics: Vec::new(),
        freshness: Freshness::default(),
        links: Vec::new(),
        backlinks: Vec::new(),
    };
    let head = match fs.read_head(&abs, HEAD_LINES, HEAD_BYTES) {
        Ok(head) => head,
        Err(err) => {
            header.diagnostics.push(format!("could not be read: {err}"));
            return (header, false);
        }
    };
    header.mtime_ms = head.mtime_ms;
    let mut data = head.data.as_slice();
    // When the byte cap fell inside a line, that line is dropped: half a value is worse than none.
    let cut_mid_line = head.truncated && data.len() >= HEAD_BYTES as usize && !data.ends_with(b"\n");
    if cut_mid_line {
        data = &data[..data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)];
    }
    let decoded = text::decode(data, head.truncated);
    header.diagnostics.extend(decoded.diagnostics);
    let (content, had_crlf) = text::normalize_newlines(&decoded.text);
    if had_crlf {
        header.diagnostics.push("uses CRLF line ends".to_string());
    }
    if cut_mid_line && matches!(frontmatter::find_block(&content), frontmatter::Block::Unterminated(_)) {
        let note = format!("a frontmatter line runs past the first {HEAD_BYTES} bytes; it was not read");
        header.diagnostics.push(note);
    }
    let fm = frontmatter::parse(&content, head.truncated);
    let links = read_links(fs, &abs, &content, head.truncated);
    let keep = links.is_some();
    header.links = links.unwrap_or_default();
    header.name = fm.name;
    header.description = fm.description;
    header.memory_type = fm.memory_type;
    header.diagnostics.extend(fm.diagnostics);
    (header, keep)
}

/// The links of a memory's body: from the head when that was the whole file, else from a
/// second, larger read of a long memory (`None` when that read failed).
fn read_links(fs: &dyn Fs, abs: &str, head: &str, truncated: bool) -> Option<Vec<Link>> {
    let whole;
    let text = if truncated {
        whole = match fs.read_head(abs, u32::MAX, LINK_BYTES) {
            Ok(more) => text::normalize_newlines(&String::from_utf8_lossy(&more.data)).0,
            Err(_) => return None,
        };
        whole.as_str()
    } else {
        head
    };
    let body = frontmatter::split(text).map_or(text, |(_, body)| body);
    Some(links::parse(body).into_iter().map(|name| Link { name, path: None }).collect())
}
