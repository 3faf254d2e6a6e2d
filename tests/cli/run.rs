//! `lab run`, `lab explain` and `lab verify` on the F1 coverage-gap scenario (docs/findings.md F1):
//! what they print, their JSON schema, their exit codes and their determinism.

use serde_json::{Value, json};

use crate::util::{arg, f01, lab, lab_ok, refused, scenario, table_cells, table_row, write};

/// F1 with one expectation changed so that it fails.
fn f01_failing() -> String {
    let text = std::fs::read_to_string(f01()).unwrap();
    assert!(text.contains(r#""dropped_unsaved": 1,"#));
    text.replace(r#""dropped_unsaved": 1,"#, r#""dropped_unsaved": 0,"#)
}

#[test]
fn table_shows_the_coverage_gap() {
    let out = lab_ok(&["run", arg(&f01())]);
    let text = &out.stdout;
    assert!(
        text.starts_with("f01-coverage-gap · profile course-main\n"),
        "{text}"
    );
    assert!(
        text.contains("spill dir: /var/folders/lab/res (20 chars)"),
        "{text}"
    );
    assert_eq!(table_row(text, "dropped_unsaved"), ["dropped_unsaved", "1"]);
    assert_eq!(table_row(text, "pointer_lost"), ["pointer_lost", "0"]);
    assert_eq!(
        table_row(text, "persisted_files"),
        ["persisted_files", r#"["toolu_0.txt"]"#]
    );
    assert_eq!(
        table_row(text, "toolu_1"),
        [
            "toolu_1",
            "bash",
            "120000",
            "dropped_unsaved",
            "[Earlier tool result omitted.] — never spilled"
        ]
    );
    assert_eq!(
        table_row(text, "toolu_0"),
        [
            "toolu_0",
            "bash",
            "120000",
            "pointer",
            "[Earlier tool result saved at /var/folders/lab/res/toolu_0.txt]"
        ]
    );
    assert_eq!(
        table_row(text, "/var/folders/lab/res/toolu_0.txt"),
        ["/var/folders/lab/res/toolu_0.txt", "32", "120000"]
    );
    assert!(text.contains('✓') && !text.contains('✗'), "{text}");
}

#[test]
fn json_follows_the_documented_schema() {
    let out = lab_ok(&["run", arg(&f01()), "--format", "json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "schema",
            "scenario",
            "profile",
            "context_unit",
            "switches",
            "constants",
            "observables",
            "messages",
            "spill",
            "transcripts",
            "trace",
            "expect"
        ]
    );
    assert_eq!(report["schema"], "lab.run/1");
    assert_eq!(report["scenario"], "f01-coverage-gap");
    assert_eq!(report["profile"], "course-main");
    // course-main estimates len(json.dumps(messages)): characters.
    assert_eq!(report["context_unit"], "chars");
    assert_eq!(
        report["switches"],
        json!({"order": "intact", "unseen_guard": true, "pair_protection": true})
    );
    assert_eq!(report["constants"]["keep_results"], 3);
    assert_eq!(report["observables"]["dropped_unsaved"], 1);
    assert_eq!(
        report["observables"]["persisted_files"],
        json!(["toolu_0.txt"])
    );

    let messages = report["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    for message in messages {
        let keys: Vec<&String> = message.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["role", "content"], "{message}");
    }
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "inspect the logs"})
    );
    assert_eq!(messages[1]["role"], "assistant");
    let first_use = &messages[1]["content"][0];
    let keys: Vec<&String> = first_use.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "id", "name", "input"]);
    assert_eq!(
        *first_use,
        json!({"type": "tool_use", "id": "toolu_0", "name": "bash",
               "input": {"command": "cat a.log"}})
    );
    assert_eq!(messages[2]["role"], "user");
    let results = messages[2]["content"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["toolu_0", "toolu_1", "toolu_2", "toolu_3", "toolu_4"]);
    for block in results {
        let keys: Vec<&String> = block.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "tool_use_id", "content"], "{block}");
        assert_eq!(block["type"], "tool_result");
    }
    assert_eq!(
        results[0]["content"],
        "[Earlier tool result saved at /var/folders/lab/res/toolu_0.txt]"
    );
    assert_eq!(results[1]["content"], "[Earlier tool result omitted.]");
    assert_eq!(results[4]["content"], "x".repeat(500));
    assert_eq!(
        messages[3],
        json!({"role": "assistant", "content": [{"type": "text", "text": "seen"}]})
    );

    assert_eq!(
        report["spill"],
        json!([{"path": "/var/folders/lab/res/toolu_0.txt", "chars": 120000}])
    );
    let keys: Vec<&String> = report["spill"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["path", "chars"]);
    assert_eq!(report["transcripts"], json!([]));
    assert!(
        report["expect"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["ok"] == true)
    );
}

