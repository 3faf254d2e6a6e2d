//! Which results each archived transcript holds verbatim: what a `remove_file` step takes away
//! from the recoverable results (finding O2). A leaf: it holds ids and paths only.

use std::collections::{BTreeMap, BTreeSet};

/// By transcript path: the results that file holds verbatim (what a `remove_file` step takes
/// away).
#[derive(Debug, Default)]
pub(crate) struct Holds {
    pub(crate) by_path: BTreeMap<String, BTreeSet<String>>,
    /// No step of the scenario removes a file: `by_path` would never be read and is not kept
    /// (issue 13: course-latest archives the whole history at almost every turn).
    pub(crate) unread: bool,
}

impl Holds {
    /// Notes that the transcript at `path` holds the result `id` verbatim.
    pub(crate) fn note(&mut self, path: &str, id: &str) {
        if self.unread {
            return;
        }
        match self.by_path.get_mut(path) {
            Some(ids) => ids.insert(id.to_owned()),
            None => self
                .by_path
                .entry(path.to_owned())
                .or_default()
                .insert(id.to_owned()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_ids_are_kept_per_path_once_each_unless_nothing_reads_them() {
        let mut holds = Holds::default();
        for (path, id) in [("/t/a", "x"), ("/t/a", "y"), ("/t/a", "x"), ("/t/b", "x")] {
            holds.note(path, id);
        }
        let ids = |holds: &Holds, path: &str| -> Vec<String> {
            holds
                .by_path
                .get(path)
                .into_iter()
                .flatten()
                .cloned()
                .collect()
        };
        assert_eq!(ids(&holds, "/t/a"), ["x", "y"]);
        assert_eq!(ids(&holds, "/t/b"), ["x"]);
        let mut unread = Holds {
            unread: true,
            ..Holds::default()
        };
        unread.note("/t/a", "x");
        assert!(unread.by_path.is_empty());
    }
}
