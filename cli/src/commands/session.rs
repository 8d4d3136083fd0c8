//! `memdir session compact`: the conversation was compacted, so what recall injected is gone
//! from the context and the session's counters start again (R8.2). Also the session file I/O
//! that `memdir recall --session` shares.

use crate::context::{Context, Outcome};
use crate::ops::session::{load_session, save_session, session_totals};
use std::io::Write;
use std::path::PathBuf;

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

/// Runs the command: the session becomes a new one (R8.2).
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    match args.action {
        Action::Compact { session } => {
            let before = load_session(ctx, Some(&session))?;
            let totals = session_totals(ctx, &session, &before)?;
            save_session(&session, "")?;
            writeln!(
                out,
                "session compacted: {} memories and {} bytes forgotten",
                totals.surfaced, totals.session_bytes
            )?;
        }
    }
    Ok(())
}
