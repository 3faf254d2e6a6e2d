//! `lab montecarlo`: N generated sessions under profiles × a switch grid, per cell the mean and
//! a 95% interval of each loss; with a shard, one slice's sums as JSON for `lab merge`.

use std::path::PathBuf;

use super::{Outcome, write_chart};
use crate::error::LabError;
use crate::experiments::montecarlo::{self as mc, Study};
use crate::render::{self, Format};

/// `lab montecarlo`.
#[derive(Debug, Clone)]
pub struct MonteCarloCmd {
    /// Sessions, generator and cells (profile names and switch values, checked by the run).
    pub study: Study,
    /// `(K, N)`: run slice K of N and print its sums.
    pub shard: Option<(u64, u64)>,
    /// Worker threads (one per core by default); the output does not depend on it.
    pub threads: Option<usize>,
    /// The format of the result (a shard is always JSON).
    pub format: Format,
    /// `--chart`: where to draw P(any loss) per cell as SVG (never with a shard).
    pub chart: Option<PathBuf>,
}

pub(crate) fn execute(
    cmd: &MonteCarloCmd,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    let (index, of) = cmd.shard.unwrap_or((1, 1));
    let shard = mc::run_with_threads(&cmd.study, index, of, cmd.threads, progress)?;
    if cmd.shard.is_some() {
        return Ok(Outcome::new(render::json(&shard), true));
    }
    let report = mc::report(&shard);
    if let Some(path) = &cmd.chart {
        write_chart(path, &render::forest::montecarlo_svg(&report))?;
    }
    Ok(Outcome::new(render::montecarlo(&report, cmd.format), true))
}
