//! `lab montecarlo` and `lab merge`: N generated sessions × profiles × a switch grid, with the
//! mean and a 95% interval of each loss per cell.
//!
//! Every session is a pure function of (study seed, session index), and a cell accumulates only
//! integer sums (count, total, sum of squares), which add up the same in any order. So the result
//! does not depend on the number of threads, nor on how the sessions are split into shards: a
//! shard file holds the sums of its slice, `lab merge` adds the slices up, and the statistics are
//! computed once, at the end, from exact integers.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::compaction::driver;
use crate::options::RunOptions;
use crate::render::{self, Format};
use crate::workload::{self, Frame, GenParams};
use crate::{LabError, workload::options::GenOptions};

/// Identifies a shard file; `lab merge` refuses anything else.
pub const SHARD_FORMAT: &str = "harness-lab montecarlo shard v1";

/// The metrics of one session, in output order. `any_loss` is 0 or 1.
pub const METRICS: [&str; 6] = [
    "lost_forever",
    "pointer_lost",
    "unrecoverable",
    "any_loss",
    "peak_context",
    "model_calls",
];

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

    fn options(&self) -> RunOptions {
        RunOptions {
            profile: Some(self.profile.clone()),
            switches: self.switches.clone(),
            ..RunOptions::default()
        }
    }
}

/// Exact sums of one metric over a set of sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sums {
    pub total: u128,
    pub squares: u128,
}

impl Sums {
    fn add_value(&mut self, value: u64) {
        self.total += u128::from(value);
        self.squares += u128::from(value) * u128::from(value);
    }
}

/// The sums of every metric of one cell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellSums {
    pub sessions: u64,
    /// One entry per [`METRICS`] name.
    pub metrics: Vec<Sums>,
}

impl CellSums {
    fn empty() -> Self {
        CellSums {
            sessions: 0,
            metrics: vec![Sums::default(); METRICS.len()],
        }
    }

    /// Adds `other` in; `None` when a sum would overflow (only an edited shard gets there).
    fn add(&mut self, other: &CellSums) -> Option<()> {
        self.sessions = self.sessions.checked_add(other.sessions)?;
        for (mine, theirs) in self.metrics.iter_mut().zip(&other.metrics) {
            mine.total = mine.total.checked_add(theirs.total)?;
            mine.squares = mine.squares.checked_add(theirs.squares)?;
        }
        Some(())
    }
}

/// The sessions `first..end` of a study and their sums: what a shard file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    pub format: String,
    pub study: Study,
    /// 1-based shard number and the number of shards.
    pub index: u64,
    pub of: u64,
    pub first: u64,
    pub end: u64,
    /// One per cell, in the study's order.
    pub cells: Vec<CellSums>,
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
    workload::generate(&params).scenario(&frame, &frame.name)
}

