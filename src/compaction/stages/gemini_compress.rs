//! Gemini CLI's chat compression (google-gemini/gemini-cli @ 5411f113
//! `packages/core/src/context/chatCompressionService.ts`). Before each turn, when the token count
//! reaches `compress_threshold_per_mille` of the token limit (`<` is a no-op):
//!
//! 1. the function-response budget: walking from the newest result back, once the running total
//!    would pass `function_response_budget` tokens, each older result is written to
//!    `tool-outputs/<tool>_<n>.txt` (n counts these writes over the session) and replaced by
//!    `Output too large. Showing first … and last … characters. For full output see: <file>`
//!    with a 20/80 head/tail of `truncate_threshold` chars (a shorter one is kept as it is, but
//!    its file is written all the same);
//! 2. the split: the first user message without a function response once 70% of the history's
//!    JSON chars lie before it; failing that, everything if the last message is a model reply
//!    without calls, else the last such user message (0: nothing to compress, a no-op);
//! 3. two model calls (the `<state_snapshot>` and its self-check), then the history becomes the
//!    summary, the model's `Got it. Thanks for the additional context!` and the kept messages
//!    with their step-1 replacements;
//! 4. a compression that would not shrink the count is dropped
//!    (`COMPRESSION_FAILED_INFLATED_TOKEN_COUNT`), and from then on only step 1 is applied
//!    (`CONTENT_TRUNCATED`, when it shrinks the count). An empty summary drops it too.
//!
//! The files of step 1 are written before the outcome is known, so a no-op or failed
//! compression leaves them behind. The session file keeps the pre-compression messages.

use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};
use crate::transcript::ResultText;
use crate::transcript::{Block, Content, Message, Role};

const STAGE: &str = "gemini_compress";

/// The model's reply Gemini CLI puts after the summary.
pub(super) const ACK: &str = "Got it. Thanks for the additional context!";

/// [`push_thousands`] into a string of its own.
#[cfg(test)]
fn thousands(n: usize) -> String {
    let mut out = String::new();
    push_thousands(&mut out, n);
    out
}

/// Appends `n.toLocaleString()` in an en-US locale, thousands separated by commas, to `out`
/// (issue 13: each truncated output formatted three numbers into strings of their own).
fn push_thousands(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let digits = decimal_digits(&mut digits, n);
    for (i, &digit) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(char::from(digit));
    }
}

/// Appends `n` in decimal to `out`, as `{n}` would (issue 13: a `write!` of each file's
/// number went through the formatting machinery, once per file compression writes).
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    for &digit in decimal_digits(&mut digits, n) {
        out.push(char::from(digit));
    }
}

/// The decimal digits of `n`, written from the right into `buffer` (room for any `usize`).
fn decimal_digits(buffer: &mut [u8; 20], n: usize) -> &[u8] {
    let (mut n, mut at) = (n, buffer.len());
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buffer[at..]
}

/// [`push_sanitized`] into a new string.
#[cfg(test)]
fn sanitize(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    push_sanitized(&mut out, part);
    out
}

/// What [`push_sanitized`] writes for each byte of an ASCII part: ASCII letters lower-cased,
/// digits, `_` and `-` kept, every other byte `_`.
const SANITIZED: [u8; 128] = {
    let mut table = [b'_'; 128];
    let mut byte = 0;
    while byte < 128 {
        let b = byte as u8;
        if b.is_ascii_alphanumeric() || b == b'-' {
            table[byte] = b.to_ascii_lowercase();
        }
        byte += 1;
    }
    table
};

/// Appends gemini-cli's `sanitizeFilenamePart(part)`, lower-cased as `saveTruncatedToolOutput`
/// does, to `out`: every character but ASCII letters, digits, `_` and `-` becomes `_` (one per
/// character, not per byte), letters lower-cased.
pub(super) fn push_sanitized(out: &mut String, part: &str) {
    let sanitized = |c: char| match u8::try_from(c) {
        Ok(b) if b.is_ascii() => char::from(SANITIZED[usize::from(b)]),
        _ => '_',
    };
    if !part.is_ascii() {
        out.extend(part.chars().map(sanitized));
        return;
    }
    // A part the table maps to itself (call ids mostly are: lower-case letters, digits and
    // `_`) is copied whole: reading it costs less than pushing it byte by byte.
    if part.bytes().all(|b| SANITIZED[usize::from(b)] == b) {
        out.push_str(part);
        return;
    }
    // An ASCII part maps byte for byte through a table, each byte pushed as the one-byte
    // character it is (issue 13: two parts name every output gemini masks; a test per byte,
    // then a check that the mapped bytes were text, cost more than the copy).
    out.reserve(part.len());
    for &b in part.as_bytes() {
        out.push(char::from(SANITIZED[usize::from(b)]));
    }
}

