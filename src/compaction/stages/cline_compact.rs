//! Cline's `basic` compaction, the one without a model (cline/cline
//! `sdk/packages/core/src/extensions/context/basic-compaction.ts` `runBasicCompaction`,
//! `compaction.ts` `createContextCompactionPrepareTurn` @ 21cb8d25). Before each request, when the estimate reaches
//! `COMPACTION_TRIGGER_RATIO` (0.9) of the usable input (`context_window`, Cline's
//! `DEFAULT_MAX_INPUT_TOKENS` 128000), the history is folded to a target of `floor(trigger ×
//! DEFAULT_TARGET_RATIO)` (0.7): every typed user prompt survives (trimmed; attachments only on the
//! latest), the latest turn keeps its newest messages that fit, cut forward to an assistant message
//! so no tool pair is split, each older turn keeps its concluding assistant answer if it fits
//! (newest turns first), and everything else is dropped. What a prompt's turn dropped comes back as
//! a `<SYSTEM_NOTICE>` block appended to it (files read, files edited, commands run, and any of the
//! three most recent assistant answers that fell in the span); adjacent prompts are merged into one
//! message. No model call; the messages file is rewritten, so nothing the fold dropped is kept.

use std::borrow::Cow;

use super::cline_activity::{assistant_text, notice, summarize};
use crate::compaction::history::Folded;
use crate::compaction::profile::{
    Estimator, cline_block_units, cline_blocks_frame, cline_round, cline_tokens, cline_trimmed,
};
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, Message, Role};

/// The text a converted Cline `file` block starts with: an attachment, dropped from every
/// prompt but the latest.
pub use crate::compaction::profile::CLINE_ATTACHMENT as ATTACHMENT_PREFIX;

/// PRESERVED_ASSISTANT_TEXT_COUNT: the most recent assistant answers the notices repeat.
const PRESERVED_ANSWERS: usize = 3;

/// How a fold was asked for: by the trigger, or by the user (`/compact`, target half of the
/// messages' estimate: `resolveManualMessageTargetTokens` with its default ratio 0.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    Manual,
}

/// `isTurnStartMessage`: a user message that is not only tool results.
fn is_turn_start(message: &Message) -> bool {
    message.role == Role::User
        && match &message.content {
            Content::Text(_) => true,
            Content::Blocks(blocks) => {
                blocks.is_empty() || !blocks.iter().all(|b| matches!(b, Block::ToolResult { .. }))
            }
        }
}

fn is_attachment(block: &Block) -> bool {
    matches!(block, Block::Text { text } if text.starts_with(ATTACHMENT_PREFIX))
}

/// `sanitizeTypedUserMessage`: text trimmed, empty text blocks dropped, None if nothing is left.
/// A prompt sanitized already (every prompt a fold kept) is borrowed as it is (issue 13: Cline
/// keeps every prompt, merged into one message that grows with the session, and each fold
/// copied it to find it unchanged).
fn sanitize_typed(message: &Message) -> Option<Cow<'_, Message>> {
    match &message.content {
        Content::Text(text) if cline_trimmed(text) => Some(Cow::Borrowed(message)),
        Content::Text(text) => {
            let text = text.trim();
            (!text.is_empty()).then(|| Cow::Owned(Message::user_text(text)))
        }
        Content::Blocks(blocks)
            if !blocks.is_empty()
                && blocks.iter().all(|b| match b {
                    Block::Text { text } => cline_trimmed(text),
                    _ => true,
                }) =>
        {
            Some(Cow::Borrowed(message))
        }
        Content::Blocks(blocks) => {
            let kept: Vec<Block> = blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text } if text.trim().is_empty() => None,
                    Block::Text { text } => Some(Block::Text {
                        text: text.trim().to_owned(),
                    }),
                    other => Some(other.clone()),
                })
                .collect();
            (!kept.is_empty()).then(|| Cow::Owned(Message::blocks(Role::User, kept)))
        }
    }
}

/// `userContentBlocks`: a prompt's blocks, without attachments unless `keep_attachments`.
fn user_blocks(message: &Message, keep_attachments: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    push_user_blocks(&mut blocks, message, keep_attachments);
    blocks
}

