//! `lab explain`: what happened to one tool result, step by step, and why (compaction runs only;
//! `lab run` prints a memory run's trace).

use super::Outcome;
use crate::compaction::{driver, explain};
use crate::error::LabError;
use crate::experiments::breaks::Break;
use crate::memory;
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::scenario::Scenario;

/// `lab explain`.
#[derive(Debug, Clone)]
pub struct ExplainCmd {
    /// A scenario that runs a compaction profile (see [`refuse_memory_profile`]).
    pub scenario: Scenario,
    /// The tool_use_id of the result.
    pub id: String,
    pub options: RunOptions,
    /// Explain the run with this break applied.
    pub brk: Option<Break>,
    pub format: Format,
}

/// Refuses a scenario that runs under a memory profile. The edge calls this before it parses
/// `--break`, so that this message comes first.
pub fn refuse_memory_profile(scenario: &Scenario, options: &RunOptions) -> Result<(), LabError> {
    match memory::run::memory_profile(scenario, options) {
        Some(memory) => Err(LabError::Usage(format!(
            "{}: explain follows tool results through compaction, and {} is a memory \
             profile; `lab run` prints a memory run's trace",
            scenario.file, memory.name
        ))),
        None => Ok(()),
    }
}

pub(crate) fn execute(cmd: &ExplainCmd) -> Result<Outcome, LabError> {
    let options = match &cmd.brk {
        Some(brk) => brk.apply(&cmd.options),
        None => cmd.options.clone(),
    };
    let report = driver::run(&cmd.scenario, &options)?;
    let explanation = explain::explain(&report, &cmd.id)?;
    Ok(Outcome::new(
        render::explain(&explanation, cmd.format),
        true,
    ))
}