/// Runs one session under every cell.
fn run_session(study: &Study, index: u64) -> Result<Vec<CellSums>, LabError> {
    let scenario = session_scenario(study, index)?;
    study
        .cells
        .iter()
        .map(|cell| {
            let report = driver::run(&scenario, &cell.options()).map_err(|e| {
                LabError::Usage(format!(
                    "session {index} of seed {} under {}: {e}",
                    study.generator.seed,
                    cell.label()
                ))
            })?;
            let o = &report.observables;
            let any = o.lost_forever + o.pointer_lost + o.unrecoverable > 0;
            let values = [
                o.lost_forever,
                o.pointer_lost,
                o.unrecoverable,
                usize::from(any),
                o.peak_context_chars,
                o.model_calls,
            ];
            let mut sums = CellSums::empty();
            sums.sessions = 1;
            for (slot, value) in sums.metrics.iter_mut().zip(values) {
                slot.add_value(value as u64);
            }
            Ok(sums)
        })
        .collect()
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
    let scenario = session_scenario(study, 0)?;
    let mut resolved_cells: Vec<(String, crate::compaction::profile::Profile)> = Vec::new();
    for (k, cell) in study.cells.iter().enumerate() {
        if study.cells[..k].contains(cell) {
            return Err(LabError::Usage(format!(
                "cell `{}` is listed twice",
                cell.label()
            )));
        }
        if crate::compaction::profile::by_name(&cell.profile).is_none() {
            let kind = if crate::memory::profile::by_name(&cell.profile).is_some() {
                "a memory profile; montecarlo generates compaction sessions"
            } else {
                "not a profile"
            };
            return Err(LabError::Usage(format!(
                "--profiles {}: {kind} (known: {})",
                cell.profile,
                crate::compaction::profile::names()
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
        if let Some(twin) =
            resolved_cells
                .iter()
                .find(|(_, p): &&(String, crate::compaction::profile::Profile)| {
                    p.name == resolved.name && p.switches == resolved.switches
                })
        {
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

/// The sessions of shard `index` of `of` (1-based): a contiguous slice, the remainder spread
/// over the first shards.
pub fn shard_range(sessions: u64, index: u64, of: u64) -> (u64, u64) {
    let start = |k: u64| (sessions as u128 * k as u128 / of as u128) as u64;
    (start(index - 1), start(index))
}

/// Runs shard `index` of `of` (1/1 is the whole study) on the global rayon pool.
pub fn run_shard(study: &Study, index: u64, of: u64) -> Result<Shard, LabError> {
    run_with_threads(study, index, of, None, &mut |_, _| {})
}

/// Most worker threads `--threads` accepts.
pub const MAX_THREADS: usize = 256;

/// Sessions run between two progress reports.
const CHUNK: u64 = 256;

/// Runs shard `index` of `of` on `threads` threads (`None`: the global pool, one per core),
/// reporting `progress(done, total)` after each chunk of sessions.
pub fn run_with_threads(
    study: &Study,
    index: u64,
    of: u64,
    threads: Option<usize>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Shard, LabError> {
    if of == 0 || index == 0 || index > of {
        return Err(LabError::Usage(format!(
            "--shard {index}/{of}: expected K/N with 1 <= K <= N"
        )));
    }
    let pool = match threads {
        None => None,
        Some(0) => {
            return Err(LabError::Usage(
                "--threads 0: expected at least 1".to_owned(),
            ));
        }
        Some(n) if n > MAX_THREADS => {
            return Err(LabError::Usage(format!(
                "--threads {n}: expected at most {MAX_THREADS}"
            )));
        }
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| LabError::Usage(format!("--threads {n}: {e}")))?,
        ),
    };
    check(study)?;
    if of > study.sessions {
        return Err(LabError::Usage(format!(
            "--shard {index}/{of}: more shards than the {} sessions",
            study.sessions
        )));
    }
    let (first, end) = shard_range(study.sessions, index, of);
    let total = (end - first) as usize;
    let mut cells = vec![CellSums::empty(); study.cells.len()];
    let mut start = first;
    while start < end {
        let stop = end.min(start + CHUNK);
        let chunk = || -> Vec<Result<Vec<CellSums>, LabError>> {
            (start..stop)
                .into_par_iter()
                .map(|i| run_session(study, i))
                .collect()
        };
        // Collected in session order, so the first failing session is the one reported,
        // whatever the threads did.
        let per_session = match &pool {
            Some(pool) => pool.install(chunk),
            None => chunk(),
        };
        for session in per_session {
            for (sum, one) in cells.iter_mut().zip(session?) {
                sum.add(&one)
                    .ok_or_else(|| LabError::Usage("montecarlo: the sums overflow".to_owned()))?;
            }
        }
        start = stop;
        progress((start - first) as usize, total);
    }
    Ok(Shard {
        format: SHARD_FORMAT.to_owned(),
        study: study.clone(),
        index,
        of,
        first,
        end,
        cells,
    })
}

/// Adds shards of one study up into the whole study. Every shard of the split must be there
/// exactly once.
pub fn merge(shards: Vec<(String, Shard)>) -> Result<Shard, LabError> {
    let Some((first_name, first)) = shards.first() else {
        return Err(LabError::Usage("merge: no shard files given".to_owned()));
    };
    let mut seen: BTreeMap<u64, &str> = BTreeMap::new();
    for (name, shard) in &shards {
        if shard.format != SHARD_FORMAT {
            return Err(LabError::Usage(format!(
                "{name}: not a montecarlo shard (format `{}`, expected `{SHARD_FORMAT}`)",
                shard.format
            )));
        }
        if shard.study != first.study {
            return Err(LabError::Usage(format!(
                "{name}: a different study than {first_name} (seed, sessions, generator or cells differ)"
            )));
        }
        if shard.of != first.of {
            return Err(LabError::Usage(format!(
                "{name}: shard {}/{} of a split into {}, {first_name} is of a split into {}",
                shard.index, shard.of, shard.of, first.of
            )));
        }
        if shard.index == 0 || shard.index > shard.of {
            return Err(LabError::Usage(format!(
                "{name}: shard {}/{} is out of range",
                shard.index, shard.of
            )));
        }
        if let Some(other) = seen.insert(shard.index, name) {
            return Err(LabError::Usage(format!(
                "{name}: shard {}/{} is also in {other}",
                shard.index, shard.of
            )));
        }
        check_sums(name, shard)?;
    }
    if seen.len() as u64 != first.of {
        let missing: Vec<String> = (1..=first.of)
            .filter(|k| !seen.contains_key(k))
            .take(5)
            .map(|k| format!("{k}/{}", first.of))
            .collect();
        let more = first.of - seen.len() as u64 - missing.len() as u64;
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return Err(LabError::Usage(format!(
            "merge: shards missing: {}{tail}",
            missing.join(", ")
        )));
    }
    let overflow = || LabError::Usage("merge: the sums overflow".to_owned());
    let mut cells = vec![CellSums::empty(); first.study.cells.len()];
    for (_, shard) in &shards {
        for (total, part) in cells.iter_mut().zip(&shard.cells) {
            total.add(part).ok_or_else(overflow)?;
        }
    }
    let whole = Shard {
        format: SHARD_FORMAT.to_owned(),
        study: first.study.clone(),
        index: 1,
        of: 1,
        first: 0,
        end: first.study.sessions,
        cells,
    };
    check_sums("merge", &whole)?;
    Ok(whole)
}

/// Refuses a shard whose sums cannot come from its sessions (an edited or corrupted file): every
/// cell counts each session once, has every metric, a 0/1 any-loss metric, and sums that obey
/// n·Σx² ≥ (Σx)² without overflowing.
fn check_sums(name: &str, shard: &Shard) -> Result<(), LabError> {
    let bad = |what: String| {
        Err(LabError::Usage(format!(
            "{name}: shard {}/{}: {what}",
            shard.index, shard.of
        )))
    };
    if (shard.first, shard.end) != shard_range(shard.study.sessions, shard.index, shard.of)
        || shard.cells.len() != shard.study.cells.len()
    {
        return bad("does not hold the sessions its header names".to_owned());
    }
    let n = shard.end - shard.first;
    for (cell, sums) in shard.study.cells.iter().zip(&shard.cells) {
        let label = cell.label();
        if sums.sessions != n {
            return bad(format!(
                "cell {label} counts {} sessions, not {n}",
                sums.sessions
            ));
        }
        if sums.metrics.len() != METRICS.len() {
            return bad(format!(
                "cell {label} has {} metrics, not {}",
                sums.metrics.len(),
                METRICS.len()
            ));
        }
        for (metric, m) in METRICS.iter().zip(&sums.metrics) {
            let consistent = match (
                u128::from(n).checked_mul(m.squares),
                m.total.checked_mul(m.total),
            ) {
                (Some(left), Some(right)) => left >= right && m.squares >= m.total,
                _ => false,
            };
            let binary =
                *metric != "any_loss" || (m.total <= u128::from(n) && m.squares == m.total);
            if !consistent || !binary {
                return bad(format!("cell {label}: the sums of {metric} are impossible"));
            }
        }
    }
    Ok(())
}

/// Mean and 95% interval of one metric of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

const Z95: f64 = 1.959_963_984_540_054;

/// Mean ± z·s/√n with the sample standard deviation (0 width for one session).
fn normal_interval(n: u64, sums: &Sums) -> Estimate {
    let n_f = n as f64;
    let mean = sums.total as f64 / n_f;
    if n < 2 {
        return Estimate {
            mean,
            low: mean,
            high: mean,
        };
    }
    // n·Σx² − (Σx)² is exact in integers, so the variance is too until the final division.
    let spread = (n as u128 * sums.squares).saturating_sub(sums.total * sums.total);
    let variance = spread as f64 / (n_f * (n_f - 1.0));
    let half = Z95 * (variance / n_f).sqrt();
    Estimate {
        mean,
        low: (mean - half).max(0.0),
        high: mean + half,
    }
}

/// Wilson score interval of a proportion.
fn wilson(n: u64, successes: u128) -> Estimate {
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n_f)) / (1.0 + z2 / n_f);
    let half = Z95 * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / (1.0 + z2 / n_f);
    // At 0 or n successes the bound is exactly 0 or 1; the formula leaves a rounding residue.
    Estimate {
        mean: p,
        low: if successes == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        high: if successes == u128::from(n) {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    }
}

/// One cell of the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellResult {
    pub cell: String,
    pub profile: String,
    /// Printed as a JSON object in grid order.
    #[serde(serialize_with = "as_map")]
    pub switches: Vec<(String, String)>,
    pub sessions: u64,
    /// The unit of `peak_context` (chars, or tokens for claude-code).
    pub unit: String,
    /// One per [`METRICS`] name, printed as a JSON object in that order.
    #[serde(serialize_with = "as_map")]
    pub estimates: Vec<(String, Estimate)>,
}

/// Serialises `(name, value)` pairs as a JSON object, keeping their order.
fn as_map<S: serde::Serializer, T: Serialize>(
    pairs: &[(String, T)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// The statistics of a whole study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonteCarloReport {
    pub study: Study,
    pub cells: Vec<CellResult>,
}

/// Computes the statistics of a complete study (a 1/1 shard or a merge).
pub fn report(shard: &Shard) -> MonteCarloReport {
    let cells = shard
        .study
        .cells
        .iter()
        .zip(&shard.cells)
        .map(|(cell, sums)| {
            let unit = crate::compaction::profile::by_name(&cell.profile)
                .map(|p| p.estimator.unit())
                .unwrap_or("chars");
            let estimates = METRICS
                .iter()
                .zip(&sums.metrics)
                .map(|(name, metric)| {
                    let estimate = if *name == "any_loss" {
                        wilson(sums.sessions, metric.total)
                    } else {
                        normal_interval(sums.sessions, metric)
                    };
                    ((*name).to_owned(), estimate)
                })
                .collect();
            CellResult {
                cell: cell.label(),
                profile: cell.profile.clone(),
                switches: cell.switches.clone(),
                sessions: sums.sessions,
                unit: unit.to_owned(),
                estimates,
            }
        })
        .collect();
    MonteCarloReport {
        study: shard.study.clone(),
        cells,
    }
}

/// The cells of profiles × the grid's combinations (the last axis varies fastest).
pub fn cells(profiles: &[String], grid: &[(String, Vec<String>)]) -> Vec<Cell> {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (name, values) in grid {
        combos = combos
            .into_iter()
            .flat_map(|combo| {
                values.iter().map(move |value| {
                    let mut next = combo.clone();
                    next.push((name.clone(), value.clone()));
                    next
                })
            })
            .collect();
    }
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

fn fmt_estimate(e: &Estimate, decimals: usize) -> String {
    format!(
        "{:.d$} [{:.d$}, {:.d$}]",
        e.mean,
        e.low,
        e.high,
        d = decimals
    )
}

/// `lab montecarlo` / `lab merge` as text.
pub fn render(report: &MonteCarloReport, format: Format) -> String {
    if format == Format::Json {
        return render::json(report);
    }
    let (n, g) = (report.study.sessions, &report.study.generator);
    let mut out = format!(
        "montecarlo · {n} sessions · seed {} · {} turns · mix {} · at most {} calls a turn · result sizes log-normal(mu {}, sigma {}, max {})\n",
        g.seed, g.turns, g.mix, g.max_calls, g.size_mu, g.size_sigma, g.size_max
    );
    out.push_str(
        "mean [95% interval] per session; P(any loss): sessions with lost_forever, pointer_lost \
         or unrecoverable above 0, with the Wilson interval\n\n",
    );
    out.push_str(&render_table(report, format));
    out.push('\n');
    out
}

/// The table of cells alone.
pub fn render_table(report: &MonteCarloReport, format: Format) -> String {
    let header = [
        "cell",
        "lost_forever",
        "pointer_lost",
        "unrecoverable",
        "P(any loss)",
        "peak context",
        "model calls",
    ];
    let rows = report
        .cells
        .iter()
        .map(|c| {
            let mut row = vec![c.cell.clone()];
            for (name, estimate) in &c.estimates {
                row.push(match name.as_str() {
                    "peak_context" => format!("{} {}", fmt_estimate(estimate, 0), c.unit),
                    "any_loss" => format!(
                        "{:.2}% [{:.2}%, {:.2}%]",
                        100.0 * estimate.mean,
                        100.0 * estimate.low,
                        100.0 * estimate.high
                    ),
                    _ => fmt_estimate(estimate, 3),
                });
            }
            row
        })
        .collect();
    render::table(&header, rows, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_ranges_cover_every_session_once() {
        for sessions in [0, 1, 7, 10, 10_000] {
            for of in 1..=5 {
                let mut next = 0;
                for k in 1..=of {
                    let (first, end) = shard_range(sessions, k, of);
                    assert_eq!(first, next);
                    assert!(end >= first);
                    next = end;
                }
                assert_eq!(next, sessions);
            }
        }
        assert_eq!(shard_range(10, 1, 3), (0, 3));
        assert_eq!(shard_range(10, 3, 3), (6, 10));
    }

    #[test]
    fn intervals_match_hand_values() {
        // Values 0, 2, 4: mean 2, sample variance 4, s/√n = 2/√3.
        let mut sums = Sums::default();
        for v in [0, 2, 4] {
            sums.add_value(v);
        }
        let e = normal_interval(3, &sums);
        assert_eq!(e.mean, 2.0);
        let half = Z95 * 2.0 / 3f64.sqrt();
        assert!((e.high - (2.0 + half)).abs() < 1e-12);
        assert_eq!(e.low, 0.0, "clamped at zero");
        // Wilson, 5 of 10: centred at 0.5, about [0.237, 0.763].
        let w = wilson(10, 5);
        assert_eq!(w.mean, 0.5);
        assert!((w.low - 0.2366).abs() < 1e-4, "{w:?}");
        assert!((w.high - 0.7634).abs() < 1e-4, "{w:?}");
        // 0 of 100: [0, 0.037].
        let w = wilson(100, 0);
        assert_eq!(w.low, 0.0);
        assert!((w.high - 0.0370).abs() < 1e-4, "{w:?}");
    }

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
