//! Tool_use/tool_result pairs and the stages that split them (observable
//! `pairs_broken_by_compaction`; the 400 "tool_use ids were found without tool_result blocks"
//! users report after a compaction: anthropics/claude-code#2796, #2630, #5594, #24670;
//! openclaw/openclaw#3243, #4739, #8525).
//!
//! A pair is *intact* when the API would accept it: the tool_use is in an assistant message and
//! the next message is a user message holding exactly one tool_result for it. The pipeline
//! runner takes the intact pairs before each stage and asks [`split`] which of them the stage
//! left half in context. A pair a stage removed whole (both halves summarised away) is not
//! split; a pair that was not intact before the stage is not counted either (`api_valid` covers
//! the end state). A leaf: it reads messages and the history's index of ids only.

use crate::call_id::CallId;
use crate::compaction::result_index::ResultIndex;
use crate::hash::FastSet;
use crate::transcript::{Content, Message, Role};

/// Whether Claude Code's `ensureToolResultPairing` would leave a list unchanged, checked without
/// building anything and kept between requests (issue 13, audit D8): the prefix already found
/// intact is not read again. A prefix of whole units (a message that is not an assistant
/// message, or an assistant message with the user message that answers it) stays intact
/// whatever is appended after it, so a history that only grows costs one read of each message
/// over the whole replay; [`History`](crate::compaction::history::History) starts a new check
/// whenever it cuts or rebuilds the list.
#[derive(Debug, Default)]
pub(crate) struct PairCheck {
    /// `messages[..resume]` is intact.
    pub(super) resume: usize,
    /// tool_use ids of the assistant messages in `messages[..resume]`.
    seen: FastSet<CallId>,
}

impl PairCheck {
    /// Whether `messages`, which begin with the messages this check has already read, are
    /// intact: every tool_use id used once, each answered exactly once by the next message, no
    /// result elsewhere, no empty block list.
    pub(crate) fn intact(&mut self, messages: &[Message]) -> bool {
        let mut index = self.resume;
        while index < messages.len() {
            let message = &messages[index];
            if message.role != Role::Assistant {
                if message.tool_results().next().is_some() {
                    return false;
                }
                index += 1;
                self.resume = index;
                continue;
            }
            if matches!(&message.content, Content::Blocks(blocks) if blocks.is_empty()) {
                return false;
            }
            let uses = || message.tool_use_ids();
            let count = uses().count();
            // Each id once in the message, compared with the ones before it (a message calls a
            // few tools: no set is built for it), and in no message before.
            let repeated = if count <= FEW_USES {
                uses()
                    .enumerate()
                    .any(|(at, id)| self.seen.contains(id) || uses().take(at).any(|o| o == id))
            } else {
                let mut own: FastSet<&CallId> =
                    FastSet::with_capacity_and_hasher(count, Default::default());
                uses().any(|id| self.seen.contains(id) || !own.insert(id))
            };
            if repeated {
                return false;
            }
            match messages.get(index + 1) {
                Some(next) if next.role == Role::User => {
                    if !answers_exactly(message, count, next) {
                        return false;
                    }
                    self.seen.extend(uses().cloned());
                    index += 2;
                    self.resume = index;
                }
                // Another assistant message follows: nothing can answer this one any more.
                Some(_) if count == 0 => {
                    index += 1;
                    self.resume = index;
                }
                // The last message: an answer may still be appended, so it is read again.
                None if count == 0 => index += 1,
                Some(_) | None => return false,
            }
        }
        true
    }
}

/// Tool calls in one message up to which [`PairCheck::intact`] looks for a repeated id by
/// comparison, not in a set.
const FEW_USES: usize = 32;

/// Whether `next`, the user message after `call`, an assistant message calling `count` tools
/// each once, answers each of them exactly once and nothing else, and is not an empty block list
/// (which the repair turns into `(no content)`).
fn answers_exactly(call: &Message, count: usize, next: &Message) -> bool {
    if matches!(&next.content, Content::Blocks(blocks) if blocks.is_empty()) {
        return false;
    }
    let results = || next.tool_results().map(|(id, _)| id);
    let mut answered = 0;
    for (at, id) in results().enumerate() {
        let called = call.tool_use_ids().any(|use_id| use_id == id);
        if !called || results().take(at).any(|other| other == id) {
            return false;
        }
        answered += 1;
    }
    answered == count
}

/// The tool_use ids whose pair is intact, each once, in id order.
pub(crate) fn intact(messages: &[Message]) -> Vec<CallId> {
    let mut ids = Vec::new();
    intact_ids(messages, |id| ids.push(*id));
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Calls `found` with the tool_use id of each intact pair of `messages`, in message order.
fn intact_ids<'a>(messages: &'a [Message], mut found: impl FnMut(&'a CallId)) {
    for (index, message) in messages.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        let Some(next) = messages.get(index + 1).filter(|m| m.role == Role::User) else {
            continue;
        };
        for id in message.tool_use_ids() {
            if next
                .tool_results()
                .filter(|(r, _)| *r == id.as_str())
                .count()
                == 1
            {
                found(id);
            }
        }
    }
}

