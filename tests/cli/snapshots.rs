//! Insta JSON snapshots of every scenario run. The values they lock were first checked by hand
//! against docs/findings.md and the seed (each scenario's `expect` block holds those checks); a
//! snapshot adds the rest of the run: messages, spill store, transcripts and trace.

use lab::experiments::verify::scenario_files;
use lab::options::RunOptions;
use lab::replay::{Ran, run_any};
use lab::scenario::Scenario;
use serde_json::Value;

use crate::util::{SHORT_SPILL_DIR, f01, manifest_dir, scenario, scenarios_dir};

/// Long strings (result texts of many thousand `x`) are replaced by their length and both ends,
/// which keeps the snapshots readable and still fails on any change of length or shape.
fn redact(value: &mut Value) {
    match value {
        Value::String(text) if text.chars().count() > 240 => {
            let chars: Vec<char> = text.chars().collect();
            let head: String = chars[..80].iter().collect();
            let tail: String = chars[chars.len() - 40..].iter().collect();
            *text = format!("<{} chars: {head}…{tail}>", chars.len());
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::Object(map) => map.values_mut().for_each(redact),
        _ => {}
    }
}

#[test]
fn every_scenario_run_matches_its_snapshot() {
    let root = manifest_dir();
    let files = scenario_files(&scenarios_dir()).unwrap();
    assert!(
        files.len() >= 9,
        "expected the finding scenarios, found {files:?}"
    );
    for file in files {
        let relative = file.strip_prefix(root).unwrap().to_path_buf();
        let scenario = Scenario::load(&file).unwrap();
        // Memory runs lock their store, index, system prompt and trace the same way.
        let (passed, mut value) = match run_any(&scenario, &RunOptions::default()).unwrap() {
            Ran::Compaction(report) => (report.passed(), serde_json::to_value(&report).unwrap()),
            Ran::Memory(report) => (report.passed(), serde_json::to_value(&report).unwrap()),
        };
        assert!(passed, "{}: expectations fail", relative.display());
        redact(&mut value);
        let name = relative
            .with_extension("")
            .to_string_lossy()
            .replace(['/', '\\'], "__");
        insta::with_settings!({
            snapshot_path => "../../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            // Through serde_json's own printer: insta's serializer would spell out the
            // arbitrary-precision numbers of serde_json::Value as private maps.
            insta::assert_snapshot!(
                format!("run__{name}"),
                serde_json::to_string_pretty(&value).unwrap()
            );
        });
    }
}

fn snapshot_json(name: &str, value: &impl serde::Serialize) {
    let mut value = serde_json::to_value(value).unwrap();
    redact(&mut value);
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name.to_owned(), serde_json::to_string_pretty(&value).unwrap());
    });
}

fn with_spill(dir: Option<&str>) -> RunOptions {
    RunOptions {
        spill_dir: dir.map(str::to_owned),
        ..RunOptions::default()
    }
}

/// Every break on the prototype replay, on its deep default path and on a short one. The values
/// were checked against docs/findings.md (F6, F7) and the prototype's recorded output.
#[test]
fn every_break_matches_its_snapshot() {
    use lab::experiments::breaks;
    for (label, dir) in [("deep", None), ("short", Some(SHORT_SPILL_DIR))] {
        for b in breaks::BREAKS {
            let report = breaks::run(None, &[b], &with_spill(dir)).unwrap();
            snapshot_json(&format!("break__{}__{label}", b.name), &report);
        }
    }
    let f1 = Scenario::load(&f01()).unwrap();
    let report = breaks::run(Some(&f1), &[breaks::BREAKS[5]], &RunOptions::default()).unwrap();
    snapshot_json("break__D6__f01-coverage-gap", &report);
}

/// The F6 2×2 for both path lengths.
#[test]
fn the_order_guard_matrix_matches_its_snapshot() {
    use lab::experiments::matrix::{self, Axis};
    let scenario = lab::experiments::prototype_replay();
    let observe = vec!["dropped_unsaved".to_owned(), "pointer_lost".to_owned()];
    for (label, dir) in [("deep", None), ("short", Some(SHORT_SPILL_DIR))] {
        let options = with_spill(dir);
        let rows = Axis::parse("order", &scenario, &options).unwrap();
        let cols = Axis::parse("unseen_guard", &scenario, &options).unwrap();
        let report = matrix::run(&scenario, &rows, &cols, &observe, &options).unwrap();
        snapshot_json(&format!("matrix__order_x_unseen_guard__{label}"), &report);
    }
}

/// The F5 sweeps: the prototype's guard-off cell and scene A's second micro pass.
#[test]
fn the_path_sweeps_match_their_snapshots() {
    use lab::experiments::sweep::{self, Vary};
    let observe = vec!["dropped_unsaved".to_owned(), "pointer_lost".to_owned()];
    let values = sweep::range(60, 120, 1).unwrap();
    let guard_off = RunOptions {
        switches: vec![("unseen_guard".to_owned(), "off".to_owned())],
        ..RunOptions::default()
    };
    let replay = lab::experiments::prototype_replay();
    let report = sweep::run(
        &replay,
        &Vary::Path,
        &values,
        &observe,
        &guard_off,
        &mut |_, _| {},
    )
    .unwrap();
    snapshot_json("sweep__path__prototype_guard_off", &report);
    let f4 = Scenario::load(&scenario("f04-idempotency-deep-path.json")).unwrap();
    let report = sweep::run(
        &f4,
        &Vary::Path,
        &values,
        &observe,
        &RunOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    snapshot_json("sweep__path__f04", &report);
}
