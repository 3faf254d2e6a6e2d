//! Micro: replace old, seen tool results with one-line placeholders.
//!
//! Course s08 `micro_compact` at f9e8b28 (seed 000 §3-§4, M1-M2): every tool_result block in
//! order; with the unseen guard, drop those after the last assistant message; of the rest, every
//! one but the last `keep_results` (Python `[:-k]`, so k = 0 replaces nothing) whose content is
//! longer than `micro_min` becomes `[Earlier tool result saved at {path}]` when a line of it
//! starts with `Full output: ` (the path is taken as is, unchecked) or
//! `[Earlier tool result omitted.]` otherwise. Nothing marks a placeholder as done, so a `saved
//! at` placeholder longer than `micro_min` is compacted again and loses its pointer (F4).

use crate::error::RunError;
use crate::profile::fill;
use crate::pyjson::{char_len, splitlines};
use crate::transcript::Role;
use crate::world::World;

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let positions = world.history.result_positions();
    let messages = world.history.messages();
    let last_assistant = messages.iter().rposition(|m| m.role == Role::Assistant);
    let guard = world.profile.switches.unseen_guard;
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
    for &(mi, bi) in candidates {
        let content = world.history.result_at(mi, bi).1;
        if char_len(content) <= micro_min {
            continue;
        }
        let saved = splitlines(content)
            .into_iter()
            .find_map(|line| line.strip_prefix(strings.pointer_line));
        let (replacement, reason) = match saved {
            Some(path) if !path.is_empty() => (
                fill(strings.saved_at, &[("path", path)]),
                format!(
                    "micro: pointer taken from its `{}` line",
                    strings.pointer_line.trim_end()
                ),
            ),
            _ => (
                strings.omitted.to_owned(),
                format!(
                    "micro: no `{}` line in {} chars (> micro_min {micro_min}), not among the last {keep} seen results",
                    strings.pointer_line.trim_end(),
                    char_len(content)
                ),
            ),
        };
        world.replace_result(mi, bi, replacement, "micro", reason);
    }
    Ok(())
}
