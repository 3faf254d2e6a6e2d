//! Pair repair: before a request, make every tool_use answered exactly once and drop results
//! that answer nothing.
//!
//! Claude Code v2.1.88 `ensureToolResultPairing` (messages.ts; docs/profiles.md, C6): a tool_use id
//! seen in an earlier assistant message is dropped (an emptied message says `[Tool use
//! interrupted]`); the user message after an assistant message loses its orphan and duplicate
//! results and gets `[Tool result missing due to internal error]` results for the missing ids
//! at its front (emptied: `(no content)`); when no user message follows, one is inserted; a
//! user message that follows no assistant message loses its tool results (emptied: dropped, or
//! `[Orphaned tool result removed due to conversation resume]` when it would be the first).

use std::collections::BTreeSet;

use crate::call_id::CallId;
use crate::compaction::pairs::PairCheck;
use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::Event;
use crate::transcript::{Block, Content, Message, Role};

const MISSING: &str = "[Tool result missing due to internal error]";

/// The result Claude Code synthesises for a tool_use without one.
fn synthetic(id: &str) -> Block {
    Block::tool_result(id, MISSING)
}

fn blocks_of(message: &Message) -> Vec<Block> {
    match &message.content {
        Content::Text(text) => vec![Block::Text { text: text.clone() }],
        Content::Blocks(blocks) => blocks.clone(),
    }
}

/// The repaired list as it is built, with every repair and its reason in order.
#[derive(Default)]
struct Repair {
    output: Vec<Message>,
    /// tool_use ids of the assistant messages repaired so far.
    seen_uses: BTreeSet<CallId>,
    notes: Vec<(CallId, &'static str)>,
}

impl Repair {
    /// An assistant message without the tool_use ids an earlier one already used.
    fn assistant(&mut self, message: &Message) -> Message {
        let mut blocks = Vec::new();
        for block in message.block_list() {
            if let Block::ToolUse { id, .. } = block {
                if !self.seen_uses.insert(*id) {
                    self.notes.push((*id, "duplicate tool_use dropped"));
                    continue;
                }
            }
            blocks.push(block.clone());
        }
        match (&message.content, blocks.is_empty()) {
            (Content::Text(_), _) => message.clone(),
            (_, true) => Message::blocks(
                Role::Assistant,
                vec![Block::Text {
                    text: "[Tool use interrupted]".to_owned(),
                }],
            ),
            (_, false) => Message::blocks(Role::Assistant, blocks),
        }
    }

    /// The user message after an assistant message calling `uses`: orphan and duplicate
    /// results dropped, a synthetic result for each missing id at its front.
    fn answer(&mut self, uses: &[CallId], next: &Message) -> Message {
        let mut answered = BTreeSet::new();
        let mut kept = Vec::new();
        for block in blocks_of(next) {
            if let Block::ToolResult { tool_use_id, .. } = &block {
                if !uses.contains(tool_use_id) || !answered.insert(*tool_use_id) {
                    self.notes
                        .push((*tool_use_id, "orphan or duplicate tool_result dropped"));
                    continue;
                }
            }
            kept.push(block);
        }
        let mut blocks = Vec::new();
        for id in uses.iter().filter(|id| !answered.contains(*id)) {
            self.notes
                .push((*id, "synthetic result for a tool_use without one"));
            blocks.push(synthetic(id));
        }
        blocks.extend(kept);
        if blocks.is_empty() {
            Message::user_text("(no content)")
        } else if matches!(next.content, Content::Text(_)) && blocks.len() == 1 {
            next.clone()
        } else {
            Message::blocks(Role::User, blocks)
        }
    }

    /// When no user message follows an assistant message calling `uses`, one is inserted.
    fn insert_answer(&mut self, uses: &[CallId]) {
        if uses.is_empty() {
            return;
        }
        for id in uses {
            self.notes
                .push((*id, "synthetic result in an inserted message"));
        }
        self.output.push(Message::blocks(
            Role::User,
            uses.iter().map(|id| synthetic(id)).collect(),
        ));
    }

