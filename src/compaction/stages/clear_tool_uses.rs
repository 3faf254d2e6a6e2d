//! Anthropic API context editing, strategy `clear_tool_uses_20250919` (beta header
//! `context-management-2025-06-27`; research/peers_2026.md §2.1). Before a request whose input
//! exceeds `edit_trigger` tokens, the server replaces the results of the oldest tool uses with a
//! placeholder, keeping the last `keep_tool_uses`; if the edit would clear fewer than
//! `clear_at_least` tokens it is not applied. tool_use and tool_result stay paired; only the
//! content changes. The edit is server-side: the client still holds every original, so nothing
//! is lost for good, but the model gets no pointer to it.

use std::collections::HashSet;

use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::Event;
use crate::transcript::{Block, Role};

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let c = world.profile.constants;
    let estimate = world.history.estimate();
    // "Once the prompt exceeds this threshold, clearing will begin": strictly over.
    if estimate <= c.edit_trigger {
        return Ok(());
    }
    let ids: Vec<String> = world
        .history
        .messages()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.block_list())
        .filter_map(|b| match b {
            Block::ToolUse { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    let keep = c.keep_tool_uses;
    if ids.len() <= keep {
        return Ok(());
    }
    // A set, looked up per result: a scan of the list per result made one request quadratic
    // in the tool uses (issue 13).
    let clear: HashSet<&str> = ids[..ids.len() - keep].iter().map(String::as_str).collect();
    let placeholder = world.profile.strings.omitted;
    let estimator = world.profile.estimator;
    let targets: Vec<(usize, usize, usize)> = world
        .history
        .result_positions()
        .into_iter()
        .filter_map(|(mi, bi)| {
            let (id, content) = world.history.result_at(mi, bi);
            if !clear.contains(id) || content == placeholder {
                return None;
            }
            let saved = estimator
                .string(content)
                .saturating_sub(estimator.string(placeholder));
            Some((mi, bi, saved))
        })
        .collect();
    let cleared: usize = targets.iter().map(|t| t.2).sum();
    if targets.is_empty() || cleared < c.clear_at_least {
        if !targets.is_empty() {
            world.record(
                Event::new("clear_tool_uses", "skip")
                    .before(estimate)
                    .reason(format!(
                        "would clear {cleared} tokens < clear_at_least {}",
                        c.clear_at_least
                    )),
            );
        }
        return Ok(());
    }
    for (mi, bi, _) in targets {
        world.replace_result(
            mi,
            bi,
            placeholder.to_owned(),
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
        let calls: Vec<(&str, &str, String)> = calls
            .iter()
            .map(|(id, n, t)| (id.as_str(), *n, t.clone()))
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
