//! `field.md`: every compaction profile on one generated workload long enough to make the
//! production agents compact, ranked by how often a session loses something, with what each
//! loses and whether the original can be got back (issue 16, item 4). Every cell is a run.

use crate::error::LabError;
use crate::experiments::montecarlo::{self as mc, CellResult, Estimate};
use crate::render::{self, Format};
use crate::workload::options::GenOptions;

/// Sessions and turns of the study: 60 turns of the default mix reach the 170000-270000-token
/// triggers of the production profiles in most sessions.
const SESSIONS: u64 = 100;
const TURNS: usize = 60;

/// A metric a cell does not have (every cell has all of them; this keeps the page total).
const NONE: Estimate = Estimate {
    mean: 0.0,
    low: 0.0,
    high: 0.0,
};

fn estimate<'a>(cell: &'a CellResult, name: &str) -> &'a Estimate {
    cell.estimates
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, e)| e)
        .unwrap_or(&NONE)
}

/// What a profile loses, in words, from its measured means.
fn loses(cell: &CellResult) -> String {
    let lost = estimate(cell, "dropped_unsaved").mean;
    let pointer = estimate(cell, "pointer_lost").mean;
    let unrecoverable = estimate(cell, "unrecoverable").mean;
    let mut parts = Vec::new();
    if lost > 0.0 {
        parts.push(format!(
            "{lost:.2} results per session replaced with no pointer"
        ));
    }
    if pointer > 0.0 {
        parts.push(format!("{pointer:.2} pointers lost"));
    }
    if unrecoverable > 0.0 {
        parts.push(format!("{unrecoverable:.2} originals kept nowhere"));
    }
    if parts.is_empty() {
        "no counted loss".to_owned()
    } else {
        parts.join("; ")
    }
}

/// Whether what leaves the context can be got back: from the run's own count of originals kept
/// nowhere (spill store, transcript, session log).
fn recoverable(cell: &CellResult) -> &'static str {
    if estimate(cell, "unrecoverable").mean > 0.0 {
        "no: some originals are gone"
    } else if estimate(cell, "dropped_unsaved").mean > 0.0 {
        "yes, from the session log or transcript, not by the model"
    } else {
        "yes"
    }
}

/// One ranked row of the table.
fn row(rank: usize, cell: &CellResult) -> Vec<String> {
    let any = estimate(cell, "any_loss");
    let peak = estimate(cell, "peak_context").mean;
    vec![
        rank.to_string(),
        format!("`{}`", cell.profile),
        format!(
            "{:.1}% [{:.1}%, {:.1}%]",
            any.mean * 100.0,
            any.low * 100.0,
            any.high * 100.0
        ),
        loses(cell),
        recoverable(cell).to_owned(),
        format!("{:.0} {}", peak, cell.unit),
        format!("{:.0}", estimate(cell, "common_tokens").mean),
        format!("{:.2}", estimate(cell, "model_calls").mean),
    ]
}

/// The page.
pub(super) fn field_md(header: &str) -> Result<String, LabError> {
    let profiles: Vec<String> = crate::compaction::profile::PROFILES
        .iter()
        .map(|p| p.name.to_owned())
        .collect();
    let study = mc::Study {
        sessions: SESSIONS,
        generator: GenOptions {
            turns: TURNS,
            ..GenOptions::default()
        },
        cells: mc::cells(&profiles, &[]),
    };
    let report = mc::report(&mc::run_shard(&study, 1, 1)?);
    let mut cells: Vec<&CellResult> = report.cells.iter().collect();
    // Fewest sessions with a loss first, then fewest originals gone, then fewest dropped.
    let key = |c: &CellResult| {
        [
            estimate(c, "any_loss").mean,
            estimate(c, "unrecoverable").mean,
            estimate(c, "dropped_unsaved").mean,
        ]
    };
    cells.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.profile.cmp(&b.profile))
    });
    let rows: Vec<Vec<String>> = cells
        .iter()
        .enumerate()
        .map(|(rank, cell)| row(rank + 1, cell))
        .collect();
    let mut out = String::from(header);
    out.push_str(&format!(
        "# The field: which agent loses least\n\n\
         {SESSIONS} sessions from `lab gen` (seed 1, {TURNS} turns, the default tool mix and \
         result sizes), each replayed under every compaction profile: `lab montecarlo \
         --sessions {SESSIONS} --turns {TURNS} --format markdown` gives the same numbers with \
         their intervals. Ranked by the share of sessions with any loss (a result replaced with \
         no pointer, a lost pointer, or an original kept nowhere), then by originals kept \
         nowhere. \"Can it get it back\" is measured, not asserted: `no` when some original is \
         in neither the context, the spill store, a transcript nor the session log the profile \
         models. Peak context is in each profile's own unit (characters of the course's estimate, \
         or the system's token estimate); the final context is also given in one measure for every \
         profile, Claude Code's rough estimate (per block round(UTF-16 length / 4), summed), so \
         that sizes can be compared side by side; see `lab profiles` for each estimate and for what each \
         profile does not model. Messages a summary replaces are not counted as losses (the summary \
         stands for them: `model calls` shows how often each profile summarised), so a profile \
         that summarises often can lose detail this table does not show.\n\n"
    ));
    out.push_str(&render::table(
        &[
            "rank",
            "profile",
            "P(any loss)",
            "what it loses",
            "can it get it back",
            "peak context",
            "final context (common tokens)",
            "model calls",
        ],
        rows,
        Format::Markdown,
    ));
    out.push('\n');
    Ok(out)
}
