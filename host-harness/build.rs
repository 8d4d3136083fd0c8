//! Builds the memory core for `wasm32-wasip2` and hands its path to the crate as
//! `MEMDIR_CORE_WASM`. Set `MEMDIR_CORE_WASM` to a prebuilt component to skip the build.
//!
//! The guest is built by a nested cargo in its own target directory: sharing the outer one
//! deadlocks on cargo's build-directory lock.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MEMDIR_CORE_WASM");
    if let Ok(prebuilt) = env::var("MEMDIR_CORE_WASM") {
        println!("cargo:rerun-if-changed={prebuilt}");
        println!("cargo:rustc-env=MEMDIR_CORE_WASM={prebuilt}");
        return;
    }
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.parent().unwrap();
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
    println!("cargo:rustc-env=MEMDIR_CORE_WASM={}", wasm.display());
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
