//! What every command runs with: its [`Context`] (environment, backend, clock, the loaded core),
//! the [`Failure`] it may end in, and the path helpers every command shares. Commands import this,
//! never `lib.rs`, which only parses arguments and dispatches.

use clap::ValueEnum;
#[cfg(feature = "native")]
use memdir_harness::NativeCore;
use memdir_harness::error::Error;
use memdir_harness::{ComponentRuntime, ConfinedFs, Core};
use std::cell::OnceCell;
use std::path::PathBuf;

/// Which build of the memory core to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The WebAssembly component in wasmtime.
    Component,
    /// The core crate linked natively (built with the `native` feature).
    #[cfg(feature = "native")]
    Native,
}

/// What a command runs with: the environment it may consult, the backend, the loaded component.
pub struct Context {
    env: Vec<(String, String)>,
    backend: Backend,
    /// `--now`, when given; else the clock is read each time.
    now_ms: Option<i64>,
    runtime: OnceCell<ComponentRuntime>,
    /// Where every core call is recorded, for call scripts (the conformance runner's).
    record: Option<memdir_harness::calls::Log>,
    /// What the command reads as its standard input instead of the process's (tests).
    stdin: Option<Vec<u8>>,
    /// Who asks for the writes this invocation makes, as the timeline of writes names them
    /// (issue 48): the person at the CLI unless a command says otherwise.
    by: std::sync::Mutex<String>,
}

impl Context {
    /// A context for one invocation; the core is loaded on first use.
    pub(crate) fn new(
        env: Vec<(String, String)>,
        backend: Backend,
        now_ms: Option<i64>,
        record: Option<memdir_harness::calls::Log>,
        stdin: Option<Vec<u8>>,
    ) -> Self {
        let by = std::sync::Mutex::new("person:cli".to_string());
        Context { env, backend, now_ms, runtime: OnceCell::new(), record, stdin, by }
    }

    /// Who asks for this invocation's writes: `person:cli`, `person:workbench`, `agent:<client>`.
    pub fn by(&self) -> String {
        self.by.lock().map(|by| by.clone()).unwrap_or_default()
    }

    /// Names who asks for the writes from now on (the workbench; an MCP client once known).
    pub fn set_by(&self, by: impl Into<String>) {
        if let Ok(mut slot) = self.by.lock() {
            *slot = by.into();
        }
    }

    /// The bytes the caller gave as standard input, if it gave any (tests; `None`: the process's).
    pub fn given_stdin(&self) -> Option<&[u8]> {
        self.stdin.as_deref()
    }

    /// Standard input, whole: the bytes the caller gave, else the process's, up to `limit`
    /// bytes (more is an error, so a runaway writer cannot exhaust memory).
    pub fn read_stdin(&self, limit: u64) -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut bytes = Vec::new();
        match &self.stdin {
            Some(given) => bytes.extend_from_slice(given),
            None => {
                std::io::stdin().lock().take(limit + 1).read_to_end(&mut bytes)?;
            }
        }
        if bytes.len() as u64 > limit {
            return Err(std::io::Error::other(format!("standard input is larger than {limit} bytes")));
        }
        Ok(bytes)
    }

    /// A JSON payload on standard input (at most `limit` bytes): read until it is complete JSON
    /// or the input ends, for at most `deadline`. A client that keeps the input open after its
    /// payload does not hold the caller up (issue 44); one that sends nothing whole in time is
    /// an error. Empty input is empty bytes.
    pub fn read_json_stdin(&self, limit: u64, deadline: std::time::Duration) -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        if self.stdin.is_some() {
            return self.read_stdin(limit);
        }
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        // A thread, so the wait can end: a read blocked on an open pipe cannot be interrupted,
        // and the thread ends with the process.
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin().lock().take(limit + 1);
            let mut chunk = vec![0u8; 64 * 1024];
            while let Ok(n) = stdin.read(&mut chunk) {
                if n == 0 || tx.send(chunk[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let end = std::time::Instant::now() + deadline;
        let mut bytes = Vec::new();
        loop {
            match rx.recv_timeout(end.saturating_duration_since(std::time::Instant::now())) {
                Ok(chunk) => {
                    bytes.extend_from_slice(&chunk);
                    if bytes.len() as u64 > limit {
                        return Err(std::io::Error::other(format!(
                            "standard input is larger than {limit} bytes"
                        )));
                    }
                    if serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok() {
                        return Ok(bytes);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(bytes),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("no complete payload on standard input within {} s", deadline.as_secs()),
                    ));
                }
            }
        }
    }

    /// The environment variable `name`, when set and not empty (the last definition wins).
    pub fn var(&self, name: &str) -> Option<&str> {
        let (_, value) = self.env.iter().rev().find(|(k, _)| k == name)?;
        (!value.is_empty()).then_some(value.as_str())
    }

    /// The model a command that cannot work without one uses: `--llm`, else `$MEMDIR_LLM`.
    /// `who` names the command in the message when there is none (or only `offline`).
    pub fn model(
        &self,
        spec: Option<&str>,
        who: &str,
    ) -> Result<Box<dyn memdir_harness::llm::Model>, Failure> {
        let spec = spec.or_else(|| self.var("MEMDIR_LLM"));
        match spec.map(|s| memdir_harness::llm::from_spec(s, &self.env)) {
            Some(Ok(Some(model))) => Ok(model),
            Some(Err(e)) => Err(Failure::input(e)),
            _ => Err(Failure::input(format!(
                "{who} needs a model: pass --llm (command:, anthropic: or openai:)"
            ))),
        }
    }

    /// The user's UTC offset in minutes: `--utc-offset` when given, else this machine's.
    pub fn utc_offset(&self, given: Option<i32>) -> i32 {
        given.unwrap_or_else(|| chrono::Local::now().offset().local_minus_utc() / 60)
    }

    /// The environment as the core should see it.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// "Now" in ms since the epoch: `--now`, else the clock.
    pub fn now_ms(&self) -> i64 {
        self.now_ms.unwrap_or_else(|| chrono::Utc::now().timestamp_millis())
    }

    /// The same environment, backend and "now" with no component loaded yet, for a thread of
    /// its own (a loaded runtime stays on the thread that loaded it).
    pub fn fresh(&self) -> Context {
        Context {
            env: self.env.clone(),
            backend: self.backend,
            now_ms: self.now_ms,
            runtime: OnceCell::new(),
            by: std::sync::Mutex::new(self.by()),
            record: self.record.clone(),
            stdin: None,
        }
    }

    /// [`Context::fresh`] with another environment (a benchmark's throwaway HOME).
    pub fn with_env(&self, env: Vec<(String, String)>) -> Context {
        Context { env, ..self.fresh() }
    }

    /// The backend's name, for reports.
    pub fn backend_name(&self) -> String {
        clap::ValueEnum::to_possible_value(&self.backend)
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }

    /// A core on the chosen backend, with `fs` as its filesystem.
    pub fn core(&self, fs: ConfinedFs) -> Result<Box<dyn Core + '_>, Error> {
        if let Some(log) = &self.record {
            let grant = memdir_harness::calls::grant_of(&fs);
            return Ok(Box::new(memdir_harness::calls::Recording::new(
                self.backend_core(fs)?,
                grant,
                log.clone(),
            )));
        }
        self.backend_core(fs)
    }

    fn backend_core(&self, fs: ConfinedFs) -> Result<Box<dyn Core + '_>, Error> {
        Ok(match self.backend {
            #[cfg(feature = "native")]
            Backend::Native => Box::new(NativeCore::new(fs)),
            Backend::Component => {
                if self.runtime.get().is_none() {
                    let _ = self.runtime.set(ComponentRuntime::load()?);
                }
                Box::new(self.runtime.get().expect("set above").core(fs))
            }
        })
    }
}

