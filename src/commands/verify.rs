//! `lab verify`: every scenario's expectations under a directory and the built-in findings,
//! expected against measured; exit 1 when one does not hold.

use std::path::PathBuf;

use super::Outcome;
use crate::error::LabError;
use crate::experiments::verify;
use crate::render::{self, Format};

/// `lab verify`.
#[derive(Debug, Clone)]
pub struct VerifyCmd {
    /// Searched recursively for `*.json` scenarios.
    pub dir: PathBuf,
    pub format: Format,
}

pub(crate) fn execute(cmd: &VerifyCmd) -> Result<Outcome, LabError> {
    let report = verify::verify(&cmd.dir)?;
    Ok(Outcome::new(
        render::verify(&report, cmd.format),
        report.passed(),
    ))
}
