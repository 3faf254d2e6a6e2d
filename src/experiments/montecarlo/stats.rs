//! The statistics of a complete study, computed once from the exact sums: per cell and metric the
//! mean with a 95% normal interval, and for P(any loss) the Wilson score interval.

use serde::Serialize;

use super::shard::{METRICS, Shard, Sums};
use super::study::Study;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
