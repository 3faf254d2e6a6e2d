//! The trace: one event per action of a run, so that `lab explain` can tell what happened to a
//! result and why (SPEC §4).

use serde::Serialize;

/// One action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    /// 1-based scenario step (0 for the scenario's `request`).
    pub step: usize,
    /// The stage that acted, or `scenario` for appended messages.
    pub stage: &'static str,
    /// What happened: `append`, `seen`, `persist`, `keep`, `replace`, `archive`, `snip`, `cut`,
    /// `compact`, `summary`, `check`.
    pub kind: &'static str,
    /// The tool_use_id concerned, if any.
    pub id: Option<String>,
    /// Characters before the action (a result's content, or the context estimate).
    pub before: Option<usize>,
    /// Characters after the action.
    pub after: Option<usize>,
    /// Why, in words.
    pub reason: String,
}
