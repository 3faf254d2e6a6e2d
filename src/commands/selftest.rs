//! `lab --selftest`: the companion prototype's own selftest, run on the lab's models; exit 1
//! when a check fails.

use super::Outcome;
use crate::error::LabError;
use crate::experiments::selftest;
use crate::options::RunOptions;
use crate::render::{self, Format};

/// `lab --selftest`.
#[derive(Debug, Clone)]
pub struct SelftestCmd {
    /// Options of the prototype replay (only `--spill-dir` on the command line).
    pub options: RunOptions,
    pub format: Format,
}

pub(crate) fn execute(cmd: &SelftestCmd) -> Result<Outcome, LabError> {
    let report = selftest::run(&cmd.options)?;
    Ok(Outcome::new(
        render::selftest(&report, cmd.format),
        report.passed(),
    ))
}