/// Appends [`user_blocks`] of `message` to `out`, copied there once.
fn push_user_blocks(out: &mut Vec<Block>, message: &Message, keep_attachments: bool) {
    match &message.content {
        Content::Text(text) if text.trim().is_empty() => {}
        Content::Text(text) => out.push(Block::Text { text: text.clone() }),
        Content::Blocks(blocks) => out.extend(
            blocks
                .iter()
                .filter(|b| keep_attachments || !is_attachment(b))
                .cloned(),
        ),
    }
}

/// [`cline_tokens`] of the message [`user_blocks`] makes of `message`, counted where its blocks
/// are (issue 13: a fold copied every prompt's blocks to count them, and since Cline keeps every
/// prompt, merged into one message with the notices of what each turn dropped, that message
/// grows with the session: a 30 000-turn session copied 2.3 million blocks).
fn user_tokens(message: &Message, keep_attachments: bool) -> usize {
    let mut counted: Counted = (0, Vec::new());
    let count = match &message.content {
        Content::Text(text) if text.trim().is_empty() => 0,
        Content::Text(text) => {
            count_block(&mut counted, &Block::Text { text: text.clone() });
            1
        }
        Content::Blocks(blocks) => {
            let kept = blocks
                .iter()
                .filter(|b| keep_attachments || !is_attachment(b));
            let mut count = 0;
            for block in kept {
                count_block(&mut counted, block);
                count += 1;
            }
            count
        }
    };
    cline_round(cline_blocks_frame(Role::User, count) + counted.0)
}

/// Whether [`user_blocks`] keeps `message` as it is: blocks, none of them an attachment it drops.
fn keeps_every_block(message: &Message, keep_attachments: bool) -> bool {
    match &message.content {
        Content::Blocks(blocks) => keep_attachments || !blocks.iter().any(is_attachment),
        Content::Text(_) => false,
    }
}

/// `sanitizeOlderAssistantFinal` (the lab has no thinking blocks): the message if it has text.
fn older_final(message: &Message) -> Option<Message> {
    assistant_text(message).map(|_| message.clone())
}

/// The message budget of a fold: `(trigger, target)` in Cline tokens for `max_input`, with no
/// request overhead (the lab has no system prompt or tool schemas).
pub fn budget(max_input: usize, mode: Mode, message_tokens: usize) -> (usize, usize) {
    let trigger = max_input as f64 * 0.9;
    let message_trigger = (trigger.floor() as usize).max(1);
    let target = match mode {
        Mode::Auto => {
            let wanted = (trigger * 0.7).floor();
            let ceiling = (trigger - 1.0).max(1.0);
            (wanted.min(max_input as f64).min(ceiling).floor() as usize).max(1)
        }
        Mode::Manual => ((message_trigger as f64)
            .min(message_tokens as f64 * 0.5)
            .floor() as usize)
            .max(1),
    };
    (message_trigger, target.min(message_trigger).max(1))
}

