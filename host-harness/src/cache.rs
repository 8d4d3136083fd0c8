//! The on-disk cache of compiled components, keyed by the component's SHA-256 and the engine's
//! compatibility hash (which covers the wasmtime version, the target and the compiler settings). A stale or unreadable entry is ignored and
//! rewritten; the cache never makes loading fail.

use sha2::{Digest, Sha256};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The cache directory for an environment: `$MEMDIR_CACHE_DIR`, else `$XDG_CACHE_HOME/memdir`,
/// else `$HOME/.cache/memdir`; `None` when none is set or `MEMDIR_CACHE_DIR` is empty.
pub fn dir_from_env(env: &[(String, String)]) -> Option<PathBuf> {
    let var = |k: &str| env.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    if let Some(dir) = var("MEMDIR_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("memdir"));
    }
    var("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache/memdir"))
}

/// The cache file for `wasm` compiled by `engine`.
pub fn entry_path(dir: &Path, engine: &Engine, wasm: &[u8]) -> PathBuf {
    let digest = Sha256::digest(wasm);
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    let mut hasher = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    dir.join(format!("core-{hex}-{:016x}.cwasm", hasher.finish()))
}

/// Loads the component from the cache or compiles it (and then fills the cache).
pub fn load(engine: &Engine, wasm: &[u8], dir: Option<&Path>) -> wasmtime::Result<Component> {
    let Some(dir) = dir else {
        return Component::new(engine, wasm);
    };
    let path = entry_path(dir, engine, wasm);
    if path.is_file() {
        // SAFETY: the file is in the user's own cache directory and was written by `store`
        // below from `Component::serialize`; wasmtime checks its header and engine settings,
        // and any failure falls through to a fresh compile.
        #[allow(unsafe_code)]
        if let Ok(component) = unsafe { Component::deserialize_file(engine, &path) } {
            return Ok(component);
        }
    }
    let component = Component::new(engine, wasm)?;
    store(&component, dir, &path);
    Ok(component)
}

/// Writes a cache entry atomically; failures only cost a compile next time.
fn store(component: &Component, dir: &Path, path: &Path) {
    let Ok(bytes) = component.serialize() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else { return };
    if std::io::Write::write_all(&mut tmp, &bytes).is_ok() {
        let _ = tmp.persist(path);
    }
}
