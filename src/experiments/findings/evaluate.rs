//! Evaluates the findings registry: each finding's experiment is run and its measured values
//! are set against the expected ones, as one row of the findings table.

use serde::Serialize;

use super::field::FIELD;
use super::registry::{Check, FINDINGS, Finding};
use crate::check::CheckOutcome;
use crate::diff::{describe_changes, describe_or_nothing};
use crate::error::LabError;
use crate::experiments::breaks::{self, BreakOutcome};
use crate::experiments::matrix::{self, Axis};
use crate::experiments::prototype_replay;
use crate::experiments::spill::with_spill_dir;
use crate::experiments::sweep::{self, Vary};
use crate::fmt::{short, text};
use crate::options::RunOptions;
use crate::replay::run_any;
use crate::scenario::Scenario;

/// One row of the findings table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingRow {
    pub id: String,
    pub source: String,
    pub shows: String,
    pub expected: String,
    pub measured: String,
    pub ok: bool,
}

/// What one finding's experiment gave: the expected and measured cells and whether they agree.
struct Verdict {
    expected: String,
    measured: String,
    ok: bool,
}

/// Evaluates every finding.
pub fn evaluate_all() -> Result<Vec<FindingRow>, LabError> {
    FINDINGS.iter().chain(FIELD).map(evaluate).collect()
}

fn evaluate(finding: &Finding) -> Result<FindingRow, LabError> {
    let verdict = match finding.check {
        Check::Scenario {
            file,
            text,
            headline,
        } => scenario(file, text, headline)?,
        Check::Break {
            name,
            spill_dir,
            changed,
            unchanged,
            nothing,
        } => compaction_break(name, spill_dir, changed, unchanged, nothing)?,
        Check::MemoryBreak { name, changed } => memory_break(name, changed)?,
        Check::Matrix { spill_dir, cells } => order_by_guard(spill_dir, cells)?,
        Check::Sweep {
            file,
            switches,
            from,
            to,
            cliffs,
        } => path_sweep(file, switches, from, to, cliffs)?,
    };
    Ok(FindingRow {
        id: finding.id.to_owned(),
        source: finding.source.to_owned(),
        shows: finding.shows.to_owned(),
        expected: verdict.expected,
        measured: verdict.measured,
        ok: verdict.ok,
    })
}

/// `key` or `key (step N)`, as a finding's headline names an expectation.
fn label(check: &CheckOutcome) -> String {
    match check.step {
        Some(step) => format!("{} (step {step})", check.key),
        None => check.key.clone(),
    }
}

/// The expectations a headline names, in headline order (a test checks each one is there).
fn headline_checks<'a>(checks: &'a [CheckOutcome], headline: &[&str]) -> Vec<&'a CheckOutcome> {
    headline
        .iter()
        .filter_map(|h| checks.iter().find(|c| label(c) == *h))
        .collect()
}

/// A finding scenario: its headline expectations, and whether all of its expectations hold.
fn scenario(file: &str, text: &str, headline: &[&str]) -> Result<Verdict, LabError> {
    let scenario = Scenario::parse(file, file, text)?;
    let report = run_any(&scenario, &RunOptions::default())?;
    let shown = headline_checks(report.expect(), headline);
    let join = |f: &dyn Fn(&CheckOutcome) -> String| {
        shown.iter().map(|c| f(c)).collect::<Vec<_>>().join("; ")
    };
    Ok(Verdict {
        expected: join(&|c| format!("{} = {}", label(c), short(&c.expected))),
        measured: join(&|c| format!("{} = {}", label(c), short(&c.measured))),
        ok: report.passed(),
    })
}

/// One break on the prototype replay: the listed changes happen, the `unchanged` observables
/// do not change (or, with `nothing`, no observable changes).
fn compaction_break(
    name: &str,
    spill_dir: Option<&str>,
    changed: &[(&str, &str, &str)],
    unchanged: &[&str],
    nothing: bool,
) -> Result<Verdict, LabError> {
    let list = breaks::parse(name)?;
    let report = breaks::run(None, &list, &with_spill_dir(spill_dir))?;
    let outcome = &report.breaks[0];
    let expected = if nothing {
        "no observable difference".to_owned()
    } else {
        let mut parts: Vec<String> = changed
            .iter()
            .map(|(o, a, b)| format!("{o} {a} → {b}"))
            .collect();
        parts.extend(unchanged.iter().map(|o| format!("{o} unchanged")));
        parts.join("; ")
    };
    let ok = if nothing {
        outcome.changed.is_empty()
    } else {
        changed
            .iter()
            .all(|(o, a, b)| changed_from_to(outcome, o, a, b))
            && unchanged.iter().all(|o| outcome.change(o).is_none())
    };
    let path = match (&outcome.spill_path, outcome.spill_path_chars) {
        (Some(_), Some(n)) => format!(" (spill file path {n} chars)"),
        _ => String::new(),
    };
    Ok(Verdict {
        expected: format!("{name}: {expected}"),
        measured: format!("{}{path}", describe_or_nothing(&outcome.changed, "; ")),
        ok,
    })
}

