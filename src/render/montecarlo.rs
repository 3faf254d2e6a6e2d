//! `lab montecarlo` and `lab merge`: the study's generator in one line, then per cell the mean
//! and 95% interval of each loss, P(any loss) in percent.

use super::schema::{self, Document};
use super::{Format, render, table};
use crate::experiments::montecarlo::{Estimate, MonteCarloReport};

impl Document for MonteCarloReport {
    const SCHEMA: &'static str = schema::MONTECARLO;
}

/// `lab montecarlo` / `lab merge` as a table, markdown or JSON.
pub fn montecarlo(report: &MonteCarloReport, format: Format) -> String {
    render(report, format, montecarlo_text)
}

fn montecarlo_text(report: &MonteCarloReport, format: Format) -> String {
    let (n, g) = (report.study.sessions, &report.study.generator);
    let mut out = format!(
        "montecarlo · {n} sessions · seed {} · {} turns · mix {} · at most {} calls a turn · result sizes log-normal(mu {}, sigma {}, max {})\n",
        g.seed, g.turns, g.mix, g.max_calls, g.size_mu, g.size_sigma, g.size_max
    );
    out.push_str(
        "mean [95% interval] per session; P(any loss): sessions with dropped_unsaved, pointer_lost \
         or unrecoverable above 0, with the Wilson interval\n\n",
    );
    out.push_str(&montecarlo_table(report, format));
    out.push('\n');
    out
}

/// The table of cells alone (`reports/montecarlo.md` shows it under its own headings).
pub fn montecarlo_table(report: &MonteCarloReport, format: Format) -> String {
    let header = [
        "cell",
        "dropped_unsaved",
        "pointer_lost",
        "unrecoverable",
        "P(any loss)",
        "peak context",
        "model calls",
        "final context (common tokens)",
    ];
    let rows = report
        .cells
        .iter()
        .map(|c| {
            let mut row = vec![c.cell.clone()];
            for (name, estimate) in &c.estimates {
                row.push(match name.as_str() {
                    "peak_context" => format!("{} {}", estimate_text(estimate, 0), c.unit),
                    "common_tokens" => estimate_text(estimate, 0),
                    "any_loss" => format!(
                        "{:.2}% [{:.2}%, {:.2}%]",
                        100.0 * estimate.mean,
                        100.0 * estimate.low,
                        100.0 * estimate.high
                    ),
                    _ => estimate_text(estimate, 3),
                });
            }
            row
        })
        .collect();
    let mut out = table(&header, rows, format);
    out.push_str(&format!("\n{}\n", crate::compaction::profile::COMMON_RULE));
    out
}

/// `mean [low, high]` with `decimals` digits.
fn estimate_text(e: &Estimate, decimals: usize) -> String {
    format!(
        "{:.d$} [{:.d$}, {:.d$}]",
        e.mean,
        e.low,
        e.high,
        d = decimals
    )
}