/// gemini-cli `formatTruncatedToolOutput`: unchanged within `max_chars` (the same text, shared:
/// issue 13, every compression passes each response past the budget through here again, most
/// of them truncated already, and each was copied), else the first 20% and the last 80% of
/// `max_chars` characters around the count of those omitted (the content was copied into a
/// list of its characters to be cut; an ASCII one is now cut by bytes unread).
fn truncated_output(content: &ResultText, file: &str, max_chars: usize) -> ResultText {
    let chars = content.chars();
    if chars <= max_chars {
        return content.clone();
    }
    let head_chars = max_chars / 5;
    let tail_chars = max_chars - head_chars;
    let head = content.char_prefix(head_chars);
    let tail = content.char_suffix(tail_chars);
    let omitted = chars - head_chars - tail_chars;
    // Written in place, with room for the numbers and the words around them (issue 13: a
    // `format!` with three numbers formatted apart, for each truncated output).
    let mut out = String::with_capacity(head.len() + tail.len() + file.len() + 160);
    out.push_str("Output too large. Showing first ");
    push_thousands(&mut out, head_chars);
    out.push_str(" and last ");
    push_thousands(&mut out, tail_chars);
    out.push_str(" characters. For full output see: ");
    out.push_str(file);
    out.push('\n');
    out.push_str(head);
    out.push_str("\n\n... [");
    push_thousands(&mut out, omitted);
    out.push_str(" characters omitted] ...\n\n");
    out.push_str(tail);
    out.into()
}

/// One result step 1 replaces: message, block, new content.
type Replacement = (usize, usize, ResultText);

/// Step 1 (`truncateHistoryToBudget`): writes the files and returns the replacements.
fn budget(world: &mut World, threshold: usize) -> Result<Vec<Replacement>, RunError> {
    let estimator = world.profile.estimator;
    let budget = world.profile.constants.function_response_budget;
    let mut written = world.compress_spills;
    debug_assert_eq!(
        written,
        world
            .trace
            .iter()
            .filter(|e| e.stage == STAGE && e.kind == "spill")
            .count()
    );
    let mut counter = 0;
    let mut plan = Vec::new();
    for (mi, bi) in world.history.result_positions().into_iter().rev() {
        let (id, content) = world.history.owned_result_at(mi, bi);
        // The result's counts give an ASCII result's estimate without reading it.
        let tokens = estimator.result(&content);
        if counter + tokens <= budget {
            counter += tokens;
            continue;
        }
        written += 1;
        // `{tool}_{written}.txt`, written into the path in place (issue 13: `format!` of the
        // name cost 3% of a replay, once per output spilled; then the name's own string and
        // its number's formatting, a tenth of a compression). The tool's name is a clone of the
        // record's (shared, or inline when short), since the world that holds the record
        // writes the file.
        let tool = match world.ledger.results.get(&id) {
            Some(record) if !record.name.is_empty() => Some(record.name.clone()),
            _ => None,
        };
        let tool = tool.as_deref();
        let name = |path: &mut String| {
            match tool {
                Some(tool) => push_sanitized(path, tool),
                None => path.push_str("unknown_tool"),
            }
            path.push('_');
            push_decimal(path, written);
            path.push_str(".txt");
        };
        let room = tool.map_or(12, str::len) + 26;
        let path = world.put_spill_named(room, name, content.clone().into())?;
        world.ledger.mark_spilled(&id, true);
        let replacement = truncated_output(&content, &path, threshold);
        let replaced = estimator.result(&replacement);
        counter += replaced;
        world.record(
            Event::new(STAGE, "spill")
                .id(id)
                .sizes(tokens, replaced)
                .reason(reason!(
                    "function responses past the {budget}-token budget: written to {path}"
                )),
        );
        world.compress_spills = written;
        plan.push((mi, bi, replacement));
    }
    Ok(plan)
}

/// The history with step 1's replacements applied, as far as they change it: a copy of each
/// message they touch (issue 13: the whole history was copied at every compression).
struct Truncated {
    changed: Vec<Option<Message>>,
}

