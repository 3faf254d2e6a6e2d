//! Which results each archived transcript holds verbatim: what a `remove_file` step takes away
//! from the recoverable results (finding O2). A leaf: it holds ids and paths only.

use std::collections::{BTreeMap, BTreeSet};

use crate::call_id::{CallId, IdMap};

/// By transcript path: the results that file holds verbatim (what a `remove_file` step takes
/// away).
#[derive(Debug, Default)]
pub(crate) struct Holds {
    pub(crate) by_path: BTreeMap<String, BTreeSet<CallId>>,
    /// No step of the scenario removes a file: `by_path` would never be read and is not kept
    /// (issue 13: course-latest archives the whole history at almost every turn).
    pub(crate) unread: bool,
}

impl Holds {
    /// Notes that the transcript at `path` holds the result `id` verbatim.
    pub(crate) fn note(&mut self, path: &str, id: &CallId) {
        if self.unread {
            return;
        }
        match self.by_path.get_mut(path) {
            Some(ids) => ids.insert(*id),
            None => self.by_path.entry(path.to_owned()).or_default().insert(*id),
        };
    }
}

/// What the history's user messages hold, kept between two transcripts: how many tool_result
/// blocks, and how many of them hold their result's original text, by id and in all. A profile
/// that archives the whole history at almost every turn (course-latest) then looks up only the
/// results that changed since the last transcript, not every result again (issue 13).
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// By id: its blocks, and whether they held the original when last counted.
    by_id: IdMap<(usize, bool)>,
    /// Blocks in all.
    pub(crate) blocks: usize,
    /// Blocks that hold their original.
    pub(crate) originals: usize,
    /// Whether the counts are the history's (they are kept up to date).
    pub(crate) kept: bool,
    /// Whether a transcript was counted from the kept counts since they were last counted in
    /// full.
    pub(crate) used: bool,
    /// The counts are not kept: once kept, they were of no use to the next transcript (the
    /// history was rebuilt between: course-main archives only before a compaction).
    pub(crate) refused: bool,
    /// The ids that changed since the last transcript, as the history last gave them: a list
    /// kept from one transcript to the next.
    pub(crate) changed: Vec<CallId>,
}

impl Tally {
    /// Forgets every count (not whether counts are refused).
    pub(crate) fn clear(&mut self) {
        *self = Tally {
            refused: self.refused,
            ..Tally::default()
        };
    }

    /// Records that the history holds `count` blocks of `id`, holding its original or not.
    pub(crate) fn set(&mut self, id: &CallId, count: usize, original: bool) {
        // One lookup: an id leaves the map when its last block leaves the history.
        let (was, was_original) = if count == 0 {
            self.by_id.remove(id).unwrap_or((0, false))
        } else {
            let slot = self.by_id.get_or_insert_with(*id, || (0, false));
            std::mem::replace(slot, (count, original))
        };
        let weigh = |count: usize, original: bool| if original { count } else { 0 };
        self.blocks = self.blocks - was + count;
        self.originals = self.originals - weigh(was, was_original) + weigh(count, original);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_blocks_and_originals_as_ids_change() {
        let mut tally = Tally::default();
        let (a, b) = (CallId::new("a"), CallId::new("b"));
        tally.set(&a, 2, true);
        tally.set(&b, 1, false);
        assert_eq!((tally.blocks, tally.originals), (3, 2));
        // Setting an id again replaces what it counted; twice the same changes nothing.
        tally.set(&a, 1, true);
        tally.set(&a, 1, true);
        assert_eq!((tally.blocks, tally.originals), (2, 1));
        tally.set(&b, 3, true);
        assert_eq!((tally.blocks, tally.originals), (4, 4));
        tally.set(&a, 0, true);
        assert_eq!((tally.blocks, tally.originals), (3, 3));
        assert!(!tally.by_id.contains_key(&CallId::new("a")));
        tally.set(&b, 3, false);
        assert_eq!((tally.blocks, tally.originals), (3, 0));
        tally.refused = true;
        tally.clear();
        assert_eq!((tally.blocks, tally.originals, tally.kept), (0, 0, false));
        assert!(tally.refused);
    }

    #[test]
    fn held_ids_are_kept_per_path_once_each_unless_nothing_reads_them() {
        let mut holds = Holds::default();
        for (path, id) in [("/t/a", "x"), ("/t/a", "y"), ("/t/a", "x"), ("/t/b", "x")] {
            holds.note(path, &CallId::new(id));
        }
        let ids = |holds: &Holds, path: &str| -> Vec<&str> {
            holds
                .by_path
                .get(path)
                .into_iter()
                .flatten()
                .map(CallId::as_str)
                .collect()
        };
        assert_eq!(ids(&holds, "/t/a"), ["x", "y"]);
        assert_eq!(ids(&holds, "/t/b"), ["x"]);
        let mut unread = Holds {
            unread: true,
            ..Holds::default()
        };
        unread.note("/t/a", &CallId::new("x"));
        assert!(unread.by_path.is_empty());
    }
}
