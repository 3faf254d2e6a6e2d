//! `lab verify [FILE|DIR]...`: every scenario's expectations in the files and directories named
//! (default `scenarios/` when there is one) and the built-in findings, expected against
//! measured; exit 1 when one does not hold.

use std::path::PathBuf;

use super::Outcome;
use crate::error::LabError;
use crate::experiments::verify;
use crate::render::{self, Format};

/// `lab verify`.
#[derive(Debug, Clone)]
pub struct VerifyCmd {
    /// Scenario files, and directories searched recursively for `*.json` scenarios.
    pub paths: Vec<PathBuf>,
    /// Also the built-in findings (`--no-findings` turns them off).
    pub findings: bool,
    pub format: Format,
}

pub(crate) fn execute(cmd: &VerifyCmd) -> Result<Outcome, LabError> {
    let report = verify::verify(&cmd.paths, cmd.findings)?;
    Ok(Outcome::new(
        render::verify(&report, cmd.format),
        report.passed(),
    ))
}
