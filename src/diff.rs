//! Baseline against broken: observables as flat `(name, value)` lists and the ones that changed
//! between two runs. Compaction breaks (D1-D6) and memory breaks (MB1-MB5) both list their
//! changes this way, so this leaf sits below both.

use serde::Serialize;
use serde_json::Value;

use crate::fmt::text;

/// Observables as `(name, value)` pairs, in output order.
pub type Flat = Vec<(String, Value)>;

/// One observable that differs between baseline and broken.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub observable: String,
    pub baseline: Value,
    pub broken: Value,
}

/// The observables whose values differ, in output order; both lists name the same observables
/// in the same order.
pub fn diff(baseline: &[(String, Value)], broken: &[(String, Value)]) -> Vec<Change> {
    baseline
        .iter()
        .zip(broken)
        .filter(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| Change {
            observable: name.clone(),
            baseline: a.clone(),
            broken: b.clone(),
        })
        .collect()
}

/// `dropped_unsaved 0 → 1, pointer_lost 0 → 1`.
pub fn describe_changes(changes: &[Change], separator: &str) -> String {
    changes
        .iter()
        .map(|c| {
            format!(
                "{} {} → {}",
                c.observable,
                text(&c.baseline),
                text(&c.broken)
            )
        })
        .collect::<Vec<_>>()
        .join(separator)
}

/// [`describe_changes`], or `no observable difference` when nothing changed.
pub fn describe_or_nothing(changes: &[Change], separator: &str) -> String {
    if changes.is_empty() {
        "no observable difference".to_owned()
    } else {
        describe_changes(changes, separator)
    }
}

/// The value of observable `name` (a deprecated name reads its replacement), if the list has it.
pub fn observable_value(flat: &[(String, Value)], name: &str) -> Option<Value> {
    let name = crate::compaction::observables::current_name(name);
    flat.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}
