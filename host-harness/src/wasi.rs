//! The few WASI functions the core imports, and what memdir gives each: Rust's standard library
//! links stdio and exit into every `wasm32-wasip2` program, and the core uses none of them but
//! stderr, where a panic writes its message. So the environment is empty, stdin is closed,
//! stdout is discarded, stderr is kept (up to a cap) for the error a trap becomes, and an exit
//! is a trap. Written here rather than taken from `wasmtime-wasi`, which brings an async
//! runtime (tokio) into every embedder for functions the core never reaches.

use wasmtime::component::{ComponentType, Lift, Linker, Lower, Resource, ResourceType};
use wasmtime::{Result, StoreContextMut};

/// The WASI 0.2 release the core imports (`tests/golden/component-world.wit` pins it).
const VERSION: &str = "0.2.6";

/// What an instance's stdio keeps: the head of what the core wrote to stderr.
pub(crate) struct Stdio {
    stderr: Vec<u8>,
    cap: usize,
}

impl Stdio {
    /// Keeps at most `cap` bytes of stderr.
    pub(crate) fn new(cap: usize) -> Self {
        Stdio { stderr: Vec::new(), cap }
    }

    /// What the core wrote to stderr, up to the cap.
    pub(crate) fn stderr(&self) -> &[u8] {
        &self.stderr
    }
}

/// Resource types, for the linker's type checks; none carries state.
struct Pollable;
struct IoError;
struct InputStream;
struct OutputStream;
struct TerminalInput;
struct TerminalOutput;

/// `wasi:io/streams.stream-error`; memdir's streams never fail, but the type is the contract.
#[derive(ComponentType, Lift, Lower)]
#[allow(dead_code)] // never made: memdir's streams do not fail
#[component(variant)]
enum StreamError {
    #[component(name = "last-operation-failed")]
    LastOperationFailed(Resource<IoError>),
    #[component(name = "closed")]
    Closed,
}

/// The handle `get-stdout` gives; `get-stderr` gives [`STDERR`].
const STDOUT: u32 = 1;
const STDERR: u32 = 2;

/// How many bytes a write may carry, as `check-write` tells the core.
const WRITE_BUDGET: u64 = 64 * 1024;

