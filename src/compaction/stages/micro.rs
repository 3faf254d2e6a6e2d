//! Micro: replace old, seen tool results with one-line placeholders.
//!
//! Course s08 `micro_compact` at f9e8b28 (seed 000 §3-§4, M1-M2): every tool_result block in
//! order; with the unseen guard, drop those after the last assistant message; of the rest, every
//! one but the last `keep_results` (Python `[:-k]`, so k = 0 replaces nothing) whose content is
//! longer than `micro_min` becomes `[Earlier tool result saved at {path}]` when a line of it
//! starts with `Full output: ` (the path is taken as is, unchecked) or
//! `[Earlier tool result omitted.]` otherwise. Nothing marks a placeholder as done, so a `saved
//! at` placeholder longer than `micro_min` is compacted again and loses its pointer (F4).
//!
//! Course latest (SPEC §5.2) runs it only over the limit and stops as soon as the estimate is
//! within the target, recognises its own `saved at` placeholders and validates pointers (so it is
//! idempotent and cannot be forged), and saves a result without pointer before replacing it.

use crate::compaction::persist;
use crate::compaction::profile::{MicroRule, fill};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::python::json::char_len;
use crate::trace::Event;
use crate::transcript::Role;

pub(super) fn run(world: &mut World, target: Option<usize>) -> Result<(), RunError> {
    match world.profile.micro {
        MicroRule::Course => course(world, target),
        MicroRule::Site => {
            site(world);
            Ok(())
        }
    }
}

/// The site revision's micro: count blocks, keep the last `keep_results`, blank the rest.
fn site(world: &mut World) {
    let positions = world.history.result_positions();
    let keep = world.profile.constants.keep_results;
    if positions.len() <= keep {
        return;
    }
    let micro_min = world.profile.constants.micro_min;
    let placeholder = world.profile.strings.omitted;
    for &(mi, bi) in &positions[..positions.len() - keep] {
        let chars = char_len(world.history.result_at(mi, bi).1);
        if chars > micro_min {
            world.replace_result(
                mi,
                bi,
                placeholder.to_owned(),
                "micro",
                format!(
                    "micro (site): {chars} chars > micro_min {micro_min} and not among the last {keep} results (no unseen guard, no save)"
                ),
            );
        }
    }
}

fn course(world: &mut World, target: Option<usize>) -> Result<(), RunError> {
    let positions = world.history.result_positions();
    let messages = world.history.messages();
    let last_assistant = messages.iter().rposition(|m| m.role == Role::Assistant);
    let guard = world.profile.on(SwitchName::UnseenGuard);
    let consumed: Vec<(usize, usize)> = positions
        .into_iter()
        .filter(|(mi, _)| !guard || last_assistant.is_some_and(|last| *mi < last))
        .collect();
    let keep = world.profile.constants.keep_results;
    // Python's consumed[:-k]: empty when k is 0 or at least the length.
    let candidates = if keep == 0 || consumed.len() <= keep {
        &[][..]
    } else {
        &consumed[..consumed.len() - keep]
    };
    let strings = world.profile.strings;
    let micro_min = world.profile.constants.micro_min;
    let save = world.profile.on(SwitchName::SaveBeforeReplace);
    let line = strings.pointer_line.trim_end();
    for &(mi, bi) in candidates {
        if let Some(target) = target {
            let estimate = world.history.estimate();
            if estimate <= target {
                world.record(Event::new("micro", "stop").before(estimate).reason(format!(
                    "estimate {estimate} ≤ target {target}: micro stops"
                )));
                break;
            }
        }
        let (id, content) = world.history.result_at(mi, bi);
        let chars = char_len(content);
        if chars <= micro_min {
            continue;
        }
        let (id, content) = (id.to_owned(), content.to_owned());
        let (path, reason) = match world.recognised_pointer(&content) {
            Some(path) => (
                Some(path),
                format!("micro: pointer taken from its `{line}` line"),
            ),
            None if save => {
                let path = persist::save_output(world, &id, &content)?;
                (
                    Some(path),
                    "micro: no recognised pointer, saved to the spill store before replacing"
                        .to_owned(),
                )
            }
            None => (
                None,
                format!(
                    "micro: no `{line}` line in {chars} chars (> micro_min {micro_min}), not among the last {keep} seen results"
                ),
            ),
        };
        let replacement = match &path {
            Some(path) => fill(strings.saved_at, &[("path", path)]),
            None => strings.omitted.to_owned(),
        };
        world.replace_result(mi, bi, replacement, "micro", reason);
    }
    Ok(())
}
