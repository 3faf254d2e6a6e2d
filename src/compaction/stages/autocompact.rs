//! Autocompact: when the token count reaches the threshold, summarise the whole history into one
//! message and restore the most recent files.
//!
//! Claude Code v2.1.88 `autoCompact.ts` / `compact.ts` (SPEC §5.5, C3-C4): threshold = window −
//! min(max output, 20000) − 13000 tokens (167000 for a 200K window), compared with `>=`; one
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

fn system_reminder(text: &str) -> Message {
    Message::user_text(format!("<system-reminder>\n{text}\n</system-reminder>"))
}

/// `file_path` content with `cat -n` style line numbers (`{n}\t{line}`).
fn numbered(content: &str) -> String {
    content
        .split('\n')
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file's token estimate as Read's `validateContentTokens` makes it (JSON counts double).
fn file_tokens(path: &str, content: &str) -> usize {
    let json = [".json", ".jsonl", ".jsonc"]
        .iter()
        .any(|e| path.ends_with(e));
    if json {
        (crate::transcript::utf16_len(content) * 2 + 2) / 4
    } else {
        rough_tokens(content)
    }
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
        let filename = store::basename(&path).to_owned();
        let attachment = if file_tokens(&path, &content) > c.restore_file_tokens {
            vec![system_reminder(&format!(
                "Note: {filename} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
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

/// Autocompact once the token estimate reaches Claude Code's autocompact threshold
/// ([`Profile::autocompact_threshold`](crate::compaction::profile::Profile::autocompact_threshold)):
/// the whole history becomes the summary message and the restored files.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let tokens = world.history.estimate();
    let threshold = world.profile.autocompact_threshold();
    if tokens < threshold {
        return Ok(());
    }
    world.record(
        Event::new("autocompact", "over")
            .before(tokens)
            .reason(format!(
                "{tokens} tokens ≥ autocompact threshold {threshold}"
            )),
    );
    let len = world.history.len();
    let path = archive::session_path(world)
        .unwrap_or_else(|| store::join(&world.transcript_dir, "session.jsonl"));
    super::cut::note_removed(world, 0..len, "autocompact", "compacted away", Some(&path));
    let summary_text = summarizer::nine_sections(world, len);
    world.counters.model_calls += 1;
    world.record(
        Event::new("autocompact", "summary")
            .sizes(tokens, rough_tokens(&summary_text))
            .reason(format!(
                "summariser call over {len} messages ({tokens} tokens)"
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
    world.record(
        Event::new("autocompact", "compact")
            .sizes(tokens, world.history.estimate())
            .reason(format!(
                "{len} messages replaced by the summary and the restored files"
            )),
    );
    Ok(())
}
