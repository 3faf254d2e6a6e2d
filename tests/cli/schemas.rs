//! Every `--format json` output is one JSON object whose first key, `schema`, names the document
//! and its version (`lab.<document>/<version>`), and docs/json.md has a section of that name
//! that names each of the document's fields.

use serde_json::Value;

use crate::util::{arg, lab_in, manifest_dir};

/// Runs `lab ARGS --format json` in the crate's root and checks the document's first key.
fn assert_schema(args: &[&str], schema: &str) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = lab_in(manifest_dir(), &all);
    assert!(
        out.code <= 1,
        "lab {all:?} exit {}: {}",
        out.code,
        out.stderr
    );
    let doc: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("lab {all:?}: not JSON ({e}): {}", out.stdout));
    let object = doc
        .as_object()
        .unwrap_or_else(|| panic!("lab {all:?}: not an object"));
    let (first, value) = object.iter().next().expect("a key");
    assert_eq!(first, "schema", "lab {all:?}: first key");
    assert_eq!(value, schema, "lab {all:?}");
    assert!(schema.ends_with("/1"), "{schema}");
    let section = docs_section(schema);
    for key in object.keys() {
        assert!(
            section.contains(&format!("`{key}`")) || section.contains(&format!("\"{key}\"")),
            "docs/json.md, section {schema}, does not name the field `{key}` of lab {all:?}"
        );
    }
    doc
}

/// The section of docs/json.md headed by the schema's name, up to the next `## ` heading.
fn docs_section(schema: &str) -> String {
    let docs = std::fs::read_to_string(manifest_dir().join("docs/json.md")).unwrap();
    let heading = format!("\n## `{schema}`\n");
    let start = docs
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/json.md has no section {heading:?}"));
    let rest = &docs[start + heading.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_owned()
}

#[test]
fn every_json_output_names_its_schema_first() {
    let dir = tempfile::tempdir().unwrap();
    let f01 = "scenarios/f01-coverage-gap.json";
    let memory = "scenarios/memory/m01-index-derived.json";
    let claude = "tests/fixtures/import/claude-code/-home-u-proj/sess-a.jsonl";
    let record = "conformance/claude-code-2.1.88/p01-probe-bash-grep-thresholds.json";
    let found = dir.path().join("found");
    let imported = dir.path().join("imported");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", f01], "lab.run/1"),
        (vec!["run", memory], "lab.memory-run/1"),
        (vec!["run", f01, "--break", "D3"], "lab.breaks/1"),
        (vec!["run", memory, "--break", "MB1"], "lab.memory-breaks/1"),
        (vec!["explain", f01, "toolu_1"], "lab.explain/1"),
        (vec!["verify", f01, "--no-findings"], "lab.verify/1"),
        (vec!["--selftest"], "lab.selftest/1"),
        (vec!["--break", "D3"], "lab.breaks/1"),
        (
            vec!["matrix", f01, "--rows", "order", "--cols", "unseen_guard"],
            "lab.matrix/1",
        ),
        (
            vec!["sweep", "--vary", "path", "--from", "88", "--to", "90"],
            "lab.sweep/1",
        ),
        (vec!["compare", f01], "lab.compare/1"),
        (vec!["memory", "--break", "MB1"], "lab.memory-breaks/1"),
        (vec!["memory", "--growth"], "lab.memory-growth/1"),
        (
            vec!["montecarlo", "--sessions", "2", "--turns", "2"],
            "lab.montecarlo/1",
        ),
        (vec!["profiles"], "lab.profiles/1"),
        (vec!["profiles", "course-site"], "lab.profiles/1"),
        (vec!["profiles", "memory-main"], "lab.profiles/1"),
        (vec!["search", "--list"], "lab.properties/1"),
        (
            vec![
                "search",
                "--property",
                "dropped_unsaved",
                "--seed",
                "1",
                "--out-dir",
                arg(&found),
            ],
            "lab.search/1",
        ),
        (vec!["import", claude, "-o", arg(&imported)], "lab.import/1"),
        (vec!["audit", claude], "lab.audit/1"),
        (vec!["probe", "--replay", record], "lab.probe/1"),
    ];
    for (args, schema) in &cases {
        assert_schema(args, schema);
    }
    // merge prints the study's result under the same schema as montecarlo; the shard it reads
    // keeps its own `format` and no `schema`.
    let shard = dir.path().join("shard.json");
    let out = lab_in(
        manifest_dir(),
        &[
            "montecarlo",
            "--sessions",
            "2",
            "--turns",
            "2",
            "--shard",
            "1/1",
        ],
    );
    let parsed: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(parsed["format"], "harness-lab montecarlo shard v3");
    assert!(parsed.get("schema").is_none(), "{}", out.stdout);
    std::fs::write(&shard, out.stdout).unwrap();
    assert_schema(&["merge", arg(&shard)], "lab.montecarlo/1");
}

#[test]
fn lists_are_wrapped_in_their_document() {
    let profiles = assert_schema(&["profiles"], "lab.profiles/1");
    let list = profiles["profiles"].as_array().unwrap();
    assert_eq!(list[0]["name"], "course-site");
    assert_eq!(list[0]["kind"], "compaction");
    assert_eq!(list.last().unwrap()["kind"], "memory");
    let one = assert_schema(&["profiles", "memory-site"], "lab.profiles/1");
    let list = one["profiles"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["name"], "memory-site");
    let properties = assert_schema(&["search", "--list"], "lab.properties/1");
    assert_eq!(properties.as_object().unwrap().len(), 2);
    assert_eq!(properties["properties"][0]["property"], "dropped_unsaved");
}
