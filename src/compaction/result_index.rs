//! The tool_result and tool_use ids a history holds, counted as messages enter and leave it
//! (issue 13: the re-read check, context editing and the pair watch look ids up here instead of
//! scanning the history). A leaf.

use crate::hash::{FastMap, FastSet};
use crate::transcript::{Block, Message};
use smol_str::SmolStr;

/// The tool_result ids a history holds: how many blocks of each (looked up, never iterated),
/// and whether an id that left the list ever came back; and how many tool_use blocks of each id.
#[derive(Debug, Default)]
pub(crate) struct ResultIndex {
    pub(crate) counts: FastMap<SmolStr, usize>,
    /// Ids whose last tool_result block left the list.
    pub(crate) gone: FastSet<SmolStr>,
    /// How many times an id in `gone` came back.
    pub(crate) returned: u64,
    /// How many tool_use blocks of each id the list holds.
    pub(crate) uses: FastMap<SmolStr, usize>,
}

impl ResultIndex {
    /// Counts (`add`) or uncounts the tool_result and tool_use ids of `message`.
    pub(crate) fn count(&mut self, message: &Message, add: bool) {
        for block in message.block_list() {
            match block {
                Block::ToolResult { tool_use_id, .. } if add => {
                    if increment(&mut self.counts, tool_use_id) && self.gone.remove(tool_use_id) {
                        self.returned += 1;
                    }
                }
                Block::ToolResult { tool_use_id, .. } => {
                    if decrement(&mut self.counts, tool_use_id) {
                        self.gone.insert(tool_use_id.clone());
                    }
                }
                Block::ToolUse { id, .. } if add => {
                    increment(&mut self.uses, id);
                }
                Block::ToolUse { id, .. } => {
                    decrement(&mut self.uses, id);
                }
                Block::Text { .. } => {}
            }
        }
    }

    /// Forgets every id the list held, as a rebuild that pushes its messages again does; the
    /// tool_result ids it held are returned, to be marked gone if they do not come back.
    pub(crate) fn take_all(&mut self) -> FastMap<SmolStr, usize> {
        self.uses.clear();
        std::mem::take(&mut self.counts)
    }

    /// Whether the list holds a tool_result block with this id.
    pub(crate) fn holds_result(&self, id: &str) -> bool {
        self.counts.contains_key(id)
    }

    /// Whether the list holds a tool_use or a tool_result block with this id.
    pub(crate) fn holds_half(&self, id: &str) -> bool {
        self.holds_result(id) || self.uses.contains_key(id)
    }

    /// The index of `messages`, counted from nothing (the reference a test compares with).
    #[cfg(test)]
    pub(crate) fn of(messages: &[Message]) -> Self {
        let mut index = ResultIndex::default();
        for message in messages {
            index.count(message, true);
        }
        index
    }
}

/// Adds one block of `id`; whether it is the first.
fn increment(counts: &mut FastMap<SmolStr, usize>, id: &SmolStr) -> bool {
    let count = counts.entry(id.clone()).or_insert(0);
    *count += 1;
    *count == 1
}

/// Removes one block of `id`; whether it was the last.
fn decrement(counts: &mut FastMap<SmolStr, usize>, id: &str) -> bool {
    let Some(count) = counts.get_mut(id) else {
        return false;
    };
    *count -= 1;
    if *count == 0 {
        counts.remove(id);
        return true;
    }
    false
}
