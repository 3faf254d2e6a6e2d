//! Budget: persist the largest results of the newest batch while the batch is over budget.
//!
//! Course s08 `tool_result_budget` at f9e8b28 (negentropy 173-claude-code-memory-management.md §3): only the last message, if it is a
//! user message with list content; visit its results largest first (stable); stop once the total
//! is within `batch_budget`; skip results of at most `large` characters; persist the rest and
//! recompute the total. Whatever is still under the budget is never spilled: that is the coverage
//! gap of finding F1.

use crate::call_id::CallId;
use crate::compaction::persist;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::{Event, Reason, reason};
use crate::transcript::{Content, Role};

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let Some(last) = world.history.messages().last() else {
        return Ok(());
    };
    if last.role != Role::User || !matches!(last.content, Content::Blocks(_)) {
        return Ok(());
    }
    let message = world.history.len() - 1;
    let mut batch = world.history.result_chars_in(message);
    let budget = world.profile.constants.batch_budget;
    let large = world.profile.constants.large;
    let mut total: usize = batch.iter().map(|(_, len)| len).sum();
    // Python's sorted(..., reverse=True) is stable: equal lengths keep batch order.
    batch.sort_by_key(|&(_, len)| std::cmp::Reverse(len));
    let mut persisted: Vec<CallId> = Vec::new();
    for (bi, len) in batch {
        let id = world.history.result_at(message, bi).0.to_owned();
        if total <= budget {
            let last = persisted.last().cloned();
            let how = if len > large { "never" } else { "not" };
            let reason = Reason::lazy(move |f| {
                write!(
                    f,
                    "{how} spilled: batch total {total} ≤ batch_budget {budget}"
                )?;
                match &last {
                    Some(last) => write!(f, " once {last} was persisted"),
                    None => Ok(()),
                }
            });
            world.record(
                Event::new("budget", "keep")
                    .id(id)
                    .sizes(len, len)
                    .reason(reason),
            );
            continue;
        }
        if len <= large {
            let reason = reason!(
                "not spilled: {len} chars ≤ large {large} (batch total {total} > batch_budget {budget})"
            );
            world.record(
                Event::new("budget", "keep")
                    .id(id)
                    .sizes(len, len)
                    .reason(reason),
            );
            continue;
        }
        let why = reason!("largest left, batch total {total} > batch_budget {budget}");
        persist::persist(world, message, bi, "budget", why)?;
        persisted.push(id);
        total = world
            .history
            .result_chars_in(message)
            .iter()
            .map(|(_, chars)| chars)
            .sum();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::COURSE_MAIN;

    #[test]
    fn budget_persists_the_largest_result_until_the_batch_fits() {
        // F1: [120000, 120000, 500, 500, 500] = 241500 > batch_budget 200000. The first of the
        // two largest (a stable sort) is persisted; the batch is then within the budget, so
        // the second is never spilled.
        let mut world = World::for_test(COURSE_MAIN);
        let sizes = [120_000, 120_000, 500, 500, 500];
        let calls: Vec<(String, &str, String)> = sizes
            .iter()
            .enumerate()
            .map(|(i, n)| (format!("t{i}"), "bash", "x".repeat(*n)))
            .collect();
        world.turn(&calls);
        run(&mut world).unwrap();
        let path = "/lab/tool-results/t0.txt";
        let expected = format!(
            "<persisted-output>\nFull output: {path}\nPreview:\n{}\n</persisted-output>",
            "x".repeat(2_000)
        );
        assert_eq!(world.result("t0"), Some(expected.as_str()));
        assert_eq!(world.store.read_spill(path).map(|t| t.len()), Some(120_000));
        assert_eq!(world.result("t1").unwrap().len(), 120_000);
        assert_eq!(world.store.spill_files("/lab/tool-results").len(), 1);
        assert!(world.ledger.results[&CallId::new("t0")].spilled_verbatim);
    }

    #[test]
    fn budget_only_looks_at_the_newest_message() {
        // A batch within the budget is left alone, whatever an earlier batch held.
        let mut world = World::for_test(COURSE_MAIN);
        world.turn(&[("t0", "bash", "x".repeat(250_000))]);
        world.turn(&[("t1", "bash", "x".repeat(100))]);
        run(&mut world).unwrap();
        assert_eq!(world.result("t0").unwrap().len(), 250_000);
        assert!(world.store.spill_files("/lab/tool-results").is_empty());
    }
}
