//! The semantic signal beside BM25 when the user runs an embeddings model (issue 27, item 2):
//! each memory is embedded as the line a model's manifest shows of it, once per content, and
//! the vectors are cached beside the memories. The cache is never authoritative: it is keyed by
//! the hash of the text embedded, so a changed memory is embedded again; a cache that is
//! missing, torn, planted as a link or made by another model is started afresh.

use crate::base::fs::{Fs, join};
use crate::format::scan::MemoryHeader;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The cache's name in the memory directory (local to the machine: never synced).
pub const CACHE_FILE: &str = ".memdir.embeddings";
/// Texts per embeddings call: what local servers take in one request without complaint.
pub const BATCH: usize = 128;
/// A cache larger than this is not read (and is started afresh): 10,000 memories at 768
/// dimensions take 7.8 MB.
const MAX_CACHE_BYTES: u64 = 128 << 20;
/// Vectors wider than this are refused: no embeddings model in use is near it, and a hostile
/// reply must not make the cache enormous.
pub const MAX_DIMENSIONS: usize = 8_192;
const MAGIC: &[u8] = b"memdir-embeddings 1\n";

/// What a memory is embedded as: what the model selector sees of it (its manifest line's
/// words), so a body edit that leaves the header alone costs no call.
pub fn text(header: &MemoryHeader) -> String {
    let stem = header.path.rsplit('/').next().unwrap_or(&header.path).trim_end_matches(".md");
    let name = header.name.as_deref().unwrap_or(stem);
    match &header.description {
        Some(description) => format!("{name}: {description}"),
        None => name.to_string(),
    }
}

/// The cache key of an embedded text: FNV-1a, 64 bits (stable across hosts and versions).
pub fn hash(text: &str) -> u64 {
    crate::base::fnv::hash(text.as_bytes())
}

/// Where a recall stands with the embeddings model, kept between its `embed` steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The request's vector, once the model gave it.
    query: Option<Vec<f32>>,
    /// The hashes of the memory texts the last call asked for, in its order (after the
    /// request's own text while `query` was none).
    asked: Vec<u64>,
    /// Vectors received this recall and not yet in the cache on disk (a read-only directory
    /// keeps them here, so the same texts are not asked for again).
    received: Vec<(u64, Vec<f32>)>,
    /// Calls made so far.
    pub calls: u32,
}

impl Progress {
    /// Takes the model's answer to the last call: exactly one usable vector per text asked.
    pub fn receive(&mut self, vectors: Vec<Vec<f32>>) -> Result<(), String> {
        let expected = self.asked.len() + usize::from(self.query.is_none());
        if vectors.len() != expected {
            return Err(format!(
                "the embeddings model returned {} vectors for {expected} texts",
                vectors.len()
            ));
        }
        // One width for all: the request's once known, else the first vector's.
        let width = self.query.as_ref().map_or(vectors.first().map_or(0, Vec::len), Vec::len);
        for vector in &vectors {
            check(vector, width)?;
        }
        let mut vectors = vectors.into_iter();
        if self.query.is_none() {
            self.query = vectors.next();
        }
        self.received.extend(std::mem::take(&mut self.asked).into_iter().zip(vectors));
        Ok(())
    }
}

/// What offline recall does next with the embeddings model.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Ask it for these texts' vectors.
    Ask(Vec<String>),
    /// Each candidate's cosine with the request, in the candidates' order.
    Scores(Vec<f32>),
}

