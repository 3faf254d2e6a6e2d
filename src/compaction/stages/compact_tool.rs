//! The compact tool: the model asks for compaction with a `compact` tool call in its batch.
//!
//! Course s08's `agent_loop` (shareAI-lab/learn-claude-code s08_context_compact/code.py @ b6b5f33,
//! the f9e8b28 form; read in the fork Bill-Billion/learn-claude-code; the site:
//! shareAI-lab/learn-claude-code s08_context_compact/code.py @ ac822662 (the site's 67a9126c; read
//! in the fork Bill-Billion/learn-claude-code)): course main and latest append the whole batch, the
//! compact call's result included, then compact (`CompactTool::AfterBatch`). The site compacts
//! immediately inside the tool loop, appends the results so far plus the compact result, and breaks
//! out: the calls after it never run and the compact result answers a tool_use that was summarised
//! away (`CompactTool::Immediate`).

use crate::call_id::CallId;
use crate::compaction::profile::{CompactTool, Stage};
use crate::compaction::world::{IncomingResult, World};
use crate::error::RunError;
use crate::trace::Event;
use smol_str::SmolStr;

use super::{arrival, pipeline};

/// The model's `compact` call `compact_id` among `calls`, with the results of the other calls,
/// as the profile's agent loop handles it.
pub(crate) fn run(
    world: &mut World,
    compact_id: &str,
    calls: &[CallId],
    results: &[IncomingResult],
) -> Result<(), RunError> {
    let compact_result = IncomingResult::measured(
        compact_id,
        SmolStr::new_static("compact"),
        world.profile.strings.compact_tool_result(),
    );
    let result_of = |id: &CallId| results.iter().find(|r| &r.id == id).cloned();
    match world.profile.compact_tool {
        CompactTool::Absent => unreachable!("rejected before running"),
        CompactTool::AfterBatch => {
            let batch = calls
                .iter()
                .map(|id| {
                    if id == compact_id {
                        compact_result.clone()
                    } else {
                        result_of(id).expect("validated: every other call has a result")
                    }
                })
                .collect();
            arrival::deliver(world, batch)?;
            pipeline::run(world, Stage::Compact)?;
        }
        CompactTool::Immediate => {
            let position = calls
                .iter()
                .position(|id| id == compact_id)
                .expect("the compact call is one of the calls");
            let mut batch: Vec<IncomingResult> =
                calls[..position].iter().filter_map(result_of).collect();
            pipeline::run(world, Stage::Compact)?;
            batch.push(compact_result);
            for id in &calls[position + 1..] {
                world.record(
                    Event::new("compact_tool", "drop")
                        .id(id)
                        .reason("never ran: the compact tool breaks out of the batch"),
                );
            }
            arrival::deliver(world, batch)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{COURSE_MAIN, COURSE_SITE};
    use crate::transcript::Message;

    fn incoming(id: &str) -> IncomingResult {
        IncomingResult::measured(id, "bash", format!("{id} output"))
    }

    fn compact_call(world: &mut World) -> Result<(), RunError> {
        world.push(Message::user_text("go"));
        world.push(Message::tool_uses(&[
            ("a", "bash"),
            ("c", "compact"),
            ("b", "bash"),
        ]));
        let calls = ["a", "c", "b"].map(CallId::new);
        run(world, "c", &calls, &[incoming("a"), incoming("b")])
    }

    #[test]
    fn the_site_compacts_mid_batch_and_drops_the_calls_after_it() {
        let mut world = World::for_test(COURSE_SITE);
        compact_call(&mut world).unwrap();
        let messages = world.history.messages();
        assert_eq!(messages.len(), 2);
        let results: Vec<(&str, &str)> = messages[1]
            .tool_results()
            .map(|(id, content)| (id.as_str(), content))
            .collect();
        assert_eq!(
            results,
            [
                ("a", "a output"),
                (
                    "c",
                    "[Compacted. Conversation history has been summarized.]"
                )
            ]
        );
        let dropped: Vec<_> = world.trace.iter().filter(|e| e.kind == "drop").collect();
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].id.as_deref(), Some("b"));
    }

    #[test]
    fn course_main_appends_the_whole_batch_then_compacts() {
        let mut world = World::for_test(COURSE_MAIN);
        compact_call(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        assert_eq!(world.archive.transcripts[0].messages, 3);
        assert_eq!(world.archive.transcripts[0].originals, 3);
    }
}
