//! Tool_use/tool_result pairs and the stages that split them (observable
//! `pairs_broken_by_compaction`; the 400 "tool_use ids were found without tool_result blocks"
//! users report after a compaction: anthropics/claude-code#2796, openclaw/openclaw#3243, see
//! research `peers_2026.md` §12 rows 1 and 3).
//!
//! A pair is *intact* when the API would accept it: the tool_use is in an assistant message and
//! the next message is a user message holding exactly one tool_result for it. The pipeline
//! runner takes the intact pairs before each stage and asks [`split`] which of them the stage
//! left half in context. A pair a stage removed whole (both halves summarised away) is not
//! split; a pair that was not intact before the stage is not counted either (`api_valid` covers
//! the end state). A leaf: it reads messages only.

use std::collections::BTreeSet;

use crate::transcript::{Message, Role};

/// The tool_use ids whose pair is intact.
pub(crate) fn intact(messages: &[Message]) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (index, message) in messages.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        let Some(next) = messages.get(index + 1).filter(|m| m.role == Role::User) else {
            continue;
        };
        for id in message.tool_use_ids() {
            if next.tool_results().filter(|(r, _)| *r == id).count() == 1 {
                ids.insert(id.to_owned());
            }
        }
    }
    ids
}

/// The pairs of `before` that are no longer intact in `messages` although one half (the
/// tool_use or a tool_result) is still there, in id order.
pub(crate) fn split(before: &BTreeSet<String>, messages: &[Message]) -> Vec<String> {
    let after = intact(messages);
    let lost: Vec<&String> = before.iter().filter(|id| !after.contains(*id)).collect();
    if lost.is_empty() {
        return Vec::new();
    }
    let mut present: BTreeSet<&str> = BTreeSet::new();
    for message in messages {
        present.extend(message.tool_use_ids());
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