/// The next step of ranking `candidates` by meaning for `query`: vectors the model gave are
/// cached, then either what is still missing is asked for (at most [`BATCH`] texts per call)
/// or every candidate is scored. An error says why the vectors cannot be used this turn.
pub fn next(
    fs: &dyn Fs,
    memory_dir: &str,
    model: &str,
    query: &str,
    candidates: &[MemoryHeader],
    progress: &mut Progress,
) -> Result<Next, String> {
    let mut cache = Cache::load(fs, memory_dir, model);
    // Vectors of another width than the cache's mean the model behind the name changed: its
    // old vectors are dropped, not compared.
    let width = progress.query.as_ref().map_or(0, Vec::len);
    if cache.dimensions != 0 && width != 0 && cache.dimensions != width {
        cache = Cache { model: model_key(model), changed: true, ..Cache::default() };
    }
    for (hash, vector) in &progress.received {
        cache.insert(*hash, vector)?;
    }
    let texts: Vec<(u64, String)> = candidates.iter().map(text).map(|t| (hash(&t), t)).collect();
    let keep: BTreeSet<u64> = texts.iter().map(|(h, _)| *h).collect();
    let saved = cache.save(fs, memory_dir, &keep);
    if saved {
        progress.received.clear();
    }
    let mut asking = BTreeSet::new();
    let room = BATCH - usize::from(progress.query.is_none());
    let missing: Vec<&(u64, String)> =
        texts.iter().filter(|(h, _)| cache.get(*h).is_none() && asking.insert(*h)).take(room).collect();
    if !saved && progress.calls > 0 && !missing.is_empty() {
        // Vectors that cannot be kept would ride in the state, growing with every call: one
        // call's worth is the most a directory that cannot hold the cache gets.
        return Err(format!("the embeddings cannot be cached in {memory_dir}"));
    }
    let Some(query_vector) = progress.query.as_ref().filter(|_| missing.is_empty()) else {
        // Each call answered is cached, so this many calls embed every memory once; more
        // means the vectors are not being kept.
        if progress.calls as usize > keep.len() / room + 2 {
            return Err("the embeddings model's vectors could not be kept".into());
        }
        progress.calls += 1;
        progress.asked = missing.iter().map(|(h, _)| *h).collect();
        let own = progress.query.is_none().then(|| query.to_string());
        return Ok(Next::Ask(own.into_iter().chain(missing.iter().map(|(_, t)| t.clone())).collect()));
    };
    Ok(Next::Scores(
        texts.iter().map(|(h, _)| cache.get(*h).map_or(0.0, |v| cosine(query_vector, v))).collect(),
    ))
}

/// The vectors one embeddings model gave, by text hash, stored as signed bytes (each vector
/// scaled to its largest component: cosine needs only direction).
#[derive(Debug, Default)]
pub struct Cache {
    model: String,
    dimensions: usize,
    vectors: BTreeMap<u64, Vec<i8>>,
    changed: bool,
}

impl Cache {
    /// The cache in `memory_dir` for `model`, or an empty one.
    pub fn load(fs: &dyn Fs, memory_dir: &str, model: &str) -> Cache {
        let model = model_key(model);
        let empty = Cache { model: model.clone(), ..Cache::default() };
        let Some(path) = plain_file(fs, memory_dir) else { return empty };
        match fs.read_file(&path, MAX_CACHE_BYTES).ok().and_then(|bytes| parse(&bytes)) {
            Some(cache) if cache.model == model => cache,
            _ => empty,
        }
    }

    /// The vector cached for `hash`, if any.
    pub fn get(&self, hash: u64) -> Option<&[i8]> {
        self.vectors.get(&hash).map(Vec::as_slice)
    }

    /// Caches `vector` for `hash`, refusing one that is empty, too wide, not finite, all zeros
    /// or of another width than the cache's.
    pub fn insert(&mut self, hash: u64, vector: &[f32]) -> Result<(), String> {
        check(vector, self.dimensions)?;
        self.dimensions = vector.len();
        let largest = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
        let bytes = vector.iter().map(|v| (v / largest * 127.0).round() as i8).collect();
        self.vectors.insert(hash, bytes);
        self.changed = true;
        Ok(())
    }

    /// Writes the cache when it changed, keeping only the vectors of `keep` (the memories that
    /// exist), unless they are fewer than half of it (a recall that saw only part of the
    /// memories must not empty the cache for the rest). True when the file now holds
    /// everything; a cache that cannot be written costs only calls.
    pub fn save(&mut self, fs: &dyn Fs, memory_dir: &str, keep: &BTreeSet<u64>) -> bool {
        if !self.changed {
            return true;
        }
        if keep.len() * 2 >= self.vectors.len() {
            self.vectors.retain(|h, _| keep.contains(h));
        }
        let Some(path) = plain_file(fs, memory_dir) else { return false };
        let bytes = self.encode();
        if bytes.len() as u64 > MAX_CACHE_BYTES {
            return false; // it could not be read back
        }
        // `write_file` replaces the file whole: a crash leaves the old cache or the new one.
        let written = fs.write_file(&path, &bytes).is_ok();
        self.changed = !written;
        written
    }

    fn encode(&self) -> Vec<u8> {
        let model = &self.model;
        let mut out =
            Vec::with_capacity(MAGIC.len() + model.len() + 9 + self.vectors.len() * (8 + self.dimensions));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(model.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&(self.dimensions as u32).to_le_bytes());
        out.extend_from_slice(&(self.vectors.len() as u32).to_le_bytes());
        for (hash, vector) in &self.vectors {
            out.extend_from_slice(&hash.to_le_bytes());
            out.extend(vector.iter().map(|&v| v as u8));
        }
        out
    }
}

