//! `lab matrix`: two axes (switches, constants or the spill file path length) × one scenario →
//! an n×m table of chosen observables. The seed's 2×2 (order × unseen_guard, F6) is one loop over
//! this grid; each cell whose switch set equals a named break is labelled with it.

use serde::Serialize;
use serde_json::Value;
use smol_str::SmolStr;

use super::breaks::BREAKS;
use super::observe::flatten;
use super::spill::{reference_file, refuse_real_paths, spill_dir_for};
use crate::compaction::driver::{self, resolve_profile};
use crate::compaction::observables::OBSERVABLE_NAMES;
use crate::compaction::switches::SwitchName;
use crate::diff::observable_value;
use crate::error::LabError;
use crate::limits;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// One axis of a matrix or sweep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Axis {
    /// A switch and the values it takes.
    Switch { name: String, values: Vec<String> },
    /// A constant and the values it takes.
    Constant { name: String, values: Vec<usize> },
    /// The length of the reference spill file's path.
    Path { values: Vec<usize> },
}

impl Axis {
    /// Parses `switch`, `switch=a,b`, `constant=1,2,3` or `path=28,94`.
    pub fn parse(text: &str, scenario: &Scenario, options: &RunOptions) -> Result<Axis, LabError> {
        let profile = resolve_profile(scenario, options)?;
        let (name, values) = match text.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v)),
            None => (text.trim(), None),
        };
        let list = |v: &str| -> Vec<String> {
            v.split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        };
        let numbers = |v: &str| -> Result<Vec<usize>, LabError> {
            list(v)
                .iter()
                .map(|s| {
                    let value: usize = s.parse().map_err(|_| {
                        LabError::Usage(format!(
                            "axis `{text}`: `{s}` is not a non-negative integer"
                        ))
                    })?;
                    if value > limits::MAX_SWEEP_VALUE {
                        return Err(LabError::Usage(format!(
                            "axis `{text}`: {value} is over the limit of {} (docs/limits.md)",
                            limits::MAX_SWEEP_VALUE
                        )));
                    }
                    Ok(value)
                })
                .collect::<Result<Vec<usize>, LabError>>()
                .and_then(|values| {
                    if values.len() > limits::MAX_SWEEP_POINTS {
                        return Err(LabError::Usage(format!(
                            "axis `{text}` has {} values, over the limit of {} (docs/limits.md)",
                            values.len(),
                            limits::MAX_SWEEP_POINTS
                        )));
                    }
                    Ok(values)
                })
        };
        if name == "path" {
            let values = values.ok_or_else(|| {
                LabError::Usage("axis `path` needs lengths: path=28,94".to_owned())
            })?;
            return Ok(Axis::Path {
                values: numbers(values)?,
            });
        }
        if let Some(switch) = SwitchName::parse(name).filter(|s| profile.has_switch(*s)) {
            let values = match values {
                Some(v) => list(v),
                None if switch == SwitchName::Order => vec!["intact".into(), "swapped".into()],
                None => vec!["on".into(), "off".into()],
            };
            let mut probe = profile.switches;
            for value in &values {
                probe
                    .set(switch, value)
                    .map_err(|e| LabError::Usage(format!("axis `{text}`: {e}")))?;
            }
            return Ok(Axis::Switch {
                name: name.to_owned(),
                values,
            });
        }
        if profile.has_constant(name) {
            let values = values.ok_or_else(|| {
                LabError::Usage(format!(
                    "axis `{name}` is a constant: give its values, {name}=1,2,3"
                ))
            })?;
            return Ok(Axis::Constant {
                name: name.to_owned(),
                values: numbers(values)?,
            });
        }
        Err(LabError::Usage(format!(
            "axis `{name}`: profile {} has no such switch or constant (and it is not `path`)",
            profile.name
        )))
    }

    /// The axis values as text.
    pub fn labels(&self) -> Vec<String> {
        match self {
            Axis::Switch { values, .. } => values.clone(),
            Axis::Constant { values, .. } | Axis::Path { values } => {
                values.iter().map(|v| v.to_string()).collect()
            }
        }
    }

    /// The axis name for headers.
    pub fn title(&self) -> String {
        match self {
            Axis::Switch { name, .. } | Axis::Constant { name, .. } => name.clone(),
            Axis::Path { .. } => "spill file path length".to_owned(),
        }
    }

    fn len(&self) -> usize {
        self.labels().len()
    }

    /// `options` with value `index` of this axis applied.
    pub fn apply(
        &self,
        index: usize,
        options: &RunOptions,
        reference: Option<&str>,
    ) -> Result<RunOptions, LabError> {
        let mut next = options.clone();
        match self {
            Axis::Switch { name, values } => {
                next.switches.push((name.clone(), values[index].clone()))
            }
            Axis::Constant { name, values } => next
                .constants
                .push((name.clone(), values[index].to_string())),
            Axis::Path { values } => {
                let basename = reference.expect("a path axis has a reference file");
                next.spill_dir = Some(spill_dir_for(values[index], basename)?);
            }
        }
        Ok(next)
    }
}