/// What a stage's pair watch keeps of the list as it was before the stage first cut or rebuilt
/// it: enough to tell, once the stage is done, which intact pairs it split ([`Before::split`]).
#[derive(Debug)]
pub(crate) enum Before {
    /// Every intact pair's id, in id order, as [`intact`] gives them.
    All(Vec<CallId>),
    /// The stage has cut once, by a splice that replaced `head..tail` with `inserted`
    /// messages, leaving the list `end` long. A pair with both halves before `head` or both from
    /// `tail` on kept its messages and its neighbour, so it is still intact; only the intact
    /// pairs with a half in `head - 1..=tail` are kept (issue 13: snip cuts a few messages of a
    /// long list on every turn, and reading the whole list before and after each cut was most of
    /// course-latest's replay).
    Splice {
        head: usize,
        inserted: usize,
        end: usize,
        /// The ids of the intact pairs the splice could break, in list order.
        disturbed: Vec<CallId>,
    },
    /// The stage has rebuilt the list: the list it replaced, whose intact pairs are read once
    /// the stage is done, and only those with a half in the list then (issue 13: a compaction
    /// keeps few, and sorting every intact pair's id of the old list cost more than the rest).
    Rebuilt(Vec<Message>),
}

impl Before {
    /// What the watch keeps of `messages` before `head..tail` is replaced with `inserted`
    /// messages.
    pub(crate) fn splice(messages: &[Message], head: usize, tail: usize, inserted: usize) -> Self {
        let around = head.saturating_sub(1)..(tail + 1).min(messages.len());
        let mut disturbed = Vec::new();
        intact_ids(&messages[around], |id| disturbed.push(*id));
        Before::Splice {
            head,
            inserted,
            end: messages.len() - (tail - head) + inserted,
            disturbed,
        }
    }

    /// Every intact pair of the list before the stage's cut, in id order, read from `messages`,
    /// the list after it: the parts the splice kept are still there (a later append does not
    /// reach them, a result's new text changes no pair).
    pub(crate) fn into_all(self, messages: &[Message]) -> Vec<CallId> {
        match self {
            Before::All(ids) => ids,
            Before::Rebuilt(old) => intact(&old),
            Before::Splice {
                head,
                inserted,
                end,
                mut disturbed,
            } => {
                intact_ids(&messages[..head], |id| disturbed.push(*id));
                intact_ids(&messages[head + inserted..end], |id| disturbed.push(*id));
                disturbed.sort_unstable();
                disturbed.dedup();
                disturbed
            }
        }
    }

    /// The pairs intact before the stage's cut that are no longer intact in `messages` although
    /// one half is still there, in id order. `index` counts the ids `messages` hold.
    pub(crate) fn split(self, messages: &[Message], index: &ResultIndex) -> Vec<CallId> {
        let mut lost = match self {
            Before::All(before) => return split(&before, messages, index),
            Before::Rebuilt(old) => {
                // Only a pair with a half in the list now can be split: the rest left whole.
                let mut kept = Vec::new();
                intact_ids(&old, |id| {
                    if index.holds_half(id) {
                        kept.push(*id);
                    }
                });
                kept.sort_unstable();
                kept.dedup();
                return split(&kept, messages, index);
            }
            Before::Splice { disturbed, .. } => disturbed,
        };
        // Only a pair with a half in the list now can be split, so the others are dropped before
        // sorting (issue 13: Gemini's compression cuts most of the list, every pair in it
        // disturbed); whether a pair is intact again does not depend on the others.
        lost.retain(|id| index.holds_half(id));
        lost.sort_unstable();
        lost.dedup();
        // A pair the splice disturbed is intact again only where its id repeats or the splice
        // joined its halves anew, and only if the list still holds a result of that id: a scan
        // then.
        if lost.iter().any(|id| index.holds_result(id)) {
            let mut again = vec![false; lost.len()];
            intact_ids(messages, |id| {
                if let Ok(at) = lost.binary_search(id) {
                    again[at] = true;
                }
            });
            let mut again = again.into_iter();
            lost.retain(|_| !again.next().unwrap_or(false));
        }
        lost
    }
}