/// What the cache records of the model's label: its hash, not the label, which may name a
/// server with credentials in its address.
fn model_key(label: &str) -> String {
    format!("{:016x}", hash(label))
}

/// Why `vector` cannot be used beside vectors `dimensions` wide (0: none yet).
pub fn check(vector: &[f32], dimensions: usize) -> Result<(), String> {
    if vector.is_empty() || vector.len() > MAX_DIMENSIONS {
        return Err(format!("a vector has {} dimensions", vector.len()));
    }
    if dimensions != 0 && vector.len() != dimensions {
        return Err(format!("a vector has {} dimensions where others have {dimensions}", vector.len()));
    }
    if !vector.iter().all(|v| v.is_finite()) || vector.iter().all(|v| *v == 0.0) {
        return Err("a vector is not finite or is all zeros".into());
    }
    Ok(())
}

/// The cosine of `query` (any length) with a cached vector of the same width.
pub fn cosine(query: &[f32], cached: &[i8]) -> f32 {
    let (mut dot, mut q, mut c) = (0f32, 0f32, 0f32);
    for (&a, &b) in query.iter().zip(cached) {
        let b = f32::from(b);
        dot += a * b;
        q += a * a;
        c += b * b;
    }
    if q == 0.0 || c == 0.0 { 0.0 } else { dot / (q.sqrt() * c.sqrt()) }
}

/// The cache's path, unless something other than a plain file is there: a link planted in its
/// place would have recall read, then overwrite, what it points to.
fn plain_file(fs: &dyn Fs, memory_dir: &str) -> Option<String> {
    let path = join(memory_dir, CACHE_FILE);
    match fs.real_path(&path) {
        Err(crate::base::fs::FsError::NotFound(_)) => Some(path),
        Ok(real) => {
            let dir = fs.real_path(memory_dir).ok()?;
            (real == join(&dir, CACHE_FILE)).then_some(path)
        }
        Err(_) => None,
    }
}

fn parse(bytes: &[u8]) -> Option<Cache> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    let model = std::str::from_utf8(&rest[..end]).ok()?.to_string();
    let rest = &rest[end + 1..];
    let word = |at: usize| Some(u32::from_le_bytes(rest.get(at..at + 4)?.try_into().ok()?) as usize);
    let (dimensions, count) = (word(0)?, word(4)?);
    let records = &rest[8..];
    let width = 8 + dimensions;
    if dimensions == 0 || dimensions > MAX_DIMENSIONS || records.len() != count.checked_mul(width)? {
        return None;
    }
    let vectors = records
        .chunks_exact(width)
        .map(|r| {
            let hash = u64::from_le_bytes(r[..8].try_into().expect("eight bytes"));
            (hash, r[8..].iter().map(|&b| b as i8).collect())
        })
        .collect();
    Some(Cache { model, dimensions, vectors, changed: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(model: &str) -> Cache {
        Cache { model: model_key(model), ..Cache::default() }
    }

    #[test]
    fn a_cache_round_trips() {
        let mut c = cache("m1");
        c.insert(7, &[0.5, -1.0, 0.25]).unwrap();
        let bytes = c.encode();
        let again = parse(&bytes).unwrap();
        assert_eq!(again.model, model_key("m1"));
        let secret = cache("openai:m@http://user:hunter2@10.0.0.5/v1/embeddings").encode();
        assert!(!String::from_utf8_lossy(&secret).contains("hunter2"), "the label is not written");
        let cos = cosine(&[0.5, -1.0, 0.25], again.get(7).unwrap());
        assert!(cos > 0.999, "{cos}");
    }

    #[test]
    fn hostile_vectors_are_refused() {
        let mut c = cache("m");
        assert!(c.insert(1, &[]).is_err());
        assert!(c.insert(1, &[f32::NAN, 1.0]).is_err());
        assert!(c.insert(1, &[0.0, 0.0]).is_err());
        assert!(c.insert(1, &vec![1.0; MAX_DIMENSIONS + 1]).is_err());
        c.insert(1, &[1.0, 2.0]).unwrap();
        assert!(c.insert(2, &[1.0, 2.0, 3.0]).is_err(), "one width per cache");
    }

    #[test]
    fn a_torn_or_foreign_cache_is_not_read() {
        let mut c = cache("m");
        c.insert(1, &[1.0, 2.0]).unwrap();
        let whole = c.encode();
        assert!(parse(&whole[..whole.len() - 1]).is_none());
        assert!(parse(b"{\"not\": \"ours\"}").is_none());
        let mut huge = whole.clone();
        let at = MAGIC.len() + model_key("m").len() + 1;
        huge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(parse(&huge).is_none(), "an absurd width is refused, not allocated");
    }
}
