//! What an experiment compares: a compaction run's observables as a flat list, and the
//! companion prototype's `probe` keys (its own observables, in its order) beside the lab's
//! others.

use crate::compaction::observables::Observables;
use crate::compaction::prototype::LayerObservables;
use crate::diff::{Flat, observable_value};

/// Observables as `(name, value)` pairs in output order, under their current names only (a
/// deprecated name is read through [`observable_value`]).
pub(crate) fn flatten(observables: &Observables) -> Flat {
    let value = serde_json::to_value(observables).expect("observables serialise");
    value
        .as_object()
        .expect("observables are an object")
        .iter()
        .filter(|(k, _)| !crate::compaction::observables::is_deprecated(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The prototype's `probe` keys, in its order (its `lost_forever` is our `dropped_unsaved`).
pub(crate) const PROBE_KEYS: [&str; 9] = [
    "ran_deny_listed",
    "ran_first_tool",
    "ran_late_tool",
    "persisted_files",
    "dropped_unsaved",
    "pointer_lost",
    "pairs_intact",
    "makespan",
    "notify_reuses_id",
];

/// The prototype's observables (its `probe` keys, in its order) and, separately, the lab's
/// other observables of the same run.
pub(crate) fn flatten_probe(layers: &LayerObservables, observables: &Observables) -> (Flat, Flat) {
    let layer = serde_json::to_value(layers).expect("layer observables serialise");
    let lab = flatten(observables);
    let probe = PROBE_KEYS
        .iter()
        .map(|key| {
            let value = match layer.get(*key) {
                Some(value) => value.clone(),
                None => observable_value(&lab, key).expect("a probe key is an observable"),
            };
            ((*key).to_owned(), value)
        })
        .collect();
    let rest = lab
        .into_iter()
        .filter(|(name, _)| !PROBE_KEYS.contains(&name.as_str()))
        .collect();
    (probe, rest)
}
