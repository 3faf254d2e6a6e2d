//! What a Monte Carlo study is: the generator of its sessions and its cells (profiles × a grid of
//! switch values), the scenario of each session, and the checks made before anything runs.

use serde::{Deserialize, Serialize};

use crate::LabError;
use crate::compaction::driver;
use crate::compaction::profile::{self, Profile};
use crate::compaction::switches::SwitchName;
use crate::options::RunOptions;
use crate::workload::options::GenOptions;
use crate::workload::{self, Frame, GenParams};

/// What a study is: everything that decides its numbers. Two shards merge only when their
/// studies are equal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    pub sessions: u64,
    /// The generator of every session; its seed is the study's master seed.
    pub generator: GenOptions,
    /// The cells, in output order.
    pub cells: Vec<Cell>,
}

/// One profile with one combination of the grid's switch values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub profile: String,
    /// `(switch, value)` in grid order.
    pub switches: Vec<(String, String)>,
}

impl Cell {
    /// `course-main` or `course-main unseen_guard=off order=swapped`.
    pub fn label(&self) -> String {
        let mut label = self.profile.clone();
        for (name, value) in &self.switches {
            label.push_str(&format!(" {name}={value}"));
        }
        label
    }

    pub(super) fn options(&self) -> RunOptions {
        RunOptions {
            profile: Some(self.profile.clone()),
            switches: self.switches.clone(),
            ..RunOptions::default()
        }
    }
}

/// The cells of profiles × the grid's combinations (the last axis varies fastest).
pub fn cells(profiles: &[String], grid: &[(String, Vec<String>)]) -> Vec<Cell> {
    let combos = crate::compaction::switches::product(grid);
    profiles
        .iter()
        .flat_map(|profile| {
            combos.iter().map(move |switches| Cell {
                profile: profile.clone(),
                switches: switches.clone(),
            })
        })
        .collect()
}

/// The generator parameters of one session of a study.
pub fn session_params(study: &Study, index: u64) -> Result<GenParams, LabError> {
    let mut params = study.generator.params()?;
    params.seed = workload::seed::child_seed(study.generator.seed, "session", index);
    Ok(params)
}

/// The scenario of one session (the `lab gen` output for its parameters).
pub fn session_scenario(study: &Study, index: u64) -> Result<crate::scenario::Scenario, LabError> {
    let params = session_params(study, index)?;
    let frame = Frame {
        name: format!("montecarlo-{}-{index}", study.generator.seed),
        ..Frame::default()
    };
    workload::generate(&params).build(&frame, &frame.name)
}

/// Checks a study before anything runs: the mix, the generator's parameters, and every cell's
/// profile and switches on the first session.
pub fn check(study: &Study) -> Result<(), LabError> {
    if study.sessions == 0 {
        return Err(LabError::Usage(
            "--sessions: expected at least 1".to_owned(),
        ));
    }
    if study.cells.is_empty() {
        return Err(LabError::Usage(
            "no cells: name at least one profile".to_owned(),
        ));
    }
    session_params(study, 0)?;
    check_grid(study)?;
    let scenario = session_scenario(study, 0)?;
    let mut resolved_cells: Vec<(String, Profile)> = Vec::new();
    for (k, cell) in study.cells.iter().enumerate() {
        if study.cells[..k].contains(cell) {
            return Err(LabError::Usage(format!(
                "cell `{}` is listed twice",
                cell.label()
            )));
        }
        if profile::by_name(&cell.profile).is_none() {
            let kind = if crate::memory::profile::by_name(&cell.profile).is_some() {
                "a memory profile; montecarlo generates compaction sessions"
            } else {
                "not a profile"
            };
            return Err(LabError::Usage(format!(
                "--profiles {}: {kind} (known: {})",
                cell.profile,
                profile::names()
            )));
        }
        for (k, (name, _)) in cell.switches.iter().enumerate() {
            if cell.switches[..k].iter().any(|(other, _)| other == name) {
                return Err(LabError::Usage(format!(
                    "--grid {name} is given twice; list its values in one axis: --grid {name}=V1,V2"
                )));
            }
        }
        let resolved = driver::resolve_profile(&scenario, &cell.options()).map_err(|e| {
            LabError::Usage(format!(
                "cell `{}`: {}",
                cell.label(),
                e.to_string().replacen("--set ", "--grid ", 1)
            ))
        })?;
        if let Some(twin) = resolved_cells.iter().find(|(_, p): &&(String, Profile)| {
            p.name == resolved.name && p.switches == resolved.switches
        }) {
            return Err(LabError::Usage(format!(
                "cells `{}` and `{}` are the same run (two spellings of one switch value)",
                twin.0,
                cell.label()
            )));
        }
        resolved_cells.push((cell.label(), resolved));
    }
    Ok(())
}

/// Checks each grid axis against the study's profiles before any cell runs: a value no switch
/// takes is named first (whatever the cell order), then a switch some profiles lack, with the
/// profiles that have it.
fn check_grid(study: &Study) -> Result<(), LabError> {
    let mut profiles: Vec<&'static Profile> = Vec::new();
    let mut axes: Vec<(&str, Vec<&str>)> = Vec::new();
    for cell in &study.cells {
        if let Some(p) = profile::by_name(&cell.profile)
            && !profiles.iter().any(|q| q.name == p.name)
        {
            profiles.push(p);
        }
        for (name, value) in &cell.switches {
            match axes.iter_mut().find(|(n, _)| n == name) {
                Some((_, values)) if !values.contains(&value.as_str()) => values.push(value),
                Some(_) => {}
                None => axes.push((name, vec![value])),
            }
        }
    }
    for (name, values) in &axes {
        let Some(switch) = SwitchName::parse(name) else {
            continue;
        };
        let (with, without): (Vec<&Profile>, Vec<&Profile>) =
            profiles.iter().partition(|p| p.has_switch(switch));
        if let Some(p) = with.first() {
            for value in values {
                let mut probe = p.switches;
                probe
                    .set(switch, value)
                    .map_err(|e| LabError::Usage(format!("--grid {name}={value}: {e}")))?;
            }
        }
        if !without.is_empty() && !with.is_empty() {
            let list = |ps: &[&Profile]| ps.iter().map(|p| p.name).collect::<Vec<_>>().join(",");
            let nor = match &without[1..] {
                [] => String::new(),
                rest => format!(" (nor {})", list(rest)),
            };
            return Err(LabError::Usage(format!(
                "--grid {name}: profile {} has no such switch{nor}; the profiles that have it: \
                 {} (run with --profiles {})",
                without[0].name,
                list(&with),
                list(&with)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_profiles_times_the_grid() {
        let grid = vec![
            (
                "unseen_guard".to_owned(),
                vec!["on".to_owned(), "off".to_owned()],
            ),
            (
                "order".to_owned(),
                vec!["intact".to_owned(), "swapped".to_owned()],
            ),
        ];
        let labels: Vec<String> = cells(&["course-main".to_owned()], &grid)
            .iter()
            .map(Cell::label)
            .collect();
        assert_eq!(
            labels,
            [
                "course-main unseen_guard=on order=intact",
                "course-main unseen_guard=on order=swapped",
                "course-main unseen_guard=off order=intact",
                "course-main unseen_guard=off order=swapped",
            ]
        );
    }
}