impl Truncated {
    /// `messages` with `plan` applied. A replacement that is the very text in place (a response
    /// truncated already, passed through unchanged) changes nothing: its message keeps the
    /// history's sizes instead of being copied and measured again.
    fn new(messages: &[Message], plan: &[Replacement]) -> Self {
        let mut changed: Vec<Option<Message>> = (0..messages.len()).map(|_| None).collect();
        for (mi, bi, text) in plan {
            let current = changed[*mi].as_ref().unwrap_or(&messages[*mi]);
            let in_place = match current.block_list().get(*bi) {
                Some(Block::ToolResult { content, .. }) => content.shares(text),
                _ => false,
            };
            if in_place {
                continue;
            }
            let message = changed[*mi].get_or_insert_with(|| messages[*mi].clone());
            if let Content::Blocks(blocks) = &mut message.content {
                if let Some(Block::ToolResult { content, .. }) = blocks.get_mut(*bi) {
                    *content = text.clone();
                }
            }
        }
        Truncated { changed }
    }

    /// The estimate of `head`, then of the truncated history from `from` on: a message step 1
    /// left alone counts what the history counted for it.
    fn estimate(&self, world: &World, head: &[Message], from: usize) -> usize {
        let estimator = world.profile.estimator;
        let kept: usize = (from..self.changed.len())
            .map(|i| match &self.changed[i] {
                Some(message) => estimator.message(message),
                None => world.history.message_estimate(i),
            })
            .sum();
        let head_sum: usize = head.iter().map(|m| estimator.message(m)).sum();
        let after = estimator.list(head.len() + self.changed.len() - from, head_sum + kept);
        debug_assert_eq!(after, {
            let history = world.history.messages();
            let mut messages = head.to_vec();
            messages.extend((from..history.len()).map(|i| self.message(history, i).clone()));
            estimator.full(&messages)
        });
        after
    }

    /// Message `index` of the truncated history, `history` being the history itself.
    fn message<'a>(&'a self, history: &'a [Message], index: usize) -> &'a Message {
        self.changed[index].as_ref().unwrap_or(&history[index])
    }
}

/// gemini-cli `findCompressSplitPoint` with `fraction` in per mille, over the lab's JSON chars
/// of each message.
#[cfg(test)]
pub(super) fn split_point(messages: &[Message], fraction_per_mille: usize) -> usize {
    let counts: Vec<usize> = messages.iter().map(Message::json_chars).collect();
    split_point_counted(messages, &counts, fraction_per_mille)
}

/// [`split_point`] with each message's JSON chars counted already (`counts`).
pub(super) fn split_point_counted(
    messages: &[Message],
    counts: &[usize],
    fraction_per_mille: usize,
) -> usize {
    let total: usize = counts.iter().sum();
    let mut last = 0;
    let mut cumulative = 0;
    for (i, message) in messages.iter().enumerate() {
        if message.role == Role::User && !message.is_tool_result() {
            if cumulative * 1000 >= total * fraction_per_mille {
                return i;
            }
            last = i;
        }
        cumulative += counts[i];
    }
    match messages.last() {
        Some(m) if m.role == Role::Assistant && !m.has_tool_use() => messages.len(),
        _ => last,
    }
}

/// Each message's JSON chars in `truncated` (the history with step 1's plan applied): a
/// message step 1 left alone counts what the history counted for it already (issue 13: every
/// message was measured again at each compression).
fn json_counts(world: &mut World, truncated: &Truncated) -> Vec<usize> {
    let counts: Vec<usize> = (0..truncated.changed.len())
        .map(|i| match &truncated.changed[i] {
            Some(message) => message.json_chars(),
            None => world.history.json_chars_at(i),
        })
        .collect();
    debug_assert!(
        counts
            .iter()
            .enumerate()
            .all(|(i, n)| { *n == truncated.message(world.history.messages(), i).json_chars() })
    );
    counts
}

/// Applies step 1's replacements to the history itself (ledger and trace kept).
fn replace(world: &mut World, plan: Vec<Replacement>, from: usize, why: &str) {
    for (mi, bi, text) in plan.into_iter().filter(|(mi, _, _)| *mi >= from) {
        world.replace_result(mi, bi, text, STAGE, why.to_owned());
    }
}

/// After an inflated compression (`hasFailedCompressionAttempt`): step 1 alone, applied when it
/// shrinks the count (`CONTENT_TRUNCATED`), with no model call.
fn truncate_only(
    world: &mut World,
    plan: Vec<Replacement>,
    truncated: &Truncated,
    estimate: usize,
) {
    let after = truncated.estimate(world, &[], 0);
    if after < estimate {
        replace(world, plan, 0, "truncation only after a failed compression");
        world.record(
            Event::new(STAGE, "truncate")
                .sizes(estimate, after)
                .reason("an earlier compression inflated the count: no model call, step 1 only (CONTENT_TRUNCATED)"),
        );
    }
}

