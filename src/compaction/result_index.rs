//! The tool_result ids a history holds, counted as messages enter and leave it (issue 13: the
//! re-read check and context editing look ids up here instead of scanning the history). A leaf.

use crate::hash::{FastMap, FastSet};
use crate::transcript::Message;

/// The tool_result ids a history holds: how many blocks of each (looked up, never iterated),
/// and whether an id that left the list ever came back.
#[derive(Debug, Default)]
pub(crate) struct ResultIndex {
    pub(crate) counts: FastMap<String, usize>,
    /// Ids whose last block left the list.
    pub(crate) gone: FastSet<String>,
    /// How many times an id in `gone` came back.
    pub(crate) returned: u64,
}

impl ResultIndex {
    /// Counts (`add`) or uncounts the tool_result ids of `message`.
    pub(crate) fn count(&mut self, message: &Message, add: bool) {
        for (id, _) in message.tool_results() {
            if add {
                let count = self.counts.entry(id.to_owned()).or_insert(0);
                *count += 1;
                if *count == 1 && self.gone.remove(id) {
                    self.returned += 1;
                }
            } else if let Some(count) = self.counts.get_mut(id) {
                *count -= 1;
                if *count == 0 {
                    self.counts.remove(id);
                    self.gone.insert(id.to_owned());
                }
            }
        }
    }
}
