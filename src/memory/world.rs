//! All state of one memory run: the profile, the memory directory, the agent's messages, the
//! scripted model replies, injected faults, counters and the trace.

use std::collections::{BTreeSet, VecDeque};

use super::fs::MemoryFs;
use super::profile::MemoryProfile;
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
pub struct PyError(pub String);

impl PyError {
    pub fn new(message: impl Into<String>) -> Self {
        PyError(message.into())
    }
}

/// Which side call a reply is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Select,
    Extract,
    Consolidate,
}

/// A one-shot fault: the operation after `after` successful ones from now fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Faults {
    pub write_after: Option<usize>,
    pub delete_after: Option<usize>,
}

/// A consolidator that answers from the records it is shown (the growth experiment's merge
/// policy); scripted replies come first.
pub type Consolidator = Box<dyn FnMut(&[super::store::Record]) -> String>;

/// The state of one memory run.
pub struct MemoryWorld {
    pub profile: MemoryProfile,
    pub fs: Box<dyn MemoryFs>,
    pub messages: Vec<Message>,
    pub trace: Vec<Event>,
    pub step: usize,
    pub model_calls: usize,
    pub select_replies: VecDeque<Reply>,
    pub extract_replies: VecDeque<Reply>,
    pub consolidate_replies: VecDeque<Reply>,
    pub faults: Faults,
    /// Answers consolidation calls when no scripted reply is queued.
    pub consolidator: Option<Consolidator>,
    /// The system prompt built at the start of the last agent turn.
    pub last_system: String,
    /// Files recalled at the start of the last agent turn.
    pub last_recalled: Vec<String>,
    /// The recalled text of the last agent turn: the system prompt's record section (main) or
    /// the `<relevant_memories>` block prepended to the user turn (site).
    pub last_recall: String,
    /// Records cut mid-text by the recall cap, over the run.
    pub recall_cut: usize,
    pub consolidations: usize,
    pub consolidations_skipped: usize,
    /// Records that a consolidation pass removed and did not give back.
    pub records_lost: usize,
    /// File operations that reached a path outside the store.
    pub path_escapes: usize,
    /// Outside paths written through the store.
    pub escaped_paths: BTreeSet<String>,
    /// Records stored by extraction, over the run.
    pub stored: usize,
    /// The virtual clock (seconds) for the site revision's default names.
    pub clock: u64,
}

impl MemoryWorld {
    pub fn new(profile: MemoryProfile, fs: Box<dyn MemoryFs>) -> Self {
        MemoryWorld {
            profile,
            fs,
            messages: Vec::new(),
            trace: Vec::new(),
            step: 0,
            model_calls: 0,
            select_replies: VecDeque::new(),
            extract_replies: VecDeque::new(),
            consolidate_replies: VecDeque::new(),
            faults: Faults::default(),
            consolidator: None,
            last_system: String::new(),
            last_recalled: Vec::new(),
            last_recall: String::new(),
            recall_cut: 0,
            consolidations: 0,
            consolidations_skipped: 0,
            records_lost: 0,
            path_escapes: 0,
            escaped_paths: BTreeSet::new(),
            stored: 0,
            // 2026-08-18T00:00:00Z.
            clock: 1_787_011_200,
        }
    }

    /// Records one event at the current step.
    pub fn event(
        &mut self,
        stage: &'static str,
        kind: &'static str,
        id: Option<&str>,
        reason: impl Into<String>,
    ) {
        self.trace.push(Event {
            step: self.step,
            stage,
            kind,
            id: id.map(str::to_owned),
            before: None,
            after: None,
            reason: reason.into(),
        });
    }

    /// One side model call: the next scripted reply (the default answers `[]`).
    pub fn call(&mut self, call: Call) -> Result<String, PyError> {
        self.model_calls += 1;
        let queue = match call {
            Call::Select => &mut self.select_replies,
            Call::Extract => &mut self.extract_replies,
            Call::Consolidate => &mut self.consolidate_replies,
        };
        match queue.pop_front() {
            Some(Reply::Text(text)) => Ok(text),
            Some(Reply::Raise(message)) => Err(PyError(message)),
            None => Ok("[]".to_owned()),
        }
    }

    /// A consolidation call shown `records`: the next scripted reply, else the policy, else `[]`.
    pub fn call_consolidator(
        &mut self,
        records: &[super::store::Record],
    ) -> Result<String, PyError> {
        if self.consolidate_replies.is_empty() {
            if let Some(policy) = self.consolidator.as_mut() {
                self.model_calls += 1;
                return Ok(policy(records));
            }
        }
        self.call(Call::Consolidate)
    }

    /// Counts down a fault; true when this operation is the one that fails.
    fn strike(slot: &mut Option<usize>) -> bool {
        match slot {
            Some(0) => {
                *slot = None;
                true
            }
            Some(n) => {
                *n -= 1;
                false
            }
            None => false,
        }
    }

    /// Writes a record file through the injected faults.
    pub fn write_record(&mut self, name: &str, text: &str) -> Result<(), PyError> {
        if Self::strike(&mut self.faults.write_after) {
            self.event("fault", "write", Some(name), "injected write failure");
            return Err(PyError::new("[Errno 28] No space left on device"));
        }
        self.note_escape(name, "write");
        self.fs
            .write(name, text)
            .map_err(|e| PyError(e.to_string()))
    }

    /// Deletes a record file through the injected faults.
    pub fn delete_record(&mut self, name: &str) -> Result<(), PyError> {
        if Self::strike(&mut self.faults.delete_after) {
            self.event("fault", "delete", Some(name), "injected delete failure");
            return Err(PyError(format!("[Errno 13] Permission denied: '{name}'")));
        }
        self.fs.unlink(name).map_err(|e| PyError(e.to_string()))
    }

    /// Reads a file of the store, noting a read that leaves the store.
    pub fn read_file(&mut self, name: &str) -> Result<String, PyError> {
        self.note_escape(name, "read");
        self.fs.read(name).map_err(|e| PyError(e.to_string()))
    }

    fn note_escape(&mut self, name: &str, what: &'static str) {
        if let super::fs::Target::Outside(path) = self.fs.target(name) {
            self.path_escapes += 1;
            if what == "write" {
                self.escaped_paths.insert(path.clone());
            }
            self.event(
                "store",
                "escape",
                Some(name),
                format!("{what} of {name} reaches {path}, outside the store"),
            );
        }
    }
}
