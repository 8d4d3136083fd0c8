//! `memdir completions SHELL` and `memdir man`: shell completions and the man page, made from
//! the same clap definitions as the command line itself (release artefacts, `scripts/release`).

use crate::{Cli, Outcome};
use clap::CommandFactory;
use std::io::Write;

/// Arguments of `memdir completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for a shell.
pub fn completions(args: CompletionsArgs, out: &mut dyn Write) -> Outcome {
    // Generated whole first: the generator panics on a write error, a closed pipe included.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "memdir", &mut script);
    out.write_all(&script)?;
    Ok(())
}

/// Prints the man page (roff).
pub fn man(out: &mut dyn Write) -> Outcome {
    clap_mangen::Man::new(Cli::command()).render(out)?;
    Ok(())
}
