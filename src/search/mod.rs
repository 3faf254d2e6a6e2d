//! `lab search`: find a generated workload that violates a property under a profile, then shrink
//! it to a minimal scenario (proptest-state-machine style: drop whole steps, then single calls,
//! then simplify sizes and path lengths, until nothing changes).
//!
//! Candidate `i` is the workload of the child seed (seed, "candidate", i), so a search is
//! reproducible from its command line. A reduction is kept only when the scenario still parses
//! and validates and the property is still violated; the result is a local minimum: no step and
//! no call can be removed, no size made smaller by one, without losing the violation.

pub mod properties;

use serde_json::Value;

use crate::compaction::driver;
use crate::compaction::observables::Observables;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::workload::{self, Body, Frame, GenParams, GenStep, Workload};
use properties::Property;

/// How errors name a candidate scenario (it has no file yet).
const GENERATED: &str = "the generated workload";

/// Observables every found scenario's `expect` records after the property's own.
const EXPECT_ALSO: &[&str] = &[
    "lost_forever",
    "pointer_lost",
    "unrecoverable",
    "orphan_files",
    "forged_pointers",
];

/// What to search for.
#[derive(Debug, Clone)]
pub struct SearchParams {
    pub property: &'static Property,
    /// Workload parameters; `gen.seed` is the master seed of the search.
    pub generator: GenParams,
    /// Candidates to try (at least 1).
    pub budget: usize,
    /// Profile, switch, constant and directory overrides, written into every candidate (the
    /// memory store only: `--store dir` is refused).
    pub options: RunOptions,
}

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

/// A counterexample.
#[derive(Debug, Clone)]
pub struct Found {
    /// The candidate index and its child seed.
    pub candidate: usize,
    pub candidate_seed: u64,
    /// Turns and calls before shrinking.
    pub original_turns: usize,
    pub original_calls: usize,
    pub workload: Workload,
    /// The frame of the scenario file, `expect` and `about` filled in.
    pub frame: Frame,
    pub shrink: ShrinkStats,
    pub observables: Observables,
}

/// The outcome of a search.
#[derive(Debug, Clone)]
pub struct SearchReport {
    pub property: &'static Property,
    pub profile: String,
    pub seed: u64,
    pub budget: usize,
    /// Candidates run.
    pub tried: usize,
    pub found: Option<Found>,
}

/// The profile, switches and constants of `options`, checked, as a frame for generated files.
fn frame_for(params: &SearchParams) -> Result<Frame, LabError> {
    let name = params
        .options
        .profile
        .clone()
        .unwrap_or_else(|| crate::compaction::profile::DEFAULT_PROFILE.to_owned());
    if params.options.store == crate::compaction::store::StoreKind::Dir {
        // The spill path length is part of a workload (F4); a temporary directory would
        // replace it, and the found file would not reproduce.
        return Err(LabError::Usage(
            "lab search invents spill directories of every length; run it on the memory store (drop --store dir)"
                .to_owned(),
        ));
    }
    for (flag, dir) in [
        ("--spill-dir", &params.options.spill_dir),
        ("--transcript-dir", &params.options.transcript_dir),
    ] {
        if let Some(dir) = dir.as_deref().filter(|d| !d.starts_with('/')) {
            return Err(LabError::Usage(format!(
                "{flag} must be an absolute path, got `{dir}`"
            )));
        }
    }
    if crate::memory::profile::by_name(&name).is_some() {
        return Err(LabError::Usage(format!(
            "lab search runs compaction profiles; `{name}` is a memory profile"
        )));
    }
    let mut frame = Frame {
        name: found_name(params.property.name, &name, &params.options),
        source: "lab search".to_owned(),
        ..Frame::default()
    };
    // Checks --profile, --set and --const with the messages `lab run` gives.
    let probe = workload::generate(&GenParams {
        turns: 1,
        ..params.generator.clone()
    })
    .scenario(&frame, GENERATED)?;
    driver::resolve_profile(&probe, &params.options)?;
    frame.profile = Some(name);
    frame.switches = params.options.switches.clone();
    frame.constants = params
        .options
        .constants
        .iter()
        .map(|(k, v)| (k.clone(), v.parse().expect("checked by resolve_profile")))
        .collect();
    frame.spill_dir = params.options.spill_dir.clone();
    frame.transcript_dir = params.options.transcript_dir.clone();
    Ok(frame)
}

/// Runs a workload in its frame; `None` when it does not parse or validate.
fn observe(workload: &Workload, frame: &Frame, options: &RunOptions) -> Option<Observables> {
    let scenario = workload.scenario(frame, GENERATED).ok()?;
    driver::run(&scenario, options).ok().map(|r| r.observables)
}