/// The indices `fold` keeps, with the prompts' sanitized forms: `(index, message)` in order.
fn select<'a>(
    messages: &'a [Message],
    target: usize,
    known: &Known<'_, '_>,
) -> Option<Vec<(usize, Cow<'a, Message>)>> {
    let typed: Vec<usize> = (0..messages.len())
        .filter(|&i| is_turn_start(&messages[i]))
        .collect();
    let sanitized: Vec<(usize, Cow<'a, Message>)> = typed
        .iter()
        .filter_map(|&i| {
            // A plain prompt is sanitized already: its blocks are not read again.
            if (known.plain)(i) {
                debug_assert!(matches!(
                    sanitize_typed(&messages[i]),
                    Some(Cow::Borrowed(_))
                ));
                return Some((i, Cow::Borrowed(&messages[i])));
            }
            sanitize_typed(&messages[i]).map(|m| (i, m))
        })
        .collect();
    let &latest = typed.last()?;
    if sanitized.is_empty() {
        return None;
    }
    let cost = known.cost;
    let mut total: usize = sanitized
        .iter()
        .map(|(i, m)| {
            let keep = *i == latest;
            match m {
                // A prompt that stands as it is and keeps all its blocks was counted as it
                // entered the history (issue 13: the merged prompt grows with the session).
                Cow::Borrowed(m) if (known.plain)(*i) || keeps_every_block(m, keep) => {
                    debug_assert_eq!(cost(*i), user_tokens(m, keep));
                    cost(*i)
                }
                _ => user_tokens(m, keep),
            }
        })
        .sum();
    // The latest turn: its newest messages that fit, moved forward to an assistant message.
    let mut start = messages.len();
    let mut accumulated = 0;
    for index in (latest + 1..messages.len()).rev() {
        let cost = cost(index);
        if total + accumulated + cost > target {
            break;
        }
        accumulated += cost;
        start = index;
    }
    while start < messages.len() && messages[start].role != Role::Assistant {
        start += 1;
    }
    total += (start..messages.len()).map(cost).sum::<usize>();
    // Older turns: the concluding answer (the last assistant message without a tool call),
    // newest turns first, while it fits.
    let mut finals = Vec::new();
    for pair in typed.windows(2).rev() {
        let answer = (pair[0] + 1..pair[1])
            .rev()
            .find(|&i| messages[i].role == Role::Assistant && !messages[i].has_tool_use());
        if let Some((index, message)) =
            answer.and_then(|i| older_final(&messages[i]).map(|m| (i, m)))
        {
            let cost = cline_tokens(&message);
            if total + cost <= target {
                finals.push((index, message));
                total += cost;
            }
        }
    }
    let mut kept = sanitized;
    kept.extend((start..messages.len()).map(|i| (i, Cow::Borrowed(&messages[i]))));
    kept.extend(finals.into_iter().map(|(i, m)| (i, Cow::Owned(m))));
    kept.sort_by_key(|(i, _)| *i);
    Some(kept)
}

/// The notice for the dropped span `original[from..to]`, if it has tool work or answers.
fn gap_notice(original: &[Message], answers: &[usize], from: usize, to: usize) -> Option<Block> {
    let activity = summarize(&original[from..to]);
    let responses: Vec<String> = (from..to)
        .filter(|i| answers.contains(i))
        .filter_map(|i| assistant_text(&original[i]))
        .collect();
    (!activity.is_empty() || !responses.is_empty()).then(|| Block::Text {
        text: notice(&activity, &responses),
    })
}

/// Cline's unrounded count of an original message and of its tool_result contents
/// ([`crate::compaction::history::History::cline_counts`]), where known.
type Counts<'h> = dyn Fn(usize) -> Option<(usize, &'h [usize])> + 'h;

/// What a fold reads of the history in place of its messages' blocks: each message's tokens
/// (`cost`), Cline's counts of it where they were taken as it entered (`counts`), and whether
/// it is a plain prompt (`plain`: [`crate::compaction::history::History::cline_plain`]).
struct Known<'a, 'h> {
    cost: &'a dyn Fn(usize) -> usize,
    counts: &'a Counts<'h>,
    plain: &'a dyn Fn(usize) -> bool,
}

/// A folded message's Cline count, known from its parts: the sum of its blocks' counts (the
/// frame is added once the blocks are final) and its tool_result contents' counts.
type Counted = (usize, Vec<usize>);

/// A message of the folded list: one the fold built, or a plain prompt of the history kept as
/// it stands with `blocks` appended (the merged prompt, which holds every prompt of the session,
/// is extended where it is, not copied: issue 13).
#[derive(Debug)]
enum Out {
    Built(Message),
    Extends { index: usize, blocks: Vec<Block> },
}

impl Out {
    /// How many blocks the message has.
    fn block_count(&self, original: &[Message]) -> usize {
        match self {
            Out::Built(message) => message.block_list().len(),
            Out::Extends { index, blocks } => original[*index].block_list().len() + blocks.len(),
        }
    }

    /// Whether the message equals `original[at]`, read only where it could differ.
    fn equals(&self, original: &[Message], at: usize) -> bool {
        let other = &original[at];
        match self {
            Out::Built(message) => message == other,
            Out::Extends { index, blocks } if *index == at => blocks.is_empty(),
            Out::Extends { index, blocks } => {
                let base = &original[*index];
                let (Content::Blocks(own), Content::Blocks(theirs)) =
                    (&base.content, &other.content)
                else {
                    return false;
                };
                base.role == other.role
                    && theirs.len() == own.len() + blocks.len()
                    && theirs[..own.len()] == own[..]
                    && theirs[own.len()..] == blocks[..]
            }
        }
    }

