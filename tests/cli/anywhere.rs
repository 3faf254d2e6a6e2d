//! A newcomer's commands away from the checkout and with what-if overrides: `verify` without
//! `scenarios/`, on single files and without the findings; `-` reads a scenario from stdin;
//! `search` writes to `./found/`; overridden runs say which expectations they break; `--break
//! all` lists the breaks that do not apply; `compare` gives the whole reason; every `--help`
//! has examples and exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::{arg, f01, lab, lab_in, manifest_dir, scenario};

#[test]
fn verify_runs_the_findings_without_a_checkout() {
    let dir = tempfile::tempdir().unwrap();
    let out = lab_in(dir.path(), &["verify"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("no scenario files (name FILE or DIR"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(" reproduced, 0 not\n"),
        "{}",
        out.stdout
    );
    let none = lab_in(dir.path(), &["verify", "--no-findings"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("no scenarios to check"),
        "{}",
        none.stderr
    );
}

#[test]
fn verify_checks_single_files_without_the_findings() {
    let out = lab(&["verify", arg(&f01()), "--no-findings"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // f01 carries 8 expectations (its `expect` block).
    assert!(
        out.stdout.ends_with("8 expectations, 8 passed, 0 failed\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("Findings"), "{}", out.stdout);
}

#[test]
fn a_dash_reads_the_scenario_from_stdin() {
    let text = std::fs::read_to_string(f01()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["run", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert_eq!(piped.status.code(), Some(0));
    let from_file = lab(&["run", arg(&f01()), "--format", "json"]);
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), from_file.stdout);
}

#[test]
fn search_writes_to_found_in_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = lab_in(
        dir.path(),
        &["search", "--property", "dropped_unsaved", "--seed", "1"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        dir.path()
            .join("found/dropped_unsaved-course-main.json")
            .is_file()
    );
}

#[test]
fn an_override_that_breaks_the_expectations_says_so() {
    // keep_results=10 keeps every f01 result in context: the expected placeholders of toolu_0
    // and toolu_1, dropped_unsaved 1 and unrecoverable 1 no longer hold (measured by hand).
    let out = lab(&["run", arg(&f01()), "--const", "keep_results=10"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "lab: 4 expectations of the scenario no longer hold under --const keep_results=10; \
         --no-expect to skip them\n"
    );
    let skipped = lab(&[
        "run",
        arg(&f01()),
        "--const",
        "keep_results=10",
        "--no-expect",
    ]);
    assert_eq!((skipped.code, skipped.stderr.as_str()), (0, ""));
    // The scenario as it is: no note.
    assert_eq!(lab(&["run", arg(&f01())]).stderr, "");
}

#[test]
fn break_all_lists_the_breaks_that_do_not_apply() {
    let out = lab(&[
        "run",
        arg(&scenario("f03-unseen-guard.json")),
        "--profile",
        "course-site",
        "--break",
        "all",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for line in [
        "not run: break D4 changes `gate_order_correct`, which profile course-site does not have",
        "not run: break D6 changes `order`, which profile course-site does not have",
    ] {
        assert!(out.stdout.contains(line), "{}", out.stdout);
    }
    assert!(out.stdout.contains("== D3 · "), "{}", out.stdout);
}

#[test]
fn compare_prints_the_whole_reason() {
    let out = lab(&["compare", arg(&scenario("c6-pair-repair-off.json"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let flat = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "switches.pair_repair: profile prototype has no switch `pair_repair` (it has: order, \
             unseen_guard, pair_protection, trust_stop_reason, gate_order_correct, \
             pipeline_has_barrier)"
        ),
        "{}",
        out.stdout
    );
}

/// The examples of a help text: its lines `  lab ...`.
fn examples(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| l.strip_prefix("  lab "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_help_has_examples_that_run_and_the_exit_codes() {
    let top = lab(&["--help"]).stdout;
    for name in ["D1", "D2", "D3", "D4", "D5", "D6"] {
        assert!(top.contains(&format!("\n  {name}  ")), "{top}");
    }
    let mut all = examples(&top);
    for command in [
        "run",
        "explain",
        "verify",
        "matrix",
        "sweep",
        "profiles",
        "compare",
        "memory",
        "montecarlo",
        "merge",
        "gen",
        "search",
        "report",
        "completions",
        "man",
        "import",
        "audit",
    ] {
        let help = lab(&[command, "--help"]).stdout;
        assert!(help.contains("Exit codes: 0 "), "{command}: {help}");
        let found = examples(&help);
        assert!(!found.is_empty(), "{command} --help has no example");
        all.extend(found);
    }
    // Run those that only print (not the ones that write files, nor the long studies).
    for example in all {
        let skip = [
            "search --property",
            "report",
            "merge",
            " -o ",
            "--chart",
            "montecarlo",
            ">",
        ];
        if skip.iter().any(|s| example.contains(s)) {
            continue;
        }
        let args: Vec<&str> = example.split_whitespace().collect();
        let out = lab_in(manifest_dir(), &args);
        assert_eq!(out.code, 0, "lab {example}: {}", out.stderr);
    }
}
