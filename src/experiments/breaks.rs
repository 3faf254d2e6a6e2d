//! Named breaks (docs/commands.md): sets of switch changes taken from the companion prototype, run
//! against a baseline so that each observable that changed is listed (`pointer_lost 0 → 1`), or "no
//! observable difference".

use serde::Serialize;

use super::observe::{flatten, flatten_probe};
use super::prototype_replay;
use super::spill::spill_path_of;
use crate::compaction::driver::{self, resolve_profile};
use crate::compaction::profile::Profile;
use crate::compaction::prototype;
use crate::compaction::switches::SwitchName;
use crate::diff::{Change, Flat, diff};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// One named break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Break {
    pub name: &'static str,
    /// What it does, in words.
    pub label: &'static str,
    /// The switch changes.
    pub changes: &'static [(SwitchName, &'static str)],
}

/// The prototype's six experiments.
pub const BREAKS: [Break; 6] = [
    Break {
        name: "D1",
        label: "the loop trusts stop_reason instead of looking for tool_use blocks",
        changes: &[(SwitchName::TrustStopReason, "on")],
    },
    Break {
        name: "D2",
        label: "compaction order swapped: micro runs before budget",
        changes: &[(SwitchName::Order, "swapped")],
    },
    Break {
        name: "D3",
        label: "no tool_use/tool_result pair protection at the cut",
        changes: &[(SwitchName::PairProtection, "off")],
    },
    Break {
        name: "D4",
        label: "permission gates inverted: human approval before the deny list",
        changes: &[(SwitchName::GateOrderCorrect, "off")],
    },
    Break {
        name: "D5",
        label: "the barrier-free pipeline gets a barrier between stages",
        changes: &[(SwitchName::PipelineHasBarrier, "on")],
    },
    Break {
        name: "D6",
        label: "both safeguards gone: swapped order and no unseen guard",
        changes: &[
            (SwitchName::Order, "swapped"),
            (SwitchName::UnseenGuard, "off"),
        ],
    },
];

/// `D1`..`D6` or `all`.
pub fn parse(name: &str) -> Result<Vec<Break>, LabError> {
    if name.eq_ignore_ascii_case("all") {
        return Ok(BREAKS.to_vec());
    }
    BREAKS
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(name))
        .map(|b| vec![*b])
        .ok_or_else(|| {
            LabError::Usage(format!(
                "unknown break `{name}` (expected D1, D2, D3, D4, D5, D6 or all)"
            ))
        })
}

impl Break {
    /// The changes as `--set` pairs.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.changes
            .iter()
            .map(|(s, v)| (s.as_str().to_owned(), (*v).to_owned()))
            .collect()
    }

    /// `order = swapped; unseen_guard = off`.
    pub fn describe(&self) -> String {
        self.changes
            .iter()
            .map(|(s, v)| format!("{s} = {v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Refuses a break whose switches the profile lacks.
    pub fn check(&self, profile: &Profile) -> Result<(), LabError> {
        for (switch, _) in self.changes {
            if !profile.has_switch(*switch) {
                return Err(LabError::Usage(format!(
                    "break {} changes `{switch}`, which profile {} does not have",
                    self.name, profile.name
                )));
            }
        }
        Ok(())
    }

    /// `options` with this break's changes applied last.
    pub fn apply(&self, options: &RunOptions) -> RunOptions {
        let mut broken = options.clone();
        broken.switches.extend(self.pairs());
        broken
    }
}

/// One break against its baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakOutcome {
    pub name: String,
    pub label: String,
    /// `switch = value` changes.
    pub changes: Vec<String>,
    /// The spill file the path-dependent rows are about, and its length.
    pub spill_path: Option<String>,
    pub spill_path_chars: Option<usize>,
    /// Observables that changed, in output order; empty means no observable difference. With
    /// the prototype's layers these are the prototype's own observables (its `probe` keys).
    pub changed: Vec<Change>,
    /// With the prototype's layers: the lab's other observables that changed, which the
    /// prototype did not measure.
    pub also_changed: Vec<Change>,
}

/// Breaks run against one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakReport {
    pub scenario: String,
    pub profile: String,
    /// True for `lab --break`: the prototype's three layers are probed too.
    pub with_layers: bool,
    pub breaks: Vec<BreakOutcome>,
    /// Breaks of a list (`all`) that do not apply to the profile, with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

impl BreakOutcome {
    /// The change of one observable, if it changed.
    pub fn change(&self, observable: &str) -> Option<&Change> {
        self.changed.iter().find(|c| c.observable == observable)
    }
}

/// What one run shows: the observables compared first, the lab's extra ones, and the spill path.
type Probe = (Flat, Flat, Option<(String, usize)>);

fn probe(scenario: &Scenario, options: &RunOptions, with_layers: bool) -> Result<Probe, LabError> {
    let report = driver::run(scenario, options)?;
    let path = spill_path_of(&report);
    if with_layers {
        let profile = resolve_profile(scenario, options)?;
        let (primary, extra) =
            flatten_probe(&prototype::probe(&profile.switches), &report.observables);
        Ok((primary, extra, path))
    } else {
        Ok((flatten(&report.observables), Vec::new(), path))
    }
}

/// Runs each break against the baseline of `scenario` (the built-in prototype replay, with the
/// prototype's layers, when `scenario` is `None`).
pub fn run(
    scenario: Option<&Scenario>,
    breaks: &[Break],
    options: &RunOptions,
) -> Result<BreakReport, LabError> {
    let replay;
    let (scenario, with_layers) = match scenario {
        Some(s) => (s, false),
        None => {
            replay = prototype_replay();
            (&replay, true)
        }
    };
    let profile = resolve_profile(scenario, options)?;
    // One break named must apply; of several (`all`), those that do not are listed.
    let mut applying = Vec::new();
    let mut skipped = Vec::new();
    for b in breaks {
        match b.check(&profile) {
            Ok(()) => applying.push(b),
            Err(error) if breaks.len() > 1 => skipped.push(error.to_string()),
            Err(error) => return Err(error),
        }
    }
    if applying.is_empty() {
        return Err(LabError::Usage(format!(
            "no break applies to profile {}: {}",
            profile.name,
            skipped.join("; ")
        )));
    }
    let (baseline, base_extra, base_path) = probe(scenario, options, with_layers)?;
    let mut outcomes = Vec::new();
    for b in applying {
        let (broken, broken_extra, _) = probe(scenario, &b.apply(options), with_layers)?;
        outcomes.push(BreakOutcome {
            name: b.name.to_owned(),
            label: b.label.to_owned(),
            changes: b.describe().split("; ").map(str::to_owned).collect(),
            spill_path: base_path.as_ref().map(|(p, _)| p.clone()),
            spill_path_chars: base_path.as_ref().map(|(_, n)| *n),
            changed: diff(&baseline, &broken),
            also_changed: diff(&base_extra, &broken_extra),
        });
    }
    Ok(BreakReport {
        scenario: scenario.name.clone(),
        profile: profile.name.to_owned(),
        with_layers,
        breaks: outcomes,
        skipped,
    })
}
