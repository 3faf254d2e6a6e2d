//! Observables of a memory run (docs/memory.md): pure functions of the store and the run's
//! counters.

use serde::Serialize;

use super::extract::TEMPORARY_MARKERS;
use super::record::normalized;
use super::store::{INDEX, derived_index, list_records};
use super::world::World;
use crate::python::json::char_len;

/// Names accepted in `expect` for memory profiles, in output order.
pub const MEMORY_OBSERVABLE_NAMES: &[&str] = &[
    "records",
    "index_consistent",
    "records_lost",
    "temporary_stored",
    "duplicates_stored",
    "path_escapes",
    "recall_cut",
    "recalled",
    "consolidations",
    "consolidations_skipped",
    "store_chars",
    "model_calls",
];

/// What a memory run shows. Field order is the output order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observables {
    /// `*.md` entries of the store other than MEMORY.md.
    pub records: usize,
    /// MEMORY.md equals the index derived from the files now.
    pub index_consistent: bool,
    /// Records a consolidation pass deleted and could not give back: the originals missing after
    /// a failed pass (no restore), every record when a pass writes none (`[]`, site), and the
    /// records past a silently cut catalog that the consolidator never saw (site).
    pub records_lost: usize,
    /// Records whose normalised text holds a temporary marker.
    pub temporary_stored: usize,
    /// Records with the same normalised description or body as an earlier one.
    pub duplicates_stored: usize,
    /// File operations that reached a path outside the store.
    pub path_escapes: usize,
    /// Recalled records cut mid-text by the recall cap.
    pub recall_cut: usize,
    /// Records in the last recall.
    pub recalled: usize,
    /// Consolidation passes that completed.
    pub consolidations: usize,
    /// Consolidation passes that raised and were skipped.
    pub consolidations_skipped: usize,
    /// Characters of every regular file of the store, the index included.
    pub store_chars: usize,
    /// Side model calls: selector, extractor, consolidator.
    pub model_calls: usize,
}

/// Measures a memory world.
pub(crate) fn measure(world: &mut World) -> Observables {
    let names = world.fs.glob_md();
    let records = names.iter().filter(|n| *n != INDEX).count();
    let index_consistent = match world.fs.read(INDEX) {
        Ok(text) => text == derived_index(world),
        Err(_) => derived_index(world).is_empty(),
    };
    // Counted over what the store lists, without touching the run's counters.
    let saved = (world.counters.path_escapes, world.trace.len());
    let listed = list_records(world);
    world.counters.path_escapes = saved.0;
    world.trace.truncate(saved.1);
    let temporary_stored = listed
        .iter()
        .filter(|r| {
            let text = normalized(&format!("{}\n{}\n{}", r.name, r.description, r.body));
            TEMPORARY_MARKERS.iter().any(|m| text.contains(m))
        })
        .count();
    let mut seen_descriptions: Vec<String> = Vec::new();
    let mut seen_bodies: Vec<String> = Vec::new();
    let mut duplicates_stored = 0;
    for record in &listed {
        let description = normalized(&record.description);
        let body = normalized(&record.body);
        if (!description.is_empty() && seen_descriptions.contains(&description))
            || (!body.is_empty() && seen_bodies.contains(&body))
        {
            duplicates_stored += 1;
        }
        seen_descriptions.push(description);
        seen_bodies.push(body);
    }
    Observables {
        records,
        index_consistent,
        records_lost: world.counters.records_lost,
        temporary_stored,
        duplicates_stored,
        path_escapes: world.counters.path_escapes,
        recall_cut: world.counters.recall_cut,
        recalled: world.turn.recalled.len(),
        consolidations: world.counters.consolidations,
        consolidations_skipped: world.counters.consolidations_skipped,
        store_chars: world.fs.files().iter().map(|(_, t)| char_len(t)).sum(),
        model_calls: world.counters.model_calls,
    }
}
