//! Codex CLI's local (inline) auto-compaction (codex-rs `core/src/compact.rs`, openai/codex
//! codex-rs/core/src/compact.rs @ e06dd0e5). When the token count (the last reported usage plus the
//! estimate of later messages, `get_total_token_usage`; probed: p22, p23) reaches `context_window *
//! 9 / 10` (`ModelInfo::auto_compact_token_limit`, compared with `>=`), one summariser call runs
//! over the history, and the history becomes: the real user messages, chosen newest first while
//! their `approx_token_count` (ceil(bytes / 4)) fits in `compact_user_tokens` (the one that
//! overflows is cut to the remaining budget, head and tail around `[…N tokens truncated…]`), in
//! their original order, then one user message `SUMMARY_PREFIX\n<summary>`. Every tool call, tool
//! output and assistant message is dropped, and so is an earlier summary (a user message that
//! starts with the prefix and a newline). The model gets no pointer; the rollout JSONL keeps the
//! originals.

use std::borrow::Cow;

use crate::compaction::archive;
use crate::compaction::history::Part;
use crate::compaction::profile::fill;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::scenario::StoreDir;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, Message, Role};

/// codex `approx_token_count`: UTF-8 bytes / 4, rounded up.
fn approx_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary.
fn on_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Where the kept head ends: after the last newline within `budget` bytes, else at the budget.
fn head_end(text: &str, budget: usize) -> usize {
    if let Some(i) = text.get(..budget).and_then(|head| head.rfind('\n')) {
        return i + 1;
    }
    on_boundary(text, budget).len()
}

/// Where the kept tail starts: after the first newline within the last `budget` bytes, else at
/// the first char boundary there.
fn tail_start(text: &str, budget: usize) -> usize {
    let start = text.len().saturating_sub(budget);
    if let Some(i) = text.get(start..).and_then(|tail| tail.find('\n')) {
        return start + i + 1;
    }
    let mut index = start;
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// codex `truncate_text(text, TruncationPolicy::Tokens(max_tokens))`: byte budget
/// `4 × max_tokens`, the head and tail halves of what the marker leaves, the marker
/// `[…N tokens truncated…]` (N = removed bytes / 4, rounded up) and a newline between them.
pub(super) fn truncate_tokens(text: &str, max_tokens: usize) -> String {
    if text.is_empty() {
        return String::new();
    }
    let small = (max_tokens / 4) * 4;
    if max_tokens > 0 && small > 0 && text.len() <= small {
        return text.to_owned();
    }
    let max_bytes = max_tokens * 4;
    if max_bytes == 0 {
        return format!("[…{} tokens truncated…]", text.len().div_ceil(4));
    }
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let marker = format!(
        "[…{} tokens truncated…]",
        (text.len() - max_bytes).div_ceil(4)
    );
    if marker.len() >= max_bytes {
        return on_boundary(&marker, max_bytes).to_owned();
    }
    let keep = max_bytes - marker.len();
    let left = keep / 2;
    let head = head_end(text, left);
    let tail = tail_start(text, keep - left).max(head);
    let out = format!("{}{marker}\n{}", &text[..head], &text[tail..]);
    on_boundary(&out, max_bytes).to_owned()
}

/// The text of a real user message (text blocks joined by `\n`), or None for tool outputs:
/// borrowed when the message is that text already, and so can be kept as it is.
#[inline]
pub(super) fn user_text(message: &Message) -> Option<Cow<'_, str>> {
    if message.role != Role::User {
        return None;
    }
    match &message.content {
        Content::Text(text) if !text.is_empty() => Some(Cow::Borrowed(text)),
        Content::Text(_) => None,
        Content::Blocks(blocks) => joined_text(blocks).map(Cow::Owned),
    }
}

/// The non-empty text blocks of `blocks` joined by `\n`, if there is one.
#[cold]
fn joined_text(blocks: &[Block]) -> Option<String> {
    let pieces: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}

