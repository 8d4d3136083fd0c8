//! `memdir completions SHELL` and `memdir man`: shell completions and the man page, made from
//! the same clap definitions as the command line itself (release artefacts, `scripts/release`).

use crate::context::Outcome;
use std::io::Write;

/// Arguments of `memdir completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for a shell; `cli` is the whole command line's definition.
pub fn completions(mut cli: clap::Command, args: CompletionsArgs, out: &mut dyn Write) -> Outcome {
    // Generated whole first: the generator panics on a write error, a closed pipe included.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "memdir", &mut script);
    out.write_all(&script)?;
    Ok(())
}

/// Prints the man page (roff) of `cli`, the whole command line's definition.
pub fn man(cli: clap::Command, out: &mut dyn Write) -> Outcome {
    clap_mangen::Man::new(cli).render(out)?;
    Ok(())
}
