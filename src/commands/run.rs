//! `lab run`: one scenario under its profile (observables, results, spill store and trace), or
//! the same scenario baseline against broken for compaction breaks (D1..D6) or memory breaks
//! (MB1..MB5). A plain run exits 1 when an expectation of the scenario does not hold.

use super::Outcome;
use crate::compaction::driver;
use crate::error::LabError;
use crate::experiments::breaks::{self, Break};
use crate::memory;
use crate::memory::breaks::MemoryBreak;
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::replay::{Ran, run_any};
use crate::scenario::Scenario;

/// What `lab run` does with its scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunMode {
    /// One run, checked against the scenario's expectations.
    Plain,
    /// Compaction breaks against the baseline (`--break D1..D6|all`), on a scenario that runs
    /// a compaction profile (see [`refuse_memory_profile`]).
    Breaks(Vec<Break>),
    /// Memory breaks against the baseline (`--break MB1..MB5`).
    MemoryBreaks(Vec<MemoryBreak>),
}

/// `lab run`.
#[derive(Debug, Clone)]
pub struct RunCmd {
    pub scenario: Scenario,
    pub mode: RunMode,
    pub options: RunOptions,
    pub format: Format,
}

pub(crate) fn execute(cmd: &RunCmd) -> Result<Outcome, LabError> {
    match &cmd.mode {
        RunMode::Plain => plain(cmd),
        RunMode::Breaks(list) => compaction_breaks(cmd, list),
        RunMode::MemoryBreaks(list) => {
            let report = memory::breaks::run(list, Some(&cmd.scenario), &cmd.options)?;
            Ok(Outcome::new(
                render::memory_breaks(&report, cmd.format),
                true,
            ))
        }
    }
}

fn plain(cmd: &RunCmd) -> Result<Outcome, LabError> {
    Ok(match run_any(&cmd.scenario, &cmd.options)? {
        Ran::Compaction(report) => Outcome::new(render::run(&report, cmd.format), report.passed()),
        Ran::Memory(report) => {
            Outcome::new(render::memory_run(&report, cmd.format), report.passed())
        }
    })
}

/// Refuses compaction breaks on a scenario that runs under a memory profile. `given` is the
/// break as the user spelled it (`d1`, `all`). The edge calls this right after parsing the
/// break, before anything runs.
pub fn refuse_memory_profile(
    scenario: &Scenario,
    options: &RunOptions,
    given: &str,
) -> Result<(), LabError> {
    match memory::run::memory_profile(scenario, options) {
        Some(memory) => Err(LabError::Usage(format!(
            "{}: `{given}` is a compaction break and {} is a memory profile; \
             memory breaks are MB1..MB5 or all",
            scenario.name, memory.name
        ))),
        None => Ok(()),
    }
}

/// The breaks' changes; after a single break in text, also the broken run itself.
fn compaction_breaks(cmd: &RunCmd, list: &[Break]) -> Result<Outcome, LabError> {
    let report = breaks::run(Some(&cmd.scenario), list, &cmd.options)?;
    let mut text = render::breaks(&report, cmd.format);
    if let [single] = list {
        if cmd.format != Format::Json {
            let broken = driver::run(&cmd.scenario, &single.apply(&cmd.options))?;
            text.push_str(&format!("\nthe run with {}:\n\n", single.name));
            text.push_str(&render::run(&broken, cmd.format));
        }
    }
    Ok(Outcome::new(text, true))
}
