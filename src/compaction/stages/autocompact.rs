//! Autocompact: when the token count reaches the threshold, summarise the whole history into one
//! message and restore the most recent files.
//!
//! Claude Code v2.1.88 `autoCompact.ts` / `compact.ts` (docs/profiles.md, C3-C4): threshold =
//! window − min(max output, 20000) − 13000 tokens (167000 for a 200K window), compared with `>=` to
//! the last usage the API reported plus the estimate of the later messages
//! (`tokenCountWithEstimation`; measured at 166999/167000 in docs/probe.md, D6, probe scenarios p02
//! and p03); one summariser call with the 9-section prompt; the history becomes the summary message
//! (with the path of the session transcript and, for autocompact, the instruction to continue),
//! followed by up to 5 files re-read from the most recent Reads: a file of more than 5000 tokens
//! becomes a one-line reference, and files are accepted while their tokens together stay within
//! 50000. The originals stay in the session transcript; CLAUDE.md is re-injected outside the
//! history.

use crate::compaction::archive;
use crate::compaction::profile::{CompactForm, fill};
use crate::compaction::store;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Message, ResultText, Role};

use super::read_tool::{absolute, file_tokens, numbered, read_attachment, system_reminder};

/// Read's cyber-risk reminder (`CYBER_RISK_MITIGATION_REMINDER`, 337 chars inside its
/// `\n\n…\n`), which a restored Read result carries (D8 of docs/probe.md). Vendor prompt text:
/// kept as its length and sha256, the form a conformance record stores it in.
const READ_REMINDER: &str =
    "<hashed chars=337 sha256=64b751bdfbd2d3bff0c708e14ab5df77387495b60872801543ee9ec6aac6a9ea>";

/// The post-compact file attachments as text blocks, in the order the API receives them: the
/// files oldest read first, each a `Called the Read tool…` and a `Result of calling the Read
/// tool:` block (or one reference note).
fn restored_files(world: &mut World) -> Vec<String> {
    let c = world.profile.constants;
    let mut out = Vec::new();
    let mut used = 0;
    let files: Vec<(String, ResultText)> = world
        .ledger
        .read_files
        .iter()
        .rev()
        .filter(|(path, _)| store::basename(path) != "CLAUDE.md")
        .take(c.restore_files)
        .map(|(path, text)| (path.clone(), text.clone()))
        .collect();
    for (path, content) in files {
        // The note names the absolute path (D7 of the probe study: the real note says
        // `Note: /…/big.txt was read before…`).
        let path = absolute(path);
        let attachment = if file_tokens(&path, &content) > c.restore_file_tokens {
            vec![system_reminder(&format!(
                "Note: {path} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
            ))]
        } else {
            let result = format!("{}\n\n{READ_REMINDER}\n", numbered(&content));
            read_attachment(&path, &result).to_vec()
        };
        if super::summary_call::within_budget(world, &path, &attachment, &mut used) {
            out.push(attachment);
        }
    }
    // Chosen most recent first; the API receives them oldest first (D9).
    out.into_iter().rev().flatten().collect()
}

/// Claude Code's `tokenCountWithEstimation` (utils/tokens.ts): the last reported usage (input +
/// cache creation + cache read + output) plus the rough estimate of what came after it; without
/// a usage, the estimate of everything. The agent keeps each content block of a response as a
/// record of its own and anchors at the first record of the response, so every block but the
/// first of the reporting message counts as "after" (a second tool_use of the same response is
/// estimated again). A usage whose message is no longer where it was (the history was replaced)
/// is not used.
pub(crate) fn token_count(world: &World) -> (usize, Option<usize>) {
    match world.script.reported_usage {
        Some((index, usage))
            if world
                .history
                .messages()
                .get(index)
                .is_some_and(|m| m.role == crate::transcript::Role::Assistant) =>
        {
            let reported = usage.total();
            let message = &world.history.messages()[index];
            let siblings = message.block_list().get(1..).unwrap_or(&[]).to_vec();
            let siblings = world.profile.estimator.message(&Message::blocks(
                crate::transcript::Role::Assistant,
                siblings,
            ));
            let after = siblings + world.history.estimate_suffix(index + 1);
            (reported.saturating_add(after), Some(reported))
        }
        _ => (world.history.estimate(), None),
    }
}

