//! The calls of one identity, for the re-read check (`World::note_calls`, observable
//! `reread_after_clear`): which earlier identical call a new one repeats when the model can see
//! none of their results. A leaf: it reads ids and a status the caller gives.

/// The calls of one identity (`world::call_key`), for the re-read check. A call answered whose
/// result is out of context or replaced stays so (unless an id is reused or a result comes back
/// into context: `at`), so it is looked at once, not at every later identical call.
#[derive(Debug, Default)]
pub(crate) struct SameCalls {
    /// Every id, in order of issue.
    ids: Vec<String>,
    /// Indexes in `ids` of the calls still to look at: not answered yet, or answered with the
    /// result in context as it came.
    open: Vec<usize>,
    /// The newest call answered whose result is out of context or replaced.
    settled: Option<usize>,
    /// `(reused ids, results back in context)` when `open` and `settled` were found.
    at: (u64, u64),
}

impl SameCalls {
    /// The earlier call a new identical call repeats when the model can see none of their
    /// results: the newest answered one, if every answered one is out of context or replaced.
    /// `status(id)`: `None` not answered, `Some(true)` out of context or replaced, `Some(false)`
    /// in context as it came.
    pub(crate) fn settle(
        &mut self,
        at: (u64, u64),
        status: impl Fn(&str) -> Option<bool>,
    ) -> Option<String> {
        if self.at != at {
            self.open = (0..self.ids.len()).collect();
            self.settled = None;
            self.at = at;
        }
        let mut visible = false;
        let (ids, settled) = (&self.ids, &mut self.settled);
        self.open.retain(|&i| match status(&ids[i]) {
            None => true,
            Some(true) => {
                *settled = Some(settled.map_or(i, |s| s.max(i)));
                false
            }
            Some(false) => {
                visible = true;
                true
            }
        });
        if visible {
            return None;
        }
        self.settled.map(|i| self.ids[i].clone())
    }

    /// Registers a new call of this identity.
    pub(crate) fn push(&mut self, id: &str) {
        self.open.push(self.ids.len());
        self.ids.push(id.to_owned());
    }
}
