//! A recall session kept in a file (R8.2): read, checked by the core, written atomically.

use crate::context::{Context, Failure};
use memdir_harness::ConfinedFs;
use memdir_harness::contract::budget::Totals;
use std::io::Write;
use std::path::Path;

/// The session kept in `path` (its JSON, as recall returned it); empty — a new session — when
/// there is no path or no file yet. The core checks it: text that is not a session is refused.
pub fn load_session(ctx: &Context, path: Option<&Path>) -> Result<String, Failure> {
    let Some(path) = path else { return Ok(String::new()) };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(Failure::input(format!("{}: {e}", path.display()))),
    };
    session_totals(ctx, path, &text)?;
    Ok(text)
}

pub fn session_totals(ctx: &Context, path: &Path, text: &str) -> Result<Totals, Failure> {
    ctx.core(ConfinedFs::new())?.session_totals(text).map_err(|e| {
        Failure::input(format!(
            "{}: not a memdir session file ({e}); remove it to start afresh",
            path.display()
        ))
    })
}

/// Writes the session atomically (a temporary file beside it, then a rename).
pub fn save_session(path: &Path, session: &str) -> Result<(), Failure> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| Failure::input(format!("{}: cannot write the session here: {e}", dir.display())))?;
    tmp.write_all(session.as_bytes())?;
    tmp.persist(path).map_err(|e| Failure::input(format!("{}: {}", path.display(), e.error)))?;
    Ok(())
}