/// Autocompact once the token count ([`token_count`]) reaches Claude Code's autocompact threshold
/// (`Profile::autocompact_threshold`, compared with `>=`): the whole history becomes the summary
/// message and the restored files.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let (tokens, reported) = token_count(world);
    let threshold = world.profile.autocompact_threshold();
    if tokens < threshold {
        return Ok(());
    }
    let how = match reported {
        Some(reported) => format!(
            " ({reported} reported by the API + {} estimated after it)",
            tokens - reported
        ),
        None => String::new(),
    };
    world.record(
        Event::new("autocompact", "over")
            .before(tokens)
            .reason(reason!(
                "{tokens} tokens{how} ≥ autocompact threshold {threshold}"
            )),
    );
    if world.profile.compact_form == CompactForm::KeepLastTurn {
        return super::keep_last_turn::compact(world, tokens);
    }
    let len = world.history.len();
    let (path, summary_text) = super::summary_call::summarise(world, len, tokens, None);
    let summary = fill(
        world.profile.strings.summary_message,
        &[("summary", &summary_text), ("path", &path)],
    );
    // The API receives the attachments as one user message above the user context and the
    // summary (D9), each merge adding `\n` to the block before the seam (joinTextAtSeam, D10).
    let mut restored = restored_files(world);
    if let Some(last) = restored.last_mut() {
        last.push('\n');
    }
    let lead = usize::from(!restored.is_empty());
    let mut messages: Vec<Message> = (lead == 1)
        .then(|| {
            let blocks = restored
                .into_iter()
                .map(|text| Block::Text { text })
                .collect();
            Message::blocks(Role::User, blocks)
        })
        .into_iter()
        .collect();
    messages.push(Message::user_text(summary));
    world.ledger.read_files.clear();
    archive::log_session(world, &messages)?;
    world.history.replace_all(messages);
    world.history.lead_before_pin(lead);
    // The message that reported the usage is gone: the next count estimates everything.
    world.script.reported_usage = None;
    world.record(
        Event::new("autocompact", "compact")
            .sizes(tokens, world.history.estimate())
            .reason(reason!(
                "{len} messages replaced by the summary and the restored files"
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CLAUDE_CODE;
    use crate::compaction::world::IncomingResult;
    use crate::transcript::{Block, Role};

    fn text(message: &Message) -> &str {
        match &message.content {
            crate::transcript::Content::Text(text) => text,
            crate::transcript::Content::Blocks(_) => "(blocks)",
        }
    }

    #[test]
    fn autocompact_fires_at_the_threshold_and_not_one_token_before() {
        // 200000 − min(32000, 20000) − 13000 = 167000 tokens, compared with `>=`.
        let mut world = World::for_test(CLAUDE_CODE);
        assert_eq!(world.profile.autocompact_threshold(), 167_000);
        world.push(Message::user_text("x".repeat(4 * 166_999)));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        assert!(world.trace.is_empty());
        world.push(Message::user_text("abcd"));
        assert_eq!(world.history.estimate(), 167_000);
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        let summary = text(&world.history.messages()[0]);
        assert!(summary.starts_with("This session is being continued"));
        assert!(summary.contains("read the full transcript at: /lab/.transcripts/session.jsonl"));
        assert_eq!(world.counters.model_calls, 1);
    }

    #[test]
    fn a_reported_usage_plus_the_later_messages_is_the_count() {
        use crate::scenario::Usage;
        // 1000 input + 165700 cache read + 10 output = 166710 reported for message 0; its
        // second tool_use counts again ("t2" + "{}" = 4 chars: 1 token), and the result after
        // it is 4 × 288 chars = 288 tokens: 166999, one short.
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::tool_uses(&[("t1", "Bash"), ("t2", "t2")]));
        let usage = Usage {
            input_tokens: 1_000,
            cache_read_input_tokens: 165_700,
            output_tokens: 10,
            ..Usage::default()
        };
        world.script.reported_usage = Some((0, usage));
        world.push(Message::tool_result("t1", &"x".repeat(4 * 288)));
        assert_eq!(token_count(&world), (166_999, Some(166_710)));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 2);
        // One token more after the usage: 167000, compacted; the usage is then forgotten.
        world.push(Message::user_text("abcd"));
        assert_eq!(token_count(&world), (167_000, Some(166_710)));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        assert_eq!(world.script.reported_usage, None);
        assert_eq!(token_count(&world).1, None);
    }

    #[test]
    fn autocompact_restores_the_files_read_oldest_first_before_the_summary() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::user_text("x".repeat(4 * 167_000)));
        for (id, path) in [("r1", "/repo/a.rs"), ("r2", "src/b.rs")] {
            let mut input = serde_json::Map::new();
            input.insert("file_path".into(), path.into());
            world.push(Message::blocks(
                Role::Assistant,
                vec![Block::ToolUse {
                    id: id.into(),
                    name: "Read".into(),
                    input: input.into(),
                }],
            ));
            world.push_results(vec![IncomingResult::measured(
                id,
                "Read",
                format!("fn {id}() {{}}"),
            )]);
        }
        run(&mut world).unwrap();
        // D9: one user message of restored blocks (oldest read first), then the summary; D8:
        // Read's reminder inside the result, hashed; D7: a relative path made absolute; D10: the
        // last block ends in the seam's `\n`.
        assert_eq!(world.history.len(), 2);
        let blocks: Vec<&str> = world.history.messages()[0]
            .block_list()
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.as_str(),
                _ => unreachable!("restored files are text"),
            })
            .collect();
        assert_eq!(
            blocks,
            [
                "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/repo/a.rs\"}\n</system-reminder>".to_owned(),
                format!("<system-reminder>\nResult of calling the Read tool:\n1\tfn r1() {{}}\n\n{READ_REMINDER}\n\n</system-reminder>"),
                "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/home/lab/repo/src/b.rs\"}\n</system-reminder>".to_owned(),
                format!("<system-reminder>\nResult of calling the Read tool:\n1\tfn r2() {{}}\n\n{READ_REMINDER}\n\n</system-reminder>\n"),
            ]
        );
        assert!(text(&world.history.messages()[1]).starts_with("This session is being continued"));
        assert!(world.ledger.read_files.is_empty());
    }
}
