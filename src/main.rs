//! The `lab` binary: parse arguments, call the library, print, map errors to exit codes
//! (0 ok, 1 an expectation or check failed, 2 bad usage or input).

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = lab::cli::Cli::parse();
    match lab::execute(cli.into()) {
        Ok(outcome) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`lab ... | head`) is not an error.
            let _ = stdout.write_all(outcome.text.as_bytes());
            ExitCode::from(outcome.code)
        }
        Err(error @ lab::LabError::Usage(_)) => {
            eprintln!("lab: {error}");
            ExitCode::from(error.exit_code())
        }
        Err(error) => {
            eprintln!("lab: failed to {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
