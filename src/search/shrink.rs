//! Shrinking a failing workload to a local minimum, as proptest-state-machine shrinks a failing
//! sequence of transitions: one pass tries, in a fixed order, runs of steps, single steps,
//! single calls, result sizes and idle gaps, then the spill path and the input paths; passes
//! repeat until one changes nothing.
//!
//! A reduction is kept only when `fails` still holds for it, so the result fails like the input
//! and no single step, call or size decrement can be taken away without losing the failure. The
//! order and every candidate are part of the output (`lab search` prints the runs and passes,
//! and the found scenarios are committed): changing either changes those files.

use crate::workload::{Body, GenStep, Workload};

/// How shrinking went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShrinkStats {
    /// Reductions kept.
    pub accepted: usize,
    /// Runs made while shrinking.
    pub runs: usize,
    /// Passes over the whole workload (the last one changed nothing).
    pub passes: usize,
}

/// Shrinks a failing workload until no reduction keeps it failing. `fails` must hold for the
/// input.
pub fn shrink(
    mut workload: Workload,
    fails: &mut dyn FnMut(&Workload) -> bool,
) -> (Workload, ShrinkStats) {
    let mut shrinker = Shrinker {
        fails,
        stats: ShrinkStats::default(),
    };
    loop {
        shrinker.stats.passes += 1;
        let before = workload.clone();
        shrinker.step_runs(&mut workload);
        shrinker.steps(&mut workload);
        shrinker.calls(&mut workload);
        shrinker.sizes(&mut workload);
        shrinker.paths(&mut workload);
        if workload == before {
            return (workload, shrinker.stats);
        }
    }
}

/// The smallest value in `min..=current` reachable by steps that keep `keep(value)` true:
/// jump by the whole distance, halve the jump on each refusal, down to steps of one.
fn shrink_number(current: usize, min: usize, keep: &mut dyn FnMut(usize) -> bool) -> usize {
    let mut current = current;
    let mut delta = current.saturating_sub(min);
    while delta > 0 {
        if keep(current - delta) {
            current -= delta;
            delta = delta.min(current - min);
        } else {
            delta /= 2;
        }
    }
    current
}

/// The failure predicate and the tally of what it was asked.
struct Shrinker<'a> {
    fails: &'a mut dyn FnMut(&Workload) -> bool,
    stats: ShrinkStats,
}

