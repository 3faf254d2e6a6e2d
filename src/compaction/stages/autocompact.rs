//! Autocompact: when the token count reaches the threshold, summarise the whole history into one
//! message and restore the most recent files.
//!
//! Claude Code v2.1.88 `autoCompact.ts` / `compact.ts` (SPEC §5.5, C3-C4): threshold = window −
//! min(max output, 20000) − 13000 tokens (167000 for a 200K window), compared with `>=` to the
//! last usage the API reported plus the estimate of the later messages (`tokenCountWithEstimation`;
//! measured at 166999/167000 in research/claude_code_probe.md §3, D6); one
//! summariser call with the 9-section prompt; the history becomes the summary message (with the
//! path of the session transcript and, for autocompact, the instruction to continue), followed by
//! up to 5 files re-read from the most recent Reads: a file of more than 5000 tokens becomes a
//! one-line reference, and files are accepted while their tokens together stay within 50000. The
//! originals stay in the session transcript; CLAUDE.md is re-injected outside the history.

use crate::compaction::profile::fill;
use crate::compaction::store;
use crate::compaction::world::World;
use crate::compaction::{archive, summarizer};
use crate::error::RunError;
use crate::trace::Event;
use crate::transcript::{Message, js_stringify, rough_tokens};

use super::read_tool::{file_tokens, numbered};

fn system_reminder(text: &str) -> Message {
    Message::user_text(format!("<system-reminder>\n{text}\n</system-reminder>"))
}

/// The post-compact file attachments.
fn restored_files(world: &mut World) -> Vec<Message> {
    let c = world.profile.constants;
    let mut out = Vec::new();
    let mut used = 0;
    let files: Vec<(String, String)> = world
        .ledger
        .read_files
        .iter()
        .rev()
        .filter(|(path, _)| store::basename(path) != "CLAUDE.md")
        .take(c.restore_files)
        .cloned()
        .collect();
    for (path, content) in files {
        // The note names the absolute `file_path` the Read was given (D7 of the probe study:
        // the real note says `Note: /…/big.txt was read before…`).
        let attachment = if file_tokens(&path, &content) > c.restore_file_tokens {
            vec![system_reminder(&format!(
                "Note: {path} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
            ))]
        } else {
            let input = js_stringify(&serde_json::json!({ "file_path": path }));
            vec![
                system_reminder(&format!(
                    "Called the Read tool with the following input: {input}"
                )),
                system_reminder(&format!(
                    "Result of calling the Read tool:\n{}",
                    numbered(&content)
                )),
            ]
        };
        let tokens: usize = attachment.iter().map(Message::rough_tokens).sum();
        if used + tokens <= c.restore_budget {
            used += tokens;
            world.record(
                Event::new("autocompact", "restore")
                    .after(tokens)
                    .reason(format!(
                        "restored {path} ({tokens} tokens, {used} of {} used)",
                        c.restore_budget
                    )),
            );
            out.extend(attachment);
        } else {
            world.record(
                Event::new("autocompact", "restore")
                    .after(tokens)
                    .reason(format!(
                        "not restored {path}: {used} + {tokens} > budget {}",
                        c.restore_budget
                    )),
            );
        }
    }
    out
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
            .reason(format!(
                "{tokens} tokens{how} ≥ autocompact threshold {threshold}"
            )),
    );
    let len = world.history.len();
    let path = archive::session_path(world)
        .unwrap_or_else(|| store::join(&world.transcript_dir, "session.jsonl"));
    super::cut::note_removed(world, 0..len, "autocompact", "compacted away", Some(&path));
    let max_tokens = world.profile.summary_max_tokens();
    let (summary_text, cut) =
        summarizer::bound_summary(summarizer::nine_sections(world, len), max_tokens);
    let cut = if cut {
        format!(", summary cut at the call's max_tokens {max_tokens}")
    } else {
        String::new()
    };
    world.counters.model_calls += 1;
    world.record(
        Event::new("autocompact", "summary")
            .sizes(tokens, rough_tokens(&summary_text))
            .reason(format!(
                "summariser call over {len} messages ({tokens} tokens){cut}"
            )),
    );
    let summary = fill(
        world.profile.strings.summary_message,
        &[("summary", &summary_text), ("path", &path)],
    );
    let mut messages = vec![Message::user_text(summary)];
    messages.extend(restored_files(world));
    world.ledger.read_files.clear();
    archive::log_session(world, &messages)?;
    world.history.replace_all(messages);
    // The message that reported the usage is gone: the next count estimates everything.
    world.script.reported_usage = None;
    world.record(
        Event::new("autocompact", "compact")
            .sizes(tokens, world.history.estimate())
            .reason(format!(
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
    fn autocompact_restores_the_files_read() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.push(Message::user_text("x".repeat(4 * 167_000)));
        let mut input = serde_json::Map::new();
        input.insert("file_path".into(), "/repo/a.rs".into());
        world.push(Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: "r1".into(),
                name: "Read".into(),
                input,
            }],
        ));
        world.push_results(vec![IncomingResult {
            id: "r1".into(),
            tool: "Read".into(),
            content: "fn main() {}".into(),
        }]);
        run(&mut world).unwrap();
        let texts: Vec<&str> = world.history.messages().iter().map(text).collect();
        assert_eq!(texts.len(), 3);
        assert_eq!(
            texts[1],
            "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/repo/a.rs\"}\n</system-reminder>"
        );
        assert_eq!(
            texts[2],
            "<system-reminder>\nResult of calling the Read tool:\n1\tfn main() {}\n</system-reminder>"
        );
        assert!(world.ledger.read_files.is_empty());
    }
}