/// codex `build_compacted_history_with_limit` without the initial context: of the real user
/// messages, given newest first as `(index, text)`, those kept newest first within `budget`
/// tokens (the one that overflows cut to what is left), back in their order; and how many there
/// were. Each kept whole is the history's own message ([`user_part`]).
fn keep_user_messages<'a>(
    users: impl Iterator<Item = (usize, Cow<'a, str>)>,
    budget: usize,
) -> (Vec<Part>, usize) {
    // Room for every user message and the summary after them: growing the list as it fills
    // copied it several times at each compaction.
    let mut parts = Vec::with_capacity(users.size_hint().1.unwrap_or(0) + 1);
    let mut remaining = budget;
    let mut total = 0;
    for (index, text) in users {
        total += 1;
        if remaining == 0 {
            continue;
        }
        let tokens = approx_tokens(&text);
        if tokens > remaining {
            parts.push(Part::New(Message::user_text(truncate_tokens(
                &text, remaining,
            ))));
            remaining = 0;
            continue;
        }
        remaining -= tokens;
        parts.push(user_part(index, text));
    }
    parts.reverse();
    (parts, total)
}

/// [`keep_user_messages`] of the history: its real user messages are those that are not an
/// earlier summary.
fn kept_user_messages(world: &World, budget: usize) -> (Vec<Part>, usize) {
    let template = world.profile.strings.summary_message;
    let prefix = template.split("{summary}").next().unwrap_or_default();
    let messages = world.history.messages().iter().enumerate().rev();
    let users = messages
        .filter_map(|(index, message)| user_text(message).map(|text| (index, text)))
        .filter(|(_, text)| !text.starts_with(prefix));
    keep_user_messages(users, budget)
}

/// The history's user message `index`, whose text is `text` ([`user_text`]), for a compacted
/// history: the message itself when it is that text, else a new message holding the text.
pub(super) fn user_part(index: usize, text: Cow<'_, str>) -> Part {
    match text {
        Cow::Borrowed(_) => Part::Kept(index),
        Cow::Owned(joined) => Part::New(Message::user_text(joined)),
    }
}

/// codex `get_total_token_usage`: the last reported total plus the estimate of the messages
/// after the reporting one; without a usage (or once the history was replaced), the estimate of
/// everything.
fn token_count(world: &World) -> usize {
    match world.script.reported_usage {
        Some((index, usage))
            if world
                .history
                .messages()
                .get(index)
                .is_some_and(|m| m.role == Role::Assistant) =>
        {
            usage
                .total()
                .saturating_add(world.history.estimate_suffix(index + 1))
        }
        _ => world.history.estimate(),
    }
}

