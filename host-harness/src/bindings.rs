//! Host bindings generated from `wit/` by wasmtime. Never edited by hand.
#![allow(missing_docs)]

wasmtime::component::bindgen!({
    path: "wit",
    world: "memory-core",
});
