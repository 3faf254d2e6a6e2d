//! The compact tool: the model asks for compaction with a `compact` tool call in its batch.
//!
//! Course s08's `agent_loop` (research/real_code_differential.md; the site: lcc_revisions.md §1):
//! course main and latest append the whole batch, the compact call's result included, then
//! compact (`CompactTool::AfterBatch`). The site compacts immediately inside the tool loop,
//! appends the results so far plus the compact result, and breaks out: the calls after it never
//! run and the compact result answers a tool_use that was summarised away
//! (`CompactTool::Immediate`).

use crate::compaction::profile::{CompactTool, Stage};
use crate::compaction::world::{IncomingResult, World};
use crate::error::RunError;
use crate::trace::Event;

use super::{arrival, pipeline};

/// The model's `compact` call `compact_id` among `calls`, with the results of the other calls,
/// as the profile's agent loop handles it.
pub(crate) fn run(
    world: &mut World,
    compact_id: &str,
    calls: &[String],
    results: &[IncomingResult],
) -> Result<(), RunError> {
    let compact_result = IncomingResult {
        id: compact_id.to_owned(),
        tool: "compact".to_owned(),
        content: world.profile.strings.compact_tool_result.to_owned(),
    };
    let result_of = |id: &String| results.iter().find(|r| &r.id == id).cloned();
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