    /// The message, built.
    fn into_message(self, original: &[Message]) -> Message {
        match self {
            Out::Built(message) => message,
            Out::Extends { index, blocks } => {
                let mut message = original[index].clone();
                if let Content::Blocks(own) = &mut message.content {
                    own.extend(blocks);
                }
                message
            }
        }
    }
}

/// The blocks' part of a kept prompt's count, taken from `counts` where the prompt is the
/// original message as it stands and keeps every block.
fn blocks_part<'h>(
    (index, message): &(usize, Cow<'_, Message>),
    keep_attachments: bool,
    known: &Known<'_, 'h>,
) -> Option<(usize, &'h [usize])> {
    let Cow::Borrowed(message) = message else {
        return None;
    };
    if !(known.plain)(*index) && !keeps_every_block(message, keep_attachments) {
        return None;
    }
    let (units, contents) = (known.counts)(*index)?;
    Some((
        units - cline_blocks_frame(message.role, message.block_list().len()),
        contents,
    ))
}

/// Adds one block's count to a folded message's.
fn count_block(counted: &mut Counted, block: &Block) {
    let (sum, contents) = counted;
    *sum += cline_block_units(block, &mut [].iter(), &mut |units| contents.push(units));
}

/// The kept prompt `entry` as the start of a message the fold extends, with its count: a plain
/// prompt whose count is known, extended where it stands.
fn extended(entry: &(usize, Cow<'_, Message>), known: &Known<'_, '_>) -> Option<(Out, Counted)> {
    let (index, Cow::Borrowed(_)) = *entry else {
        return None;
    };
    if !(known.plain)(index) {
        return None;
    }
    let (sum, contents) = blocks_part(entry, false, known)?;
    let out = Out::Extends {
        index,
        blocks: Vec::new(),
    };
    Some((out, (sum, contents.to_vec())))
}

/// Adjacent kept prompts (`members`, at least two, the first at index `first` of the kept list)
/// merged into one message, with a notice for each span dropped between two of them, and the
/// count of its blocks (`latest`: the index in the kept list of the prompt that keeps its
/// attachments). A plain first prompt is extended where it stands.
fn merge_prompts(
    members: &[(usize, Cow<'_, Message>)],
    first: usize,
    latest: Option<usize>,
    original: &[Message],
    answers: &[usize],
    known: &Known<'_, '_>,
) -> (Out, Counted) {
    let (mut out, mut counted, from) = match extended(&members[0], known) {
        Some((out, counted)) => (out, counted, 1),
        None => (
            Out::Built(Message::blocks(Role::User, Vec::new())),
            (0, Vec::new()),
            0,
        ),
    };
    let (Out::Built(Message {
        content: Content::Blocks(blocks),
        ..
    })
    | Out::Extends { blocks, .. }) = &mut out
    else {
        unreachable!("a merged prompt is built of blocks");
    };
    // Room for the members' blocks and a notice between each two, reserved at once (issue 13:
    // the merged prompt grows with the session, and grew by doubling here).
    let room: usize = members[from..]
        .iter()
        .map(|(_, m)| m.block_list().len().max(1) + 1)
        .sum();
    blocks.reserve(room);
    for (at, member) in members.iter().enumerate().skip(from) {
        let (previous, current) = (members[at.max(1) - 1].0, member.0);
        if at > 0 && current > previous + 1 {
            if let Some(notice) = gap_notice(original, answers, previous + 1, current) {
                count_block(&mut counted, &notice);
                blocks.push(notice);
            }
        }
        let keep = Some(first + at) == latest;
        let start = blocks.len();
        push_user_blocks(blocks, &member.1, keep);
        match blocks_part(member, keep, known) {
            Some((sum, contents)) => {
                counted.0 += sum;
                counted.1.extend_from_slice(contents);
            }
            None => blocks[start..]
                .iter()
                .for_each(|block| count_block(&mut counted, block)),
        }
    }
    (out, counted)
}

/// A prompt kept on its own (no prompt beside it): as it stands, with the count of its blocks
/// where `counts` has it, or without its attachments unless `keep_attachments`. A plain prompt
/// stays where it is.
fn lone_prompt(
    entry: &(usize, Cow<'_, Message>),
    keep_attachments: bool,
    known: &Known<'_, '_>,
) -> (Out, Option<Counted>) {
    if let Some((out, counted)) = extended(entry, known) {
        return (out, Some(counted));
    }
    let message = &entry.1;
    if matches!(message.content, Content::Blocks(_))
        && !keeps_every_block(message, keep_attachments)
    {
        return (
            Out::Built(Message::blocks(Role::User, user_blocks(message, false))),
            None,
        );
    }
    let counted =
        blocks_part(entry, keep_attachments, known).map(|(sum, contents)| (sum, contents.to_vec()));
    (Out::Built(message.clone().into_owned()), counted)
}

/// Appends the notice of the span dropped after a prompt: its blocks, attachments kept, then the
/// notice (its count added where the prompt's is kept).
fn append_notice(out: &mut Out, counted: &mut Option<Counted>, notice: Block) {
    if let Some(counted) = counted {
        count_block(counted, &notice);
    }
    let message = match out {
        Out::Extends { blocks, .. } => return blocks.push(notice),
        Out::Built(message) => message,
    };
    match &mut message.content {
        Content::Blocks(blocks) => blocks.push(notice),
        Content::Text(_) => {
            let mut blocks = user_blocks(message, true);
            blocks.push(notice);
            *message = Message::blocks(Role::User, blocks);
        }
    }
}

/// `mergeAdjacentUserTurns`: adjacent prompts become one message, each dropped span noted.
/// Each kept message is copied once, into the folded history, but a plain prompt, which is
/// extended where it stands. A merged prompt's Cline count is given beside it, summed from its
/// parts' (`counts`, then each new block's) so that it is not measured again: it holds every
/// prompt of the session.
fn merge(
    kept: Vec<(usize, Cow<'_, Message>)>,
    original: &[Message],
    known: &Known<'_, '_>,
) -> (Vec<Out>, Vec<Option<Counted>>) {
    let answers: Vec<usize> = (0..original.len())
        .rev()
        .filter(|&i| assistant_text(&original[i]).is_some())
        .take(PRESERVED_ANSWERS)
        .collect();
    let latest = kept.iter().rposition(|(_, m)| is_turn_start(m));
    // (message, first original index, last original index, is a prompt, count of its blocks)
    let mut entries: Vec<(Out, usize, usize, bool, Option<Counted>)> = Vec::new();
    let mut index = 0;
    while index < kept.len() {
        if !is_turn_start(&kept[index].1) {
            let message = Out::Built(kept[index].1.clone().into_owned());
            entries.push((message, kept[index].0, kept[index].0, false, None));
            index += 1;
            continue;
        }
        let mut end = index;
        while end + 1 < kept.len() && is_turn_start(&kept[end + 1].1) {
            end += 1;
        }
        let (message, counted) = if end > index {
            let (message, counted) =
                merge_prompts(&kept[index..=end], index, latest, original, &answers, known);
            (message, Some(counted))
        } else {
            lone_prompt(&kept[index], Some(index) == latest, known)
        };
        entries.push((message, kept[index].0, kept[end].0, true, counted));
        index = end + 1;
    }
    for at in 0..entries.len() {
        let (last, is_prompt) = (entries[at].2, entries[at].3);
        let gap_end = entries.get(at + 1).map_or(original.len(), |e| e.1);
        if !is_prompt || gap_end <= last + 1 {
            continue;
        }
        if let Some(block) = gap_notice(original, &answers, last + 1, gap_end) {
            let (message, _, _, _, counted) = &mut entries[at];
            append_notice(message, counted, block);
        }
    }
    entries
        .into_iter()
        .map(|(message, _, _, _, counted)| {
            let role = match &message {
                Out::Built(built) => built.role,
                Out::Extends { .. } => Role::User,
            };
            let frame = cline_blocks_frame(role, message.block_count(original));
            let counted = counted.map(|(sum, contents)| (frame + sum, contents));
            (message, counted)
        })
        .unzip()
}

/// `runBasicCompaction` over `messages` with the message target `target`: the folded
/// history, or None when there is nothing to fold (fewer than 2 messages, no typed prompt, or
/// no change).
pub fn fold(messages: &[Message], target: usize) -> Option<Vec<Message>> {
    let known = Known {
        cost: &|index| cline_tokens(&messages[index]),
        counts: &|_| None,
        plain: &|_| false,
    };
    let (folded, _) = fold_by(messages, target, &known)?;
    Some(
        folded
            .into_iter()
            .map(|out| out.into_message(messages))
            .collect(),
    )
}

/// [`fold`] with what the history knows of its messages (`known`), and the folded messages'
/// counts where they are known from their parts.
fn fold_by(
    messages: &[Message],
    target: usize,
    known: &Known<'_, '_>,
) -> Option<(Vec<Out>, Vec<Option<Counted>>)> {
    if messages.len() < 2 {
        return None;
    }
    let kept = select(messages, target.max(1), known)?;
    let (merged, counted) = merge(kept, messages, known);
    let unchanged = merged.len() == messages.len()
        && merged
            .iter()
            .enumerate()
            .all(|(at, out)| out.equals(messages, at));
    (!unchanged).then_some((merged, counted))
}

/// Folds once the estimate reaches 90% of the usable input.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let max_input = world.profile.constants.context_window;
    let estimate = world.history.estimate();
    if (estimate as f64) < max_input as f64 * 0.9 {
        return Ok(());
    }
    let (trigger, target) = budget(max_input, Mode::Auto, estimate);
    world.record(
        Event::new("cline_compact", "over")
            .before(estimate)
            .reason(reason!(
                "{estimate} tokens ≥ {trigger} (0.9 × usable input {max_input}); target {target}"
            )),
    );
    // The history is read in place until the fold replaces it (it was copied whole here).
    let history = &world.history;
    let before = history.messages();
    let cline = world.profile.estimator == Estimator::ClineTokens;
    let known = Known {
        cost: &|index| history.message_estimate(index),
        counts: &|index| cline.then(|| history.cline_counts(index)),
        plain: &|index| history.cline_plain(index),
    };
    let Some((folded, counted)) = fold_by(before, target, &known) else {
        world.record(Event::new("cline_compact", "skip").reason("nothing to fold".to_owned()));
        return Ok(());
    };
    // The latest turn's kept messages are the history's unchanged tail.
    let tail = (1..=before.len().min(folded.len()))
        .take_while(|&k| {
            let out = &folded[folded.len() - k];
            matches!(out, Out::Built(_)) && out.equals(before, before.len() - k)
        })
        .count();
    let (total, removed) = (before.len(), before.len() - tail);
    // What left or changed, but a plain prompt, which holds no result and is not read (Cline's
    // merged prompt holds every prompt of the session).
    let plain: Vec<usize> = (0..removed).filter(|&i| history.cline_plain(i)).collect();
    let mut from = 0;
    for end in plain.iter().copied().chain([removed]) {
        if from < end {
            super::cut::note_removed(
                world,
                from..end,
                "cline_compact",
                "folded away (basic compaction lists the call in a SYSTEM_NOTICE, not its output)",
                None,
            );
            // A result folded away before any assistant message followed it never reached
            // the model.
            for message in &world.history.messages()[from..end] {
                for (id, _) in message.tool_results() {
                    if let Some(record) = world.ledger.results.get_mut(id) {
                        record.unseen_compacted |= !record.seen;
                    }
                }
            }
        }
        from = end + 1;
    }
    let count = folded.len();
    let parts = folded
        .into_iter()
        .zip(counted)
        .map(|(out, counted)| match (out, counted) {
            (Out::Extends { index, blocks }, Some(counted)) => Folded::Extended {
                index,
                blocks,
                counted,
            },
            (out, counted) => Folded::New(out.into_message(world.history.messages()), counted),
        })
        .collect();
    world.history.replace_folded(parts, tail);
    world.script.reported_usage = None;
    world.record(
        Event::new("cline_compact", "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!("{total} messages folded into {count}")),
    );
    Ok(())
}

#[cfg(test)]
#[path = "cline_compact_tests.rs"]
mod tests;
