//! `lab compare`: scenarios run under several profiles, key observables side by side.

use std::path::PathBuf;

use super::Outcome;
use crate::compaction::profile::Profile;
use crate::error::LabError;
use crate::experiments::{self, verify};
use crate::render::{self, Format};
use crate::scenario::Scenario;

/// `lab compare`.
#[derive(Debug, Clone)]
pub struct CompareCmd {
    /// The compaction profiles, in the order given (all of them by default).
    pub profiles: Vec<&'static Profile>,
    pub scenarios: Vec<Scenario>,
    pub format: Format,
}

/// Loads the scenarios of `paths` in order; a directory gives every `*.json` under it, sorted
/// by path.
pub fn load_scenarios(paths: &[PathBuf]) -> Result<Vec<Scenario>, LabError> {
    let mut scenarios = Vec::new();
    for path in paths {
        if path.is_dir() {
            for file in verify::scenario_files(path)? {
                scenarios.push(Scenario::load(&file)?);
            }
        } else {
            scenarios.push(Scenario::load(path)?);
        }
    }
    Ok(scenarios)
}

pub(crate) fn execute(cmd: &CompareCmd) -> Result<Outcome, LabError> {
    let report = experiments::compare::run(&cmd.profiles, &cmd.scenarios)?;
    Ok(Outcome::new(render::compare(&report, cmd.format), true))
}
