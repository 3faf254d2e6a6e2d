//! Every scenario under every combination of its profile's switches, each run labelled, checked
//! against invariants that hold whatever the switches (ripgrep's `SearcherTester` pattern).

use lab::compaction::driver::run;
use lab::compaction::profile;
use lab::compaction::switches::{self, SwitchName};
use lab::experiments::verify::scenario_files;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use lab::transcript::estimate_chars;

use crate::util::scenarios_dir;

/// Every value combination of the profile's switches, as `--set` pairs.
fn grid(names: &[SwitchName]) -> Vec<Vec<(String, String)>> {
    let axes: Vec<_> = names
        .iter()
        .map(|n| {
            (
                n.as_str().to_owned(),
                n.values().map(str::to_owned).to_vec(),
            )
        })
        .collect();
    switches::product(&axes)
}

#[test]
fn invariants_hold_under_every_switch_combination() {
    let mut runs = 0;
    // Memory profiles have no compaction switches; their scenarios run in `lab verify`.
    for file in scenario_files(&scenarios_dir())
        .unwrap()
        .into_iter()
        .filter(|f| !f.starts_with(scenarios_dir().join("memory")))
    {
        let scenario = Scenario::load(&file).unwrap();
        let profile = profile::by_name(
            scenario
                .profile
                .as_deref()
                .unwrap_or(profile::DEFAULT_PROFILE),
        )
        .unwrap();
        for combo in grid(profile.switch_names) {
            let label = format!(
                "{} [{}]",
                file.file_name().unwrap().to_string_lossy(),
                combo
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            let options = RunOptions {
                switches: combo,
                ..RunOptions::default()
            };
            let report = run(&scenario, &options).unwrap_or_else(|e| panic!("{label}: {e}"));
            let o = &report.observables;
            // The incremental estimate equals a full re-serialisation of the final context.
            assert_eq!(
                o.context_size,
                profile.estimator.full(&report.messages),
                "{label}"
            );
            if profile.estimator == lab::compaction::profile::Estimator::PythonJson {
                assert_eq!(o.context_size, estimate_chars(&report.messages), "{label}");
            }
            assert!(o.peak_context_size >= o.context_size, "{label}");
            assert_eq!(o.messages, report.messages.len(), "{label}");
            // A lost result is a placeholder in context.
            assert!(
                o.dropped_unsaved + o.pointer_lost <= o.placeholders,
                "{label}"
            );
            // The spill listing and the persisted files are the same files.
            assert_eq!(o.persisted_files.len(), report.spill.len(), "{label}");
            assert_eq!(
                o.spill_chars,
                report.spill.iter().map(|f| f.chars).sum::<usize>(),
                "{label}"
            );
            assert_eq!(o.transcripts, report.transcripts.len(), "{label}");
            // The prototype's check is weaker than the API's: api_valid implies pairs_intact
            // whenever the history does not end on an unanswered call.
            if o.api_valid {
                assert!(o.pairs_intact, "{label}");
            }
            // Same inputs, same bytes.
            let again = run(&scenario, &options).unwrap();
            assert_eq!(
                serde_json::to_string(&report).unwrap(),
                serde_json::to_string(&again).unwrap(),
                "{label}"
            );
            runs += 1;
        }
    }
    assert!(runs >= 14 * 8, "only {runs} labelled runs");
}
