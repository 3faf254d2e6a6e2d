//! `lab matrix`: one scenario over a grid of two axes, chosen observables in each cell.

use super::Outcome;
use crate::error::LabError;
use crate::experiments::matrix::{self, Axis};
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::scenario::Scenario;

/// `lab matrix`.
#[derive(Debug, Clone)]
pub struct MatrixCmd {
    /// The scenario (the built-in prototype replay unless one is given).
    pub scenario: Scenario,
    pub rows: Axis,
    pub cols: Axis,
    /// Observable names, checked by the run.
    pub observe: Vec<String>,
    pub options: RunOptions,
    pub format: Format,
}

pub(crate) fn execute(cmd: &MatrixCmd) -> Result<Outcome, LabError> {
    let report = matrix::run(
        &cmd.scenario,
        &cmd.rows,
        &cmd.cols,
        &cmd.observe,
        &cmd.options,
    )?;
    Ok(Outcome::new(render::matrix(&report, cmd.format), true))
}