/// Searches within the budget; `progress(done, budget)` after each candidate. `command` is the
/// command line that repeats the search, quoted in the found scenario's `about`.
pub fn search(
    params: &SearchParams,
    command: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SearchReport, LabError> {
    params.generator.check()?;
    if params.budget == 0 {
        return Err(LabError::Usage("--budget must be at least 1".to_owned()));
    }
    let mut frame = frame_for(params)?;
    // The frame carries profile, switches, constants and directories: every run reads the
    // scenario alone, as `lab run` and `lab verify` will read the found file.
    let options = RunOptions::default();
    let profile = frame.profile.clone().unwrap_or_default();
    let property = params.property;
    for candidate in 0..params.budget {
        let candidate_seed =
            workload::seed::child_seed(params.generator.seed, "candidate", candidate as u64);
        let workload = workload::generate(&GenParams {
            seed: candidate_seed,
            ..params.generator.clone()
        });
        // A generated workload always validates: an error here is the options' fault.
        let scenario = workload.scenario(&frame, GENERATED)?;
        let report = driver::run(&scenario, &options)?;
        progress(candidate + 1, params.budget);
        if !property.violated(&report.observables) {
            continue;
        }
        let (original_turns, original_calls) = (workload.turns(), workload.calls());
        let mut fails =
            |w: &Workload| observe(w, &frame, &options).is_some_and(|o| property.violated(&o));
        let (workload, shrink) = shrink(workload, &mut fails);
        let observables =
            observe(&workload, &frame, &options).expect("the shrunk workload still runs");
        frame.expect = std::iter::once(property.observable)
            .chain(EXPECT_ALSO.iter().copied())
            .enumerate()
            .filter(|(i, name)| *i == 0 || *name != property.observable)
            .map(|(_, name)| {
                let value = serde_json::to_value(&observables)
                    .expect("observables serialise")
                    .get(name)
                    .cloned()
                    .unwrap_or(Value::Null);
                (name.to_owned(), value)
            })
            .collect();
        frame.about = format!(
            "Found by `{}`: candidate {candidate} (child seed {candidate_seed:#018x}) violates {} under {profile} (measured {}). Shrunk from {original_turns} turns / {original_calls} calls to {} turns / {} calls by {} kept reductions ({} runs, {} passes): removing any step or call makes the property hold.",
            command,
            property.violated_when,
            property.value(&observables),
            workload.turns(),
            workload.calls(),
            shrink.accepted,
            shrink.runs,
            shrink.passes,
        );
        return Ok(SearchReport {
            property,
            profile,
            seed: params.generator.seed,
            budget: params.budget,
            tried: candidate + 1,
            found: Some(Found {
                candidate,
                candidate_seed,
                original_turns,
                original_calls,
                workload,
                frame,
                shrink,
                observables,
            }),
        });
    }
    Ok(SearchReport {
        property,
        profile,
        seed: params.generator.seed,
        budget: params.budget,
        tried: params.budget,
        found: None,
    })
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

/// Shrinks a failing workload until no reduction keeps it failing. `fails` must hold for the
/// input.
pub fn shrink(
    mut workload: Workload,
    fails: &mut dyn FnMut(&Workload) -> bool,
) -> (Workload, ShrinkStats) {
    let mut stats = ShrinkStats::default();
    let mut attempt = |candidate: &Workload, stats: &mut ShrinkStats| {
        stats.runs += 1;
        let kept = fails(candidate);
        if kept {
            stats.accepted += 1;
        }
        kept
    };
    loop {
        stats.passes += 1;
        let before = workload.clone();
        // 1. Runs of steps, halving the run length (as delta debugging does), so that a long
        // workload loses most of its steps in a few runs; then whole single steps (turns, idle
        // gaps, user requests, the answer), last first.
        let mut size = workload.steps.len() / 2;
        while size >= 2 {
            let mut end = workload.steps.len();
            while end >= size {
                let mut candidate = workload.clone();
                candidate.steps.drain(end - size..end);
                if attempt(&candidate, &mut stats) {
                    workload = candidate;
                }
                end -= size;
            }
            size /= 2;
        }
        let mut index = workload.steps.len();
        while index > 0 {
            index -= 1;
            let mut candidate = workload.clone();
            candidate.steps.remove(index);
            if attempt(&candidate, &mut stats) {
                workload = candidate;
            }
        }
        // 2. Single calls (with their results) of turns that keep at least one.
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
                if attempt(&candidate, &mut stats) {
                    workload = candidate;
                }
            }
        }
        // 3. Result sizes and idle gaps.
        for step in 0..workload.steps.len() {
            let calls = match &workload.steps[step] {
                GenStep::Turn(calls) => calls.len(),
                GenStep::Idle(minutes) => {
                    let minutes = *minutes as usize;
                    let kept = shrink_number(minutes, 1, &mut |m| {
                        let mut candidate = workload.clone();
                        candidate.steps[step] = GenStep::Idle(m as u64);
                        attempt(&candidate, &mut stats)
                    });
                    workload.steps[step] = GenStep::Idle(kept as u64);
                    continue;
                }
                _ => continue,
            };
            for call in 0..calls {
                let GenStep::Turn(list) = &workload.steps[step] else {
                    unreachable!("a turn stays a turn")
                };
                let (chars, min) = match &list[call].body {
                    Body::Chars(n) | Body::Injected { chars: n, .. } => {
                        (*n, list[call].min_chars())
                    }
                    Body::Ack => continue,
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
                    attempt(&candidate, &mut stats)
                });
                set(&mut workload, kept);
            }
        }
        // 4. The spill path and the input paths.
        let pad = shrink_number(workload.spill_pad, 0, &mut |p| {
            let mut candidate = workload.clone();
            candidate.spill_pad = p;
            attempt(&candidate, &mut stats)
        });
        workload.spill_pad = pad;
        for step in 0..workload.steps.len() {
            let calls = match &workload.steps[step] {
                GenStep::Turn(calls) => calls.len(),
                _ => continue,
            };
            for call in 0..calls {
                loop {
                    let mut candidate = workload.clone();
                    let GenStep::Turn(list) = &mut candidate.steps[step] else {
                        unreachable!("a turn stays a turn")
                    };
                    if list[call].dirs.is_empty() {
                        break;
                    }
                    list[call].dirs.clear();
                    if attempt(&candidate, &mut stats) {
                        workload = candidate;
                        break;
                    }
                    let mut candidate = workload.clone();
                    let GenStep::Turn(list) = &mut candidate.steps[step] else {
                        unreachable!("a turn stays a turn")
                    };
                    list[call].dirs.pop();
                    if !attempt(&candidate, &mut stats) {
                        break;
                    }
                    workload = candidate;
                }
            }
        }
        if workload == before {
            return (workload, stats);
        }
    }
}

