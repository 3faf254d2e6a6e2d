//! opencode's V1 engine (`packages/opencode/src/session/`, anomalyco/opencode
//! packages/opencode/src/session/compaction.ts @ 001aa6cc, overflow.ts @ 08f74b9b) and Kilo CLI's
//! fork of it (§6). Two pieces:
//!
//! - **prune** (`compaction.ts` `SessionCompaction.prune`), run when the agent loop goes idle:
//!   walking back from the newest message, the last two user turns are skipped; in older turns
//!   the completed tool outputs (but `skill`'s) are added up with opencode's `Token.estimate`
//!   (`Math.round(length / 4)`),
//!   and those beyond the newest `prune_protect` tokens are marked compacted, if together they
//!   exceed `prune_minimum`. The walk stops at a summary or at an output compacted before. The
//!   model then sees `[Old tool result content cleared]` in their place, with no pointer;
//!   opencode keeps the output in its database, Kilo erases it (`part.state.output = ""`).
//! - **compaction** (`overflow.ts` `isOverflow`, `SessionCompaction.process`): when the count
//!   reaches `usable` = input limit − min(COMPACTION_BUFFER 20000, max output), one summariser
//!   call; the model then sees only `What did we do so far?`, the summary, and (auto) the
//!   synthetic `Continue if you have next steps, …`. The earlier messages stay in the database.
//!
//! The lab runs prune at the prepare that follows a new typed prompt (the loop went idle just
//! before it), over the history without that prompt.

use crate::compaction::archive;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::scenario::StoreDir;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, Message, Role};

/// What `toModelMessages` shows for a compacted tool output.
pub(crate) const CLEARED: &str = "[Old tool result content cleared]";
/// The text a compaction part becomes in the model's view.
const COMPACTION_PROMPT: &str = "What did we do so far?";
/// The synthetic user message after an automatic compaction.
const CONTINUE: &str = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";
/// PRUNE_PROTECTED_TOOLS.
const PROTECTED_TOOLS: &[&str] = &["skill"];

/// opencode's `Token.estimate`: `Math.round(length / 4)` in UTF-16 units (`CHARS_PER_TOKEN` 4).
pub(crate) fn token_estimate(text: &str) -> usize {
    crate::transcript::rough_tokens(text)
}

/// A user message typed by the user (not only tool results).
fn is_typed(message: &Message) -> bool {
    message.role == Role::User && !message.is_tool_result()
}

/// The summary assistant message: the one answering the compaction prompt.
fn is_summary(messages: &[Message], index: usize) -> bool {
    index > 0
        && messages[index].role == Role::Assistant
        && matches!(&messages[index - 1].content, Content::Text(t) if t == COMPACTION_PROMPT)
}

/// The `(message, block)` of the result of `id` in the message after `index`.
fn result_of(messages: &[Message], index: usize, id: &str) -> Option<(usize, usize)> {
    let next = messages.get(index + 1)?;
    next.block_list()
        .iter()
        .position(|b| matches!(b, Block::ToolResult { tool_use_id, .. } if tool_use_id == id))
        .map(|block| (index + 1, block))
}

/// The outputs prune would clear (newest first) and their estimated tokens.
fn prunable(world: &World, messages: &[Message]) -> (Vec<(usize, usize)>, usize, usize) {
    let c = world.profile.constants;
    let (mut total, mut pruned, mut turns) = (0, 0, 0);
    let mut marked = Vec::new();
    'walk: for index in (0..messages.len()).rev() {
        if is_typed(&messages[index]) {
            turns += 1;
        }
        if turns < 2 {
            continue;
        }
        if is_summary(messages, index) {
            break;
        }
        let calls: Vec<(&str, &str)> = messages[index]
            .block_list()
            .iter()
            .filter_map(|b| match b {
                Block::ToolUse { id, name, .. } => Some((id.as_str(), name.as_str())),
                _ => None,
            })
            .collect();
        for (id, name) in calls.into_iter().rev() {
            let Some((mi, bi)) = result_of(messages, index, id) else {
                continue;
            };
            if PROTECTED_TOOLS.contains(&name) {
                continue;
            }
            let (_, content) = world.history.result_at(mi, bi);
            if content == CLEARED {
                break 'walk;
            }
            let estimate = token_estimate(content);
            total += estimate;
            if total > c.prune_protect {
                pruned += estimate;
                marked.push((mi, bi));
            }
        }
    }
    (marked, total, pruned)
}

