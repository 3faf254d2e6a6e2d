//! The memory breaks MB1..MB5 (docs/memory.md): each turns one safeguard of memory-main off and
//! runs the finding scenario that exercises it, baseline against broken, listing every memory
//! observable that changed. `protects` names the observables the safeguard is there for; a break
//! that changes anything else is a modelling error, and the tests say so.

use serde::Serialize;

use super::observables::Observables;
use crate::diff::{Change, Flat};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::replay::{Ran, run_any};
use crate::scenario::Scenario;

/// One memory break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBreak {
    pub name: &'static str,
    /// What it does, in words.
    pub label: &'static str,
    /// The switch it turns and the value it sets.
    pub switch: &'static str,
    pub value: &'static str,
    /// The scenario it runs unless another is given, and its text.
    pub probe: &'static str,
    pub probe_text: &'static str,
    /// The observables the safeguard protects: the only ones the break may change.
    pub protects: &'static [&'static str],
}

macro_rules! probe {
    ($file:literal) => {
        (
            $file,
            include_str!(concat!("../../scenarios/memory/", $file)),
        )
    };
}

const M01: (&str, &str) = probe!("m01-index-derived.json");
const M02: (&str, &str) = probe!("m02-path-guards.json");
const M03: (&str, &str) = probe!("m03-parse-failure-vs-exception.json");
const M05: (&str, &str) = probe!("m05-storage-gates.json");
const M07: (&str, &str) = probe!("m07-consolidation-rollback.json");

/// The five breaks, in order.
pub const MEMORY_BREAKS: [MemoryBreak; 5] = [
    MemoryBreak {
        name: "MB1",
        label: "no path guard: a symlink in the store is listed, read and recalled",
        switch: "path_guard",
        value: "off",
        probe: M02.0,
        probe_text: M02.1,
        protects: &["path_escapes", "recalled", "index_consistent"],
    },
    MemoryBreak {
        name: "MB2",
        label: "MEMORY.md kept by hand: one line appended per write, never rebuilt",
        switch: "rebuild_index",
        value: "off",
        probe: M01.0,
        probe_text: M01.1,
        // MEMORY.md is a file of the store: a stale index also changes the store's size.
        protects: &["index_consistent", "store_chars"],
    },
    MemoryBreak {
        name: "MB3",
        label: "no storage gates: scope, temporary markers and duplicates all stored",
        switch: "storage_gates",
        value: "off",
        probe: M05.0,
        probe_text: M05.1,
        protects: &[
            "records",
            "temporary_stored",
            "duplicates_stored",
            "store_chars",
        ],
    },
    MemoryBreak {
        name: "MB4",
        label: "no snapshot restore: a consolidation failing mid-rewrite keeps what it wrote",
        switch: "snapshot_restore",
        value: "off",
        probe: M07.0,
        probe_text: M07.1,
        protects: &["records", "records_lost", "index_consistent", "store_chars"],
    },
    MemoryBreak {
        name: "MB5",
        label: "keyword fallback also on a reply without a JSON array",
        switch: "parse_fallback",
        value: "on",
        probe: M03.0,
        probe_text: M03.1,
        protects: &["recalled"],
    },
];

/// `MB1`..`MB5` or `all`.
pub fn parse(name: &str) -> Result<Vec<MemoryBreak>, LabError> {
    if name.eq_ignore_ascii_case("all") {
        return Ok(MEMORY_BREAKS.to_vec());
    }
    MEMORY_BREAKS
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(name))
        .map(|b| vec![*b])
        .ok_or_else(|| {
            LabError::Usage(format!(
                "unknown memory break `{name}` (expected MB1, MB2, MB3, MB4, MB5 or all)"
            ))
        })
}

impl MemoryBreak {
    /// The built-in probe scenario.
    pub fn probe_scenario(&self) -> Scenario {
        let file = format!("scenarios/memory/{}", self.probe);
        Scenario::parse(&file, &file, self.probe_text).expect("built-in probes are valid")
    }

