//! Codex CLI's remote compaction (codex-rs `core/src/compact_remote.rs` at 683f0a68, openai/codex
//! codex-rs/core/src/compact_remote.rs @ 683f0a68), the path an OpenAI provider takes. At the same
//! trigger as local compaction (`context_window * 9 / 10`, `>=`):
//!
//! 1. `trim_function_call_history_to_fit_context_window`: while the estimate is over the whole
//!    window and the newest item is Codex-generated (a tool output), it is removed with its call;
//! 2. one `/responses/compact` call; the server answers with the user messages and one opaque
//!    `compaction` item (`encrypted_content`) standing for everything else;
//! 3. `process_compacted_history` keeps real user messages, assistant messages and compaction
//!    items, and drops every tool call and output.
//!
//! The lab shows the compaction item as an assistant text holding the scripted summary (the
//! model cannot read it either: only the server decrypts it). The rollout keeps the originals
//! and the replacement history.

use std::rc::Rc;

use super::codex_compact::{user_part, user_text};
use crate::call_id::CallId;
use crate::compaction::archive;
use crate::compaction::history::Part;
use crate::compaction::profile::fill;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::scenario::StoreDir;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, Message, Role};

const STAGE: &str = "codex_remote";

/// Step 1: drops the newest tool outputs, with their calls, while the estimate is over the
/// window. Returns how many outputs went.
fn trim(world: &mut World, path: &Rc<str>) -> usize {
    let window = world.profile.constants.context_window;
    let mut trimmed = 0;
    while world.history.estimate() > window {
        let messages = world.history.messages();
        let Some(last) = messages.last().filter(|m| m.is_tool_result()) else {
            break;
        };
        let ids: Vec<CallId> = last.tool_results().map(|(id, _)| *id).collect();
        let len = messages.len();
        let mut kept = messages[..len - 1].to_vec();
        if let Some(call) = kept.last_mut().filter(|m| m.role == Role::Assistant) {
            if let Content::Blocks(blocks) = &mut call.content {
                blocks.retain(|b| !matches!(b, Block::ToolUse { id, .. } if ids.contains(id)));
                if blocks.is_empty() {
                    kept.pop();
                }
            }
        }
        super::cut::note_removed(
            world,
            len - 1..len,
            STAGE,
            "trimmed before compacting (over the context window)",
            Some(Rc::clone(path)),
        );
        trimmed += ids.len();
        world.history.replace_all(kept);
    }
    trimmed
}

/// Compacts remotely once the estimate reaches 90% of `context_window`.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let estimate = world.history.estimate();
    let limit = c.context_window * 9 / 10;
    if estimate < limit || world.history.len() == 0 {
        return Ok(());
    }
    world.record(Event::new(STAGE, "over").before(estimate).reason(reason!(
        "{estimate} tokens ≥ auto_compact_token_limit {limit} (90% of {})",
        c.context_window
    )));
    let path = archive::session_path(world)
        .unwrap_or_else(|| world.path_in(StoreDir::Transcript, "rollout.jsonl").into());
    let trimmed = trim(world, &path);
    if trimmed > 0 {
        world.record(
            Event::new(STAGE, "trim")
                .sizes(estimate, world.history.estimate())
                .reason(reason!(
                    "{trimmed} newest tool output(s) removed with their calls"
                )),
        );
    }
    let len = world.history.len();
    // Room for every user message and the compaction item after them.
    let mut parts = Vec::with_capacity(len + 1);
    let messages = world.history.messages().iter().enumerate();
    parts.extend(
        messages
            .filter_map(|(index, message)| user_text(message).map(|text| user_part(index, text))),
    );
    let kept = parts.len();
    super::cut::note_removed(
        world,
        0..len,
        STAGE,
        "compacted remotely (only user messages come back)",
        Some(path.clone()),
    );
    world.counters.model_calls += 1;
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {len} messages"));
    let item = fill(
        world.profile.strings.summary_message,
        &[("summary", &summary)],
    );
    parts.push(Part::New(Message {
        role: Role::Assistant,
        content: Content::Text(item),
    }));
    world.history.rebuild(parts);
    archive::log_history(world)?;
    world.script.reported_usage = None;
    world.record(
        Event::new(STAGE, "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!(
                "{len} messages replaced by {kept} user messages and the compaction item"
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CODEX_REMOTE;

    #[test]
    fn an_output_over_the_window_is_trimmed_before_compacting() {
        let mut profile = CODEX_REMOTE;
        profile.constants.context_window = 100;
        let mut world = World::for_test(profile);
        world.push(Message::user_text("task"));
        world.turn(&[("c1", "Bash", "x".repeat(400))]);
        assert!(world.history.estimate() > 100);
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 1);
        assert_eq!(world.history.len(), 2);
        assert_eq!(world.result("c1"), None);
        assert_eq!(
            world.history.messages()[0].content,
            Content::Text("task".to_owned())
        );
        assert_eq!(world.history.messages()[1].role, Role::Assistant);
    }
}
