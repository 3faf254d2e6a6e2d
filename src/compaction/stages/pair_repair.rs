//! Pair repair: before a request, make every tool_use answered exactly once and drop results
//! that answer nothing.
//!
//! Claude Code v2.1.88 `ensureToolResultPairing` (messages.ts; SPEC §5.5, C6): a tool_use id
//! seen in an earlier assistant message is dropped (an emptied message says `[Tool use
//! interrupted]`); the user message after an assistant message loses its orphan and duplicate
//! results and gets `[Tool result missing due to internal error]` results for the missing ids
//! at its front (emptied: `(no content)`); when no user message follows, one is inserted; a
//! user message that follows no assistant message loses its tool results (emptied: dropped, or
//! `[Orphaned tool result removed due to conversation resume]` when it would be the first).

use std::collections::BTreeSet;

use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::Event;
use crate::transcript::{Block, Content, Message, Role};

const MISSING: &str = "[Tool result missing due to internal error]";

fn synthetic(id: &str) -> Block {
    Block::ToolResult {
        tool_use_id: id.to_owned(),
        content: MISSING.to_owned(),
    }
}

fn blocks_of(message: &Message) -> Vec<Block> {
    match &message.content {
        Content::Text(text) => vec![Block::Text { text: text.clone() }],
        Content::Blocks(blocks) => blocks.clone(),
    }
}

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    if !world.profile.on(SwitchName::PairRepair) {
        return Ok(());
    }
    let input = world.history.messages().to_vec();
    let mut output: Vec<Message> = Vec::with_capacity(input.len());
    let mut seen_uses: BTreeSet<String> = BTreeSet::new();
    let mut notes: Vec<(String, String)> = Vec::new();
    let mut index = 0;
    while index < input.len() {
        let message = &input[index];
        if message.role == Role::Assistant {
            let mut blocks = Vec::new();
            for block in message.block_list() {
                if let Block::ToolUse { id, .. } = block {
                    if !seen_uses.insert(id.clone()) {
                        notes.push((id.clone(), "duplicate tool_use dropped".to_owned()));
                        continue;
                    }
                }
                blocks.push(block.clone());
            }
            let assistant = match (&message.content, blocks.is_empty()) {
                (Content::Text(_), _) => message.clone(),
                (_, true) => Message::blocks(
                    Role::Assistant,
                    vec![Block::Text {
                        text: "[Tool use interrupted]".to_owned(),
                    }],
                ),
                (_, false) => Message::blocks(Role::Assistant, blocks),
            };
            let uses: Vec<String> = assistant.tool_use_ids().map(str::to_owned).collect();
            output.push(assistant);
            let next = input.get(index + 1).filter(|m| m.role == Role::User);
            match next {
                Some(next) => {
                    let mut answered = BTreeSet::new();
                    let mut kept = Vec::new();
                    for block in blocks_of(next) {
                        if let Block::ToolResult { tool_use_id, .. } = &block {
                            if !uses.contains(tool_use_id) || !answered.insert(tool_use_id.clone())
                            {
                                notes.push((
                                    tool_use_id.clone(),
                                    "orphan or duplicate tool_result dropped".to_owned(),
                                ));
                                continue;
                            }
                        }
                        kept.push(block);
                    }
                    let mut blocks: Vec<Block> = uses
                        .iter()
                        .filter(|id| !answered.contains(*id))
                        .map(|id| {
                            notes.push((
                                id.clone(),
                                "synthetic result for a tool_use without one".to_owned(),
                            ));
                            synthetic(id)
                        })
                        .collect();
                    blocks.extend(kept);
                    let repaired = if blocks.is_empty() {
                        Message::user_text("(no content)")
                    } else if matches!(next.content, Content::Text(_)) && blocks.len() == 1 {
                        next.clone()
                    } else {
                        Message::blocks(Role::User, blocks)
                    };
                    output.push(repaired);
                    index += 2;
                }
                None => {
                    if !uses.is_empty() {
                        for id in &uses {
                            notes.push((
                                id.clone(),
                                "synthetic result in an inserted message".to_owned(),
                            ));
                        }
                        output.push(Message::blocks(
                            Role::User,
                            uses.iter().map(|id| synthetic(id)).collect(),
                        ));
                    }
                    index += 1;
                }
            }
            continue;
        }
        // A user message that no assistant message precedes.
        let mut kept = Vec::new();
        let mut stripped = false;
        for block in message.block_list() {
            if let Block::ToolResult { tool_use_id, .. } = block {
                notes.push((
                    tool_use_id.clone(),
                    "tool_result after no assistant message dropped".to_owned(),
                ));
                stripped = true;
                continue;
            }
            kept.push(block.clone());
        }
        if !stripped {
            output.push(message.clone());
        } else if !kept.is_empty() {
            output.push(Message::blocks(Role::User, kept));
        } else if output.is_empty() {
            output.push(Message::user_text(
                "[Orphaned tool result removed due to conversation resume]",
            ));
        }
        index += 1;
    }
    if output == input {
        return Ok(());
    }
    for (id, why) in notes {
        world.record(Event::new("pair_repair", "repair").id(&id).reason(why));
    }
    world.history.replace_all(output);
    Ok(())
}
