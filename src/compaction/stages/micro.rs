//! Micro: replace old, seen tool results with one-line placeholders.
//!
//! Course s08 `micro_compact` at f9e8b28 (negentropy 173-claude-code-memory-management.md §3-§4,
//! M1-M2): every tool_result block in order; with the unseen guard, drop those after the last
//! assistant message; of the rest, every one but the last `keep_results` (Python `[:-k]`, so k = 0
//! replaces nothing) whose content is longer than `micro_min` becomes `[Earlier tool result saved
//! at {path}]` when a line of it starts with `Full output: ` (the path is taken as is, unchecked)
//! or `[Earlier tool result omitted.]` otherwise. Nothing marks a placeholder as done, so a `saved
//! at` placeholder longer than `micro_min` is compacted again and loses its pointer (F4).
//!
//! Course latest (docs/profiles.md) runs it only over the limit and stops as soon as the estimate
//! is within the target, recognises its own `saved at` placeholders and validates pointers (so it
//! is idempotent and cannot be forged), and saves a result without pointer before replacing it.
//!
//! The unseen guard is [`unseen_guard`] below; how a pointer is recognised (the idempotency
//! defect and its fix) is `compaction/pointer.rs`.

use crate::compaction::persist;
use crate::compaction::profile::{MicroRule, fill};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};
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
    // Python's tool_results[:-KEEP_RECENT]: empty when k is 0 (`[:-0]`) or at least the length.
    if keep == 0 || positions.len() <= keep {
        return;
    }
    let micro_min = world.profile.constants.micro_min;
    for &(mi, bi) in &positions[..positions.len() - keep] {
        let chars = world.history.result_chars(mi, bi);
        if chars > micro_min {
            world.replace_result(
                mi,
                bi,
                world.omitted.clone(),
                "micro",
                reason!(
                    "micro (site): {chars} chars > micro_min {micro_min} and not among the last {keep} results (no unseen guard, no save)"
                ),
            );
        }
    }
}

/// The unseen guard (switch `unseen_guard`, finding F3): of the result positions, only those
/// before the last assistant message, which the model has seen, may be compacted; results that
/// arrived after it stay whole. With the guard off every position is a candidate.
fn unseen_guard(world: &World, mut positions: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    if !world.profile.on(SwitchName::UnseenGuard) {
        return positions;
    }
    let last_assistant = world
        .history
        .messages()
        .iter()
        .rposition(|m| m.role == Role::Assistant);
    // The positions are in list order: the seen ones are a prefix.
    let seen = last_assistant.map_or(0, |last| positions.partition_point(|&(mi, _)| mi < last));
    positions.truncate(seen);
    positions
}