/// Compacts once the token count reaches 90% of `context_window`.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let estimate = token_count(world);
    let limit = c.context_window * 9 / 10;
    if estimate < limit || world.history.len() == 0 {
        return Ok(());
    }
    world.record(
        Event::new("codex_compact", "over")
            .before(estimate)
            .reason(reason!(
                "{estimate} tokens ≥ auto_compact_token_limit {limit} (90% of {})",
                c.context_window
            )),
    );
    let len = world.history.len();
    let (mut parts, users) = kept_user_messages(world, c.compact_user_tokens);
    let kept_count = parts.len();
    let path = archive::session_path(world)
        .unwrap_or_else(|| world.path_in(StoreDir::Transcript, "rollout.jsonl").into());
    super::cut::note_removed(
        world,
        0..len,
        "codex_compact",
        "compacted away (codex keeps no tool output)",
        Some(path.clone()),
    );
    world.counters.model_calls += 1;
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {len} messages"));
    let summary_message = fill(
        world.profile.strings.summary_message,
        &[("summary", &summary)],
    );
    world.record(
        Event::new("codex_compact", "summary")
            .sizes(estimate, approx_tokens(&summary_message))
            .reason(reason!("summariser call over {len} messages")),
    );
    parts.push(Part::New(Message::user_text(summary_message)));
    world.history.rebuild(parts);
    archive::log_history(world)?;
    world.script.reported_usage = None;
    world.record(
        Event::new("codex_compact", "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!(
                "{len} messages replaced by {kept_count} of {users} user messages (within {} tokens) and the summary",
                c.compact_user_tokens
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CODEX;

    #[test]
    fn approx_tokens_rounds_bytes_up() {
        assert_eq!(approx_tokens(""), 0);
        assert_eq!(approx_tokens("abcd"), 1);
        assert_eq!(approx_tokens("abcde"), 2);
        // "é" is two bytes in UTF-8.
        assert_eq!(approx_tokens("ééé"), 2);
    }

    #[test]
    fn user_messages_are_kept_newest_first_within_the_budget() {
        // 4, 2 and 3 tokens; budget 6: "ccc…" (3) and "bb…" (2) fit, 1 token is left for
        // "aaa…" (16 bytes): cut to 4 bytes, less than the marker, so the marker's first 4 bytes.
        // Messages 3, 5 and 8 of a history; the newest comes first.
        let messages = ["a".repeat(16), "b".repeat(8), "c".repeat(12)];
        let users = || {
            let texts = messages.iter().map(|text| Cow::Borrowed(text.as_str()));
            [3, 5, 8].into_iter().zip(texts).rev()
        };
        let cut = |text: &str| Part::New(Message::user_text(text));
        let kept = keep_user_messages(users(), 6);
        let want = vec![cut("[…"), Part::Kept(5), Part::Kept(8)];
        assert_eq!(kept, (want, 3));
        // Budget 5: the last two use it all, the first is not kept at all.
        let kept = keep_user_messages(users(), 5);
        assert_eq!(kept, (vec![Part::Kept(5), Part::Kept(8)], 3));
        // Budget 4: the last one and 1 token of the middle one.
        let kept = keep_user_messages(users(), 4);
        let want = vec![cut(&truncate_tokens(&messages[1], 1)), Part::Kept(8)];
        assert_eq!(kept, (want, 3));
        // A text joined from blocks is a new message even when kept whole.
        let joined = vec![(2, Cow::Owned("x\ny".to_owned()))];
        let kept = keep_user_messages(joined.into_iter(), 5);
        assert_eq!(kept, (vec![cut("x\ny")], 1));
    }

    #[test]
    fn an_overlong_message_keeps_head_and_tail_around_the_marker() {
        // 200 bytes, budget 20 tokens = 80 bytes; removed 120 bytes = 30 tokens; the marker
        // "[…30 tokens truncated…]" is 27 bytes (each … is 3); 53 bytes are left: head 26,
        // tail 27, and a newline after the marker: 26 + 27 + 1 + 27 = 81 bytes, cut to 80 (26 y).
        let text = "x".repeat(100) + &"y".repeat(100);
        let out = truncate_tokens(&text, 20);
        assert_eq!(out.len(), 80);
        let want = format!(
            "{}[…30 tokens truncated…]\n{}",
            "x".repeat(26),
            "y".repeat(26)
        );
        assert_eq!(out, want);
    }

    #[test]
    fn compaction_fires_at_ninety_percent_and_keeps_only_user_messages() {
        let mut profile = CODEX;
        profile.constants.context_window = 100;
        let mut world = World::for_test(profile);
        world.push(Message::user_text("x".repeat(4 * 89)));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        assert_eq!(world.counters.model_calls, 0);
        world.turn(&[("c1", "Bash", "abcd".to_owned())]);
        assert!(world.history.estimate() >= 90);
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 1);
        let texts: Vec<String> = world
            .history
            .messages()
            .iter()
            .filter_map(user_text)
            .map(Cow::into_owned)
            .collect();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts[0].len(), 4 * 89);
        assert!(texts[1].starts_with("Another language model started"));
        assert!(texts[1].ends_with("analysis:\nsummary of 3 messages"));
        assert_eq!(world.result("c1"), None);
    }
}
