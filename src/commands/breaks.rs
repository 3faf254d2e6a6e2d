//! `lab --break D1..D6|all`: the companion prototype's breaks on its own replay, each against
//! the baseline, listing every observable that changed.

use super::Outcome;
use crate::error::LabError;
use crate::experiments::breaks::{self, Break};
use crate::options::RunOptions;
use crate::render::{self, Format};

/// `lab --break`.
#[derive(Debug, Clone)]
pub struct BreaksCmd {
    pub breaks: Vec<Break>,
    /// Options of the prototype replay (only `--spill-dir` on the command line).
    pub options: RunOptions,
    pub format: Format,
}

pub(crate) fn execute(cmd: &BreaksCmd) -> Result<Outcome, LabError> {
    let report = breaks::run(None, &cmd.breaks, &cmd.options)?;
    Ok(Outcome::new(render::breaks(&report, cmd.format), true))
}
