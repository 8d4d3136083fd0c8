//! The embedded core run where it lies in the binary, on Linux: start-up without copying it.
//!
//! `Component::deserialize` copies the compiled core (about 3 MB) into fresh memory and makes
//! that executable; the copy and its page faults were most of a short command's start-up
//! (docs/performance.md). Here the image is a page-aligned static, and wasmtime is handed it
//! as it is (`deserialize_raw`), with a code-memory hook that makes its text pages executable
//! where they are. Only the pages the core touches are read, from the page cache.

use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};
use wasmtime::CustomCodeMemory;
use wasmtime::component::Component;
use wasmtime::{Config, Engine};

/// Aligned to a page, so that the text section inside the image starts on one, and that no byte
/// outside the image shares its pages.
#[repr(C, align(4096))]
struct PageAligned<Bytes: ?Sized>(Bytes);

static ALIGNED: &PageAligned<[u8]> = &PageAligned(*include_bytes!(env!("MEMDIR_CORE_CWASM")));

/// The compiled core, as `build.rs` made it, starting on a page.
pub(crate) static CORE_CWASM: &[u8] = &ALIGNED.0;

/// The only page size this runs with: see [`load`].
const PAGE: usize = 4096;

/// Makes the core's text executable in place: read and execute, never write.
struct InPlace;

impl CustomCodeMemory for InPlace {
    fn required_alignment(&self) -> usize {
        PAGE
    }

    fn publish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        // SAFETY: wasmtime passes the page-aligned text range of an image it has parsed, which
        // lies inside `CORE_CWASM`: a static of this binary, so the pages are mapped for the
        // life of the process. Read-only pages gain execute and nothing else.
        #[allow(unsafe_code)]
        let status =
            unsafe { libc::mprotect(ptr as *mut libc::c_void, len, libc::PROT_READ | libc::PROT_EXEC) };
        if status != 0 {
            return Err(wasmtime::format_err!(
                "could not make the memory core executable: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    }

    /// Left executable: the image is one static, loaded once per process ([`shared`]).
    fn unpublish_executable(&self, _ptr: *const u8, _len: usize) -> wasmtime::Result<()> {
        Ok(())
    }
}

/// The engine that runs code in place and the embedded core in it, made on the first call and
/// shared by every runtime of the process after it: wasmtime registers code by its address, once.
/// `None` where pages are not 4 KiB (wasmtime asserts that the text starts on a page, and its
/// alignment inside the image is only known to suit 4 KiB pages), or where the system refuses to
/// make the pages executable: the caller then copies the image as usual.
pub(crate) fn shared(config: impl FnOnce() -> Config) -> Option<(Engine, Component)> {
    static LOADED: OnceLock<Option<(Engine, Component)>> = OnceLock::new();
    LOADED.get_or_init(|| load(config()).ok()).clone()
}

fn load(mut config: Config) -> wasmtime::Result<(Engine, Component)> {
    // SAFETY: sysconf has no preconditions.
    #[allow(unsafe_code)]
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if usize::try_from(page) != Ok(PAGE) {
        return Err(wasmtime::format_err!("pages of {page} bytes"));
    }
    config.with_custom_code_memory(Some(Arc::new(InPlace)));
    let engine = Engine::new(&config)?;
    let image: &'static [u8] = CORE_CWASM;
    // SAFETY: the bytes are build.rs's `precompile_component` output for this target, made by
    // the same wasmtime with the same settings and embedded in this binary; wasmtime still checks
    // their header, version and settings against `engine` and the CPU it runs on. They are a
    // static, never written, and outlive every component made from them.
    #[allow(unsafe_code)]
    let component = unsafe { Component::deserialize_raw(&engine, NonNull::from(image)) }?;
    Ok((engine, component))
}

#[cfg(test)]
mod tests {
    use crate::{ComponentRuntime, ConfinedFs, Core};

    #[test]
    fn the_core_runs_in_place_and_outlives_any_one_runtime() {
        // This machine has 4 KiB pages: the image is run where it lies, not copied.
        assert!(super::shared(|| crate::engine_config::engine_config(false)).is_some());
        let first = ComponentRuntime::load().unwrap();
        let second = ComponentRuntime::load().unwrap();
        std::thread::scope(|s| {
            for runtime in [&first, &second] {
                s.spawn(move || {
                    assert_eq!(runtime.core(ConfinedFs::new()).truncate_index("x").unwrap().text, "x")
                });
            }
        });
        drop(first);
        let mut core = second.core(ConfinedFs::new());
        assert_eq!(core.truncate_index("- [A](a.md) — a\n").unwrap().text, "- [A](a.md) — a");
    }
}
