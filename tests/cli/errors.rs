//! Malformed input is rejected before anything runs: exit 2, a message on stderr that names the
//! file, the step (1-based) and what was expected, nothing on stdout, and never a panic.

use crate::util::{arg, f01, lab, refused, write};

/// A call `t1` then its 120000-char result: a valid prefix for the step errors below.
const CALL_T1: &str = r#"{"assistant": {"calls": [{"id": "t1"}]}}"#;

/// Writes `text` as a scenario, runs `lab run` on it and checks the rejection. Returns stderr.
fn rejected(text: &str, fragments: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bad.json", text);
    let out = refused(&["run", arg(&path)], fragments);
    assert!(
        out.stderr.starts_with("lab: failed to "),
        "stderr: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(arg(&path)),
        "stderr does not name {}: {}",
        path.display(),
        out.stderr
    );
    out.stderr
}

#[test]
fn malformed_json_reports_the_real_line_and_column() {
    let lines = ["{", r#"  "steps": ["#, r#"    {"user": "a",}"#, "  ]", "}"];
    // serde_json points at the `}` after the trailing comma: line 3, 1-based column.
    let column = lines[2].find(",}").unwrap() + 2;
    assert_eq!(column, 18);
    let stderr = rejected(
        &lines.join("\n"),
        &[
            "invalid JSON",
            &format!("at line 3, column {column}"),
            "trailing comma",
        ],
    );
    assert!(stderr.starts_with("lab: failed to parse "), "{stderr}");
}

#[test]
fn unknown_step_key() {
    rejected(
        r#"{"steps": [{"user": "a"}, {"dance": true}]}"#,
        &[
            "step 2 (dance)",
            "unknown step `dance`",
            "expected one of: user, assistant, results, stage, prepare, turn, idle, context_hint, check",
        ],
    );
}

#[test]
fn unknown_switch_in_the_file() {
    rejected(
        r#"{"switches": {"nope": true}, "steps": [{"user": "a"}]}"#,
        &[
            "switches.nope",
            "profile course-main has no switch `nope`",
            "it has: order, unseen_guard, pair_protection",
        ],
    );
}

#[test]
fn unknown_constant_in_the_file() {
    rejected(
        r#"{"constants": {"nope": 1}, "steps": [{"user": "a"}]}"#,
        &[
            "constants.nope",
            "profile course-main has no constant `nope`",
            "keep_results",
        ],
    );
}

#[test]
fn result_for_an_id_never_called() {
    rejected(
        r#"{"steps": [{"user": "a"}, {"results": [{"id": "t9", "chars": 5}]}]}"#,
        &[
            "step 2 (results)",
            "result for `t9`, which no earlier assistant message called",
        ],
    );
}

#[test]
fn duplicate_call_id() {
    rejected(
        &format!(r#"{{"steps": [{CALL_T1}, {{"user": "b"}}, {CALL_T1}]}}"#),
        &["step 3 (assistant)", "call id `t1` is used twice"],
    );
}

#[test]
fn negative_size() {
    rejected(
        &format!(r#"{{"steps": [{CALL_T1}, {{"results": [{{"id": "t1", "chars": -5}}]}}]}}"#),
        &[
            "step 2 (results), result `t1`",
            "`chars` must be a non-negative integer, got -5",
        ],
    );
}

#[test]
fn non_integer_size() {
    rejected(
        &format!(r#"{{"steps": [{CALL_T1}, {{"results": [{{"id": "t1", "chars": 2.5}}]}}]}}"#),
        &[
            "step 2 (results), result `t1`",
            "`chars` must be a non-negative integer, got 2.5",
        ],
    );
}

#[test]
fn unknown_profile_in_the_file() {
    rejected(
        r#"{"profile": "nope", "steps": [{"user": "a"}]}"#,
        &[
            "top level",
            "unknown profile `nope`",
            "known: course-site, course-main, course-latest, prototype",
            "memory lab: memory-main, memory-site",
        ],
    );
}

#[test]
fn unknown_stage_name() {
    rejected(
        r#"{"steps": [{"user": "a"}, {"stage": "squash"}]}"#,
        &[
            "step 2 (stage)",
            "unknown stage `squash`",
            "expected one of: budget, snip, micro, fit, compact, reactive",
        ],
    );
}

/// `fit` is a stage of the lab but not of course-main. The scenario would spill toolu_0 at
/// step 3 if it ran; with a real store, no file may appear: the check happens before running.
#[test]
fn stage_missing_from_the_profile_is_rejected_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"{"profile": "course-main", "steps": [
        {"assistant": {"calls": [{"id": "toolu_0"}, {"id": "toolu_1"}]}},
        {"results": [{"id": "toolu_0", "chars": 120000}, {"id": "toolu_1", "chars": 120000}]},
        {"stage": "budget"},
        {"stage": "fit"}
    ]}"#;
    let path = write(dir.path(), "fit.json", text);
    let spill = dir.path().join("res");
    let transcripts = dir.path().join("tr");
    refused(
        &[
            "run",
            arg(&path),
            "--store",
            "dir",
            "--spill-dir",
            arg(&spill),
            "--transcript-dir",
            arg(&transcripts),
        ],
        &[
            arg(&path),
            "step 4 (stage)",
            "profile course-main has no stage `fit`",
            "it has: budget, snip, micro, compact, reactive",
        ],
    );
    assert!(!spill.exists(), "budget ran before the stage was checked");
    assert!(!transcripts.exists());

    // The same file without the fit step runs and does spill: the check above is not vacuous.
    let ok = write(
        dir.path(),
        "ok.json",
        &text.replace(
            r#",
        {"stage": "fit"}"#,
            "",
        ),
    );
    let out = lab(&[
        "run",
        arg(&ok),
        "--store",
        "dir",
        "--spill-dir",
        arg(&spill),
        "--transcript-dir",
        arg(&transcripts),
    ]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(spill.join("toolu_0.txt").is_file());
}

#[test]
fn unknown_switch_on_the_command_line() {
    refused(
        &["run", arg(&f01()), "--set", "nope=on"],
        &["--set nope: profile course-main has no such switch"],
    );
}

#[test]
fn a_break_name_with_a_multibyte_second_character_is_refused_not_a_panic() {
    // `xé`: byte 2 falls inside `é`; the memory-break prefix test once sliced it and panicked.
    refused(
        &["run", arg(&f01()), "--break", "xé"],
        &["unknown break `xé` (expected D1, D2, D3, D4, D5, D6 or all)"],
    );
}

#[test]
fn non_integer_constant_on_the_command_line() {
    refused(
        &["run", arg(&f01()), "--const", "keep_results=abc"],
        &["--const keep_results=abc: expected a non-negative integer"],
    );
}

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.json");
    let out = refused(&["run", arg(&path)], &[]);
    assert!(
        out.stderr
            .starts_with(&format!("lab: failed to read {}: ", path.display())),
        "{}",
        out.stderr
    );
}