/// A failed command: the exit status and a one-line message.
#[derive(Debug)]
pub struct Failure {
    /// 2 for bad input, 1 for anything else.
    pub status: i32,
    /// What went wrong, naming the file.
    pub message: String,
}

impl Failure {
    /// Bad input (exit status 2).
    pub fn input(message: impl Into<String>) -> Self {
        Failure { status: 2, message: message.into() }
    }
}

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        use memdir_harness::contract::Error as C;
        use memdir_harness::contract::FsError as F;
        let status = match &err {
            Error::Core(C::InvalidInput(_)) => 2,
            Error::Core(C::Fs(
                F::NotFound(_)
                | F::NotADirectory(_)
                | F::IsADirectory(_)
                | F::InvalidPath(_)
                | F::OutsideRoot(_),
            )) => 2,
            _ => 1,
        };
        Failure { status, message: err.to_string() }
    }
}

impl From<std::io::Error> for Failure {
    fn from(err: std::io::Error) -> Self {
        // A reader that stopped early (`memdir scan | head`) is not a failure.
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return Failure { status: 0, message: String::new() };
        }
        Failure { status: 1, message: err.to_string() }
    }
}

/// Outcome of a command body.
pub type Outcome = Result<(), Failure>;

/// A command-line value that is one of a core enum's `all`, by the core's name for each: the
/// possible values and their spelling come from the core, with no mirror enum here.
pub fn core_choice<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(all.iter().map(|v| name(*v)))
        .map(move |chosen| *all.iter().find(|v| name(**v) == chosen).expect("a possible value"))
}

/// An absolute, `/`-separated form of a path given on the command line.
pub fn absolute(path: &std::path::Path) -> Result<String, Failure> {
    let abs: PathBuf =
        std::path::absolute(path).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    abs.into_os_string()
        .into_string()
        .map_err(|_| Failure::input(format!("{}: the path is not UTF-8", path.display())))
}

/// Grants read access to an existing directory given on the command line.
pub fn read_root(dir: &std::path::Path) -> Result<ConfinedFs, Failure> {
    ConfinedFs::new().grant_read(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Failure::input(format!("{}: no such directory", dir.display())),
        _ => Failure::input(format!("{}: {e}", dir.display())),
    })
}

/// A whole `memdir` invocation run in this process: arguments, environment and standard input
/// in, its standard output written to the last argument, its exit status back. Given to the one
/// command that runs others (`memdir bench --hooks`), so that no command reaches up for it.
#[cfg(feature = "bench")]
pub type RunCli<'a> =
    &'a dyn Fn(Vec<String>, Vec<(String, String)>, Option<Vec<u8>>, &mut dyn std::io::Write) -> i32;
