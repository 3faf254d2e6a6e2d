//! `lab sweep`: one parameter over a range, each cliff reported (the first value where an
//! observable changes).

use std::path::PathBuf;

use super::{Outcome, write_chart};
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
    /// `--chart`: where to draw the sweep as SVG (its directory checked to exist).
    pub chart: Option<PathBuf>,
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
    if let Some(path) = &cmd.chart {
        let title = report.scenario.clone();
        let svg = render::charts::sweep_svg(&[(title, report.clone())])?;
        write_chart(path, &svg)?;
    }
    Ok(Outcome::new(render::sweep(&report, cmd.format), true))
}
