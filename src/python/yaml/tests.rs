//! The port against PyYAML 6.0.3: the dump, key, load and metadata cases of `cases.rs` (from
//! `tools/yamlgen.py`), and the pieces whose Python behaviour is stated by hand.

use super::cases::{DUMP_CASES, KEY_CASES, LOAD_CASES, METADATA_CASES};
use super::error::MAX_DEPTH;
use super::resolver::{
    BOOL_TAG, FLOAT_TAG, INT_TAG, MERGE_TAG, NULL_TAG, STR_TAG, TIMESTAMP_TAG, VALUE_TAG,
    resolve_implicit,
};
use super::{YamlError, YamlValue, load_metadata, safe_dump_str_mapping, safe_load_mapping};

fn dump_description(value: &str) -> String {
    safe_dump_str_mapping(&[("name", "x"), ("description", value), ("type", "user")])
}

/// What a load gives, spelled as `describe_load` in `tools/yamlgen.py` spells PyYAML's result.
fn describe(result: &Result<Option<Vec<(String, YamlValue)>>, YamlError>) -> String {
    match result {
        Ok(None) => "not a mapping".to_owned(),
        Ok(Some(pairs)) => pairs
            .iter()
            .map(|(key, value)| {
                let kind = match value {
                    YamlValue::Null => "Null",
                    YamlValue::Bool(_) => "Bool",
                    YamlValue::Int(_) => "Int",
                    YamlValue::Float(_) => "Float",
                    YamlValue::Str(_) => "Str",
                    YamlValue::Other(_) => "Other",
                };
                format!("{key}: {kind}({})", value.python_str())
            })
            .collect::<Vec<_>>()
            .join("; "),
        Err(YamlError::Yaml {
            class: "ReaderError",
            ..
        }) => "YAMLError ReaderError".to_owned(),
        Err(YamlError::Yaml {
            class,
            line,
            column,
            ..
        }) => format!("YAMLError {class} {line}:{column}"),
        Err(YamlError::Python { exception, .. }) => format!("Python {exception}"),
        Err(YamlError::Unsupported(what)) => format!("Unsupported {what}"),
    }
}

