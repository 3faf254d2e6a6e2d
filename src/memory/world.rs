//! All state of one memory run, and nothing else: the profile, the memory directory, the agent's
//! messages, the scripted side-call replies, injected faults, what the last agent turn recalled,
//! the counters observables read, and the trace (turmoil's `world.rs` shape). The mechanisms
//! that change it live in files named after them (the index is in `memory/mod.rs`) and take the
//! world explicitly; this file depends on nothing above it.

use std::collections::VecDeque;

use super::fs::MemoryFs;
use super::profile::MemoryProfile;
use super::record::Record;
use crate::trace::Event;
use crate::transcript::Message;

/// A scripted reply of a side model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The model's text.
    Text(String),
    /// The call raises this exception message.
    Raise(String),
}

/// An exception of the modelled Python code, carried as its `str(e)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PyError(pub(crate) String);

impl PyError {
    /// The exception with this message.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        PyError(message.into())
    }
}

/// One-shot faults: the operation after `after` successful ones from now fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Faults {
    /// Record writes that succeed before one fails (`No space left on device`).
    pub(crate) write_after: Option<usize>,
    /// Record deletes that succeed before one fails (`Permission denied`).
    pub(crate) delete_after: Option<usize>,
}

/// A consolidator that answers from the records it is shown (the growth experiment's merge
/// policy); scripted replies come first.
pub(crate) type Consolidator = Box<dyn FnMut(&[Record]) -> String>;

/// What answers the side model calls, queued per call.
#[derive(Default)]
pub(crate) struct Replies {
    /// Recall's selector.
    pub(crate) select: VecDeque<Reply>,
    pub(crate) extract: VecDeque<Reply>,
    pub(crate) consolidate: VecDeque<Reply>,
    /// Answers consolidation calls when no scripted reply is queued.
    pub(crate) consolidator: Option<Consolidator>,
}

/// What the last agent turn put in front of the model.
#[derive(Debug, Default)]
pub(crate) struct LastTurn {
    /// The system prompt built at the start of the last agent turn.
    pub(crate) system: String,
    /// Files recalled at the start of the last agent turn.
    pub(crate) recalled: Vec<String>,
    /// The recalled text of the last agent turn: the system prompt's record section (main) or
    /// the `<relevant_memories>` block prepended to the user turn (site).
    pub(crate) recall: String,
}

/// Counters over the run, read by the observables.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Side model calls: selector, extractor, consolidator.
    pub(crate) model_calls: usize,
    /// Records cut mid-text by the recall cap.
    pub(crate) recall_cut: usize,
    pub(crate) consolidations: usize,
    pub(crate) consolidations_skipped: usize,
    /// Records that a consolidation pass removed and did not give back.
    pub(crate) records_lost: usize,
    /// File operations that reached a path outside the store.
    pub(crate) path_escapes: usize,
}

/// The state of one memory run.
pub(crate) struct World {
    /// The profile with the run's overrides applied.
    pub(crate) profile: MemoryProfile,
    /// The memory directory.
    pub(crate) fs: Box<dyn MemoryFs>,
    /// The agent's conversation.
    pub(crate) messages: Vec<Message>,
    pub(crate) trace: Vec<Event>,
    /// The scenario step being run (0 for the scenario's `request`).
    pub(crate) step: usize,
    /// The virtual clock (seconds) for the site revision's default names.
    pub(crate) clock: u64,
    pub(crate) replies: Replies,
    pub(crate) faults: Faults,
    pub(crate) turn: LastTurn,
    pub(crate) counters: Counters,
}

impl World {
    /// An empty run of `profile` on the store `fs`.
    pub(crate) fn new(profile: MemoryProfile, fs: Box<dyn MemoryFs>) -> Self {
        World {
            profile,
            fs,
            messages: Vec::new(),
            trace: Vec::new(),
            step: 0,
            // 2026-08-18T00:00:00Z.
            clock: 1_787_011_200,
            replies: Replies::default(),
            faults: Faults::default(),
            turn: LastTurn::default(),
            counters: Counters::default(),
        }
    }

    /// Records one event at the current step. Every memory event goes through here, so a change
    /// of the trace's constructor is made in one place.
    pub(crate) fn event(
        &mut self,
        stage: &'static str,
        kind: &'static str,
        id: Option<&str>,
        reason: impl Into<crate::trace::Reason>,
    ) {
        let event = Event::new(stage, kind).reason(reason);
        self.trace.push(
            match id {
                Some(id) => event.id(id),
                None => event,
            }
            .at(self.step),
        );
    }
}
