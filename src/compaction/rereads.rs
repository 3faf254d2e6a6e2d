//! The calls of one identity, for the re-read check (`World::note_calls`, observable
//! `reread_after_clear`): which earlier identical call a new one repeats when the model can see
//! none of their results. A leaf: it reads ids and a status the caller gives.

use smallvec::SmallVec;

use crate::call_id::CallId;

/// The calls of one identity (`world::CallKey`), for the re-read check. A call answered whose
/// result is out of context or replaced stays so (unless an id is reused or a result comes back
/// into context: `at`), so it is looked at once, not at every later identical call.
#[derive(Debug, Default)]
pub(crate) struct SameCalls {
    /// Every id, in order of issue. Most calls are made once: the first id is held inline
    /// (issue 13: two lists allocated per call were a tenth of a replay's allocations).
    ids: SmallVec<[CallId; 1]>,
    /// Indexes in `ids` of the calls still to look at: not answered yet, or answered with the
    /// result in context as it came.
    open: SmallVec<[usize; 2]>,
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
        status: impl Fn(&CallId) -> Option<bool>,
    ) -> Option<CallId> {
        if self.at != at {
            self.open = (0..self.ids.len()).collect();
            self.settled = None;
            self.at = at;
        }
        let mut visible = false;
        let (ids, settled) = (&self.ids, &mut self.settled);
        self.open.retain(|&mut i| match status(&ids[i]) {
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
        self.settled.map(|i| self.ids[i])
    }

    /// Registers a new call of this identity.
    pub(crate) fn push(&mut self, id: &CallId) {
        self.open.push(self.ids.len());
        self.ids.push(*id);
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::call_id::CallId;
    use crate::compaction::profile::COURSE_MAIN;
    use crate::compaction::world::{IncomingResult, World};
    use crate::transcript::Message;

    /// The re-read events a new assistant message calling `calls` should trace, found from
    /// every earlier call as the check was first written: for each call, the earlier identical
    /// calls that got a result, all of whose results are out of context or replaced.
    fn rereads_by_walking(
        world: &World,
        calls: &[(String, &str)],
        earlier: &[(String, String)],
    ) -> Vec<(String, String)> {
        let mut expected = Vec::new();
        let mut issued: Vec<(String, String)> = earlier.to_vec();
        for (id, tool) in calls {
            let answered: Vec<&String> = issued
                .iter()
                .filter(|(name, e)| {
                    name == tool && world.ledger.results.contains_key(&CallId::new(e))
                })
                .map(|(_, e)| e)
                .collect();
            if let Some(last) = answered.last() {
                if answered
                    .iter()
                    .all(|e| world.result_in_context(&CallId::new(e)) != Some(true))
                {
                    expected.push((id.clone(), (*last).clone()));
                }
            }
            issued.push(((*tool).to_owned(), id.clone()));
        }
        expected
    }

    /// The 24 tools of the random session: every call of a tool is the same call.
    const TOOLS: [&str; 24] = [
        "Read", "Grep", "Bash", "Glob", "WebFetch", "Edit", "T6", "T7", "T8", "T9", "T10", "T11",
        "T12", "T13", "T14", "T15", "T16", "T17", "T18", "T19", "T20", "T21", "T22", "T23",
    ];

    /// One or two calls of random tools; one id in 25 reuses an earlier step's.
    fn random_calls(rng: &mut ChaCha8Rng, step: u64) -> Vec<(String, &'static str)> {
        (0..1 + rng.next_u64() % 2)
            .map(|k| {
                let tool = TOOLS[(rng.next_u64() % TOOLS.len() as u64) as usize];
                let id = if rng.next_u64() % 25 == 0 {
                    format!("t{}_0", rng.next_u64() % (step + 1))
                } else {
                    format!("t{step}_{k}")
                };
                (id, tool)
            })
            .collect()
    }

    /// `(id, the earlier call it repeats)` of each re-read traced since `before`.
    fn traced_rereads(world: &World, before: usize) -> Vec<(String, String)> {
        let rereads = world.trace[before..].iter().filter(|e| e.kind == "reread");
        rereads
            .map(|e| {
                let reason = e.reason.text();
                let after = reason.split(" call as ").nth(1);
                let last = after.and_then(|r| r.split(',').next()).unwrap_or_default();
                (
                    e.id.as_deref().unwrap_or_default().to_owned(),
                    last.to_owned(),
                )
            })
            .collect()
    }

    /// Answers most of `calls` (one in ten never is).
    fn answer_most(world: &mut World, rng: &mut ChaCha8Rng, calls: &[(String, &str)]) {
        let answered: Vec<IncomingResult> = calls
            .iter()
            .filter(|_| rng.next_u64() % 10 != 0)
            .map(|(id, tool)| IncomingResult::measured(id.as_str(), *tool, format!("out of {id}")))
            .collect();
        if !answered.is_empty() {
            world.push_results(answered);
        }
    }

    /// Replaces a result, cuts messages out (kept in `cut`) or puts a cut message back at the
    /// head: `(results replaced, messages put back)`.
    fn disturb(world: &mut World, rng: &mut ChaCha8Rng, cut: &mut Vec<Message>) -> (usize, usize) {
        let positions = world.history.result_positions();
        let len = world.history.len();
        match rng.next_u64() % 6 {
            0..=2 if !positions.is_empty() => {
                let (mi, bi) = positions[(rng.next_u64() % positions.len() as u64) as usize];
                world.replace_result(mi, bi, "[cleared]", "test", String::new());
                (1, 0)
            }
            3 | 4 if len > 4 => {
                let at = 1 + (rng.next_u64() % (len as u64 - 3)) as usize;
                let end = (at + 1 + (rng.next_u64() % 6) as usize).min(len - 1);
                cut.extend(world.history.messages()[at..end].iter().cloned());
                world.history.splice(at, Vec::new(), end);
                (0, 0)
            }
            5 if !cut.is_empty() => {
                let message = cut.remove((rng.next_u64() % cut.len() as u64) as usize);
                let mut messages = world.history.messages().to_vec();
                messages.insert(0, message);
                world.history.replace_all(messages);
                (0, 1)
            }
            _ => (0, 0),
        }
    }

    /// A random session of a few tools called again and again, with results replaced, messages
    /// cut out, cut messages put back, calls never answered and ids reused: the check that looks
    /// at each earlier call once traces the re-reads that walking every earlier identical call
    /// finds.
    #[test]
    fn the_reread_check_finds_what_walking_every_earlier_call_finds() {
        let mut rng = ChaCha8Rng::seed_from_u64(68709);
        let mut world = World::for_test(COURSE_MAIN);
        let mut issued: Vec<(String, String)> = Vec::new();
        let mut cut: Vec<Message> = Vec::new();
        let (mut rereads, mut replaced, mut returned) = (0, 0, 0);
        for step in 0..400_u64 {
            world.clock.step = step as usize + 1;
            let calls = random_calls(&mut rng, step);
            let expected = rereads_by_walking(&world, &calls, &issued);
            let before = world.trace.len();
            let uses: Vec<(&str, &str)> = calls.iter().map(|(id, t)| (id.as_str(), *t)).collect();
            world.push(Message::tool_uses(&uses));
            let found = traced_rereads(&world, before);
            assert_eq!(found, expected, "step {step}");
            rereads += found.len();
            issued.extend(calls.iter().map(|(id, t)| ((*t).to_owned(), id.clone())));
            answer_most(&mut world, &mut rng, &calls);
            let (r, b) = disturb(&mut world, &mut rng, &mut cut);
            (replaced, returned) = (replaced + r, returned + b);
        }
        // At this seed: 61 rereads; 203 results replaced, 70 cut messages put back and 53 ids
        // back in the list (each starts the check over), and reused ids.
        let back = world.history.returned_results();
        assert!(
            rereads > 40 && replaced > 150 && returned > 50 && back > 30,
            "{rereads} rereads, {replaced} replaced, {returned} put back, {back} returned"
        );
    }

    /// A result id reused by a later call brings the earlier calls of that id back into view:
    /// once its new result is in context as it came, a call identical to the first is no
    /// re-read, although the first result was replaced.
    #[test]
    fn a_reused_id_answered_again_is_visible_again() {
        let mut world = World::for_test(COURSE_MAIN);
        let rereads = |world: &World| -> Vec<String> {
            let events = world.trace.iter().filter(|e| e.kind == "reread");
            events
                .filter_map(|e| e.id.as_deref().map(str::to_owned))
                .collect()
        };
        let clear = |world: &mut World, id: &str| {
            let positions = world.history.result_positions();
            let at = positions
                .into_iter()
                .find(|&(mi, bi)| world.history.result_at(mi, bi).0 == id);
            let (mi, bi) = at.expect("the result is in context");
            world.replace_result(mi, bi, "[cleared]", "test", String::new());
        };
        world.turn(&[("a", "Read", "one".into())]);
        clear(&mut world, "a");
        world.turn(&[("b", "Read", "two".into())]);
        assert_eq!(rereads(&world), ["b"]);
        clear(&mut world, "b");
        // `a` again, for another tool: its new result is in context as it came.
        world.turn(&[("a", "Grep", "three".into())]);
        world.push(Message::tool_uses(&[("c", "Read")]));
        assert_eq!(
            rereads(&world),
            ["b"],
            "c repeats a, whose result is visible again"
        );
        assert_eq!(world.ledger.reused_ids, 1);
    }
}