/// `<property>-<profile>`, with `-<switch>-<value>` and `-<constant>-<value>` for every `--set`
/// and `--const`, so that a search under changed switches never overwrites the scenario of the
/// profile as it ships.
pub fn found_name(property: &str, profile: &str, options: &RunOptions) -> String {
    let mut name = format!("{property}-{profile}");
    for (k, v) in options.switches.iter().chain(&options.constants) {
        let clean: String = v
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        name.push_str(&format!("-{k}-{clean}"));
    }
    name
}

/// Candidates `lab search` tries by default.
pub const DEFAULT_BUDGET: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_names_carry_the_overrides() {
        let options = RunOptions {
            switches: vec![("unseen_guard".to_owned(), "off".to_owned())],
            constants: vec![("keep_results".to_owned(), "0".to_owned())],
            ..RunOptions::default()
        };
        assert_eq!(
            found_name("lost_forever", "course-main", &options),
            "lost_forever-course-main-unseen_guard-off-keep_results-0"
        );
        assert_eq!(
            found_name("lost_forever", "course-main", &RunOptions::default()),
            "lost_forever-course-main"
        );
    }

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
    fn search_is_reproducible_and_reports_the_candidate() {
        let params = SearchParams {
            property: properties::by_name("forged_pointers").unwrap(),
            generator: GenParams::default(),
            budget: 20,
            options: RunOptions::default(),
        };
        let mut calls = 0;
        let report = search(&params, "lab search", &mut |_, _| calls += 1).unwrap();
        let found = report.found.as_ref().unwrap();
        assert_eq!(report.tried, 7);
        assert_eq!(calls, 7);
        assert_eq!(found.candidate, 6);
        assert_eq!(
            found.candidate_seed,
            workload::seed::child_seed(1, "candidate", 6)
        );
        assert_eq!(found.observables.forged_pointers, 1);
        assert_eq!(
            found.frame.expect[0],
            ("forged_pointers".to_owned(), 1.into())
        );
        let again = search(&params, "lab search", &mut |_, _| {}).unwrap();
        let again = again.found.unwrap();
        assert_eq!(again.workload, found.workload);
        assert_eq!(again.shrink, found.shrink);
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