/// Prune (see the module): `erase` is Kilo's, which leaves no copy in the database.
pub(super) fn prune(world: &mut World, erase: bool) -> Result<(), RunError> {
    let messages = world.history.messages();
    let Some(last) = messages.last() else {
        return Ok(());
    };
    if !is_typed(last) {
        return Ok(());
    }
    let (marked, total, pruned) = prunable(world, &messages[..messages.len() - 1]);
    let stage = if erase {
        "kilo_prune"
    } else {
        "opencode_prune"
    };
    let minimum = world.profile.constants.prune_minimum;
    if pruned <= minimum {
        if total > 0 {
            world.record(Event::new(stage, "skip").reason(reason!(
                "{pruned} prunable tokens of {total} ≤ PRUNE_MINIMUM {minimum}"
            )));
        }
        return Ok(());
    }
    let how = if erase {
        "output erased from the database (Kilo)"
    } else {
        "marked compacted; the database keeps the output"
    };
    for (mi, bi) in marked {
        let id = *world.history.result_at(mi, bi).0;
        world.replace_result(mi, bi, CLEARED.to_owned(), stage, format!("pruned: {how}"));
        if erase && let Some(record) = world.ledger.results.get_mut(&id) {
            record.archived_verbatim = false;
            world.history.note_result_change(&id);
        }
    }
    world.record(Event::new(stage, "prune").reason(reason!(
        "{pruned} of {total} tool-output tokens beyond PRUNE_PROTECT {} (> {minimum})",
        world.profile.constants.prune_protect
    )));
    Ok(())
}

/// `usable`: the input limit less min(COMPACTION_BUFFER, max output).
pub(crate) fn usable(world: &World) -> usize {
    let c = world.profile.constants;
    c.context_window
        .saturating_sub(c.autocompact_buffer.min(c.max_output))
}

/// Summary compaction once the count reaches `usable`.
pub(super) fn compact(world: &mut World) -> Result<(), RunError> {
    let estimate = world.history.estimate();
    let usable = usable(world);
    let len = world.history.len();
    if estimate < usable || len == 0 {
        return Ok(());
    }
    world.record(
        Event::new("opencode_compact", "over")
            .before(estimate)
            .reason(reason!("{estimate} tokens ≥ usable {usable}")),
    );
    let path = archive::session_path(world)
        .unwrap_or_else(|| world.path_in(StoreDir::Transcript, "opencode.db").into());
    super::cut::note_removed(
        world,
        0..len,
        "opencode_compact",
        "before the summary: filtered out of the model's view",
        Some(path.clone()),
    );
    world.counters.model_calls += 1;
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {len} messages"));
    let messages = vec![
        Message::user_text(COMPACTION_PROMPT),
        Message::blocks(Role::Assistant, vec![Block::Text { text: summary }]),
        Message::user_text(CONTINUE),
    ];
    archive::log_session(world, &messages)?;
    world.history.replace_all(messages);
    world.script.reported_usage = None;
    world.record(
        Event::new("opencode_compact", "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!(
                "{len} messages behind the summary; the model sees 3"
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::OPENCODE;

    #[test]
    fn the_estimate_is_a_quarter_of_the_length_rounded() {
        assert_eq!(token_estimate(""), 0);
        // 1402 / 4 = 350.5 rounds up (Math.round), 1401 / 4 = 350.25 down.
        assert_eq!(token_estimate(&"x".repeat(1402)), 351);
        assert_eq!(token_estimate(&"x".repeat(1401)), 350);
    }

    #[test]
    fn usable_is_the_input_limit_less_the_buffer() {
        let world = World::for_test(OPENCODE);
        assert_eq!(usable(&world), 200_000 - 20_000);
    }
}
