/// The wasmtime settings the embedded core is compiled with (build.rs) and run with (the
/// runtime): wasmtime refuses precompiled code whose settings differ, so both include this file.
///
/// Each setting gives up something memdir does not use, for a smaller, faster load (issue 17,
/// item 1; together about a sixth of the load, docs/performance.md):
/// - no native unwind tables (`.eh_frame`), which only outside unwinders read: wasmtime walks
///   wasm frames by frame pointer. Windows requires them.
/// - no copy-on-write memory image: building one costs every load, and a process instantiates
///   the core about once.
/// - no address map: a trap still names the wasm function, not its byte offset.
pub fn engine_config(windows: bool) -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.native_unwind_info(windows);
    config.memory_init_cow(false);
    config.generate_address_map(false);
    config
}