/// Whether `observable` changed from `from` to `to`, as text.
fn changed_from_to(outcome: &BreakOutcome, observable: &str, from: &str, to: &str) -> bool {
    outcome
        .change(observable)
        .is_some_and(|c| text(&c.baseline) == from && text(&c.broken) == to)
}

/// One memory break on its probe scenario: exactly the listed changes, in output order.
fn memory_break(name: &str, changed: &[(&str, &str, &str)]) -> Result<Verdict, LabError> {
    let list = crate::memory::breaks::parse(name)?;
    let report = crate::memory::breaks::run(&list, None, &RunOptions::default())?;
    let outcome = &report.breaks[0];
    let expected: Vec<String> = changed
        .iter()
        .map(|(o, a, b)| format!("{o} {a} → {b}"))
        .collect();
    let measured = describe_changes(&outcome.changed, "; ");
    let ok = expected.join("; ") == measured;
    Ok(Verdict {
        expected: format!("{name}: {}", expected.join("; ")),
        measured: if measured.is_empty() {
            "no observable difference".to_owned()
        } else {
            format!("{measured} ({})", outcome.scenario)
        },
        ok,
    })
}

/// The prototype's 2×2, order × unseen_guard, as `dropped_unsaved/pointer_lost` per cell.
fn order_by_guard(spill_dir: Option<&str>, cells: [[&str; 2]; 2]) -> Result<Verdict, LabError> {
    let scenario = prototype_replay();
    let options = with_spill_dir(spill_dir);
    let rows = Axis::parse("order", &scenario, &options)?;
    let cols = Axis::parse("unseen_guard", &scenario, &options)?;
    let observe = vec!["dropped_unsaved".to_owned(), "pointer_lost".to_owned()];
    let report = matrix::run(&scenario, &rows, &cols, &observe, &options)?;
    let measured: Vec<Vec<String>> = report
        .cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|c| c.values.iter().map(text).collect::<Vec<_>>().join("/"))
                .collect()
        })
        .collect();
    let grid = |cell: &dyn Fn(usize, usize) -> String| {
        format!(
            "intact: on {} off {}; swapped: on {} off {}",
            cell(0, 0),
            cell(0, 1),
            cell(1, 0),
            cell(1, 1)
        )
    };
    let ok = (0..2).all(|r| (0..2).all(|c| measured[r][c] == cells[r][c]));
    let chars = report.spill_path_chars.unwrap_or(0);
    Ok(Verdict {
        expected: grid(&|r, c| cells[r][c].to_owned()),
        measured: format!(
            "{} (spill file path {chars} chars)",
            grid(&|r, c| measured[r][c].clone())
        ),
        ok,
    })
}

/// A spill-path sweep of `pointer_lost` over `from..=to` with exactly the listed cliffs.
fn path_sweep(
    file: Option<(&str, &str)>,
    switches: &[(&str, &str)],
    from: usize,
    to: usize,
    cliffs: &[&str],
) -> Result<Verdict, LabError> {
    let scenario = match file {
        Some((file, text)) => Scenario::parse(file, file, text)?,
        None => prototype_replay(),
    };
    let options = RunOptions {
        switches: switches
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        ..RunOptions::default()
    };
    let observe = vec!["pointer_lost".to_owned()];
    let report = sweep::run(
        &scenario,
        &Vary::Path,
        &sweep::range(from, to, 1)?,
        &observe,
        &options,
        &mut |_, _| {},
    )?;
    let found: Vec<String> = report
        .cliffs
        .iter()
        .map(|c| c.describe(&Vary::Path))
        .collect();
    Ok(Verdict {
        expected: format!("{} ({from}..{to})", cliffs.join("; ")),
        measured: if found.is_empty() {
            "no cliff".to_owned()
        } else {
            found.join("; ")
        },
        ok: found.iter().map(String::as_str).eq(cliffs.iter().copied()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_headline_names_an_expectation() {
        for finding in FINDINGS.iter().chain(FIELD) {
            let Check::Scenario {
                file,
                text,
                headline,
            } = finding.check
            else {
                continue;
            };
            let scenario = Scenario::parse(file, file, text).unwrap();
            let report = run_any(&scenario, &RunOptions::default()).unwrap();
            assert_eq!(
                headline_checks(report.expect(), headline).len(),
                headline.len(),
                "{file}: headline names a missing expectation"
            );
        }
    }
}
