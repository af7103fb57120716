//! The `netarena` command: parses the command line into configs and runs one side.

mod cli;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            // The terminal is already restored here (guards drop before we return).
            // stderr may be gone (a closed terminal): nothing to do about that.
            let _ = writeln!(std::io::stderr(), "netarena: {e:#}");
            ExitCode::FAILURE
        }
    }
}
