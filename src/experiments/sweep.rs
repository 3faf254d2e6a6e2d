//! `lab sweep`: vary one parameter over a range (the spill file path length, a constant, or one
//! result's size), one run per value, and find each cliff: the first value at which an observable
//! differs from the value before it ("pointer_lost 0 → 1 at spill file path length 90", F5).

use serde::Serialize;
use serde_json::Value;

use super::matrix::check_observe;
use super::observe::flatten;
use super::spill::{reference_file, refuse_real_paths, spill_dir_for};
use crate::call_id::CallId;
use crate::compaction::driver::{self, resolve_profile};
use crate::diff::observable_value;
use crate::error::LabError;
use crate::fmt::text;
use crate::limits;
use crate::options::RunOptions;
use crate::scenario::{Body, Scenario, Step};

/// What a sweep varies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Vary {
    /// The length of the reference spill file's path.
    Path,
    /// A constant of the profile.
    Constant { name: String },
    /// The size (`chars`) of one result.
    Size { id: String },
}

impl Vary {
    /// Parses `path`, a constant name, or `size:<tool_use_id>`.
    pub fn parse(text: &str, scenario: &Scenario, options: &RunOptions) -> Result<Vary, LabError> {
        if text == "path" {
            return Ok(Vary::Path);
        }
        if let Some(id) = text.strip_prefix("size:") {
            if !scenario.calls.contains_key(&CallId::new(id)) {
                return Err(LabError::Usage(format!(
                    "--vary {text}: {} has no call `{id}`",
                    scenario.file
                )));
            }
            return Ok(Vary::Size { id: id.to_owned() });
        }
        let profile = resolve_profile(scenario, options)?;
        if profile.has_constant(text) {
            return Ok(Vary::Constant {
                name: text.to_owned(),
            });
        }
        Err(LabError::Usage(format!(
            "--vary {text}: expected `path`, `size:<id>` or a constant of profile {} ({})",
            profile.name,
            profile.constant_names.join(", ")
        )))
    }

    /// Header of the varied column.
    pub fn title(&self) -> String {
        match self {
            Vary::Path => "spill file path length".to_owned(),
            Vary::Constant { name } => name.clone(),
            Vary::Size { id } => format!("size of {id}"),
        }
    }
}

/// One value of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    pub value: usize,
    /// Observed values, in `observe` order.
    pub values: Vec<Value>,
}

/// One cliff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cliff {
    pub observable: String,
    pub from: Value,
    pub to: Value,
    /// The first value of the parameter with the new observable value.
    pub at: usize,
}

impl Cliff {
    /// `pointer_lost 0 → 1 at spill file path length 90`.
    pub fn describe(&self, vary: &Vary) -> String {
        format!(
            "{} {} → {} at {} {}",
            self.observable,
            text(&self.from),
            text(&self.to),
            vary.title(),
            self.at
        )
    }
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepReport {
    pub scenario: String,
    pub profile: String,
    pub vary: Vary,
    /// Switch overrides in force (e.g. `unseen_guard=off`).
    pub switches: Vec<String>,
    /// The reference spill file of a path sweep.
    pub reference_file: Option<String>,
    pub observe: Vec<String>,
    pub rows: Vec<SweepRow>,
    pub cliffs: Vec<Cliff>,
}

/// The values `from..=to` by `step`.
pub fn range(from: usize, to: usize, step: usize) -> Result<Vec<usize>, LabError> {
    if step == 0 || from > to {
        return Err(LabError::Usage(format!(
            "a sweep needs from ≤ to and step ≥ 1 (got {from}..{to} by {step})"
        )));
    }
    if to > limits::MAX_SWEEP_VALUE {
        return Err(LabError::Usage(format!(
            "a sweep value may be at most {} (got to = {to}; docs/limits.md)",
            limits::MAX_SWEEP_VALUE
        )));
    }
    let points = (to - from) / step + 1;
    if points > limits::MAX_SWEEP_POINTS {
        return Err(LabError::Usage(format!(
            "{from}..{to} by {step} is {points} points, over the limit of {} (docs/limits.md); \
             use a larger --step",
            limits::MAX_SWEEP_POINTS
        )));
    }
    Ok((from..=to).step_by(step).collect())
}

fn with_size(scenario: &Scenario, id: &str, size: usize) -> Scenario {
    let mut next = scenario.clone();
    for step in &mut next.steps {
        let results = match step {
            Step::Results(results) | Step::Turn { results, .. } => results,
            _ => continue,
        };
        for result in results.iter_mut().filter(|r| r.id == id) {
            result.body = Body::Chars(size);
        }
    }
    next
}

/// Runs the sweep; `progress(done, total)` is called after each value.
pub fn run(
    scenario: &Scenario,
    vary: &Vary,
    values: &[usize],
    observe: &[String],
    options: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SweepReport, LabError> {
    check_observe(observe, false)?;
    let profile = resolve_profile(scenario, options)?;
    let reference = match vary {
        Vary::Path => {
            refuse_real_paths(options)?;
            Some(reference_file(scenario, options)?)
        }
        _ => None,
    };
    let mut rows = Vec::new();
    for (done, &value) in values.iter().enumerate() {
        let mut point_options = options.clone();
        let mut point = scenario.clone();
        match vary {
            Vary::Path => {
                let basename = reference.as_deref().expect("path sweeps have a reference");
                point_options.spill_dir = Some(spill_dir_for(value, basename)?);
            }
            Vary::Constant { name } => point_options
                .constants
                .push((name.clone(), value.to_string())),
            Vary::Size { id } => point = with_size(scenario, id, value),
        }
        let report = driver::run(&point, &point_options)?;
        let flat = flatten(&report.observables);
        rows.push(SweepRow {
            value,
            values: observe
                .iter()
                .map(|name| observable_value(&flat, name).unwrap_or(Value::Null))
                .collect(),
        });
        progress(done + 1, values.len());
    }
    let mut cliffs = Vec::new();
    for (index, name) in observe.iter().enumerate() {
        for pair in rows.windows(2) {
            if pair[0].values[index] != pair[1].values[index] {
                cliffs.push(Cliff {
                    observable: name.clone(),
                    from: pair[0].values[index].clone(),
                    to: pair[1].values[index].clone(),
                    at: pair[1].value,
                });
            }
        }
    }
    Ok(SweepReport {
        scenario: scenario.name.clone(),
        profile: profile.name.to_owned(),
        vary: vary.clone(),
        switches: options
            .switches
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        reference_file: reference,
        observe: observe.to_vec(),
        rows,
        cliffs,
    })
}