#[test]
fn output_is_deterministic() {
    for format in ["table", "markdown", "json"] {
        let first = lab_ok(&["run", arg(&f01()), "--format", format]);
        let second = lab_ok(&["run", arg(&f01()), "--format", format]);
        assert!(!first.stdout.is_empty());
        assert_eq!(
            first.stdout.as_bytes(),
            second.stdout.as_bytes(),
            "{format}"
        );
    }
}

#[test]
fn a_failing_expectation_exits_1_and_is_marked() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "fails.json", &f01_failing());
    let out = lab(&["run", arg(&path)]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    assert_eq!(out.stderr, "");
    // The expectation row (first cell `end`, the final expect) that failed.
    let failed: Vec<&str> = out
        .stdout
        .lines()
        .filter(|line| line.contains('✗'))
        .collect();
    assert_eq!(failed.len(), 1, "{}", out.stdout);
    assert_eq!(
        table_cells(failed[0]),
        ["end", "dropped_unsaved", "0", "1", "✗"]
    );
    assert_eq!(
        table_row(&out.stdout, "persisted_files")[1],
        r#"["toolu_0.txt"]"#
    );

    let json = lab(&["run", arg(&path), "--format", "json"]);
    assert_eq!(json.code, 1);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    let failed: Vec<&Value> = report["expect"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert_eq!(
        failed,
        [
            &json!({"step": null, "key": "dropped_unsaved", "expected": 0, "measured": 1, "ok": false})
        ]
    );
}

#[test]
fn explain_tells_why_toolu_1_was_lost() {
    let out = lab_ok(&["explain", arg(&f01()), "toolu_1"]);
    let text = &out.stdout;
    assert!(
        text.starts_with("toolu_1 (bash, 120000 chars) in f01-coverage-gap under course-main"),
        "{text}"
    );
    assert!(text.contains("never spilled"), "{text}");
    assert!(text.contains("batch total"), "{text}");
    assert!(text.contains("micro"), "{text}");
    let budget = table_row(text, "3");
    assert_eq!(budget[1..4], ["budget", "keep", "120000"]);
    assert!(
        budget[4].starts_with("never spilled: batch total "),
        "{budget:?}"
    );
    let micro = table_row(text, "5");
    assert_eq!(micro[1..4], ["micro", "replace", "120000 → 30"]);
    assert!(
        text.contains("final: dropped_unsaved — [Earlier tool result omitted.] — never spilled"),
        "{text}"
    );
}

#[test]
fn explain_an_unknown_id_exits_2() {
    refused(
        &["explain", arg(&f01()), "toolu_9"],
        &[
            arg(&f01()),
            "no result `toolu_9` in this run (results: toolu_0, toolu_1, toolu_2, toolu_3, toolu_4)",
        ],
    );
}

#[test]
fn verify_reports_every_row_and_fails_on_one_failure() {
    let dir = tempfile::tempdir().unwrap();
    let passing = write(
        dir.path(),
        "a-pass.json",
        &std::fs::read_to_string(f01()).unwrap(),
    );
    std::fs::create_dir(dir.path().join("nested")).unwrap();
    let failing = write(&dir.path().join("nested"), "b-fail.json", &f01_failing());
    let out = lab(&["verify", arg(dir.path())]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    assert_eq!(out.stderr, "");
    let text = &out.stdout;
    let rows = |path: &str| -> Vec<Vec<String>> {
        text.lines()
            .filter(|line| line.contains(path))
            .map(table_cells)
            .collect()
    };
    let pass_rows = rows(arg(&passing));
    let fail_rows = rows(arg(&failing));
    assert_eq!(pass_rows.len(), 8, "{text}");
    assert_eq!(fail_rows.len(), 8, "{text}");
    assert!(pass_rows.iter().all(|r| r[4] == "✓"), "{text}");
    let failed: Vec<&Vec<String>> = fail_rows.iter().filter(|r| r[4] == "✗").collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert_eq!(failed[0][1..], ["dropped_unsaved", "0", "1", "✗"]);
    assert!(
        text.contains("16 expectations, 15 passed, 1 failed"),
        "{text}"
    );

    std::fs::remove_file(&failing).unwrap();
    let out = lab(&["verify", arg(dir.path())]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout.contains("8 expectations, 8 passed, 0 failed"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains('✗'), "{}", out.stdout);
}

/// The first release's observable names stay in the JSON for one more release with their old
/// values, are still accepted in `expect` and by `lab search --property`, and are not shown in
/// tables (issue 17 item 2).
#[test]
fn renamed_observables_keep_their_old_json_names_for_one_release() {
    // claude-code's estimate is in tokens: the old `context_chars` held tokens, the new name
    // and context_unit say so.
    let out = lab_ok(&[
        "run",
        arg(&scenario("c1-per-tool-thresholds.json")),
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["context_unit"], "tokens");
    let o = &report["observables"];
    assert_eq!(o["lost_forever"], o["dropped_unsaved"]);
    assert_eq!(o["context_chars"], o["context_size"]);
    assert_eq!(o["peak_context_chars"], o["peak_context_size"]);
    assert!(o["peak_context_size"].as_u64().unwrap() > 0);
    let keys: Vec<&String> = o.as_object().unwrap().keys().collect();
    assert_eq!(
        keys[keys.len() - 3..],
        ["lost_forever", "context_chars", "peak_context_chars"]
    );

    // F1 under its old expectation names: dropped_unsaved 1, context 2493 chars.
    let text = std::fs::read_to_string(f01()).unwrap();
    let old = text
        .replace("\"dropped_unsaved\"", "\"lost_forever\"")
        .replace("\"context_size\"", "\"context_chars\"");
    assert_ne!(old, text, "F1 names the renamed observables");
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "old-names.json", &old);
    let out = lab_ok(&["run", arg(&path)]);
    assert!(
        out.stdout.contains("│ lost_forever ") && !out.stdout.contains('✗'),
        "{}",
        out.stdout
    );
    // The observables table shows the new names only.
    assert!(out.stdout.contains("│ dropped_unsaved "), "{}", out.stdout);
    assert!(!out.stdout.contains("│ context_chars  "), "{}", out.stdout);

    let out = lab_ok(&["search", "--list", "--format", "json"]);
    assert!(out.stdout.contains("\"dropped_unsaved\""), "{}", out.stdout);
    let out = lab_ok(&[
        "search",
        "--property",
        "lost_forever",
        "--budget",
        "1",
        "--out-dir",
        arg(dir.path()),
    ]);
    assert!(out.stdout.contains("dropped_unsaved"), "{}", out.stdout);
}

/// A Read result that is already Read's output (lines numbered from 1, as a result imported from
/// a Claude Code log holds it, with Read's reminder after them) is not numbered twice; a file's
/// own text is numbered once.
#[test]
fn claude_code_numbers_a_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let logged = "1\talpha\n2\tbeta\n\n<system-reminder>\nread with care\n</system-reminder>";
    let scenario = json!({
        "name": "read-once",
        "profile": "claude-code",
        "request": "read both",
        "steps": [
            {"turn": {"calls": [
                {"id": "toolu_logged", "name": "Read", "input": {"file_path": "/r/a.txt"}},
                {"id": "toolu_file", "name": "Read", "input": {"file_path": "/r/b.txt"}}
            ], "results": [
                {"id": "toolu_logged", "text": logged},
                {"id": "toolu_file", "text": "alpha\nbeta"}
            ]}},
            {"check": {
                "result:toolu_logged": logged,
                "result:toolu_file": "1\talpha\n2\tbeta"
            }}
        ]
    });
    let path = write(dir.path(), "read-once.json", &scenario.to_string());
    let out = lab(&["run", arg(&path)]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stdout.matches('✓').count(),
        2,
        "both checks hold: {}",
        out.stdout
    );
}
