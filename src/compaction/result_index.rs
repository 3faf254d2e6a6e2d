//! The tool_result and tool_use ids a history holds, counted as messages enter and leave it
//! (issue 13: the re-read check, context editing and the pair watch look ids up here instead of
//! scanning the history). A leaf.

use std::collections::hash_map::Entry;

use crate::call_id::CallId;
use crate::hash::{FastMap, FastSet};
use crate::transcript::{Block, Message, Role};

/// The tool_result ids a history holds: how many blocks of each (looked up, never iterated),
/// and whether an id that left the list ever came back; and how many tool_use blocks of each id.
#[derive(Debug, Default)]
pub(crate) struct ResultIndex {
    pub(crate) counts: FastMap<CallId, usize>,
    /// Ids whose last tool_result block left the list (nearly every result of a session, in a
    /// profile that compacts: room for them is made once, [`Self::expect_results`]).
    pub(crate) gone: FastSet<CallId>,
    /// How many times an id in `gone` came back.
    pub(crate) returned: u64,
    /// How many tool_use blocks of each id the list holds.
    pub(crate) uses: FastMap<CallId, usize>,
    /// What changed since [`Self::take_changes`] last took it, when watched.
    changes: Option<Changes>,
    /// An empty map with room for the ids the list held at its last rebuild: the next rebuild
    /// counts into it without growing a map from nothing (issue 13: course-main rebuilt its
    /// list at each compaction, and the growth cost 3% of a replay).
    spare: FastMap<CallId, usize>,
}

/// The tool_result ids whose count changed since they were last taken, for a tally kept of
/// what the list holds (course-latest's transcripts: issue 13).
#[derive(Debug, Default)]
struct Changes {
    /// The ids, in the order they changed (an id may appear more than once).
    ids: Vec<CallId>,
    /// Every id was forgotten at once ([`ResultIndex::take_all`]): the changes do not say
    /// which left.
    rebuilt: bool,
    /// How many tool_result blocks messages other than the user's hold.
    foreign: usize,
}

impl Changes {
    /// Notes the tool_result ids of a message that enters (`add`) or leaves the list.
    fn note(&mut self, message: &Message, add: bool) {
        let foreign = message.role != Role::User;
        for (id, _) in message.result_texts() {
            self.ids.push(*id);
            if foreign {
                self.foreign = if add {
                    self.foreign + 1
                } else {
                    self.foreign - 1
                };
            }
        }
    }
}

impl ResultIndex {
    /// Makes room for `results` ids in `gone` (the session's number of results), so that it
    /// does not grow by rehashing as compactions fill it (issue 13: 2% of course-main).
    pub(crate) fn expect_results(&mut self, results: usize) {
        self.gone.reserve(results);
    }