/// Adds the core's WASI imports to `linker`; `stdio` finds an instance's [`Stdio`].
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    stdio: fn(&mut T) -> &mut Stdio,
) -> Result<()> {
    let nothing = |_: StoreContextMut<'_, T>, _: u32| Ok(());

    let mut poll = linker.instance(&format!("wasi:io/poll@{VERSION}"))?;
    poll.resource("pollable", ResourceType::host::<Pollable>(), nothing)?;
    // Every stream is always ready.
    poll.func_wrap("[method]pollable.block", |_, (_,): (Resource<Pollable>,)| Ok(()))?;

    let mut error = linker.instance(&format!("wasi:io/error@{VERSION}"))?;
    error.resource("error", ResourceType::host::<IoError>(), nothing)?;

    let mut streams = linker.instance(&format!("wasi:io/streams@{VERSION}"))?;
    streams.resource("input-stream", ResourceType::host::<InputStream>(), nothing)?;
    streams.resource("output-stream", ResourceType::host::<OutputStream>(), nothing)?;
    streams.func_wrap(
        "[method]output-stream.check-write",
        |_, (_,): (Resource<OutputStream>,)| -> Result<(Result<u64, StreamError>,)> {
            Ok((Ok(WRITE_BUDGET),))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.write",
        move |mut store: StoreContextMut<'_, T>,
              (stream, contents): (Resource<OutputStream>, Vec<u8>)|
              -> Result<(Result<(), StreamError>,)> {
            if stream.rep() == STDERR {
                let stdio = stdio(store.data_mut());
                let room = stdio.cap.saturating_sub(stdio.stderr.len());
                stdio.stderr.extend_from_slice(&contents[..contents.len().min(room)]);
            }
            Ok((Ok(()),))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.blocking-flush",
        |_, (_,): (Resource<OutputStream>,)| -> Result<(Result<(), StreamError>,)> { Ok((Ok(()),)) },
    )?;
    streams.func_wrap("[method]output-stream.subscribe", |_, (_,): (Resource<OutputStream>,)| {
        Ok((Resource::<Pollable>::new_own(0),))
    })?;

    linker
        .instance(&format!("wasi:cli/environment@{VERSION}"))?
        .func_wrap("get-environment", |_, ()| Ok((Vec::<(String, String)>::new(),)))?;
    // The core never exits on purpose; if it does, the call fails and the instance is replaced.
    linker.instance(&format!("wasi:cli/exit@{VERSION}"))?.func_wrap(
        "exit",
        |_, (status,): (Result<(), ()>,)| -> Result<()> {
            let how = if status.is_ok() { "successfully" } else { "with a failure" };
            Err(wasmtime::format_err!("the memory core exited {how}"))
        },
    )?;
    linker
        .instance(&format!("wasi:cli/stdin@{VERSION}"))?
        .func_wrap("get-stdin", |_, ()| Ok((Resource::<InputStream>::new_own(0),)))?;
    linker
        .instance(&format!("wasi:cli/stdout@{VERSION}"))?
        .func_wrap("get-stdout", |_, ()| Ok((Resource::<OutputStream>::new_own(STDOUT),)))?;
    linker
        .instance(&format!("wasi:cli/stderr@{VERSION}"))?
        .func_wrap("get-stderr", |_, ()| Ok((Resource::<OutputStream>::new_own(STDERR),)))?;

    linker.instance(&format!("wasi:cli/terminal-input@{VERSION}"))?.resource(
        "terminal-input",
        ResourceType::host::<TerminalInput>(),
        nothing,
    )?;
    linker.instance(&format!("wasi:cli/terminal-output@{VERSION}"))?.resource(
        "terminal-output",
        ResourceType::host::<TerminalOutput>(),
        nothing,
    )?;
    // No terminal: the core's stdio is never a terminal.
    linker
        .instance(&format!("wasi:cli/terminal-stdin@{VERSION}"))?
        .func_wrap("get-terminal-stdin", |_, ()| Ok((None::<Resource<TerminalInput>>,)))?;
    for stream in ["stdout", "stderr"] {
        linker
            .instance(&format!("wasi:cli/terminal-{stream}@{VERSION}"))?
            .func_wrap(&format!("get-terminal-{stream}"), |_, ()| Ok((None::<Resource<TerminalOutput>>,)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Stdio, add_to_linker};
    use wasmtime::component::{Component, Linker};
    use wasmtime::{Engine, Store};

    /// A component that takes stderr, writes to it, then traps, as a panicking core would.
    const WIT: &str = r#"
        package test:probe;
        world probe {
            import wasi:cli/stderr@0.2.6;
            export run: func();
        }
        package wasi:io@0.2.6 {
            interface error { resource error; }
            interface streams {
                use error.{error};
                resource output-stream {
                    write: func(contents: list<u8>) -> result<_, stream-error>;
                }
                variant stream-error { last-operation-failed(error), closed }
            }
        }
        package wasi:cli@0.2.6 {
            interface stderr {
                use wasi:io/streams@0.2.6.{output-stream};
                get-stderr: func() -> output-stream;
            }
        }
    "#;
    const MODULE: &str = r#"(module
        (import "wasi:cli/stderr@0.2.6" "get-stderr" (func $stderr (result i32)))
        (import "wasi:io/streams@0.2.6" "[method]output-stream.write" (func $write (param i32 i32 i32 i32)))
        (memory (export "memory") 1)
        (data (i32.const 16) "it broke")
        (func (export "run")
            (call $write (call $stderr) (i32.const 16) (i32.const 8) (i32.const 64))
            (call $write (call $stderr) (i32.const 16) (i32.const 8) (i32.const 64))
            unreachable)
        (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 256)))"#;

    #[test]
    fn what_the_core_writes_to_stderr_is_kept_up_to_the_cap() {
        let mut resolve = wit_parser::Resolve::default();
        let package = resolve.push_str("probe.wit", WIT).unwrap();
        let world = resolve.select_world(&[package], Some("probe")).unwrap();
        let mut module = wat::parse_str(MODULE).unwrap();
        wit_component::embed_component_metadata(
            &mut module,
            &resolve,
            world,
            wit_component::StringEncoding::UTF8,
            false,
        )
        .unwrap();
        let wasm = wit_component::ComponentEncoder::default().module(&module).unwrap().encode().unwrap();
        let engine = Engine::default();
        let component = Component::new(&engine, wasm).unwrap();
        let mut linker = Linker::<Stdio>::new(&engine);
        add_to_linker(&mut linker, |stdio| stdio).unwrap();
        // Room for the first write and half the second.
        let mut store = Store::new(&engine, Stdio::new(12));
        let instance = linker.instantiate(&mut store, &component).unwrap();
        let run = instance.get_typed_func::<(), ()>(&mut store, "run").unwrap();
        assert!(run.call(&mut store, ()).is_err(), "the probe traps");
        assert_eq!(store.data().stderr(), b"it brokeit b");
    }
}
