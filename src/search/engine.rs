//! The search loop of `lab search`: candidate `i` is the workload of the child seed
//! (seed, "candidate", i), run in a frame that carries the profile, switches, constants and
//! directories of the command line; the first candidate that violates the property is shrunk
//! ([`super::shrink`]) and returned with the frame of its scenario file (`expect` and `about`
//! filled in), so that `lab run` and `lab verify` reproduce it from the file alone.

use serde_json::Value;

use super::properties::Property;
use super::shrink::{ShrinkStats, shrink};
use crate::compaction::driver;
use crate::compaction::observables::Observables;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::workload::{self, Frame, GenParams, Workload};

/// How errors name a candidate scenario (it has no file yet).
const GENERATED: &str = "the generated workload";

/// Observables every found scenario's `expect` records after the property's own.
const EXPECT_ALSO: &[&str] = &[
    "dropped_unsaved",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::properties;

    #[test]
    fn found_names_carry_the_overrides() {
        let options = RunOptions {
            switches: vec![("unseen_guard".to_owned(), "off".to_owned())],
            constants: vec![("keep_results".to_owned(), "0".to_owned())],
            ..RunOptions::default()
        };
        assert_eq!(
            found_name("dropped_unsaved", "course-main", &options),
            "dropped_unsaved-course-main-unseen_guard-off-keep_results-0"
        );
        assert_eq!(
            found_name("dropped_unsaved", "course-main", &RunOptions::default()),
            "dropped_unsaved-course-main"
        );
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
}
