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
//! the end state). A leaf: it reads messages only.

use crate::hash::FastSet;
use crate::transcript::{Content, Message, Role};
use smol_str::SmolStr;

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
    seen: FastSet<String>,
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
            let uses: Vec<&str> = message.tool_use_ids().map(SmolStr::as_str).collect();
            let mut own: FastSet<&str> =
                FastSet::with_capacity_and_hasher(uses.len(), Default::default());
            if uses
                .iter()
                .any(|id| self.seen.contains(*id) || !own.insert(id))
            {
                return false;
            }
            match messages.get(index + 1) {
                Some(next) if next.role == Role::User => {
                    if !answers_exactly(&uses, next) {
                        return false;
                    }
                    self.seen.extend(uses.iter().map(|id| (*id).to_owned()));
                    index += 2;
                    self.resume = index;
                }
                // Another assistant message follows: nothing can answer this one any more.
                Some(_) if uses.is_empty() => {
                    index += 1;
                    self.resume = index;
                }
                // The last message: an answer may still be appended, so it is read again.
                None if uses.is_empty() => index += 1,
                Some(_) | None => return false,
            }
        }
        true
    }
}

/// Whether `next`, the user message after an assistant message calling `uses`, answers each of
/// them exactly once and nothing else, and is not an empty block list (which the repair turns
/// into `(no content)`).
fn answers_exactly(uses: &[&str], next: &Message) -> bool {
    if matches!(&next.content, Content::Blocks(blocks) if blocks.is_empty()) {
        return false;
    }
    let mut answered: Vec<&str> = Vec::with_capacity(uses.len());
    for (id, _) in next.tool_results() {
        if !uses.contains(&id) || answered.contains(&id) {
            return false;
        }
        answered.push(id);
    }
    answered.len() == uses.len()
}

/// The tool_use ids whose pair is intact, each once, in id order.
pub(crate) fn intact(messages: &[Message]) -> Vec<String> {
    let mut ids = Vec::new();
    intact_ids(messages, |id| ids.push(id.to_owned()));
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Calls `found` with the tool_use id of each intact pair, in list order.
fn intact_ids<'a>(messages: &'a [Message], mut found: impl FnMut(&'a str)) {
    for (index, message) in messages.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        let Some(next) = messages.get(index + 1).filter(|m| m.role == Role::User) else {
            continue;
        };
        for id in message.tool_use_ids() {
            if next.tool_results().filter(|(r, _)| *r == id).count() == 1 {
                found(id);
            }
        }
    }
}

/// The pairs of `before` (intact pairs' ids, in id order, as [`intact`] gives them) that are
/// no longer intact in `messages` although one half (the tool_use or a tool_result) is still
/// there, in id order. The sets are looked up, never iterated.
pub(crate) fn split(before: &[String], messages: &[Message]) -> Vec<String> {
    // Sized for the pairs there were, so that the set is built without growing.
    let mut after: FastSet<&str> =
        FastSet::with_capacity_and_hasher(before.len(), Default::default());
    intact_ids(messages, |id| {
        after.insert(id);
    });
    let lost: Vec<&String> = before
        .iter()
        .filter(|id| !after.contains(id.as_str()))
        .collect();
    if lost.is_empty() {
        return Vec::new();
    }
    let mut present: FastSet<&str> =
        FastSet::with_capacity_and_hasher(2 * before.len(), Default::default());
    for message in messages {
        present.extend(message.tool_use_ids().map(SmolStr::as_str));
        present.extend(message.tool_results().map(|(id, _)| id));
    }
    lost.into_iter()
        .filter(|id| present.contains(id.as_str()))
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
        let ids: Vec<String> = intact(&messages).into_iter().collect();
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
        assert_eq!(split(&before, &after), ["b"]);
        // The tool_use kept and its result dropped is a split too.
        assert_eq!(split(&before, &messages[..5]), ["c"]);
        assert!(split(&before, &messages).is_empty());
    }
}
