//! `memdir session compact`: the conversation was compacted, so what recall injected is gone
//! from the context and the session's counters start again (R8.2). Also the session file I/O
//! that `memdir recall --session` shares.

use crate::cli::{Context, Failure, Outcome};
use memdir_core::budget::Session;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `memdir session`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with a session.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Reset the session after the conversation was compacted.
    Compact {
        /// The session file.
        #[arg(long)]
        session: PathBuf,
    },
}

/// The session in `path`; a new one when there is no path or no file yet.
pub fn load_session(path: Option<&Path>) -> Result<Session, Failure> {
    let Some(path) = path else { return Ok(Session::new()) };
    match std::fs::read_to_string(path) {
        Ok(text) => Session::from_json(&text).map_err(|e| {
            Failure::input(format!(
                "{}: not a memdir session file ({e}); remove it to start afresh",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Session::new()),
        Err(e) => Err(Failure::input(format!("{}: {e}", path.display()))),
    }
}

/// Writes the session atomically (a temporary file beside it, then a rename).
pub fn save_session(path: &Path, session: &Session) -> Result<(), Failure> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Failure::input(format!("{}: cannot write the session here: {e}", dir.display())))?;
    tmp.write_all(session.to_json().as_bytes())?;
    tmp.persist(path).map_err(|e| Failure::input(format!("{}: {}", path.display(), e.error)))?;
    Ok(())
}

/// Runs the command.
pub fn run(_ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    match args.action {
        Action::Compact { session } => {
            let before = load_session(Some(&session))?;
            let mut after = before.clone();
            after.compact();
            save_session(&session, &after)?;
            writeln!(
                out,
                "session compacted: {} memories and {} bytes forgotten",
                before.surfaced().len(),
                before.session_bytes()
            )?;
        }
    }
    Ok(())
}
