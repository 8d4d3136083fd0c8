//! The `memdir` command: a thin shell over [`memdir_cli`].

fn main() {
    let env = std::env::vars().collect();
    let status = memdir_cli::run(
        std::env::args(),
        env,
        // Not locked for the whole run: `memdir mcp` writes stdout from its own threads.
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    std::process::exit(status);
}
