//! The fuzzer that stays, for the memory lab (issue 11, item 6): property tests that generate
//! memory scenarios whose names, symlink targets and model replies aim outside the store (`..`,
//! absolute paths, a canary directory's real path, NUL, nested names, the store itself) and
//! check, for each, under both stores:
//! - no panic;
//! - no escape: a checksummed canary directory (whose real path the scenarios name) is
//!   byte-for-byte unchanged after the `--store dir` run;
//! - agreement: the in-memory and the real-directory store give the same observables, files and
//!   index, or both refuse the run.
//!
//! `cargo test` runs 150 cases from a fixed seed; `FUZZ_CASES=2000 cargo test --test cli
//! fuzz_memory::` runs a longer campaign (`FUZZ_SEED=N`, a byte, from another seed).

use std::path::Path;

use lab::compaction::store::StoreKind;
use lab::memory::profile::MEMORY_PROFILES;
use lab::memory::run;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

/// Names a careless model or a hostile log might give a record or a file; `{canary}` becomes
/// the canary directory's real path.
const NAMES: &[&str] = &[
    "notes.md",
    "Tabs please",
    "MEMORY.md",
    "..",
    "../x.md",
    "../../../../../../../..{canary}/keep.md",
    "{canary}/keep.md",
    "/etc/cron.d/job.md",
    "sub/a.md",
    "a\u{0}b.md",
    "",
    ".",
    "./n.md",
    "é😀.md",
];

const TARGETS: &[&str] = &[
    "{canary}/keep.md",
    "{canary}",
    "/lab/work/.memory/notes.md",
    "/lab/work/.memory/loop.md",
    "/home/lab/.ssh/config",
    "/tmp/elsewhere",
];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(str::to_owned)
}

fn record() -> impl Strategy<Value = Value> {
    (
        name(),
        prop::sample::select(&["user", "project", "feedback", "bogus"][..]),
    )
        .prop_map(
            |(name, kind)| json!({"name": name, "type": kind, "description": "d", "body": "b"}),
        )
}

fn step() -> impl Strategy<Value = Value> {
    let link_name =
        prop_oneof![3 => name(), 1 => Just(".".to_owned()), 1 => Just("loop.md".to_owned())];
    prop_oneof![
        3 => prop::collection::vec(record(), 1..4).prop_map(|records| json!({"seed": records})),
        3 => (name(), "[a-z ]{0,12}").prop_map(|(name, text)| json!({"write_file": {"name": name, "text": text}})),
        3 => (link_name, prop::sample::select(TARGETS), "[a-z]{0,8}")
            .prop_map(|(name, target, text)| json!({"symlink": {"name": name, "target": target, "text": text}})),
        3 => "[a-z ]{1,20}".prop_map(|text| json!({"user": text})),
        2 => prop::collection::vec(record(), 0..4)
            .prop_map(|records| json!({"extract_reply": Value::Array(records).to_string()})),
        2 => prop::collection::vec(record(), 0..3)
            .prop_map(|records| json!({"consolidate_reply": Value::Array(records).to_string()})),
        1 => prop::collection::vec(0u64..6, 0..4)
            .prop_map(|picks| json!({"select_reply": Value::from(picks).to_string()})),
        1 => (0u64..3).prop_map(|n| json!({"fault": {"fail_delete_after": n}})),
    ]
}

fn scenario_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["memory-main", "memory-site"][..]),
        prop::collection::vec(step(), 1..12),
    )
        .prop_map(|(profile, steps)| json!({"profile": profile, "steps": steps}).to_string())
}

/// Every file under `dir` with its bytes (links as their targets), sorted.
fn checksum(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(next) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry.file_type().ok();
            if kind.is_some_and(|t| t.is_dir()) {
                todo.push(path.clone());
            }
            let bytes = if kind.is_some_and(|t| t.is_symlink()) {
                std::fs::read_link(&path)
                    .map(|t| t.to_string_lossy().into_owned().into_bytes())
                    .unwrap_or_default()
            } else {
                std::fs::read(&path).unwrap_or_default()
            };
            files.push((path.to_string_lossy().into_owned(), bytes));
        }
    }
    files.sort();
    files
}

fn check(template: &str) -> Result<(), TestCaseError> {
    let root = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let canary = root.path().join("canary");
    std::fs::create_dir_all(&canary).unwrap();
    std::fs::write(canary.join("keep.md"), "keep").unwrap();
    std::fs::write(canary.join("x.md"), "---\nname: x\n---\n").unwrap();
    let before = checksum(root.path());
    // JSON-escape the path as a string's inside.
    let quoted = Value::from(canary.to_string_lossy().into_owned()).to_string();
    let text = template.replace("{canary}", &quoted[1..quoted.len() - 1]);
    let Ok(scenario) = Scenario::parse("fuzz.json", "fuzz", &text) else {
        return Ok(());
    };
    let profile = MEMORY_PROFILES
        .iter()
        .find(|p| Some(p.name) == scenario.profile.as_deref())
        .unwrap_or(&MEMORY_PROFILES[0]);
    let options = |store| RunOptions {
        store,
        ..Default::default()
    };
    let memory = run::run(&scenario, &options(StoreKind::Memory), profile);
    let dir = run::run(&scenario, &options(StoreKind::Dir), profile);
    prop_assert_eq!(
        checksum(root.path()),
        before,
        "the run changed the canary:\n{}",
        text
    );
    match (&memory, &dir) {
        (Ok(memory), Ok(dir)) => {
            prop_assert_eq!(&memory.observables, &dir.observables, "{}", text);
            prop_assert_eq!(&memory.files, &dir.files, "{}", text);
            prop_assert_eq!(&memory.index, &dir.index, "{}", text);
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
fn generated_memory_scenarios_never_escape_panic_or_split_the_stores() {
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(150);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // `FUZZ_SEED=N` (a byte) runs a campaign from another seed; the default is CI's.
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(9u8);
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    if let Err(failure) = runner.run(&scenario_text(), |text| check(&text)) {
        panic!("{failure}");
    }
}

#[test]
fn the_memory_generator_reaches_escapes_and_refusals() {
    // A property test whose runs never escaped would prove nothing about the sandbox.
    let config = Config {
        cases: 60,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let (mut ran, mut escaped, mut refused) = (0, 0, 0);
    for _ in 0..60 {
        let text = scenario_text()
            .new_tree(&mut runner)
            .unwrap()
            .current()
            .replace("{canary}", "/tmp/canary");
        let Ok(scenario) = Scenario::parse("fuzz.json", "fuzz", &text) else {
            refused += 1;
            continue;
        };
        let options = RunOptions::default();
        match run::run(&scenario, &options, &MEMORY_PROFILES[0]) {
            Ok(report) => {
                ran += 1;
                if report.observables.path_escapes > 0 {
                    escaped += 1;
                }
            }
            Err(_) => refused += 1,
        }
    }
    assert!(ran >= 20, "ran {ran} of 60");
    assert!(escaped >= 3, "escaped in {escaped} of 60");
    assert!(refused >= 3, "refused {refused} of 60");
}
