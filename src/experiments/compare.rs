//! `lab compare`: the same scenarios under several profiles, side by side. Each cell comes from
//! a run; a scenario a profile cannot run (a stage or step it lacks) is marked, not guessed.

use serde::Serialize;
use serde_json::Value;

use super::observe::flatten;
use crate::compaction::driver;
use crate::compaction::profile::{self, Profile};
use crate::diff::observable_value;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// The observables a comparison shows, in order.
pub const COLUMNS: [&str; 11] = [
    "dropped_unsaved",
    "pointer_lost",
    "unrecoverable",
    "forged_pointers",
    "pairs_intact",
    "api_valid",
    "peak_context_size",
    "context_size",
    "model_calls",
    "spill_chars",
    "transcripts",
];

/// One scenario under one profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareRow {
    pub scenario: String,
    pub profile: String,
    /// The unit of the context sizes (`chars` or `tokens`).
    pub unit: String,
    /// Values in `COLUMNS` order; empty when the profile cannot run the scenario.
    pub values: Vec<Value>,
    /// The final context by the one rule for every profile ([`profile::COMMON_RULE`]).
    pub common_tokens: Option<usize>,
    /// Why the profile cannot run the scenario.
    pub error: Option<String>,
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareReport {
    pub profiles: Vec<String>,
    pub scenarios: Vec<String>,
    pub columns: Vec<String>,
    pub rows: Vec<CompareRow>,
}

/// Profiles by name (all when `names` is empty).
pub fn profiles(names: &[String]) -> Result<Vec<&'static Profile>, LabError> {
    if names.is_empty() {
        return Ok(profile::PROFILES.iter().collect());
    }
    names
        .iter()
        .map(|name| {
            profile::by_name(name).ok_or_else(|| {
                LabError::Usage(format!(
                    "unknown profile `{name}` (known: {})",
                    profile::names()
                ))
            })
        })
        .collect()
}

/// Runs every scenario under every profile.
pub fn run(profiles: &[&Profile], scenarios: &[Scenario]) -> Result<CompareReport, LabError> {
    let mut rows = Vec::new();
    for scenario in scenarios {
        for profile in profiles {
            let options = RunOptions {
                profile: Some(profile.name.to_owned()),
                ..RunOptions::default()
            };
            let row = match driver::run(scenario, &options) {
                Ok(report) => {
                    let flat = flatten(&report.observables);
                    CompareRow {
                        scenario: scenario.name.clone(),
                        profile: profile.name.to_owned(),
                        unit: profile.estimator.unit().to_owned(),
                        values: COLUMNS
                            .iter()
                            .map(|c| observable_value(&flat, c).unwrap_or(Value::Null))
                            .collect(),
                        common_tokens: Some(profile::common_tokens(&report.messages)),
                        error: None,
                    }
                }
                Err(LabError::Scenario(error)) => CompareRow {
                    scenario: scenario.name.clone(),
                    profile: profile.name.to_owned(),
                    unit: profile.estimator.unit().to_owned(),
                    values: Vec::new(),
                    common_tokens: None,
                    error: Some(error.to_string()),
                },
                Err(other) => return Err(other),
            };
            rows.push(row);
        }
    }
    Ok(CompareReport {
        profiles: profiles.iter().map(|p| p.name.to_owned()).collect(),
        scenarios: scenarios.iter().map(|s| s.name.clone()).collect(),
        columns: COLUMNS.iter().map(|c| (*c).to_owned()).collect(),
        rows,
    })
}
