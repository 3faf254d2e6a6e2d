//! Fit: when micro was not enough, replace the largest results by a short persisted preview.
//!
//! Course latest `fit_tool_results` (docs/profiles.md): every tool result, seen or not, largest
//! first (stable); stop as soon as the estimate is within the target; each gets the
//! persisted-output block with a 1000-char preview when that is shorter than its content. Building
//! the block writes the spill file even when the block is not used.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::compaction::persist;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::python::json::char_len;
use crate::trace::{Event, reason};

/// Preview length of fit's persisted-output blocks.
const FIT_PREVIEW: usize = 1000;

pub(super) fn run(world: &mut World, target: usize) -> Result<(), RunError> {
    let positions = world.history.result_positions();
    // Python's sorted(..., reverse=True) is stable: equal lengths keep their order. A heap gives
    // that order one result at a time, largest and then earliest first, and fit stops after a
    // few (issue 13: sorting every result at every call was 1.6% of course-latest).
    let mut order: BinaryHeap<(usize, Reverse<usize>, usize, usize)> = positions
        .into_iter()
        .enumerate()
        .map(|(at, (mi, bi))| (world.history.result_chars(mi, bi), Reverse(at), mi, bi))
        .collect();
    while let Some((len, _, mi, bi)) = order.pop() {
        let estimate = world.history.estimate();
        if estimate <= target {
            world.record(
                Event::new("fit", "stop")
                    .before(estimate)
                    .reason(reason!("estimate {estimate} ≤ target {target}: fit stops")),
            );
            break;
        }
        let (replacement, note) = persist::persisted_preview(world, mi, bi, FIT_PREVIEW)?;
        if char_len(&replacement) < len {
            world.replace_result(
                mi,
                bi,
                replacement,
                "fit",
                reason!("fit: {note}, {FIT_PREVIEW}-char preview shorter than {len} chars"),
            );
        } else {
            let id = world.history.result_at(mi, bi).0.to_owned();
            world.record(
                Event::new("fit", "keep")
                    .id(id)
                    .sizes(len, len)
                    .reason(reason!(
                        "fit: the preview block would not be shorter ({note})"
                    )),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::COURSE_LATEST;

    #[test]
    fn fit_replaces_the_largest_result_first_and_stops_at_the_target() {
        let mut world = World::for_test(COURSE_LATEST);
        world.turn(&[
            ("t0", "bash", "b".repeat(3_000)),
            ("t1", "bash", "a".repeat(5_000)),
        ]);
        // Replacing t1 (5000 → a 1086-char block) brings the estimate under this target.
        let target = world.history.estimate() - 1_000;
        run(&mut world, target).unwrap();
        let path = "/lab/tool-results/t1.txt";
        let block = format!(
            "<persisted-output>\nFull output: {path}\nPreview:\n{}\n</persisted-output>",
            "a".repeat(FIT_PREVIEW)
        );
        assert_eq!(block.len(), 1_086);
        assert_eq!(world.result("t1"), Some(block.as_str()));
        assert_eq!(world.result("t0").unwrap().len(), 3_000);
        let files = world.store.spill_files("/lab/tool-results");
        assert_eq!(files.len(), 1);
        assert_eq!((&*files[0].path, files[0].chars), (path, 5_000));
    }

    /// Python's stable `sorted(..., reverse=True)`: the largest result first, equal lengths in
    /// the order they stand in the history, whatever the order of their ids.
    #[test]
    fn fit_takes_equal_lengths_in_history_order() {
        let mut world = World::for_test(COURSE_LATEST);
        world.turn(&[
            ("t3", "bash", "c".repeat(2_000)),
            ("t1", "bash", "b".repeat(2_000)),
            ("t9", "bash", "d".repeat(1_500)),
        ]);
        world.turn(&[
            ("t2", "bash", "a".repeat(2_000)),
            ("t0", "bash", "e".repeat(4_000)),
        ]);
        run(&mut world, 0).unwrap();
        let fitted: Vec<&str> = world
            .trace
            .iter()
            .filter(|e| e.stage == "fit" && e.kind == "replace")
            .filter_map(|e| e.id.as_deref())
            .collect();
        assert_eq!(fitted, ["t0", "t3", "t1", "t2", "t9"]);
    }

    #[test]
    fn fit_writes_the_file_even_when_the_block_would_not_be_shorter() {
        // 1050 chars < the 1086-char block: kept in context, but already saved.
        let mut world = World::for_test(COURSE_LATEST);
        world.turn(&[("t0", "bash", "a".repeat(1_050))]);
        run(&mut world, 0).unwrap();
        assert_eq!(world.result("t0").unwrap().len(), 1_050);
        assert!(world.store.is_file("/lab/tool-results/t0.txt"));
    }
}
