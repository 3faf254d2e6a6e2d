//! The `lab` binary: parse arguments, call the library, print, map errors to exit codes
//! (0 ok, 1 an expectation or check failed, 2 bad usage or input).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

/// The progress of long commands on stderr, drawn only when stderr is a terminal and the job has
/// at least 20 steps (indicatif: rate-limited redraws, an ETA, a clean clear at the end).
struct Progress {
    enabled: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    fn new() -> Self {
        Progress {
            enabled: std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    fn update(&mut self, done: usize, total: usize) {
        if !self.enabled || total < 20 {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let style = ProgressStyle::with_template("[{bar:30}] {pos}/{len} eta {eta}")
                .expect("a valid template")
                .progress_chars("# ");
            ProgressBar::new(total as u64).with_style(style)
        });
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    }

    /// Clears the bar, also when a search stops before its budget.
    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn main() -> ExitCode {
    lab::allocator::keep_freed_memory();
    let cli = lab::cli::Cli::parse_args();
    let mut progress = Progress::new();
    let result = lab::cli::run(cli, &mut |done, total| progress.update(done, total));
    progress.finish();
    match result {
        Ok(outcome) => {
            if let Some(note) = &outcome.note {
                eprintln!("lab: {note}");
            }
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
