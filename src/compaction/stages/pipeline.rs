//! The pipeline runner: one stage as a scenario's `stage` step asks, or the profile's whole
//! `prepare` pipeline (docs/profiles.md; course s08 `prepare` at f9e8b28, negentropy
//! 173-claude-code-memory-management.md §3). The pipeline is the profile's data (`Pipe`); this file
//! only walks it.

use crate::compaction::profile::{Pipe, Stage};
use crate::compaction::switches::Order;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};

use super::{
    autocompact, budget, clear_tool_uses, cline_compact, codex_compact, compact, fit,
    keep_recent_mc, micro, opencode, opencode_v2, pair_repair, reactive, snip, time_mc,
};

/// Runs one stage, as a scenario's `stage` step does (no target).
pub(crate) fn run(world: &mut World, stage: Stage) -> Result<(), RunError> {
    run_with(world, stage, None)
}

/// Runs one stage; micro and fit stop once the estimate is at most `target`. Every pair the
/// stage splits (intact before it, half in context after it) is traced as a `split` event
/// (observable `pairs_broken_by_compaction`, `compaction/pairs.rs`). Only a stage that cuts or
/// rebuilds the list can split a pair, so the history takes the pairs before its first cut (of a
/// single splice, only those with a half at its edges or inside it) and a stage that only appends
/// or replaces result text costs no scan of the history.
fn run_with(world: &mut World, stage: Stage, target: Option<usize>) -> Result<(), RunError> {
    world.history.watch_pairs();
    let result = run_stage(world, stage, target);
    let split = world.history.pairs_split();
    result?;
    for id in split {
        world.record(Event::new(stage.as_str(), "split").id(id).reason(reason!(
            "{stage} split the pair: its tool_use or its tool_result is still in context, the other half is not next to it"
        )));
    }
    Ok(())
}

fn run_stage(world: &mut World, stage: Stage, target: Option<usize>) -> Result<(), RunError> {
    match stage {
        Stage::Budget => budget::run(world),
        Stage::Snip => snip::run(world),
        Stage::Micro => micro::run(world, target),
        // The course calls fit only from prepare, always with the target; a `stage: fit` step
        // uses the same target.
        Stage::Fit => {
            let target = target.unwrap_or_else(|| world.profile.target());
            fit::run(world, target)
        }
        Stage::Compact => compact::run(world),
        Stage::Reactive => reactive::run(world),
        Stage::TimeMc => time_mc::run(world),
        Stage::KeepRecentMc => keep_recent_mc::run(world),
        Stage::Autocompact => autocompact::run(world),
        Stage::PairRepair => pair_repair::run(world),
        Stage::ClearToolUses => clear_tool_uses::run(world),
        Stage::CodexCompact => codex_compact::run(world),
        Stage::ClineCompact => cline_compact::run(world),
        Stage::OpencodePrune => opencode::prune(world, false),
        Stage::KiloPrune => opencode::prune(world, true),
        Stage::OpencodeCompact => opencode::compact(world),
        Stage::OpencodeCheckpoint => opencode_v2::run(world),
        Stage::GeminiCompress => super::gemini_compress::run(world),
        Stage::GeminiMask => super::gemini_mask::run(world),
        Stage::OpenhandsCondense => super::openhands_condense::run(world),
        Stage::CodexRemote => super::codex_remote::run(world),
    }
}

/// Runs the profile's whole pipeline once (`order = swapped` runs its swapped pipeline).
pub(crate) fn prepare(world: &mut World) -> Result<(), RunError> {
    let pipeline = match (world.profile.switches.order, world.profile.swapped_pipeline) {
        (Order::Swapped, Some(swapped)) => swapped,
        _ => world.profile.pipeline,
    };
    run_pipes(world, pipeline)
}

fn run_pipes(world: &mut World, pipes: &[Pipe]) -> Result<(), RunError> {
    for pipe in pipes {
        match pipe {
            Pipe::Run(stage) => run(world, *stage)?,
            Pipe::RunToTarget(stage) => {
                let target = world.profile.target();
                run_with(world, *stage, Some(target))?
            }
            Pipe::IfOverLimit(group) => {
                let estimate = world.history.estimate();
                let limit = world.profile.constants.context_limit;
                if estimate > limit {
                    world.record(
                        Event::new("prepare", "over")
                            .before(estimate)
                            .reason(reason!("estimate {estimate} > context_limit {limit}")),
                    );
                    run_pipes(world, group)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::COURSE_MAIN;
    use crate::transcript::Message;

    #[test]
    fn prepare_compacts_only_over_the_context_limit() {
        let mut world = World::for_test(COURSE_MAIN);
        world.push(Message::user_text("x".repeat(40_000)));
        prepare(&mut world).unwrap();
        assert_eq!(
            world.history.messages()[0],
            Message::user_text("x".repeat(40_000))
        );
        assert!(world.trace.is_empty());
        world.push(Message::user_text("y".repeat(20_000)));
        prepare(&mut world).unwrap();
        assert_eq!(world.history.len(), 1);
        let kinds: Vec<&str> = world.trace.iter().map(|e| e.kind).collect();
        assert_eq!(kinds.first(), Some(&"over"));
        assert_eq!(kinds.last(), Some(&"compact"));
    }
}
