//! Anthropic API context editing, strategy `clear_tool_uses_20250919` (beta header
//! `context-management-2025-06-27`; platform.claude.com/docs/en/build-with-claude/context-editing).
//! Before a request whose input exceeds `edit_trigger` tokens, the server replaces the results of
//! the oldest tool uses with a placeholder, keeping the last `keep_tool_uses`; if the edit would
//! clear fewer than `clear_at_least` tokens it is not applied. tool_use and tool_result stay
//! paired; only the content changes. The edit is server-side: the client still holds every
//! original, so nothing is lost for good, but the model gets no pointer to it.

use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, reason};

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let estimate = world.history.estimate();
    // "Once the prompt exceeds this threshold, clearing will begin": strictly over.
    if estimate <= c.edit_trigger {
        return Ok(());
    }
    let keep = c.keep_tool_uses;
    let placeholder = world.profile.strings.omitted;
    // The history keeps the clear set and the targets up to date as it grows: scanning every
    // tool use and every result at each request made a replay quadratic (issue 13).
    let Some((count, cleared)) = world.history.clear_targets(keep, placeholder) else {
        return Ok(());
    };
    if count == 0 || cleared < c.clear_at_least {
        if count > 0 {
            world.record(
                Event::new("clear_tool_uses", "skip")
                    .before(estimate)
                    .reason(reason!(
                        "would clear {cleared} tokens < clear_at_least {}",
                        c.clear_at_least
                    )),
            );
        }
        return Ok(());
    }
    let targets = world.history.clear_target_list();
    for (mi, bi, _) in targets {
        world.replace_result(
            mi,
            bi,
            world.omitted.clone(),
            "clear_tool_uses",
            format!(
                "context editing: input {estimate} > trigger {}, not among the last {keep} tool uses",
                c.edit_trigger
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::ANTHROPIC_API;

    /// Five Bash results of 100 000 chars (25 000 tokens) each: 125 000 tokens of results.
    fn world_with_results(trigger: usize) -> World {
        let mut profile = ANTHROPIC_API;
        profile.constants.edit_trigger = trigger;
        let mut world = World::for_test(profile);
        let calls: Vec<(String, &str, String)> = (0..5)
            .map(|i| (format!("c{i}"), "Bash", "x".repeat(100_000)))
            .collect();
        world.turn(&calls);
        world
    }

    #[test]
    fn over_the_trigger_all_but_the_last_three_results_are_cleared() {
        let mut world = world_with_results(1_000_000);
        run(&mut world).unwrap();
        assert_eq!(world.result("c0").unwrap().len(), 100_000);
        let estimate = world.history.estimate();
        let mut world = world_with_results(estimate - 1);
        run(&mut world).unwrap();
        assert_eq!(world.result("c0"), Some("[cleared]"));
        assert_eq!(world.result("c1"), Some("[cleared]"));
        assert_eq!(world.result("c2").unwrap().len(), 100_000);
        assert_eq!(world.result("c4").unwrap().len(), 100_000);
    }

    #[test]
    fn at_the_trigger_nothing_is_cleared() {
        let probe = world_with_results(0);
        let estimate = probe.history.estimate();
        let mut world = world_with_results(estimate);
        run(&mut world).unwrap();
        assert_eq!(world.result("c0").unwrap().len(), 100_000);
    }

    #[test]
    fn an_edit_below_clear_at_least_is_not_applied() {
        let mut world = world_with_results(0);
        // Two results of 25 000 tokens, less the placeholder's 2: 49 996 cleared.
        world.profile.constants.clear_at_least = 49_997;
        run(&mut world).unwrap();
        assert_eq!(world.result("c0").unwrap().len(), 100_000);
        world.profile.constants.clear_at_least = 49_996;
        run(&mut world).unwrap();
        assert_eq!(world.result("c0"), Some("[cleared]"));
    }
}