    /// A user message that no assistant message precedes loses its tool results.
    fn unanswered(&mut self, message: &Message) {
        let mut kept = Vec::new();
        let mut stripped = false;
        for block in message.block_list() {
            if let Block::ToolResult { tool_use_id, .. } = block {
                self.notes.push((
                    *tool_use_id,
                    "tool_result after no assistant message dropped",
                ));
                stripped = true;
                continue;
            }
            kept.push(block.clone());
        }
        if !stripped {
            self.output.push(message.clone());
        } else if !kept.is_empty() {
            self.output.push(Message::blocks(Role::User, kept));
        } else if self.output.is_empty() {
            self.output.push(Message::user_text(
                "[Orphaned tool result removed due to conversation resume]",
            ));
        }
    }
}

/// `ensureToolResultPairing` over a whole list.
fn repair(input: &[Message]) -> Repair {
    let mut repair = Repair::default();
    let mut index = 0;
    while index < input.len() {
        let message = &input[index];
        if message.role != Role::Assistant {
            repair.unanswered(message);
            index += 1;
            continue;
        }
        let assistant = repair.assistant(message);
        let uses: Vec<CallId> = assistant.tool_use_ids().cloned().collect();
        repair.output.push(assistant);
        match input.get(index + 1).filter(|m| m.role == Role::User) {
            Some(next) => {
                let answer = repair.answer(&uses, next);
                repair.output.push(answer);
                index += 2;
            }
            None => {
                repair.insert_answer(&uses);
                index += 1;
            }
        }
    }
    repair
}

/// Whether `repair(messages)` would return `messages` unchanged, checked without building
/// anything: one read of the list and no copy of it (issue 13, D8). A replay asks the history,
/// which keeps the check between requests ([`PairCheck`]).
pub fn is_intact(messages: &[Message]) -> bool {
    PairCheck::default().intact(messages)
}

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    if !world.profile.on(SwitchName::PairRepair) {
        return Ok(());
    }
    if world.history.pairs_intact() {
        return Ok(());
    }
    let Repair { output, notes, .. } = repair(world.history.messages());
    if output == world.history.messages() {
        return Ok(());
    }
    for (id, why) in notes {
        world.record(Event::new("pair_repair", "repair").id(id).reason(why));
    }
    world.history.replace_all(output);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{CLAUDE_CODE, COURSE_MAIN};

    #[test]
    fn a_tool_use_without_result_gets_a_synthetic_one_in_front() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::tool_uses(&[("t1", "Bash"), ("t2", "Bash")]));
        world.push(Message::tool_result("t1", "out"));
        run(&mut world).unwrap();
        let results: Vec<(&str, &str)> = world.history.messages()[1]
            .tool_results()
            .map(|(id, content)| (id.as_str(), content))
            .collect();
        assert_eq!(results, [("t2", MISSING), ("t1", "out")]);
        let repairs: Vec<String> = world.trace.iter().map(|e| e.reason.to_string()).collect();
        assert_eq!(repairs, ["synthetic result for a tool_use without one"]);
    }

    #[test]
    fn orphan_results_are_dropped_and_a_lone_one_becomes_the_resume_note() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::tool_result("t0", "stale"));
        world.push(Message::tool_uses(&[("t1", "Bash")]));
        world.push(Message::blocks(
            Role::User,
            vec![
                Block::tool_result("t1", "out"),
                Block::tool_result("t9", "orphan"),
            ],
        ));
        run(&mut world).unwrap();
        let messages = world.history.messages();
        assert_eq!(
            messages[0],
            Message::user_text("[Orphaned tool result removed due to conversation resume]")
        );
        assert_eq!(messages[2], Message::tool_result("t1", "out"));
    }

    /// Every list of up to four messages drawn from a small alphabet (answered and unanswered
    /// calls, duplicates, orphans, empty lists, text): the read-only check says "intact" exactly
    /// when the full repair would return the list unchanged, read at once or prefix by prefix.
    #[test]
    fn the_read_only_check_agrees_with_the_full_repair() {
        let alphabet = [
            Message::user_text("hi"),
            Message {
                role: Role::Assistant,
                content: Content::Text("ok".into()),
            },
            Message::tool_uses(&[("t1", "Bash")]),
            Message::tool_uses(&[("t1", "Bash"), ("t2", "Bash")]),
            Message::tool_result("t1", "out"),
            Message::tool_result("t2", "out"),
            Message::blocks(
                Role::User,
                vec![Block::tool_result("t1", "a"), Block::tool_result("t1", "b")],
            ),
            Message::blocks(Role::User, vec![]),
            Message::blocks(Role::Assistant, vec![]),
            // An id called twice in one message; both results, in the other order.
            Message::tool_uses(&[("t2", "Bash"), ("t2", "Bash")]),
            Message::blocks(
                Role::User,
                vec![Block::tool_result("t2", "a"), Block::tool_result("t1", "b")],
            ),
        ];
        let n = alphabet.len();
        let (mut intact, mut broken) = (0, 0);
        for length in 0..=4u32 {
            for code in 0..n.pow(length) {
                let list: Vec<Message> = (0..length)
                    .map(|k| alphabet[code / n.pow(k) % n].clone())
                    .collect();
                let unchanged = repair(&list).output == list;
                assert_eq!(is_intact(&list), unchanged, "{list:?}");
                // Kept between requests, the check reads only what was appended and still
                // gives the same answer for every prefix.
                let mut kept = PairCheck::default();
                for end in 0..=list.len() {
                    let prefix = &list[..end];
                    assert_eq!(kept.intact(prefix), is_intact(prefix), "{prefix:?}");
                }
                if unchanged { intact += 1 } else { broken += 1 }
            }
        }
        // Both answers occur, so the agreement is not vacuous.
        assert!(
            intact > 50 && broken > 1000,
            "{intact} intact, {broken} broken"
        );
    }

    #[test]
    fn an_intact_history_or_a_profile_without_the_switch_is_left_alone() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::tool_uses(&[("t1", "Bash")]));
        world.push(Message::tool_result("t1", "out"));
        run(&mut world).unwrap();
        assert!(world.trace.is_empty());
        let mut world = World::for_test(COURSE_MAIN);
        world.push(Message::tool_uses(&[("t1", "Bash")]));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
    }
}
