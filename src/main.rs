//! The `lab` binary: parse arguments, call the library, print, map errors to exit codes
//! (0 ok, 1 an expectation or check failed, 2 bad usage or input).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

/// A progress bar on stderr, drawn only when stderr is a terminal and the job is long.
struct ProgressBar {
    enabled: bool,
}

impl ProgressBar {
    fn new() -> Self {
        ProgressBar {
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn draw(&mut self, done: usize, total: usize) {
        if !self.enabled || total < 20 {
            return;
        }
        const WIDTH: usize = 30;
        let filled = WIDTH * done / total.max(1);
        let mut stderr = std::io::stderr().lock();
        let _ = write!(
            stderr,
            "\r[{}{}] {done}/{total}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled)
        );
        if done == total {
            let _ = write!(stderr, "\r{}\r", " ".repeat(WIDTH + 24));
        }
        let _ = stderr.flush();
    }
}

fn main() -> ExitCode {
    let cli = lab::cli::Cli::parse();
    let mut bar = ProgressBar::new();
    match lab::execute_with(cli.into(), &mut |done, total| bar.draw(done, total)) {
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
