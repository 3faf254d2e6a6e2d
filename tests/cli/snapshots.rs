//! Insta JSON snapshots of every scenario run. The values they lock were first checked by hand
//! against SPEC §7 and the seed (each scenario's `expect` block holds those checks); a snapshot
//! adds the rest of the run: messages, spill store, transcripts and trace.

use std::path::Path;

use lab::run::{RunOptions, run};
use lab::scenario::Scenario;
use lab::verify::scenario_files;
use serde_json::Value;

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = scenario_files(&root.join("scenarios")).unwrap();
    assert!(
        files.len() >= 9,
        "expected the finding scenarios, found {files:?}"
    );
    for file in files {
        let relative = file.strip_prefix(root).unwrap().to_path_buf();
        let scenario = Scenario::load(&file).unwrap();
        let report = run(&scenario, &RunOptions::default()).unwrap();
        assert!(report.passed(), "{}: expectations fail", relative.display());
        let mut value = serde_json::to_value(&report).unwrap();
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
