//! The commands of the `lab` binary, one file each (nextest's `dispatch/core/*.rs`): each takes
//! a typed command, built and checked at the edge by [`crate::cli`], runs the library and
//! renders the result. [`execute`] is the whole switchboard (ripgrep's `run()`): one line per
//! command, so that every command is one library call a test can make without a process.

pub mod audit;
pub mod breaks;
pub mod compare;
pub mod explain;
pub mod generate;
pub mod import;
pub mod matrix;
pub mod memory;
pub mod merge;
pub mod montecarlo;
pub mod probe;
pub mod profiles;
pub mod report;
pub mod run;
pub mod search;
pub mod selftest;
pub mod sweep;
pub mod verify;

use std::path::Path;

use crate::error::LabError;

/// One command of the binary, its inputs read and its names parsed.
#[derive(Debug, Clone)]
pub enum Command {
    /// `lab profiles`.
    Profiles(profiles::ProfilesCmd),
    /// `lab compare`.
    Compare(compare::CompareCmd),
    /// `lab run`.
    Run(run::RunCmd),
    /// `lab explain`.
    Explain(explain::ExplainCmd),
    /// `lab verify`.
    Verify(verify::VerifyCmd),
    /// `lab --break`.
    Breaks(breaks::BreaksCmd),
    /// `lab --selftest`, and `lab` with no command but options.
    Selftest(selftest::SelftestCmd),
    /// `lab matrix`.
    Matrix(matrix::MatrixCmd),
    /// `lab sweep`.
    Sweep(sweep::SweepCmd),
    /// `lab report`.
    Report(report::ReportCmd),
    /// `lab memory`.
    Memory(memory::MemoryCmd),
    /// `lab montecarlo`.
    MonteCarlo(montecarlo::MonteCarloCmd),
    /// `lab merge`.
    Merge(merge::MergeCmd),
    /// `lab gen`.
    Gen(generate::GenCmd),
    /// `lab search`.
    Search(search::SearchCmd),
    /// `lab import`.
    Import(import::ImportArgs),
    /// `lab audit`.
    Audit(audit::AuditArgs),
    /// `lab probe`.
    Probe(probe::ProbeCmd),
}

/// What a command prints and its exit code (0, or 1 when an expectation or check failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub code: u8,
    /// One line for stderr beside the result (why a what-if run failed its expectations).
    pub note: Option<String>,
}

impl Outcome {
    /// `text` with exit code 0 when `ok`, else 1.
    pub(crate) fn new(text: String, ok: bool) -> Outcome {
        Outcome {
            text,
            code: if ok { 0 } else { 1 },
            note: None,
        }
    }
}

/// Runs one command.
pub fn execute(command: Command) -> Result<Outcome, LabError> {
    execute_with(command, &mut |_, _| {})
}

/// Runs one command; long ones (sweep, search, montecarlo) report `progress(done, total)`.
pub fn execute_with(
    command: Command,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    match command {
        Command::Profiles(cmd) => Ok(profiles::execute(&cmd)),
        Command::Compare(cmd) => compare::execute(&cmd),
        Command::Run(cmd) => run::execute(&cmd),
        Command::Explain(cmd) => explain::execute(&cmd),
        Command::Verify(cmd) => verify::execute(&cmd),
        Command::Breaks(cmd) => breaks::execute(&cmd),
        Command::Selftest(cmd) => selftest::execute(&cmd),
        Command::Matrix(cmd) => matrix::execute(&cmd),
        Command::Sweep(cmd) => sweep::execute(&cmd, progress),
        Command::Report(cmd) => report::execute(&cmd),
        Command::Memory(cmd) => memory::execute(&cmd),
        Command::MonteCarlo(cmd) => montecarlo::execute(&cmd, progress),
        Command::Merge(cmd) => merge::execute(cmd),
        Command::Gen(cmd) => generate::execute(&cmd),
        Command::Search(cmd) => search::execute(&cmd, progress),
        Command::Import(cmd) => import::execute(&cmd),
        Command::Audit(cmd) => audit::execute(&cmd, progress),
        Command::Probe(cmd) => probe::execute(&cmd),
    }
}

/// Writes a generated file, creating its directory.
fn write_file(path: &Path, text: &str) -> Result<(), LabError> {
    let error = |source| LabError::Write {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    std::fs::write(path, text).map_err(error)
}

/// Checks a `--chart FILE` path before the run: its directory exists, it is not a directory,
/// and it can be opened for writing (a probe file made here is removed again). Exit code 2 with
/// the file's name otherwise.
pub(crate) fn check_chart_path(path: &Path) -> Result<(), LabError> {
    let name = path.display();
    if path.is_dir() {
        return Err(LabError::Usage(format!(
            "--chart {name}: is a directory; name the SVG file to write"
        )));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(LabError::Usage(format!(
            "--chart {name}: the directory {} does not exist",
            dir.display()
        )));
    }
    let existed = path.exists();
    match std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
    {
        Ok(_) => {
            if !existed {
                // Only the probe made above; the chart is written after the run.
                let _ = std::fs::remove_file(path);
            }
            Ok(())
        }
        Err(e) => Err(LabError::Usage(format!(
            "--chart {name}: cannot be written: {e}"
        ))),
    }
}

/// Writes a `--chart` file where the user said, without creating directories.
fn write_chart(path: &Path, svg: &str) -> Result<(), LabError> {
    std::fs::write(path, svg).map_err(|source| LabError::Write {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments;
    use crate::options::RunOptions;
    use crate::render::Format;

    #[test]
    fn a_command_is_one_call_without_a_process() {
        let command = Command::Breaks(breaks::BreaksCmd {
            breaks: experiments::breaks::parse("D3").unwrap(),
            options: RunOptions::default(),
            format: Format::Json,
        });
        let outcome = execute(command).unwrap();
        assert_eq!(outcome.code, 0);
        assert!(outcome.text.starts_with('{'), "{}", outcome.text);
        let list = execute(Command::Search(search::SearchCmd::List {
            format: Format::default(),
        }))
        .unwrap();
        assert!(list.text.contains("dropped_unsaved"), "{}", list.text);
    }
}
