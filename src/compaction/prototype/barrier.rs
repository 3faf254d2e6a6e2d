//! The s16 timing layer of the prototype: three items through two stages, with or without a
//! barrier between the stages, and the background notification format.
//!
//! Durations A = (3, 1), B = (1, 3), C = (1, 1), as many slots as items. Without a barrier each
//! item runs its own chain (makespan = the longest chain, 4.0); with one (`pipeline_has_barrier`,
//! break D5) every stage waits for its slowest item (3 + 3 = 6.0).

use crate::compaction::switches::Switches;

const DURATIONS: [(&str, [f64; 2]); 3] = [("A", [3.0, 1.0]), ("B", [1.0, 3.0]), ("C", [1.0, 1.0])];

/// Makespan of the three items.
pub(super) fn makespan(switches: &Switches) -> f64 {
    if switches.pipeline_has_barrier {
        (0..2)
            .map(|stage| DURATIONS.iter().map(|(_, d)| d[stage]).fold(0.0, f64::max))
            .sum()
    } else {
        DURATIONS
            .iter()
            .map(|(_, d)| d.iter().sum::<f64>())
            .fold(0.0, f64::max)
    }
}

/// A background completion notice: a text block of its own, never a second tool_result for an
/// id (one tool_use has exactly one tool_result).
pub(super) fn notification(task_id: &str, status: &str, summary: &str) -> String {
    let summary = crate::python::json::char_prefix(summary, 40);
    let text = format!(
        "<task_notification><task_id>{task_id}</task_id><status>{status}</status><summary>{summary}</summary></task_notification>"
    );
    crate::python::json::dumps(&serde_json::json!({"type": "text", "text": text}))
}
