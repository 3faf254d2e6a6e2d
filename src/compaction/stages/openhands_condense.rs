//! OpenHands SDK's `LLMSummarizingCondenser` (openhands-sdk `context/condenser/
//! llm_summarizing_condenser.py` and `base.py` at OpenHands/software-agent-sdk 611629e6;
//! OpenHands/software-agent-sdk @ 611629e6 openhands-sdk/openhands/sdk/context/condenser/). The
//! view is the system prompt event, which the lab's history does not hold, then one event per
//! message. Before each LLM call:
//!
//! - reasons: more than `max_events` events (soft), or, when `context_window` is set, more
//!   tokens than it (hard);
//! - the tail kept: `max_events / 2 − keep_first − 1` events for the first, the longest suffix
//!   whose loss leaves at most half of `context_window` tokens for the second, the fewer of the
//!   two; the forgotten range runs from the first manipulation index at or after `keep_first` to
//!   the first at or after `events − tail`, where no index lies between an action and its
//!   observation (pairs are never split);
//! - none forgotten, or fewer than `min_progress_per_mille` of the events: no condensation; a
//!   soft reason then leaves the view as it is, a hard one resets it (everything summarised);
//! - otherwise one model call, and the summary takes the forgotten range's place as a user
//!   message.
//!
//! Events are appended to the conversation's event store and never deleted: what the view
//! forgets is still on disk, with no pointer to it in the view.

use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};
use crate::transcript::Message;

const STAGE: &str = "openhands_condense";

/// Why the view is condensed (`Reason`), and how hard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reasons {
    events: bool,
    tokens: bool,
}

/// The view's valid manipulation indices (`ToolCallMatchingProperty`): every index from 0 to
/// `events`, except one just after an action whose observation has not come yet (view index
/// `i` is message `i − 1`).
fn manipulable(messages: &[Message], index: usize) -> bool {
    index < 2 || !messages[index - 2].has_tool_use()
}

/// `ManipulationIndices.find_next`: the smallest valid index at or after `threshold`.
fn find_next(messages: &[Message], threshold: usize) -> Option<usize> {
    (threshold..=messages.len() + 1).find(|&i| manipulable(messages, i))
}

/// `get_suffix_length_for_token_reduction` over the events after `keep_first`: the events
/// kept once the shortest prefix holding more than `reduction` tokens is forgotten.
fn token_suffix(world: &World, keep_first: usize, reduction: usize) -> usize {
    let estimator = world.profile.estimator;
    let events = &world.history.messages()[keep_first.saturating_sub(1)..];
    let mut sum = 0;
    for (i, message) in events.iter().enumerate() {
        sum += estimator.message(message);
        if sum > reduction {
            return events.len() - (i + 1);
        }
    }
    0
}

/// The forgotten range of the view, `[start, end)`, or why there is none.
fn forgotten(world: &World, reasons: Reasons) -> Result<(usize, usize), &'static str> {
    let c = world.profile.constants;
    let messages = world.history.messages();
    let events = messages.len() + 1;
    let mut tails = Vec::new();
    if reasons.events {
        tails.push((c.max_events / 2).saturating_sub(c.keep_first_events + 1));
    }
    if reasons.tokens {
        let reduction = world.history.estimate() - c.context_window / 2;
        tails.push(token_suffix(world, c.keep_first_events, reduction));
    }
    let tail = tails.into_iter().min().unwrap_or(0);
    let start = find_next(messages, c.keep_first_events).ok_or("no manipulation index")?;
    let end = find_next(messages, events.saturating_sub(tail)).ok_or("no manipulation index")?;
    let count = end.saturating_sub(start);
    if count == 0 {
        return Err("Cannot condense 0 events");
    }
    if count * 1000 < events * c.min_progress_per_mille {
        return Err("events forgotten below minimum progress threshold");
    }
    Ok((start, end))
}

/// Condenses the view when it has too many events or tokens.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let events = world.history.len() + 1;
    let estimate = world.history.estimate();
    let reasons = Reasons {
        events: events > c.max_events,
        tokens: c.context_window > 0 && estimate > c.context_window,
    };
    if !reasons.events && !reasons.tokens {
        return Ok(());
    }
    world.record(Event::new(STAGE, "over").before(estimate).reason(reason!(
        "{events} events (max_size {}), {estimate} tokens (limit {}): {}",
        c.max_events,
        c.context_window,
        if reasons.tokens { "hard" } else { "soft" }
    )));
    let (start, end) = match forgotten(world, reasons) {
        Ok(range) => range,
        Err(why) if !reasons.tokens => {
            world.record(
                Event::new(STAGE, "noop")
                    .before(estimate)
                    .reason(reason!("{why}: a soft reason, the view stays as it is")),
            );
            return Ok(());
        }
        Err(why) => {
            world.record(
                Event::new(STAGE, "reset")
                    .before(estimate)
                    .reason(reason!("{why}: a hard reason, hard context reset")),
            );
            (0, events)
        }
    };
    // View indices to history indices: the system prompt (view 0) is not in the history.
    let (first, last) = (start.saturating_sub(1), end - 1);
    let session = super::super::archive::session_path(world);
    super::cut::note_removed(
        world,
        first..last,
        STAGE,
        "forgotten by the condenser (the event store keeps it)",
        session,
    );
    world.counters.model_calls += 1;
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {} messages", last - first));
    let mut messages = world.history.messages()[..first].to_vec();
    messages.push(Message::user_text(summary));
    messages.extend_from_slice(&world.history.messages()[last..]);
    world.history.replace_all(messages);
    world.script.reported_usage = None;
    world.record(
        Event::new(STAGE, "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!(
                "view events {start}..{end} forgotten, the summary at offset {start}"
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::OPENHANDS;
    use crate::transcript::{Content, Role};

    fn text(role: Role, t: &str) -> Message {
        Message {
            role,
            content: Content::Text(t.to_owned()),
        }
    }

    #[test]
    fn no_index_lies_between_an_action_and_its_observation() {
        let mut world = World::for_test(OPENHANDS);
        world.push(Message::user_text("task"));
        world.turn(&[("c1", "terminal", "out".to_owned())]);
        let messages = world.history.messages();
        // View: 0 system, 1 task, 2 action, 3 observation; index 3 splits the pair.
        assert_eq!(find_next(messages, 3), Some(4));
        assert_eq!(find_next(messages, 2), Some(2));
        assert_eq!(find_next(messages, 5), None);
    }

    #[test]
    fn at_max_size_nothing_happens_and_one_more_event_condenses() {
        let mut profile = OPENHANDS;
        profile.constants.max_events = 10;
        let mut world = World::for_test(profile);
        for i in 0..9 {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            world.push(text(role, &format!("m{i}")));
        }
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 0);
        world.push(text(Role::Assistant, "m9"));
        run(&mut world).unwrap();
        // 11 events: keep 10/2 − 2 − 1 = 2 at the tail; forget view 2..9 (messages 1..8).
        assert_eq!(world.counters.model_calls, 1);
        assert_eq!(world.history.len(), 4);
        assert_eq!(
            world.history.messages()[1].content,
            Content::Text("summary of 7 messages".to_owned())
        );
    }
}
