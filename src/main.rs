//! The `netarena` command: parses the command line into configs and runs one side.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            // The terminal is already restored here (guards drop before we return).
            eprintln!("netarena: {e:#}");
            ExitCode::FAILURE
        }
    }
}