    /// Counts (`add`) or uncounts the tool_result and tool_use ids of `message`.
    pub(crate) fn count(&mut self, message: &Message, add: bool) {
        if let Some(changes) = &mut self.changes {
            changes.note(message, add);
        }
        for block in message.block_list() {
            match block {
                Block::ToolResult { tool_use_id, .. } if add => {
                    if increment(&mut self.counts, tool_use_id) && self.gone.remove(tool_use_id) {
                        self.returned += 1;
                    }
                }
                Block::ToolResult { tool_use_id, .. } => {
                    if decrement(&mut self.counts, tool_use_id) {
                        self.gone.insert(*tool_use_id);
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
    pub(crate) fn take_all(&mut self) -> FastMap<CallId, usize> {
        self.uses.clear();
        if let Some(changes) = &mut self.changes {
            *changes = Changes {
                rebuilt: true,
                ..Changes::default()
            };
        }
        std::mem::replace(&mut self.counts, std::mem::take(&mut self.spare))
    }

    /// Takes back the map [`Self::take_all`] returned, emptied, for the next rebuild to count
    /// into.
    pub(crate) fn recycle(&mut self, mut counts: FastMap<CallId, usize>) {
        counts.clear();
        self.spare = counts;
    }

    /// Starts keeping the ids whose tool_result count changes, from a list of messages none of
    /// which other than the user's holds a tool_result block (`clean`); or, without `clean`,
    /// stops keeping them.
    pub(crate) fn watch_changes(&mut self, clean: bool) {
        self.changes = clean.then(Changes::default);
    }

    /// Puts into `into` (emptied first) the ids whose tool_result count changed since the
    /// changes were watched or last taken, and then forgets them; false when they are not
    /// watched or cannot say it (the list was rebuilt, or a message other than the user's holds
    /// a tool_result block). The two lists trade places: the next changes are kept in the
    /// caller's old one, so that a tally taken at every turn allocates no list (issue 13).
    pub(crate) fn take_changes_into(&mut self, into: &mut Vec<CallId>) -> bool {
        into.clear();
        let Some(changes) = self.changes.as_mut() else {
            return false;
        };
        let usable = !changes.rebuilt && changes.foreign == 0;
        changes.rebuilt = false;
        std::mem::swap(into, &mut changes.ids);
        if !usable {
            into.clear();
        }
        usable
    }

    /// Marks an id as changed (its ledger record changed, not its count), when changes are
    /// watched.
    pub(crate) fn note_change(&mut self, id: &CallId) {
        if let Some(changes) = &mut self.changes {
            changes.ids.push(*id);
        }
    }

    /// How many tool_result blocks with this id the list holds.
    pub(crate) fn result_count(&self, id: &CallId) -> usize {
        self.counts.get(id).copied().unwrap_or(0)
    }

    /// Whether the list holds a tool_result block with this id.
    pub(crate) fn holds_result(&self, id: &CallId) -> bool {
        self.counts.contains_key(id)
    }

    /// Whether the list holds a tool_use or a tool_result block with this id.
    pub(crate) fn holds_half(&self, id: &CallId) -> bool {
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
fn increment(counts: &mut FastMap<CallId, usize>, id: &CallId) -> bool {
    let count = counts.entry(*id).or_insert(0);
    *count += 1;
    *count == 1
}

/// Removes one block of `id`; whether it was the last.
fn decrement(counts: &mut FastMap<CallId, usize>, id: &CallId) -> bool {
    // One lookup for the count and its removal (an id is a copied number).
    let Entry::Occupied(mut entry) = counts.entry(*id) else {
        return false;
    };
    *entry.get_mut() -= 1;
    if *entry.get() == 0 {
        entry.remove();
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(role: Role, ids: &[&str]) -> Message {
        let blocks = ids.iter().map(|id| Block::tool_result(*id, "x")).collect();
        Message::blocks(role, blocks)
    }

    /// [`ResultIndex::take_changes_into`] a list that held an id already.
    fn take_changes(index: &mut ResultIndex) -> Option<Vec<CallId>> {
        let mut ids = vec![CallId::new("stale")];
        let usable = index.take_changes_into(&mut ids);
        assert!(
            usable || ids.is_empty(),
            "unusable changes left in the list: {ids:?}"
        );
        usable.then_some(ids)
    }

    #[test]
    fn changes_name_every_id_whose_count_moved_until_they_cannot() {
        let mut index = ResultIndex::default();
        index.count(&results(Role::User, &["a"]), true);
        // Not watched: nothing is kept.
        assert_eq!(take_changes(&mut index), None);
        index.watch_changes(true);
        index.count(&results(Role::User, &["b", "c"]), true);
        index.count(&results(Role::User, &["a"]), false);
        index.note_change(&CallId::new("z"));
        assert_eq!(take_changes(&mut index).unwrap(), ["b", "c", "a", "z"]);
        assert_eq!(take_changes(&mut index).unwrap(), Vec::<CallId>::new());
        assert_eq!(
            (
                index.result_count(&CallId::new("a")),
                index.result_count(&CallId::new("b"))
            ),
            (0, 1)
        );
        // A result in an assistant message: the changes cannot say what users hold until it
        // leaves.
        let foreign = results(Role::Assistant, &["d"]);
        index.count(&foreign, true);
        assert_eq!(take_changes(&mut index), None);
        index.count(&foreign, false);
        assert_eq!(take_changes(&mut index).unwrap(), ["d"]);
        // A rebuild forgets which ids left: once, then the changes are kept again.
        let _ = index.take_all();
        index.count(&results(Role::User, &["b"]), true);
        assert_eq!(take_changes(&mut index), None);
        index.count(&results(Role::User, &["e"]), true);
        assert_eq!(take_changes(&mut index).unwrap(), ["e"]);
        index.watch_changes(false);
        index.count(&results(Role::User, &["f"]), true);
        assert_eq!(take_changes(&mut index), None);
    }

    /// A rebuild counts into the map the rebuild before it emptied: room for as many ids as
    /// that list held, and nothing of what it counted.
    #[test]
    fn a_rebuild_counts_into_the_last_rebuilds_map() {
        let mut index = ResultIndex::default();
        let ids: Vec<String> = (0..100).map(|i| format!("t{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        index.count(&results(Role::User, &ids), true);
        let before = index.take_all();
        assert_eq!(before.len(), 100);
        index.recycle(before);
        index.count(&results(Role::User, &["a"]), true);
        let before = index.take_all();
        assert_eq!(before.len(), 1);
        assert!(
            index.counts.capacity() >= 100,
            "{}",
            index.counts.capacity()
        );
        assert!(index.counts.is_empty());
    }
}
