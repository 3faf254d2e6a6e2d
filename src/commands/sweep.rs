//! `lab sweep`: one parameter over a range, each cliff reported (the first value where an
//! observable changes).

use super::Outcome;
use crate::error::LabError;
use crate::experiments::sweep::{self, Vary};
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::scenario::Scenario;

/// `lab sweep`.
#[derive(Debug, Clone)]
pub struct SweepCmd {
    /// The scenario (the built-in prototype replay unless one is given).
    pub scenario: Scenario,
    pub vary: Vary,
    /// The values, in order (`--from`, `--to` inclusive, by `--step`).
    pub values: Vec<usize>,
    /// Observable names, checked by the run.
    pub observe: Vec<String>,
    pub options: RunOptions,
    pub format: Format,
}

pub(crate) fn execute(
    cmd: &SweepCmd,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    let report = sweep::run(
        &cmd.scenario,
        &cmd.vary,
        &cmd.values,
        &cmd.observe,
        &cmd.options,
        progress,
    )?;
    Ok(Outcome::new(render::sweep(&report, cmd.format), true))
}
