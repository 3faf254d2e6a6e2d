//! The fuzzer that stays (issue 11, item 6): property tests that generate compaction scenarios,
//! well-formed and hostile (ids with `../`, absolute ids, NUL, colliding and very long ids, huge
//! sizes, unknown keys, calls without results), and check for each one, under both stores:
//! - no panic: loading either refuses the file or the run ends with a result or an error;
//! - no escape: under `--store dir`, a checksummed canary directory next to the run's own
//!   directories is byte-for-byte unchanged, and nothing appears beside them;
//! - agreement: the in-memory and the real-directory store give the same observables, or both
//!   refuse the run.
//!
//! CI runs it with a fixed seed and a small budget (`FUZZ_CASES`, default 200); `FUZZ_CASES=5000
//! cargo test --test cli fuzz::` runs a longer campaign. The `cargo fuzz` target for the parser
//! and the replay is in `fuzz/` (see the README).

use std::path::Path;

use lab::compaction::driver;
use lab::compaction::store::StoreKind;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

const PROFILES: &[&str] = &[
    "course-main",
    "course-site",
    "course-latest",
    "prototype",
    "claude-code",
    "anthropic-api",
    "codex",
    "cline",
    "opencode",
    "kilo",
    "opencode-v2",
    "gemini-cli",
    "openhands",
    "codex-remote",
];

/// Ids a hostile or careless log might hold.
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => "toolu_[0-9]{1,6}",
        1 => Just("t0".to_owned()),
        1 => Just("t1".to_owned()),
        1 => Just("a b".to_owned()),
        1 => Just("a_b".to_owned()),
        1 => Just("../../../../../../../../canary/x".to_owned()),
        1 => Just("../up".to_owned()),
        1 => Just("/abs/x".to_owned()),
        1 => Just("a\u{0}b".to_owned()),
        1 => Just("é😀".to_owned()),
        1 => Just("x".repeat(130)),
        1 => Just(format!("{}y", "x".repeat(129))),
        1 => "[a-z./_]{1,12}".prop_map(|id| id),
    ]
}

/// One turn (the assistant's calls, then their results) or one other step, as JSON steps. Most
/// turns are well-formed; results for ids never called and unknown keys make the loader refuse.
fn steps() -> impl Strategy<Value = Vec<Value>> {
    let tool = prop_oneof![Just("bash"), Just("Bash"), Just("Read"), Just("Grep")];
    let size = prop_oneof![30 => 0u64..70_000, 1 => 0u64..u64::MAX];
    prop_oneof![
        24 => prop::collection::vec((id(), tool, size), 1..4).prop_map(|calls| {
            let uses: Vec<Value> = calls
                .iter()
                .map(|(id, tool, _)| json!({"id": id, "name": tool}))
                .collect();
            let results: Vec<Value> = calls
                .iter()
                .map(|(id, _, chars)| json!({"id": id, "chars": chars}))
                .collect();
            vec![
                json!({"assistant": {"calls": uses}}),
                json!({"results": results}),
                json!({"prepare": true}),
            ]
        }),
        2 => (id(), 0u64..70_000).prop_map(|(id, chars)| {
            vec![json!({"results": [{"id": id, "chars": chars}]})]
        }),
        3 => Just(vec![json!({"assistant": {"text": "ok"}})]),
        3 => Just(vec![json!({"prepare": true})]),
        3 => prop_oneof![Just("micro"), Just("compact"), Just("snip"), Just("reactive")]
            .prop_map(|stage| vec![json!({"stage": stage})]),
        3 => (0u64..200).prop_map(|minutes| vec![json!({"idle": minutes})]),
        // An unknown step: the loader must refuse it by name.
        1 => Just(vec![json!({"bogus": 1})]),
    ]
}

fn scenario_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(PROFILES),
        prop::collection::vec(steps(), 1..10),
    )
        .prop_map(|(profile, blocks)| {
            let steps: Vec<Value> = blocks.into_iter().flatten().collect();
            json!({"profile": profile, "request": "fix it", "steps": steps}).to_string()
        })
}

/// Every file under `dir` with its bytes, sorted.
fn checksum(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(next) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(path.clone());
            }
            let bytes = std::fs::read(&path).unwrap_or_default();
            files.push((path.to_string_lossy().into_owned(), bytes));
        }
    }
    files.sort();
    files
}

/// Runs one generated scenario under both stores and checks the three properties.
fn check(text: &str) -> Result<(), TestCaseError> {
    let Ok(scenario) = Scenario::parse("fuzz.json", "fuzz", text) else {
        return Ok(());
    };
    let root = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let canary = root.path().join("canary");
    std::fs::create_dir_all(&canary).unwrap();
    std::fs::write(canary.join("x.txt"), "canary").unwrap();
    std::fs::write(canary.join("keep.md"), "keep").unwrap();
    let before = checksum(root.path());
    let run_dir = root.path().join("run");
    let spill = run_dir.join("s").to_string_lossy().into_owned();
    let transcripts = run_dir.join("t").to_string_lossy().into_owned();
    let options = |store| RunOptions {
        store,
        spill_dir: Some(spill.clone()),
        transcript_dir: Some(transcripts.clone()),
        ..Default::default()
    };
    let memory = driver::run(&scenario, &options(StoreKind::Memory));
    let dir = driver::run(&scenario, &options(StoreKind::Dir));
    let after: Vec<_> = checksum(root.path())
        .into_iter()
        .filter(|(path, _)| !Path::new(path).starts_with(&run_dir))
        .collect();
    prop_assert_eq!(
        &after,
        &before,
        "the run wrote outside its directories:\n{}",
        text
    );
    match (&memory, &dir) {
        (Ok(memory), Ok(dir)) => {
            prop_assert_eq!(&memory.observables, &dir.observables, "{}", text)
        }
        (Err(_), Err(_)) => {}
        _ => prop_assert!(
            false,
            "the stores disagree: memory {:?}, dir {:?}\n{}",
            memory.as_ref().err().map(ToString::to_string),
            dir.as_ref().err().map(ToString::to_string),
            text
        ),
    }
    Ok(())
}

#[test]
fn generated_scenarios_never_escape_panic_or_split_the_stores() {
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // A fixed seed: CI explores the same cases on every machine.
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let outcome = runner.run(&scenario_text(), |text| check(&text));
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

#[test]
fn the_generator_reaches_runs_that_spill_and_runs_the_loader_refuses() {
    // A property test that only ever produced refused files would prove nothing.
    let config = Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let (mut refused, mut spilled) = (0, 0);
    for _ in 0..48 {
        let text = scenario_text().new_tree(&mut runner).unwrap().current();
        match Scenario::parse("fuzz.json", "fuzz", &text) {
            Err(_) => refused += 1,
            Ok(scenario) => {
                if driver::run(&scenario, &RunOptions::default())
                    .is_ok_and(|r| !r.observables.persisted_files.is_empty())
                {
                    spilled += 1;
                }
            }
        }
    }
    assert!(refused >= 5, "refused {refused} of 48");
    assert!(spilled >= 3, "spilled in {spilled} of 48");
}
