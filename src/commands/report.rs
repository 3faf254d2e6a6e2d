//! `lab report`: writes the markdown reports (findings, breaks, matrix, sweep with an SVG chart),
//! or checks that the checked-in ones are current (exit 1 and the first difference when stale).

use std::path::PathBuf;

use super::Outcome;
use crate::error::LabError;
use crate::report;

/// `lab report`.
#[derive(Debug, Clone)]
pub struct ReportCmd {
    /// Directory of the reports.
    pub out: PathBuf,
    /// Compare instead of writing.
    pub check: bool,
}

pub(crate) fn execute(cmd: &ReportCmd) -> Result<Outcome, LabError> {
    let done = report::report(&cmd.out, cmd.check)?;
    let text = match (&done.stale, cmd.check) {
        (Some(diff), _) => {
            format!("stale report: {diff}\nregenerate with `cargo run --release -- report`\n")
        }
        (None, true) => format!(
            "{} reports in {} are up to date\n",
            done.files.len(),
            cmd.out.display()
        ),
        (None, false) => format!(
            "wrote {} reports to {}: {}\n",
            done.files.len(),
            cmd.out.display(),
            done.files.join(", ")
        ),
    };
    Ok(Outcome::new(text, done.stale.is_none()))
}
