//! Shards of a Monte Carlo study: the exact integer sums of a slice of its sessions, run on a
//! thread pool in chunks, and `lab merge`, which adds the shards of one split back into the whole
//! study after checking that their sums can come from their sessions.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::study::{Study, check, session_scenario};
use crate::LabError;
use crate::compaction::driver;

/// Identifies a shard file; `lab merge` refuses anything else.
pub const SHARD_FORMAT: &str = "harness-lab montecarlo shard v3";

/// The metrics of one session, in output order. `any_loss` is 0 or 1.
pub const METRICS: [&str; 7] = [
    "dropped_unsaved",
    "pointer_lost",
    "unrecoverable",
    "any_loss",
    "peak_context",
    "model_calls",
    "common_tokens",
];

/// Exact sums of one metric over a set of sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sums {
    pub total: u128,
    pub squares: u128,
}

impl Sums {
    pub(super) fn add_value(&mut self, value: u64) {
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

/// Runs one session under every cell.
fn run_session(study: &Study, index: u64) -> Result<Vec<CellSums>, LabError> {
    let scenario = session_scenario(study, index)?;
    let mut rendered = driver::Rendered::default();
    study
        .cells
        .iter()
        .map(|cell| {
            let options = cell.options();
            let observed = driver::run_observed(&scenario, &options, &mut rendered);
            let (o, common_tokens) = observed.map_err(|e| {
                LabError::Usage(format!(
                    "session {index} of seed {} under {}: {e}",
                    study.generator.seed,
                    cell.label()
                ))
            })?;
            let any = o.dropped_unsaved + o.pointer_lost + o.unrecoverable > 0;
            let values = [
                o.dropped_unsaved,
                o.pointer_lost,
                o.unrecoverable,
                usize::from(any),
                o.peak_context_size,
                o.model_calls,
                common_tokens,
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
        if shard.study.sessions == 0 || shard.study.cells.is_empty() {
            return Err(LabError::Usage(format!(
                "{name}: a study of {} sessions and {} cells has no rate to estimate \
                 (`lab montecarlo` never writes one)",
                shard.study.sessions,
                shard.study.cells.len()
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
}
