//! Compact: archive the history, summarise it, and replace it with one user message.
//!
//! Course s08 `compact_history` at f9e8b28 (negentropy 173-claude-code-memory-management.md §3): the proactive path keeps nothing but
//! `[Compacted]`, the active request, the summary (as a JSON string, marked reference only) and
//! the transcript path; one summariser call.

use crate::compaction::profile::fill;
use crate::compaction::world::World;
use crate::compaction::{archive, summarizer};
use crate::error::RunError;
use crate::python::json;
use crate::trace::{Event, reason};
use crate::transcript::Message;

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let path = archive::write_transcript(world, "compact")?;
    let len = world.history.len();
    super::cut::note_removed(
        world,
        0..len,
        "compact",
        "compacted away",
        Some(path.clone()),
    );
    let summary = summarizer::summarize(world, len, "compact");
    let label = world.profile.strings.compact_label();
    let message = summary_message(world, label, &summary, &path);
    let before = world.history.estimate();
    world.history.replace_all(vec![message]);
    world.record(
        Event::new("compact", "compact")
            .sizes(before, world.history.estimate())
            .reason(reason!("{len} messages replaced by one [{label}] message")),
    );
    Ok(())
}

/// The course's `summary_message(label, request, summary, transcript)`.
pub(super) fn summary_message(world: &World, label: &str, summary: &str, path: &str) -> Message {
    let summary_json = json::dumps(&serde_json::Value::from(summary));
    Message::user_text(fill(
        world.profile.strings.summary_message,
        &[
            ("label", label),
            ("request", &world.script.active_request),
            ("summary", summary),
            ("summary_json", &summary_json),
            ("path", path),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call_id::CallId;
    use crate::compaction::profile::COURSE_MAIN;

    #[test]
    fn compact_leaves_one_message_with_the_request_the_summary_and_the_transcript() {
        // F8: the proactive path keeps nothing else.
        let mut world = World::for_test(COURSE_MAIN);
        world.script.active_request = "fix the bug".to_owned();
        world.push(Message::user_text("fix the bug"));
        world.turn(&[("t1", "bash", "x".repeat(300))]);
        world.push(Message::user_text("and the test"));
        run(&mut world).unwrap();
        let transcript = format!("/lab/.transcripts/transcript_{:032x}.jsonl", 0);
        let expected = format!(
            "[Compacted]\n\nCurrent user request:\nfix the bug\n\nConversation summary (reference only):\n\"summary of 4 messages\"\n\nFull transcript: {transcript}"
        );
        assert_eq!(world.history.messages(), [Message::user_text(expected)]);
        assert_eq!(world.archive.transcripts[0].messages, 4);
        assert_eq!(world.archive.transcripts[0].originals, 1);
        assert!(world.ledger.results[&CallId::new("t1")].archived_verbatim);
    }
}
