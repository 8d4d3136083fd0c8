//! The `memdir` command: a thin shell over [`memdir_harness::cli`].

fn main() {
    let env = std::env::vars().collect();
    let status = memdir_harness::cli::run(
        std::env::args(),
        env,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(status);
}
