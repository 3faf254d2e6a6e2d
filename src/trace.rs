//! The trace: one event per action of a run, so that `lab explain` can tell what happened to a
//! result and why (docs/observables.md). Events are built by intent, e.g.
//! `Event::new("budget", "keep").id(id).sizes(len, len).reason(why)`; the recorder stamps the
//! step. Field order is the JSON order.

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

impl Event {
    /// An event of `stage` of this `kind`, with no id, sizes or reason yet. The step is the
    /// recorder's to set (`World::record` stamps the current one).
    pub fn new(stage: &'static str, kind: &'static str) -> Self {
        Event {
            step: 0,
            stage,
            kind,
            id: None,
            before: None,
            after: None,
            reason: String::new(),
        }
    }

    /// The tool_use_id concerned.
    pub fn id(self, id: impl Into<String>) -> Self {
        Event {
            id: Some(id.into()),
            ..self
        }
    }

    /// Characters before the action.
    pub fn before(self, chars: usize) -> Self {
        Event {
            before: Some(chars),
            ..self
        }
    }

    /// Characters after the action.
    pub fn after(self, chars: usize) -> Self {
        Event {
            after: Some(chars),
            ..self
        }
    }

    /// Characters before and after the action.
    pub fn sizes(self, before: usize, after: usize) -> Self {
        self.before(before).after(after)
    }

    /// Why, in words.
    pub fn reason(self, reason: impl Into<String>) -> Self {
        Event {
            reason: reason.into(),
            ..self
        }
    }
}
