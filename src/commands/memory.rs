//! `lab memory`: a memory break (MB1..MB5) on its probe scenario or a given one, baseline
//! against broken, or the 60-session growth experiment against the reverse gate.

use super::Outcome;
use crate::error::LabError;
use crate::memory::{self, breaks::MemoryBreak};
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::scenario::Scenario;

/// `lab memory`.
#[expect(
    clippy::large_enum_variant,
    reason = "one value per process: its size does not matter"
)]
#[derive(Debug, Clone)]
pub enum MemoryCmd {
    /// `--break`: each break against the baseline.
    Breaks {
        breaks: Vec<MemoryBreak>,
        /// Run every break on this scenario instead of each break's probe.
        scenario: Option<Scenario>,
        options: RunOptions,
        format: Format,
    },
    /// `--growth`: memory-main against chunked consolidation.
    Growth { format: Format },
}

pub(crate) fn execute(cmd: &MemoryCmd) -> Result<Outcome, LabError> {
    match cmd {
        MemoryCmd::Breaks {
            breaks,
            scenario,
            options,
            format,
        } => {
            let report = memory::breaks::run(breaks, scenario.as_ref(), options)?;
            Ok(Outcome::new(render::memory_breaks(&report, *format), true))
        }
        MemoryCmd::Growth { format } => {
            let report = memory::growth::run();
            Ok(Outcome::new(render::memory_growth(&report, *format), true))
        }
    }
}
