//! `lab --selftest`: the companion prototype's own selftest, on the lab's models. The baseline
//! probe must show every large result persisted (a1..a3, b1..b3), nothing lost, pairs intact, a
//! makespan of 4.0, the deny-listed command never run, the late tool run, and a background
//! notification that does not reuse a tool_use_id.

use serde::Serialize;
use serde_json::Value;

use super::observe::flatten_probe;
use super::prototype_replay;
use crate::compaction::driver::{self, resolve_profile};
use crate::compaction::prototype;
use crate::error::LabError;
use crate::fmt::text;
use crate::options::RunOptions;

/// One selftest assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assertion {
    pub what: String,
    pub expected: String,
    pub measured: String,
    pub ok: bool,
}

/// The selftest: the baseline probe and its assertions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selftest {
    pub baseline: Vec<(String, Value)>,
    pub assertions: Vec<Assertion>,
}

impl Selftest {
    pub fn passed(&self) -> bool {
        self.assertions.iter().all(|a| a.ok)
    }
}

/// Runs the selftest.
pub fn run(options: &RunOptions) -> Result<Selftest, LabError> {
    let scenario = prototype_replay();
    let profile = resolve_profile(&scenario, options)?;
    let report = driver::run(&scenario, options)?;
    let (baseline, _) = flatten_probe(&prototype::probe(&profile.switches), &report.observables);
    let value = |key: &str| {
        baseline
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .expect("probe key")
    };
    let files = serde_json::json!(["a1.txt", "a2.txt", "a3.txt", "b1.txt", "b2.txt", "b3.txt"]);
    let checks: [(&str, &str, Value); 8] = [
        ("the first tool runs", "ran_first_tool", Value::Bool(true)),
        (
            "the tool of the distorted turn still runs",
            "ran_late_tool",
            Value::Bool(true),
        ),
        (
            "the deny-listed command never runs",
            "ran_deny_listed",
            Value::Bool(false),
        ),
        (
            "all six large results are persisted",
            "persisted_files",
            files,
        ),
        (
            "no result is dropped unsaved",
            "dropped_unsaved",
            Value::from(0),
        ),
        (
            "pairs stay intact after the cut",
            "pairs_intact",
            Value::Bool(true),
        ),
        (
            "the barrier-free pipeline takes 4.0",
            "makespan",
            Value::from(4.0),
        ),
        (
            "a background notification does not reuse a tool_use_id",
            "notify_reuses_id",
            Value::Bool(false),
        ),
    ];
    let assertions = checks
        .into_iter()
        .map(|(what, key, expected)| {
            let measured = value(key);
            Assertion {
                what: format!("{what} ({key})"),
                ok: text(&measured) == text(&expected),
                expected: text(&expected),
                measured: text(&measured),
            }
        })
        .collect();
    Ok(Selftest {
        baseline,
        assertions,
    })
}
