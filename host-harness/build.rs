//! Builds the memory core for `wasm32-wasip2` and hands its path to the crate as
//! `MEMDIR_CORE_WASM`. Set `MEMDIR_CORE_WASM` to a prebuilt component to skip the build.
//!
//! Then compiles that component to native code for the target's baseline CPU and hands the
//! result to the crate as `MEMDIR_CORE_CWASM`, so that a run of `memdir` compiles nothing: the
//! shipped binary carries no compiler at all (issue 17, item 1).
//!
//! The guest is built by a nested cargo in its own target directory: sharing the outer one
//! deadlocks on cargo's build-directory lock.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a published crate keeps the component.
const PACKAGED_CORE: &str = "core/memdir_core.wasm";

#[path = "src/engine_config.rs"]
mod engine_config;
use engine_config::engine_config;

fn main() {
    let wasm = core_wasm();
    println!("cargo:rustc-env=MEMDIR_CORE_WASM={}", wasm.display());
    let cwasm = PathBuf::from(env::var("OUT_DIR").unwrap()).join("memdir_core.cwasm");
    precompile(&wasm, &cwasm);
    println!("cargo:rustc-env=MEMDIR_CORE_CWASM={}", cwasm.display());
}

/// The component: `MEMDIR_CORE_WASM` when set; else built from `guest/` in a checkout; else, in
/// the crate as published, the one it was packaged with (`core/memdir_core.wasm`, which
/// `scripts/release` puts there before `cargo publish`).
fn core_wasm() -> PathBuf {
    println!("cargo:rerun-if-env-changed=MEMDIR_CORE_WASM");
    if let Ok(prebuilt) = env::var("MEMDIR_CORE_WASM") {
        println!("cargo:rerun-if-changed={prebuilt}");
        return PathBuf::from(prebuilt);
    }
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.parent().unwrap();
    let packaged = manifest_dir.join(PACKAGED_CORE);
    if !workspace.join("guest/Cargo.toml").is_file() {
        assert!(packaged.is_file(), "no guest/ to build the memory core from, and no {PACKAGED_CORE}");
        return packaged;
    }
    for watched in ["guest/src", "guest/Cargo.toml", "wit", "Cargo.lock", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", workspace.join(watched).display());
    }
    let target_dir = guest_target_dir(workspace);
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace)
        .args([
            "build",
            "--package",
            "memdir-core",
            "--lib",
            "--target",
            "wasm32-wasip2",
            "--profile",
            "guest",
        ])
        .arg("--target-dir")
        .arg(&target_dir);
    // The outer build's flags and wrappers (clippy, coverage) are not meant for the guest.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("could not run cargo to build the memory core");
    assert!(
        status.success(),
        "building the memory core for wasm32-wasip2 failed; if the target is missing, run \
         `rustup toolchain install` in the repository (rust-toolchain.toml names it)"
    );
    let wasm = target_dir.join("wasm32-wasip2/guest/memdir_core.wasm");
    assert!(wasm.is_file(), "the guest build did not produce {}", wasm.display());
    wasm
}

/// Compiles the component for the target being built, with no CPU features beyond the
/// target's baseline (naming the target turns off wasmtime's detection of the build machine's
/// CPU), so the binary runs on any machine of its target. The runtime engine uses the same
/// settings (`engine_config`); wasmtime checks the match when it loads the result.
fn precompile(wasm: &Path, out: &Path) {
    let target = env::var("TARGET").unwrap();
    let bytes = std::fs::read(wasm).unwrap_or_else(|e| panic!("reading {}: {e}", wasm.display()));
    let mut config = engine_config(target.contains("windows"));
    config.target(&target).unwrap_or_else(|e| panic!("wasmtime cannot compile for {target}: {e}"));
    let engine = wasmtime::Engine::new(&config).expect("a wasmtime engine for precompiling");
    let compiled = engine
        .precompile_component(&bytes)
        .unwrap_or_else(|e| panic!("precompiling {} for {target}: {e:?}", wasm.display()));
    std::fs::write(out, compiled).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// `<outer target dir>/guest`, beside the outer build's own profiles.
fn guest_target_dir(workspace: &Path) -> PathBuf {
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    // OUT_DIR is <target>/<profile>/build/<pkg>/out (or <target>/<triple>/<profile>/...).
    let target = out_dir
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "build"))
        .and_then(|build| build.parent())
        .and_then(|profile| profile.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| workspace.join("target"));
    target.join("guest")
}