/// Checks `--observe` names.
pub fn check_observe(names: &[String], with_layers: bool) -> Result<(), LabError> {
    const LAYER: [&str; 5] = [
        "ran_deny_listed",
        "ran_first_tool",
        "ran_late_tool",
        "makespan",
        "notify_reuses_id",
    ];
    for name in names {
        let known = OBSERVABLE_NAMES.contains(&name.as_str())
            || (with_layers && LAYER.contains(&name.as_str()));
        if !known {
            return Err(LabError::Usage(format!(
                "unknown observable `{name}` (one of: {})",
                OBSERVABLE_NAMES.join(", ")
            )));
        }
    }
    if names.is_empty() {
        return Err(LabError::Usage(
            "--observe needs at least one observable".to_owned(),
        ));
    }
    Ok(())
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    /// The observed values, in `observe` order.
    pub values: Vec<Value>,
    /// `baseline`, or the break whose switch set this cell is.
    pub label: Option<String>,
}

/// An n×m table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixReport {
    pub scenario: String,
    pub profile: String,
    /// The reference spill file and its path length in the baseline (path axes measure it).
    pub reference_file: Option<String>,
    pub spill_path_chars: Option<usize>,
    pub rows: Axis,
    pub cols: Axis,
    pub observe: Vec<String>,
    /// `cells[row][col]`.
    pub cells: Vec<Vec<Cell>>,
}

/// `baseline` when the cell's switches are the scenario's own (its file's switches over the
/// profile defaults) and its constants those of the run, the name of the break whose changes they
/// are, or nothing. Spill paths may differ: a path axis shows D6 at each length.
fn label(
    scenario: &Scenario,
    cell: &RunOptions,
    base: &RunOptions,
) -> Result<Option<String>, LabError> {
    let own = resolve_profile(scenario, &RunOptions::default())?;
    let base = resolve_profile(scenario, base)?;
    let cell = resolve_profile(scenario, cell)?;
    // A cell with other constants is no longer the baseline nor a break of it.
    if base.constants != cell.constants {
        return Ok(None);
    }
    let mut changed: Vec<(String, String)> = own
        .switch_names
        .iter()
        .filter(|name| own.switches.get(**name) != cell.switches.get(**name))
        .map(|name| (name.as_str().to_owned(), cell.switches.get(*name)))
        .collect();
    changed.sort();
    if changed.is_empty() {
        return Ok(Some("baseline".to_owned()));
    }
    Ok(BREAKS.iter().find_map(|b| {
        let mut pairs = b.pairs();
        pairs.sort();
        (pairs == changed).then(|| b.name.to_owned())
    }))
}

/// Runs every cell.
pub fn run(
    scenario: &Scenario,
    rows: &Axis,
    cols: &Axis,
    observe: &[String],
    options: &RunOptions,
) -> Result<MatrixReport, LabError> {
    check_observe(observe, false)?;
    if rows.title() == cols.title() {
        return Err(LabError::Usage(format!(
            "--rows and --cols are both `{}`: a matrix needs two different axes (for one, use `lab sweep`)",
            rows.title()
        )));
    }
    let profile = resolve_profile(scenario, options)?;
    let uses_path = matches!(rows, Axis::Path { .. }) || matches!(cols, Axis::Path { .. });
    if uses_path {
        refuse_real_paths(options)?;
    }
    let reference = if uses_path {
        Some(reference_file(scenario, options)?)
    } else {
        driver::run(scenario, options)?
            .observables
            .persisted_files
            .first()
            .map(SmolStr::to_string)
    };
    let baseline = driver::run(scenario, options)?;
    let spill_path_chars = reference.as_ref().map(|name| {
        crate::compaction::store::join(&baseline.spill_dir, name)
            .chars()
            .count()
    });
    let mut cells = Vec::new();
    for r in 0..rows.len() {
        let mut row = Vec::new();
        for c in 0..cols.len() {
            let cell_options = cols.apply(
                c,
                &rows.apply(r, options, reference.as_deref())?,
                reference.as_deref(),
            )?;
            let report = driver::run(scenario, &cell_options)?;
            let flat = flatten(&report.observables);
            row.push(Cell {
                values: observe
                    .iter()
                    .map(|name| observable_value(&flat, name).unwrap_or(Value::Null))
                    .collect(),
                label: label(scenario, &cell_options, options)?,
            });
        }
        cells.push(row);
    }
    Ok(MatrixReport {
        scenario: scenario.name.clone(),
        profile: profile.name.to_owned(),
        reference_file: reference,
        spill_path_chars,
        rows: rows.clone(),
        cols: cols.clone(),
        observe: observe.to_vec(),
        cells,
    })
}
