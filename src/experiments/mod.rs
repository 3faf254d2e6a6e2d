//! Experiments: named breaks, n×m matrices, parameter sweeps with cliff detection, and the
//! findings registry that `lab verify` and `lab report` check (SPEC §6-§7).

pub mod breaks;
pub mod compare;
pub mod findings;
pub mod matrix;
pub mod montecarlo;
pub mod selftest;
pub mod sweep;
pub mod verify;

use serde_json::Value;

use crate::compaction::driver::{self, RunReport};
use crate::compaction::observables::Observables;
use crate::compaction::prototype::LayerObservables;
use crate::compaction::store;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// The companion prototype's scripted replay, built in (the same file as
/// `scenarios/prototype-replay.json`).
pub const PROTOTYPE_REPLAY: &str = include_str!("../../scenarios/prototype-replay.json");

/// The built-in prototype replay as a scenario.
pub fn prototype_replay() -> Scenario {
    Scenario::parse(
        "scenarios/prototype-replay.json",
        "prototype-replay",
        PROTOTYPE_REPLAY,
    )
    .expect("the built-in prototype replay is a valid scenario")
}

/// Observables as `(name, value)` pairs, in output order.
pub type Flat = Vec<(String, Value)>;

/// Observables as `(name, value)` pairs in output order.
pub fn flatten(observables: &Observables) -> Flat {
    let value = serde_json::to_value(observables).expect("observables serialise");
    value
        .as_object()
        .expect("observables are an object")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The prototype's `probe` keys, in its order.
pub const PROBE_KEYS: [&str; 9] = [
    "ran_deny_listed",
    "ran_first_tool",
    "ran_late_tool",
    "persisted_files",
    "lost_forever",
    "pointer_lost",
    "pairs_intact",
    "makespan",
    "notify_reuses_id",
];

/// The prototype's observables (its `probe` keys, in its order) and, separately, the lab's
/// other observables of the same run.
pub fn flatten_probe(layers: &LayerObservables, observables: &Observables) -> (Flat, Flat) {
    let layer = serde_json::to_value(layers).expect("layer observables serialise");
    let lab = flatten(observables);
    let probe = PROBE_KEYS
        .iter()
        .map(|key| {
            let value = match layer.get(*key) {
                Some(value) => value.clone(),
                None => observable_value(&lab, key).expect("a probe key is an observable"),
            };
            ((*key).to_owned(), value)
        })
        .collect();
    let rest = lab
        .into_iter()
        .filter(|(name, _)| !PROBE_KEYS.contains(&name.as_str()))
        .collect();
    (probe, rest)
}

/// Names accepted by `--observe`: the lab's observables and the prototype layers'.
pub fn observable_value(flat: &[(String, Value)], name: &str) -> Option<Value> {
    flat.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// A spill directory such that `dir/basename` has exactly `file_len` characters.
pub fn spill_dir_for(file_len: usize, basename: &str) -> Result<String, LabError> {
    let need = basename.chars().count() + 3;
    if file_len < need {
        return Err(LabError::Usage(format!(
            "a spill file path of {file_len} chars cannot hold `/x/{basename}` (at least {need})"
        )));
    }
    let dir_len = file_len - basename.chars().count() - 1;
    let frame = "/lab//tool-results".len();
    Ok(if dir_len > frame {
        format!("/lab/{}/tool-results", "p".repeat(dir_len - frame))
    } else {
        format!("/{}", "p".repeat(dir_len - 1))
    })
}

/// Path experiments make up spill directories (`/lab/ppp…/tool-results`); on the real-directory
/// store they would be created on the machine, so they run on the memory store only.
pub fn refuse_real_paths(options: &RunOptions) -> Result<(), LabError> {
    if options.store == crate::compaction::store::StoreKind::Dir {
        return Err(LabError::Usage(
            "a spill path experiment invents directories; run it on the memory store (drop --store dir)"
                .to_owned(),
        ));
    }
    Ok(())
}

/// The spill file a path experiment measures: the first file the baseline run persists.
pub fn reference_file(scenario: &Scenario, options: &RunOptions) -> Result<String, LabError> {
    let report = driver::run(scenario, options)?;
    report
        .observables
        .persisted_files
        .first()
        .cloned()
        .ok_or_else(|| {
            LabError::Usage(format!(
                "{}: the run spills no file, so there is no spill path to vary",
                scenario.file
            ))
        })
}

/// The spill path of a report's first persisted file and its length.
pub fn spill_path_of(report: &RunReport) -> Option<(String, usize)> {
    let name = report.observables.persisted_files.first()?;
    let path = store::join(&report.spill_dir, name);
    let len = path.chars().count();
    Some((path, len))
}

/// Compact text of a value for tables: strings bare, the rest as JSON.
pub fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