/// Course micro (f9e8b28 and latest): the candidates the unseen guard leaves, but the last
/// `keep_results`, become `saved at` or `omitted` placeholders.
fn course(world: &mut World, target: Option<usize>) -> Result<(), RunError> {
    let positions = world.history.result_positions();
    let consumed = unseen_guard(world, positions);
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
                world.record(Event::new("micro", "stop").before(estimate).reason(reason!(
                    "estimate {estimate} ≤ target {target}: micro stops"
                )));
                break;
            }
        }
        let chars = world.history.result_chars(mi, bi);
        if chars <= micro_min {
            continue;
        }
        let (id, content) = world.history.owned_result_at(mi, bi);
        let (path, reason) = match world.recognised_pointer(&content) {
            Some(path) => (
                Some(path),
                reason!("micro: pointer taken from its `{line}` line"),
            ),
            None if save => {
                let path = persist::save_output(world, &id, &content)?;
                (
                    Some(path),
                    "micro: no recognised pointer, saved to the spill store before replacing"
                        .into(),
                )
            }
            None => (
                None,
                reason!(
                    "micro: no `{line}` line in {chars} chars (> micro_min {micro_min}), not among the last {keep} seen results"
                ),
            ),
        };
        let replacement = match &path {
            Some(path) => fill(strings.saved_at, &[("path", path)]).into(),
            None => world.omitted.clone(),
        };
        world.replace_result(mi, bi, replacement, "micro", reason);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{COURSE_MAIN, COURSE_SITE};
    use crate::transcript::{Block, Message};

    const OMITTED: &str = "[Earlier tool result omitted.]";

    /// One assistant turn calling six tools, each answered with 500 `x`.
    fn six_results(world: &mut World) {
        let calls: Vec<(String, &str, String)> = (0..6)
            .map(|i| (format!("t{i}"), "bash", "x".repeat(500)))
            .collect();
        world.turn(&calls);
    }

    fn assistant_text(world: &mut World) {
        world.push(Message::blocks(
            Role::Assistant,
            vec![Block::Text { text: "ok".into() }],
        ));
    }

    #[test]
    fn the_unseen_guard_keeps_results_the_model_has_not_seen() {
        // F3: the six results follow the last assistant message, so none is a candidate.
        let mut world = World::for_test(COURSE_MAIN);
        six_results(&mut world);
        run(&mut world, None).unwrap();
        for i in 0..6 {
            assert_eq!(world.result(&format!("t{i}")).unwrap().len(), 500, "t{i}");
        }
        // Once an assistant message follows, all but the last keep_results = 3 go.
        assistant_text(&mut world);
        run(&mut world, None).unwrap();
        for i in 0..3 {
            assert_eq!(world.result(&format!("t{i}")), Some(OMITTED), "t{i}");
        }
        for i in 3..6 {
            assert_eq!(world.result(&format!("t{i}")).unwrap().len(), 500, "t{i}");
        }
        let unseen = world.ledger.results.values().filter(|r| r.unseen_compacted);
        assert_eq!(unseen.count(), 0);
    }

    #[test]
    fn without_the_guard_unseen_results_are_compacted() {
        // The site has no guard: the oldest three of the new batch go before anyone read them.
        let mut world = World::for_test(COURSE_SITE);
        six_results(&mut world);
        run(&mut world, None).unwrap();
        let site_omitted = COURSE_SITE.strings.omitted;
        assert_eq!(world.result("t0"), Some(site_omitted));
        assert_eq!(world.result("t3").unwrap().len(), 500);
        // The placeholders are the run's one text, not a copy each.
        let (t0, t2) = (world.result("t0").unwrap(), world.result("t2").unwrap());
        assert!(std::ptr::eq(t0, t2) && std::ptr::eq(t0, world.omitted.as_str()));
        let unseen = world.ledger.results.values().filter(|r| r.unseen_compacted);
        assert_eq!(unseen.count(), 3);
    }

    #[test]
    fn the_idempotency_defect_loses_a_long_pointer_on_the_second_pass() {
        // F4: a pointer line naming a 100-char path becomes a 131-char `saved at` placeholder
        // (> micro_min 120) that names no `Full output:` line, so the next pass omits it.
        let path = format!("/lab/{}", "p".repeat(95));
        let mut world = World::for_test(COURSE_MAIN);
        let mut calls = vec![("t0", "bash", format!("log\nFull output: {path}\n"))];
        calls[0].2.push_str(&"x".repeat(200));
        for id in ["t1", "t2", "t3"] {
            calls.push((id, "bash", "y".repeat(200)));
        }
        world.turn(&calls);
        assistant_text(&mut world);
        run(&mut world, None).unwrap();
        let saved_at = format!("[Earlier tool result saved at {path}]");
        assert_eq!(saved_at.len(), 131);
        assert_eq!(world.result("t0"), Some(saved_at.as_str()));
        run(&mut world, None).unwrap();
        assert_eq!(world.result("t0"), Some(OMITTED));
    }

    #[test]
    fn keep_results_zero_replaces_nothing() {
        // F12: Python's consumed[:-0] is empty.
        let mut profile = COURSE_MAIN;
        profile.constants.keep_results = 0;
        let mut world = World::for_test(profile);
        six_results(&mut world);
        assistant_text(&mut world);
        run(&mut world, None).unwrap();
        assert!((0..6).all(|i| world.result(&format!("t{i}")).unwrap().len() == 500));
    }
}