/// The pairs of `before` (intact pairs' ids, in id order, as [`intact`] gives them) that are
/// no longer intact in `messages` although one half (the tool_use or a tool_result) is still
/// there, in id order; `index` counts the ids `messages` hold. The pairs still intact are
/// sorted and walked beside `before`.
pub(crate) fn split(before: &[CallId], messages: &[Message], index: &ResultIndex) -> Vec<CallId> {
    let mut after: Vec<&str> = Vec::with_capacity(before.len());
    intact_ids(messages, |id| after.push(id.as_str()));
    after.sort_unstable();
    after.dedup();
    let mut still = after.iter().peekable();
    before
        .iter()
        .filter(|id| {
            while still.next_if(|kept| **kept < id.as_str()).is_some() {}
            still.next_if(|kept| **kept == id.as_str()).is_none() && index.holds_half(id)
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Block;

    fn results(ids: &[&str]) -> Message {
        Message::blocks(
            Role::User,
            ids.iter()
                .map(|id| Block::tool_result(*id, "out"))
                .collect(),
        )
    }

    #[test]
    fn a_pair_is_intact_only_with_exactly_one_result_in_the_next_message() {
        let messages = vec![
            Message::tool_uses(&[("a", "bash"), ("b", "bash"), ("c", "bash")]),
            results(&["a", "b", "b"]),
            Message::tool_uses(&[("d", "bash")]),
            Message::user_text("no results"),
            Message::tool_uses(&[("e", "bash")]),
        ];
        let ids: Vec<CallId> = intact(&messages);
        assert_eq!(ids, ["a"]);
    }

    #[test]
    fn a_cut_between_the_halves_splits_a_pair_but_removing_both_does_not() {
        let messages = vec![
            Message::tool_uses(&[("a", "bash")]),
            results(&["a"]),
            Message::tool_uses(&[("b", "bash")]),
            results(&["b"]),
            Message::tool_uses(&[("c", "bash")]),
            results(&["c"]),
        ];
        let before = intact(&messages);
        assert_eq!(before.len(), 3);
        // A summary replaces messages 0..3: a goes whole, b loses its tool_use, c stays.
        let mut after = vec![Message::user_text("summary")];
        after.extend_from_slice(&messages[3..]);
        assert_eq!(split(&before, &after, &ResultIndex::of(&after)), ["b"]);
        // The tool_use kept and its result dropped is a split too.
        let kept = &messages[..5];
        assert_eq!(split(&before, kept, &ResultIndex::of(kept)), ["c"]);
        assert!(split(&before, &messages, &ResultIndex::of(&messages)).is_empty());
    }

    /// `split` as a set difference, the way it was written before the sorted walk (issue 13).
    fn split_by_sets(before: &[CallId], messages: &[Message]) -> Vec<CallId> {
        let mut after = std::collections::BTreeSet::new();
        intact_ids(messages, |id| {
            after.insert(id.as_str());
        });
        let mut present = std::collections::BTreeSet::new();
        for message in messages {
            present.extend(message.tool_use_ids().map(CallId::as_str));
            present.extend(message.tool_results().map(|(id, _)| id.as_str()));
        }
        let kept = |id: &&CallId| !after.contains(id.as_str()) && present.contains(id.as_str());
        before.iter().filter(kept).cloned().collect()
    }

    /// On random histories (ids reused, results duplicated, missing or out of place) cut at
    /// random, the walk finds the pairs the set difference finds, with up to 16 lost pairs and
    /// with more.
    #[test]
    fn the_sorted_walk_splits_what_the_set_difference_splits() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
        let (mut few, mut many) = (0, 0);
        for _ in 0..3000 {
            let ids = 2 + pick(300);
            let len = 2 + pick(150);
            // Calls at even positions; the message after answers them exactly two times in
            // three, else with random ids.
            let mut calls: Vec<String> = Vec::new();
            let messages: Vec<Message> = (0..len)
                .map(|i| {
                    let mut random: Vec<String> =
                        (0..pick(4)).map(|_| format!("t{}", pick(ids))).collect();
                    if i % 2 == 0 {
                        random.dedup();
                        calls = random;
                        let calls: Vec<(&str, &str)> =
                            calls.iter().map(|id| (id.as_str(), "bash")).collect();
                        Message::tool_uses(&calls)
                    } else {
                        let answer = if pick(3) == 0 { &random } else { &calls };
                        results(&answer.iter().map(String::as_str).collect::<Vec<_>>())
                    }
                })
                .collect();
            let before = intact(&messages);
            let head = pick(len);
            let tail = head + pick(len - head + 1);
            let mut after = messages[..head].to_vec();
            after.push(Message::user_text("marker"));
            after.extend_from_slice(&messages[tail..]);
            let expected = split_by_sets(&before, &after);
            let index = ResultIndex::of(&after);
            assert_eq!(
                split(&before, &after, &index),
                expected,
                "{head}..{tail} of {len}"
            );
            // What the watch keeps of a splice tells the same, and gives back every intact
            // pair of the list before it, though the list has grown since.
            let spliced = || Before::splice(&messages, head, tail, 1);
            assert_eq!(
                spliced().split(&after, &index),
                expected,
                "{head}..{tail} of {len}"
            );
            let mut grown = after.clone();
            grown.push(results(&["t1", "t2"]));
            assert_eq!(
                spliced().into_all(&grown),
                before,
                "{head}..{tail} of {len}"
            );
            let lost = before.len()
                - intact(&after)
                    .iter()
                    .filter(|id| before.contains(id))
                    .count();
            if lost > 16 {
                many += 1;
            } else if lost > 0 {
                few += 1;
            }
        }
        assert!(few > 500 && many > 50, "few {few}, many {many}");
    }
}