    /// `options` with this break's switch applied last.
    pub fn apply(&self, options: &RunOptions) -> RunOptions {
        let mut broken = options.clone();
        broken
            .switches
            .push((self.switch.to_owned(), self.value.to_owned()));
        broken
    }
}

/// One break against its baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryBreakOutcome {
    pub name: String,
    pub label: String,
    /// `switch = value`.
    pub change: String,
    pub scenario: String,
    pub protects: Vec<String>,
    /// Observables that changed, in output order; empty means no observable difference.
    pub changed: Vec<Change>,
}

impl MemoryBreakOutcome {
    /// Changed observables the safeguard does not protect (empty when the model is right).
    pub fn stray(&self) -> Vec<&Change> {
        self.changed
            .iter()
            .filter(|c| !self.protects.contains(&c.observable))
            .collect()
    }
}

/// Memory breaks on one profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryBreakReport {
    pub profile: String,
    pub breaks: Vec<MemoryBreakOutcome>,
}

/// The profile a run used and its observables.
fn observe(scenario: &Scenario, options: &RunOptions) -> Result<(String, Flat), LabError> {
    match run_any(scenario, options)? {
        Ran::Memory(report) => Ok((report.profile, flatten(&report.observables))),
        Ran::Compaction(report) => Err(LabError::Usage(format!(
            "{}: memory breaks need a memory profile, not {}",
            scenario.name, report.profile
        ))),
    }
}

/// Refuses, before anything runs, a break whose profile is not a memory profile or has no
/// such safeguard (memory-site has no path guard to turn off).
fn applicable(b: &MemoryBreak, scenario: &Scenario, options: &RunOptions) -> Result<(), LabError> {
    let profile = super::run::memory_profile(scenario, options).ok_or_else(|| {
        let name = options
            .profile
            .as_deref()
            .or(scenario.profile.as_deref())
            .unwrap_or(crate::compaction::profile::DEFAULT_PROFILE);
        LabError::Usage(format!(
            "{}: memory breaks need a memory profile ({}), not {name}",
            scenario.name,
            super::profile::MEMORY_PROFILES.map(|p| p.name).join(", ")
        ))
    })?;
    let name = profile.name;
    if profile.switch_names.contains(&b.switch) {
        return Ok(());
    }
    let has = match profile.switch_names {
        [] => "it has no switches".to_owned(),
        names => format!("it has: {}", names.join(", ")),
    };
    Err(LabError::Usage(format!(
        "{} ({} = {}) does not apply to {name}: the profile has no `{}` switch ({has})",
        b.name, b.switch, b.value, b.switch
    )))
}

/// Memory observables as `(name, value)` pairs, in output order.
pub fn flatten(observables: &Observables) -> Flat {
    match serde_json::to_value(observables).expect("observables serialise") {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Runs each break on its probe (or on `scenario` for all of them).
pub fn run(
    breaks: &[MemoryBreak],
    scenario: Option<&Scenario>,
    options: &RunOptions,
) -> Result<MemoryBreakReport, LabError> {
    let mut outcomes = Vec::new();
    let mut profile = String::new();
    for b in breaks {
        let probe;
        let scenario = match scenario {
            Some(s) => s,
            None => {
                probe = b.probe_scenario();
                &probe
            }
        };
        applicable(b, scenario, options)?;
        let (name, baseline) = observe(scenario, options)?;
        let (_, broken) = observe(scenario, &b.apply(options))?;
        profile = name;
        outcomes.push(MemoryBreakOutcome {
            name: b.name.to_owned(),
            label: b.label.to_owned(),
            change: format!("{} = {}", b.switch, b.value),
            scenario: scenario.name.clone(),
            protects: b.protects.iter().map(|p| (*p).to_owned()).collect(),
            changed: crate::diff::diff(&baseline, &broken),
        });
    }
    Ok(MemoryBreakReport {
        profile,
        breaks: outcomes,
    })
}