#[test]
fn dumps_every_value_as_pyyaml() {
    let mut failures = Vec::new();
    for (label, value, expected, _) in DUMP_CASES {
        let dumped = dump_description(value);
        if dumped != *expected {
            failures.push(format!(
                "{label}:\n  got      {dumped:?}\n  expected {expected:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dumps_keys_as_pyyaml() {
    for (label, pairs, expected) in KEY_CASES {
        assert_eq!(safe_dump_str_mapping(pairs), *expected, "{label}");
    }
}

#[test]
fn every_dump_loads_back() {
    for (label, value, dumped, loaded) in DUMP_CASES {
        let pairs = safe_load_mapping(dumped).unwrap().unwrap();
        let expected = vec![
            ("name".to_owned(), YamlValue::Str("x".to_owned())),
            (
                "description".to_owned(),
                YamlValue::Str((*loaded).to_owned()),
            ),
            ("type".to_owned(), YamlValue::Str("user".to_owned())),
        ];
        assert_eq!(pairs, expected, "{label}");
        // Every value but U+0085 (which PyYAML reads back as a line break folded to a space)
        // survives the round trip.
        if !value.contains('\u{85}') {
            assert_eq!(loaded, value, "{label}");
        }
    }
}

#[test]
fn frontmatter_as_parse_frontmatter_splits_it() {
    // s09 writes `---\n{frontmatter}\n---\n{body}`; parts[1] of text.split("---", 2) is
    // what safe_load reads.
    for (label, value, dumped, loaded) in DUMP_CASES {
        let text = format!("---\n{}\n---\nbody\n", dumped.trim());
        let parts: Vec<&str> = text.splitn(3, "---").collect();
        if parts.len() < 3 || value.contains("---") {
            continue;
        }
        let pairs = load_metadata(parts[1]).unwrap().unwrap();
        assert_eq!(pairs[1].1, YamlValue::Str((*loaded).to_owned()), "{label}");
    }
}

#[test]
fn loads_as_pyyaml() {
    let mut failures = Vec::new();
    for (label, text, expected) in LOAD_CASES {
        let got = describe(&safe_load_mapping(text));
        if got != *expected {
            failures.push(format!(
                "{label}:\n  got      {got:?}\n  expected {expected:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn metadata_is_safe_load_or_empty_dict() {
    for (text, expected) in METADATA_CASES {
        let got = match load_metadata(text).unwrap() {
            Some(_) => "dict",
            None => "not a dict",
        };
        assert_eq!(got, *expected, "{text:?}");
    }
    assert_eq!(load_metadata("0").unwrap(), Some(Vec::new()));
}

#[test]
fn errors_say_whether_parse_frontmatter_catches_them() {
    assert!(safe_load_mapping("a: b: c").unwrap_err().is_yaml_error());
    assert!(!safe_load_mapping("a: !!int x").unwrap_err().is_yaml_error());
    let unsupported = safe_load_mapping("a: !!binary aGVsbG8=").unwrap_err();
    assert!(matches!(unsupported, YamlError::Unsupported(_)));
    assert!(unsupported.is_yaml_error());
    assert_eq!(
        safe_load_mapping("a: b: c").unwrap_err().to_string(),
        "ScannerError: mapping values are not allowed here (line 1, column 5)"
    );
}

#[test]
fn deep_nesting_is_unsupported() {
    let deep = format!(
        "a: {}{}",
        "[".repeat(MAX_DEPTH + 5),
        "]".repeat(MAX_DEPTH + 5)
    );
    assert!(matches!(
        safe_load_mapping(&deep),
        Err(YamlError::Unsupported(_))
    ));
    let fine = format!("a: {}{}", "[".repeat(10), "]".repeat(10));
    assert_eq!(
        safe_load_mapping(&fine).unwrap().unwrap()[0].1,
        YamlValue::Other("[[[[[[[[[[]]]]]]]]]]".to_owned())
    );
}

#[test]
fn python_str_and_truthiness() {
    let cases = [
        (YamlValue::Null, "None", false),
        (YamlValue::Bool(true), "True", true),
        (YamlValue::Bool(false), "False", false),
        (YamlValue::Int(3), "3", true),
        (YamlValue::Int(0), "0", false),
        (YamlValue::Float(1.5), "1.5", true),
        (YamlValue::Float(1e16), "1e+16", true),
        (YamlValue::Float(-0.0), "-0.0", false),
        (YamlValue::Float(f64::NAN), "nan", true),
        (YamlValue::Float(f64::NEG_INFINITY), "-inf", true),
        (YamlValue::Str(String::new()), "", false),
        (YamlValue::Str("x".to_owned()), "x", true),
        (YamlValue::Other("[]".to_owned()), "[]", false),
        (YamlValue::Other("{}".to_owned()), "{}", false),
        (YamlValue::Other("[None]".to_owned()), "[None]", true),
        (
            YamlValue::Other("2024-01-01".to_owned()),
            "2024-01-01",
            true,
        ),
    ];
    for (value, text, truthy) in cases {
        assert_eq!(value.python_str(), text, "{value:?}");
        assert_eq!(value.truthy(), truthy, "{value:?}");
    }
}

#[test]
fn implicit_resolvers() {
    for (value, tag) in [
        ("yes", BOOL_TAG),
        ("OFF", BOOL_TAG),
        ("y", STR_TAG),
        ("1.5", FLOAT_TAG),
        ("1.5e3", STR_TAG),
        ("1.5e+3", FLOAT_TAG),
        ("-.INF", FLOAT_TAG),
        ("190:20:30.15", FLOAT_TAG),
        ("1:75", STR_TAG),
        ("0b1_0", INT_TAG),
        ("0o17", STR_TAG),
        ("08", STR_TAG),
        ("-0x_F", INT_TAG),
        ("190:20:30", INT_TAG),
        ("", NULL_TAG),
        ("~", NULL_TAG),
        ("2024-01-01", TIMESTAMP_TAG),
        ("2024-1-01", STR_TAG),
        ("2001-12-14t21:59:43.10-05:00", TIMESTAMP_TAG),
        ("2001-12-14 21:59:43 ", STR_TAG),
        ("<<", MERGE_TAG),
        ("=", VALUE_TAG),
        // Python's `$` matches before a final newline.
        ("123\n", INT_TAG),
    ] {
        assert_eq!(resolve_implicit(value), tag, "{value:?}");
    }
}

/// Re-runs the oracle: `tools/yamlgen.py --json` (PyYAML itself) must give exactly the cases
/// committed in `cases.rs`. Ignored because it needs python3 with PyYAML 6.0.3; run it with
/// `cargo test --lib -- --ignored cases_are_pyyamls`.
#[test]
#[ignore = "needs python3 with PyYAML 6.0.3"]
fn cases_are_pyyamls() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/yamlgen.py");
    let output = std::process::Command::new("python3")
        .args([script, "--json"])
        .output()
        .expect("python3 is on PATH");
    assert!(
        output.status.success(),
        "tools/yamlgen.py failed (is PyYAML 6.0.3 installed?):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let oracle: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("yamlgen.py --json prints JSON");
    let keys: Vec<_> = KEY_CASES
        .iter()
        .map(|(label, pairs, dumped)| {
            let pairs: Vec<[&str; 2]> = pairs.iter().map(|&(key, value)| [key, value]).collect();
            serde_json::json!([label, pairs, dumped])
        })
        .collect();
    let committed = serde_json::json!({
        "dump": DUMP_CASES.iter().map(|(l, v, d, r)| [l, v, d, r]).collect::<Vec<_>>(),
        "keys": keys,
        "load": LOAD_CASES.iter().map(|(l, t, e)| [l, t, e]).collect::<Vec<_>>(),
        "metadata": METADATA_CASES.iter().map(|(t, e)| [t, e]).collect::<Vec<_>>(),
    });
    let mut failures = Vec::new();
    for table in ["dump", "keys", "load", "metadata"] {
        let ours = committed[table].as_array().expect("an array per table");
        let theirs = oracle[table]
            .as_array()
            .expect("yamlgen.py prints an array per table");
        if ours.len() != theirs.len() {
            failures.push(format!(
                "{table}: {} cases committed, {} from PyYAML",
                ours.len(),
                theirs.len()
            ));
        }
        for (ours, theirs) in ours
            .iter()
            .zip(theirs)
            .filter(|(ours, theirs)| ours != theirs)
        {
            failures.push(format!("{table}:\n  cases.rs {ours}\n  PyYAML   {theirs}"));
        }
    }
    assert!(
        failures.is_empty(),
        "cases.rs is not what tools/yamlgen.py prints; regenerate it:\n{}",
        failures.join("\n")
    );
}