/// Replaces the compressed prefix by the summary and the ack, and applies step 1's
/// replacements to the kept messages.
fn commit(
    world: &mut World,
    plan: Vec<Replacement>,
    head: &[Message],
    split: usize,
    estimate: usize,
) {
    let session = super::super::archive::session_path(world);
    super::cut::note_removed(
        world,
        0..split,
        STAGE,
        "compressed into the state snapshot",
        session,
    );
    replace(world, plan, split, "function-response budget");
    // The kept messages stay where they are, with their sizes (issue 13: a rebuild measured
    // each again at every compression).
    world.history.splice(0, head.to_vec(), split);
    world.script.reported_usage = None;
    world.record(
        Event::new(STAGE, "compact")
            .sizes(estimate, world.history.estimate())
            .reason(reason!(
                "{split} messages summarised (2 model calls: the snapshot and its self-check); {} kept",
                world.history.len() - 2
            )),
    );
}

/// Compresses once the estimate reaches the threshold share of the token limit.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let estimate = world.history.estimate();
    if world.history.len() == 0
        || estimate * 1000 < c.compress_threshold_per_mille * c.context_window
    {
        return Ok(());
    }
    world.record(Event::new(STAGE, "over").before(estimate).reason(reason!(
        "{estimate} tokens ≥ {}‰ of the {}-token limit",
        c.compress_threshold_per_mille,
        c.context_window
    )));
    let threshold = (4 * c.context_window.saturating_sub(estimate)).min(c.truncate_threshold);
    let plan = budget(world, threshold)?;
    let truncated = Truncated::new(world.history.messages(), &plan);
    debug_assert_eq!(
        world.compress_inflated,
        world
            .trace
            .iter()
            .any(|e| e.stage == STAGE && e.kind == "inflated")
    );
    if world.compress_inflated {
        truncate_only(world, plan, &truncated, estimate);
        return Ok(());
    }
    let counts = json_counts(world, &truncated);
    // Step 1 changes no message's role or blocks' kinds: the split reads the history itself.
    let messages = world.history.messages();
    let split = split_point_counted(messages, &counts, 1000 - c.compress_preserve_per_mille);
    if split == 0 {
        world.record(
            Event::new(STAGE, "noop")
                .before(estimate)
                .reason("no user message to split at: nothing to compress"),
        );
        return Ok(());
    }
    world.counters.model_calls += 2;
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {split} messages"));
    let summary = summary.trim().to_owned();
    if summary.is_empty() {
        world.record(
            Event::new(STAGE, "empty")
                .before(estimate)
                .reason("the summary is empty (COMPRESSION_FAILED_EMPTY_SUMMARY)"),
        );
        return Ok(());
    }
    let head = [
        Message::user_text(summary),
        Message {
            role: Role::Assistant,
            content: Content::Text(ACK.to_owned()),
        },
    ];
    let after = truncated.estimate(world, &head, split);
    if after > estimate {
        world.compress_inflated = true;
        world.record(
            Event::new(STAGE, "inflated")
                .sizes(estimate, after)
                .reason("the new history is larger (COMPRESSION_FAILED_INFLATED_TOKEN_COUNT): kept as it was, no more summaries"),
        );
        return Ok(());
    }
    commit(world, plan, &head, split, estimate);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::GEMINI_CLI;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(8000), "8,000");
        assert_eq!(thousands(1_360_000), "1,360,000");
        for n in [0, 7, 10, 99, 1_000, 8_191, usize::MAX] {
            let mut out = "x".to_owned();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn a_long_output_keeps_a_fifth_of_the_threshold_at_the_head() {
        // 100 chars, threshold 10: head 2, tail 8, 90 omitted.
        let text = "a".repeat(50) + &"b".repeat(50);
        let out = truncated_output(&text.into(), "/t/x.txt", 10);
        assert_eq!(
            out,
            "Output too large. Showing first 2 and last 8 characters. For full output see: /t/x.txt\naa\n\n... [90 characters omitted] ...\n\nbbbbbbbb"
        );
        assert_eq!(truncated_output(&"short".into(), "/t/x.txt", 10), "short");
        // Characters, not bytes: 12 characters of two bytes each.
        let wide = "é".repeat(6) + &"ü".repeat(6);
        let out = truncated_output(&wide.into(), "/t/y.txt", 5);
        assert_eq!(
            out,
            "Output too large. Showing first 1 and last 4 characters. For full output see: /t/y.txt\né\n\n... [7 characters omitted] ...\n\nüüüü"
        );
    }

    #[test]
    fn the_split_is_at_a_user_message_past_seventy_percent() {
        let user = |t: &str| Message::user_text(t);
        let model = |t: &str| Message {
            role: Role::Assistant,
            content: Content::Text(t.to_owned()),
        };
        // json_chars: a user text of n chars is n + 31 (`{"role": "user", "content": "…"}`),
        // an assistant text n + 36.
        let long = "x".repeat(68);
        let messages = vec![user(&long), model("ok"), user("b"), model("c")];
        // 99 + 38 + 32 + 37 = 206; 70% is 144.2; before index 2 lie 137: too few, so no
        // split after the target; the last is a model text: everything.
        assert_eq!(split_point(&messages, 700), 4);
        let messages = vec![user(&long), model("ok"), user("b"), user("d")];
        // Before index 3 lie 169 ≥ 140.7 (70% of 201): split there.
        assert_eq!(split_point(&messages, 700), 3);
        assert_eq!(sanitize("Read File.x"), "read_file_x");
        assert_eq!(sanitize("ÉtÉ-1"), "_t_-1");
        assert_eq!(sanitize("toolu_01-ab"), "toolu_01-ab");
        // The byte path for ASCII parts maps as the char path does, every byte value.
        let ascii: String = (0u8..128).map(char::from).collect();
        let by_chars: String = ascii
            .chars()
            .map(|c| match c {
                'A'..='Z' => c.to_ascii_lowercase(),
                'a'..='z' | '0'..='9' | '_' | '-' => c,
                _ => '_',
            })
            .collect();
        assert_eq!(sanitize(&ascii), by_chars);
        // Parts of several lengths, appended to a name.
        for len in [1, 63, 64, 65, 127, 128, 129, 130] {
            let mut name = "x_".to_owned();
            push_sanitized(&mut name, &format!("{ascii}Ab")[..len]);
            assert_eq!(name, format!("x_{by_chars}ab")[..len + 2], "{len}");
        }
    }

    #[test]
    fn an_inflated_compression_is_dropped_and_latches_truncation_only() {
        let mut profile = GEMINI_CLI;
        profile.constants.context_window = 4000;
        profile.constants.truncate_threshold = 400;
        let mut world = World::for_test(profile);
        world.push(Message::user_text("x"));
        world.push(Message {
            role: Role::Assistant,
            content: Content::Text("y".to_owned()),
        });
        world.push(Message::user_text("go"));
        world.turn(&[("c1", "Bash", "z".repeat(8000))]);
        // 0 + 0 + 1 + 2 (`Bash{}`) + 2000 = 2003 ≥ 2000. The split is `go`: compressing `x`
        // and `y` (0 tokens) into the summary (5) and the ack (11) gives 2019 > 2003.
        assert_eq!(world.history.estimate(), 2003);
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 2);
        assert_eq!(world.history.len(), 5);
        assert!(world.trace.iter().any(|e| e.kind == "inflated"));
        // Latched: no model call again; within the budget nothing shrinks, so nothing happens.
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 2);
        assert_eq!(world.result("c1").map(str::len), Some(8000));
        // With a budget the output passes, step 1 alone applies (CONTENT_TRUNCATED).
        world.profile.constants.function_response_budget = 10;
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 2);
        let out = world.result("c1").unwrap();
        assert!(
            out.starts_with("Output too large. Showing first 80 and last 320 characters. For full output see: /lab/tool-results/bash_1.txt\n"),
            "{out}"
        );
        assert_eq!(
            world
                .store
                .read_spill("/lab/tool-results/bash_1.txt")
                .map(|t| t.len()),
            Some(8000)
        );
        // A later truncation numbers its files after the earlier ones: the newest output first.
        world.push(Message::user_text("again"));
        world.turn(&[("c2", "Bash", "w".repeat(8000))]);
        run(&mut world).unwrap();
        let second = world.store.read_spill("/lab/tool-results/bash_2.txt");
        assert_eq!(second.map(|t| t.as_str() == "w".repeat(8000)), Some(true));
    }

    #[test]
    fn below_the_threshold_nothing_happens_and_at_it_two_calls_are_made() {
        let mut profile = GEMINI_CLI;
        profile.constants.context_window = 200;
        let mut world = World::for_test(profile);
        world.push(Message::user_text("x".repeat(4 * 99)));
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 0);
        world.push(Message {
            role: Role::Assistant,
            content: Content::Text("done".to_owned()),
        });
        assert_eq!(world.history.estimate(), 100);
        run(&mut world).unwrap();
        assert_eq!(world.counters.model_calls, 2);
        assert_eq!(world.history.len(), 2);
        assert_eq!(
            world.history.messages()[1].content,
            Content::Text(ACK.to_owned())
        );
    }
}
