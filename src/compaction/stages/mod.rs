//! The compaction stages, one file each, shared by every profile and driven by its data.
//!
//! `prepare` runs the profile's pipeline (SPEC §5): for course main, budget → snip → micro →
//! (if the estimate exceeds `context_limit`) compact; `order = swapped` runs the profile's swapped
//! pipeline instead.

pub mod arrival;
mod autocompact;
mod budget;
mod compact;
mod fit;
mod micro;
mod pair_repair;
mod reactive;
mod snip;
mod time_mc;

use crate::compaction::profile::{Pipe, Stage};
use crate::compaction::switches::{Order, SwitchName};
use crate::compaction::world::World;
use crate::error::RunError;

/// Runs one stage, as a scenario's `stage` step does (no target).
pub fn run(world: &mut World, stage: Stage) -> Result<(), RunError> {
    run_with(world, stage, None)
}

/// Runs one stage; micro and fit stop once the estimate is at most `target`.
fn run_with(world: &mut World, stage: Stage, target: Option<usize>) -> Result<(), RunError> {
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
        Stage::Autocompact => autocompact::run(world),
        Stage::PairRepair => pair_repair::run(world),
    }
}

/// The profile's treatment of a result batch as it arrives (Claude Code's persistence).
pub(crate) fn arrive(world: &mut World) -> Result<(), RunError> {
    arrival::run(world)
}

/// Runs the profile's whole pipeline once.
pub fn prepare(world: &mut World) -> Result<(), RunError> {
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
                    world.event(
                        "prepare",
                        "over",
                        None,
                        Some(estimate),
                        None,
                        format!("estimate {estimate} > context_limit {limit}"),
                    );
                    run_pipes(world, group)?;
                }
            }
        }
    }
    Ok(())
}

/// Snip's and reactive's pair step-back at the tail: if the first kept message is a tool_result
/// message answering the tool_use just before it, keep that tool_use too.
pub(crate) fn step_back_tail(world: &World, tail_start: usize) -> usize {
    let messages = world.history.messages();
    if world.profile.on(SwitchName::PairProtection)
        && tail_start > 0
        && tail_start < messages.len()
        && messages[tail_start].is_tool_result()
        && messages[tail_start - 1].has_tool_use()
    {
        tail_start - 1
    } else {
        tail_start
    }
}

/// Records, for every result in `messages[range]`, that it left the context.
pub(crate) fn note_removed(
    world: &mut World,
    range: std::ops::Range<usize>,
    stage: &'static str,
    how: &str,
    transcript: Option<&str>,
) {
    let mut removed = Vec::new();
    for (mi, bi) in world.history.result_positions() {
        if range.contains(&mi) {
            let (id, content) = world.history.result_at(mi, bi);
            let kept = match world.results.get(id) {
                Some(record) if record.is_original => "verbatim",
                _ => "as replaced",
            };
            let place = match transcript {
                Some(path) => format!("; the transcript {path} holds it {kept}"),
                None => "; no archive holds it".to_owned(),
            };
            removed.push((id.to_owned(), crate::python::json::char_len(content), place));
        }
    }
    for (id, chars, place) in removed {
        world.event(
            stage,
            "cut",
            Some(&id),
            Some(chars),
            None,
            format!("{how}{place}"),
        );
    }
}