impl Shrinker<'_> {
    /// Runs one candidate; true when it still fails (the caller keeps it).
    fn attempt(&mut self, candidate: &Workload) -> bool {
        self.stats.runs += 1;
        let kept = (self.fails)(candidate);
        if kept {
            self.stats.accepted += 1;
        }
        kept
    }

    /// Runs of steps, halving the run length (as delta debugging does), so that a long workload
    /// loses most of its steps in a few runs.
    fn step_runs(&mut self, workload: &mut Workload) {
        let mut size = workload.steps.len() / 2;
        while size >= 2 {
            let mut end = workload.steps.len();
            while end >= size {
                let mut candidate = workload.clone();
                candidate.steps.drain(end - size..end);
                if self.attempt(&candidate) {
                    *workload = candidate;
                }
                end -= size;
            }
            size /= 2;
        }
    }

    /// Whole single steps (turns, idle gaps, user requests, the answer), last first.
    fn steps(&mut self, workload: &mut Workload) {
        let mut index = workload.steps.len();
        while index > 0 {
            index -= 1;
            let mut candidate = workload.clone();
            candidate.steps.remove(index);
            if self.attempt(&candidate) {
                *workload = candidate;
            }
        }
    }

    /// Single calls (with their results) of turns that keep at least one, last first.
    fn calls(&mut self, workload: &mut Workload) {
        for step in (0..workload.steps.len()).rev() {
            let mut call = match &workload.steps[step] {
                GenStep::Turn(calls) => calls.len(),
                _ => 0,
            };
            while call > 0 {
                call -= 1;
                let mut candidate = workload.clone();
                if let GenStep::Turn(calls) = &mut candidate.steps[step] {
                    if calls.len() < 2 {
                        break;
                    }
                    calls.remove(call);
                }
                if self.attempt(&candidate) {
                    *workload = candidate;
                }
            }
        }
    }

    /// Result sizes and idle gaps, first step first.
    fn sizes(&mut self, workload: &mut Workload) {
        for step in 0..workload.steps.len() {
            match &workload.steps[step] {
                GenStep::Turn(calls) => {
                    for call in 0..calls.len() {
                        self.result_size(workload, step, call);
                    }
                }
                GenStep::Idle(_) => self.idle_gap(workload, step),
                _ => {}
            }
        }
    }

    /// The minutes of the idle gap at `step`, down to 1.
    fn idle_gap(&mut self, workload: &mut Workload, step: usize) {
        let GenStep::Idle(minutes) = workload.steps[step] else {
            unreachable!("called on an idle gap")
        };
        let kept = shrink_number(minutes as usize, 1, &mut |m| {
            let mut candidate = workload.clone();
            candidate.steps[step] = GenStep::Idle(m as u64);
            self.attempt(&candidate)
        });
        workload.steps[step] = GenStep::Idle(kept as u64);
    }

    /// The size of call `call`'s result in the turn at `step`, down to the shortest its body
    /// can have; acknowledgements have no size.
    fn result_size(&mut self, workload: &mut Workload, step: usize, call: usize) {
        let GenStep::Turn(list) = &workload.steps[step] else {
            unreachable!("a turn stays a turn")
        };
        let (chars, min) = match &list[call].body {
            Body::Chars(n) | Body::Injected { chars: n, .. } => (*n, list[call].min_chars()),
            Body::Ack => return,
        };
        let set = |w: &mut Workload, n: usize| {
            if let GenStep::Turn(list) = &mut w.steps[step] {
                match &mut list[call].body {
                    Body::Chars(c) | Body::Injected { chars: c, .. } => *c = n,
                    Body::Ack => {}
                }
            }
        };
        // An injected page shorter than its header renders as the header.
        let chars = chars.max(min);
        let kept = shrink_number(chars, min, &mut |n| {
            let mut candidate = workload.clone();
            set(&mut candidate, n);
            self.attempt(&candidate)
        });
        set(workload, kept);
    }

    /// The spill path, then the input paths of every call.
    fn paths(&mut self, workload: &mut Workload) {
        let pad = shrink_number(workload.spill_pad, 0, &mut |p| {
            let mut candidate = workload.clone();
            candidate.spill_pad = p;
            self.attempt(&candidate)
        });
        workload.spill_pad = pad;
        for step in 0..workload.steps.len() {
            let calls = match &workload.steps[step] {
                GenStep::Turn(calls) => calls.len(),
                _ => continue,
            };
            for call in 0..calls {
                self.input_dirs(workload, step, call);
            }
        }
    }

    /// The directories of call `call`'s input path in the turn at `step`: all of them at once,
    /// else the last one, again and again.
    fn input_dirs(&mut self, workload: &mut Workload, step: usize, call: usize) {
        loop {
            let mut candidate = workload.clone();
            let GenStep::Turn(list) = &mut candidate.steps[step] else {
                unreachable!("a turn stays a turn")
            };
            if list[call].dirs.is_empty() {
                break;
            }
            list[call].dirs.clear();
            if self.attempt(&candidate) {
                *workload = candidate;
                break;
            }
            let mut candidate = workload.clone();
            let GenStep::Turn(list) = &mut candidate.steps[step] else {
                unreachable!("a turn stays a turn")
            };
            list[call].dirs.pop();
            if !self.attempt(&candidate) {
                break;
            }
            *workload = candidate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{self, GenParams};

    #[test]
    fn shrink_number_finds_the_threshold() {
        let mut runs = 0;
        let kept = shrink_number(250_000, 1, &mut |n| {
            runs += 1;
            n > 120
        });
        assert_eq!(kept, 121);
        assert!(runs <= 40, "{runs} runs");
        assert_eq!(shrink_number(5, 5, &mut |_| true), 5);
        assert_eq!(shrink_number(9, 0, &mut |_| true), 0);
    }

    #[test]
    fn shrink_reaches_a_local_minimum() {
        // Fails while some turn has a call whose size exceeds 1000: one call of 1001 remains.
        let workload = workload::generate(&GenParams::default());
        let big = |w: &Workload| {
            w.steps.iter().any(|s| match s {
                GenStep::Turn(calls) => calls
                    .iter()
                    .any(|c| matches!(c.body, Body::Chars(n) if n > 1000)),
                _ => false,
            })
        };
        assert!(big(&workload));
        let (small, stats) = shrink(workload, &mut |w| big(w));
        assert_eq!(small.steps.len(), 1);
        assert_eq!(small.calls(), 1);
        let GenStep::Turn(calls) = &small.steps[0] else {
            panic!("{small:?}")
        };
        assert_eq!(calls[0].body, Body::Chars(1001));
        assert!(calls[0].dirs.is_empty());
        assert_eq!(small.spill_pad, 0);
        assert!(stats.accepted > 0 && stats.passes >= 2);
    }
}
