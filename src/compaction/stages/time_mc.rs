//! Time-based microcompact: after an idle gap the prompt cache is cold, so old tool results are
//! cleared before the next request.
//!
//! Claude Code v2.1.88 `microCompact.ts` / `timeBasedMCConfig.ts` (docs/profiles.md, C2): when the
//! gap since the last assistant message is at least 60 minutes, every tool_result of a compactable
//! tool (Read, Bash, PowerShell, Grep, Glob, WebSearch, WebFetch, Edit, Write, by the name of its
//! tool_use) except the last `max(1, 5)` becomes `[Old tool result content cleared]`. Already
//! cleared results are skipped. The originals stay in the session transcript. The shipped build has
//! it off (GrowthBook `tengu_slate_heron`, and REPL-only when on); so has the profile, switch
//! `time_based_mc` (D11 in docs/probe.md: switched on, an interactive resume after 120 minutes
//! cleared results 1–2 of 7 exactly as this stage does, 59 minutes nothing).

use crate::call_id::CallId;
use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::hash::FastSet;
use crate::transcript::{Block, Message, Role};

/// The ids of the calls to a [`COMPACTABLE`] tool in `messages`, oldest first.
pub(super) fn compactable_ids(messages: &[Message]) -> Vec<CallId> {
    messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.block_list())
        .filter_map(|b| match b {
            Block::ToolUse { id, name, .. } if COMPACTABLE.contains(&name.as_str()) => Some(*id),
            _ => None,
        })
        .collect()
}

/// COMPACTABLE_TOOLS.
pub(super) const COMPACTABLE: [&str; 9] = [
    "Read",
    "Bash",
    "PowerShell",
    "Grep",
    "Glob",
    "WebSearch",
    "WebFetch",
    "Edit",
    "Write",
];

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    if !world.profile.on(SwitchName::TimeBasedMc) {
        return Ok(());
    }
    let messages = world.history.messages();
    if !messages.iter().any(|m| m.role == Role::Assistant) {
        return Ok(());
    }
    let gap = world.clock.idle_minutes;
    let threshold = world.profile.constants.idle_gap_minutes as u64;
    if gap < threshold {
        return Ok(());
    }
    let ids = compactable_ids(messages);
    let keep = world.profile.constants.keep_recent.max(1);
    if ids.len() <= keep {
        return Ok(());
    }
    let clear: FastSet<CallId> = ids[..ids.len() - keep].iter().copied().collect();
    let cleared = world.profile.strings.omitted;
    let targets: Vec<(usize, usize)> = world
        .history
        .result_positions()
        .into_iter()
        .filter(|&(mi, bi)| {
            let (id, content) = world.history.result_at(mi, bi);
            clear.contains(id) && content != cleared
        })
        .collect();
    for (mi, bi) in targets {
        world.replace_result(
            mi,
            bi,
            world.omitted.clone(),
            "time_mc",
            format!(
                "time-based microcompact: {gap} idle minutes ≥ {threshold}, not among the last {keep} compactable results"
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CLAUDE_CODE;

    const CLEARED: &str = "[Old tool result content cleared]";

    /// Seven Bash results c0..c6 and one result of a tool that is not compactable, with the
    /// switch on (the profile has it off by default, D11).
    fn world_with_results() -> World {
        let mut profile = CLAUDE_CODE;
        profile.switches.time_based_mc = true;
        let mut world = World::for_test(profile);
        let mut calls: Vec<(String, &str, String)> = (0..7)
            .map(|i| (format!("c{i}"), "Bash", "x".repeat(100)))
            .collect();
        calls.push(("k0".to_owned(), "Task", "y".repeat(100)));
        world.turn(&calls);
        world
    }

    #[test]
    fn after_an_idle_hour_all_but_the_last_five_compactable_results_are_cleared() {
        let mut world = world_with_results();
        world.clock.idle_minutes = 59;
        run(&mut world).unwrap();
        assert_eq!(world.result("c0").unwrap().len(), 100);
        world.clock.idle_minutes = 60;
        run(&mut world).unwrap();
        assert_eq!(world.result("c0"), Some(CLEARED));
        assert_eq!(world.result("c1"), Some(CLEARED));
        assert!((2..7).all(|i| world.result(&format!("c{i}")).unwrap().len() == 100));
        assert_eq!(world.result("k0").unwrap().len(), 100);
        // Cleared results are skipped on the next pass.
        let replaced = world.trace.iter().filter(|e| e.kind == "replace").count();
        run(&mut world).unwrap();
        let again = world.trace.iter().filter(|e| e.kind == "replace").count();
        assert_eq!((replaced, again), (2, 2));
    }

    #[test]
    fn off_by_default_as_shipped() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.turn(&[("c0", "Bash", "x".repeat(100))]);
        world.clock.idle_minutes = 120;
        run(&mut world).unwrap();
        assert_eq!(world.result("c0").unwrap().len(), 100);
    }
}
