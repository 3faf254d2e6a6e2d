//! `lab run`: one scenario under its profile (observables, results, spill store and trace), or
//! the same scenario baseline against broken for compaction breaks (D1..D6) or memory breaks
//! (MB1..MB5). A plain run exits 1 when an expectation of the scenario does not hold.

use super::Outcome;
use crate::check::CheckOutcome;
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
    /// `--no-expect`: the scenario's expectations are not checked (a what-if run).
    pub no_expect: bool,
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
    let scenario = if cmd.no_expect {
        cmd.scenario.without_expectations()
    } else {
        cmd.scenario.clone()
    };
    let ran = run_any(&scenario, &cmd.options)?;
    let note = overridden_expectations(ran.expect(), &overrides(&cmd.options));
    let mut outcome = match ran {
        Ran::Compaction(report) => Outcome::new(render::run(&report, cmd.format), report.passed()),
        Ran::Memory(report) => {
            Outcome::new(render::memory_run(&report, cmd.format), report.passed())
        }
    };
    outcome.note = note;
    Ok(outcome)
}

/// The command-line overrides of a run as they were spelled: `--profile P --set s=v --const
/// c=v`.
fn overrides(options: &RunOptions) -> String {
    let mut parts: Vec<String> = options
        .profile
        .iter()
        .map(|p| format!("--profile {p}"))
        .collect();
    parts.extend(
        options
            .switches
            .iter()
            .map(|(k, v)| format!("--set {k}={v}")),
    );
    parts.extend(
        options
            .constants
            .iter()
            .map(|(k, v)| format!("--const {k}={v}")),
    );
    parts.join(" ")
}

/// When overrides made expectations of the scenario fail: the one line that says so.
fn overridden_expectations(checks: &[CheckOutcome], overrides: &str) -> Option<String> {
    let failed = checks.iter().filter(|c| !c.ok).count();
    if failed == 0 || overrides.is_empty() {
        return None;
    }
    let (count, verb) = match failed {
        1 => ("1 expectation".to_owned(), "no longer holds"),
        n => (format!("{n} expectations"), "no longer hold"),
    };
    Some(format!(
        "{count} of the scenario {verb} under {overrides}; --no-expect to skip them"
    ))
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

/// Refuses the compaction layer's directory options on a memory run: the memory lab writes no
/// spill file or transcript, so `--spill-dir`, `--transcript-dir` and `--reuse-dir` would be
/// silently ignored.
pub fn refuse_compaction_dirs(scenario: &Scenario, options: &RunOptions) -> Result<(), LabError> {
    let Some(memory) = memory::run::memory_profile(scenario, options) else {
        return Ok(());
    };
    let given = [
        ("--spill-dir", options.spill_dir.is_some()),
        ("--transcript-dir", options.transcript_dir.is_some()),
        ("--reuse-dir", options.reuse_dir),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((flag, _)) => Err(LabError::Usage(format!(
            "{}: {flag} does not apply to a memory run ({} writes no spill file or \
             transcript; its store is chosen with --store)",
            scenario.name, memory.name
        ))),
        None => Ok(()),
    }
}

/// The breaks' changes; after a single break in text, also the broken run itself (and a note
/// when the break makes the scenario's expectations fail).
fn compaction_breaks(cmd: &RunCmd, list: &[Break]) -> Result<Outcome, LabError> {
    let scenario = if cmd.no_expect {
        cmd.scenario.without_expectations()
    } else {
        cmd.scenario.clone()
    };
    let report = breaks::run(Some(&scenario), list, &cmd.options)?;
    let mut text = render::breaks(&report, cmd.format);
    let mut note = None;
    if let [single] = list {
        if cmd.format != Format::Json {
            let broken = driver::run(&scenario, &single.apply(&cmd.options))?;
            text.push_str(&format!("\nthe run with {}:\n\n", single.name));
            text.push_str(&render::run(&broken, cmd.format));
            let given = format!("{} --break {}", overrides(&cmd.options), single.name);
            note = overridden_expectations(&broken.expect, given.trim_start());
        }
    }
    let mut outcome = Outcome::new(text, true);
    outcome.note = note;
    Ok(outcome)
}
