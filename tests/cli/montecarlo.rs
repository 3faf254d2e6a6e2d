//! `lab montecarlo` and `lab merge`: the numbers are those of the single runs they sum, and
//! neither the thread count nor the split into shards changes a byte of the output.

use lab::compaction::driver;
use lab::experiments::montecarlo::{self as mc, Study};
use lab::options::RunOptions;

use crate::util::{arg, lab, refused, write};

fn study(sessions: u64, profiles: &[&str]) -> Study {
    Study {
        sessions,
        generator: lab::workload::options::GenOptions {
            seed: 7,
            ..lab::workload::options::GenOptions::default()
        },
        cells: mc::cells(
            &profiles.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>(),
            &[],
        ),
    }
}

#[test]
fn each_cell_sums_the_runs_of_its_sessions() {
    let study = study(6, &["course-main", "course-latest"]);
    let shard = mc::run_shard(&study, 1, 1).unwrap();
    for (cell, sums) in study.cells.iter().zip(&shard.cells) {
        assert_eq!(sums.sessions, 6);
        let mut lost = 0u128;
        let mut any = 0u128;
        let mut peak_squares = 0u128;
        for i in 0..6 {
            let scenario = mc::session_scenario(&study, i).unwrap();
            let options = RunOptions {
                profile: Some(cell.profile.clone()),
                ..RunOptions::default()
            };
            let o = driver::run(&scenario, &options).unwrap().observables;
            lost += o.dropped_unsaved as u128;
            any += u128::from(o.dropped_unsaved + o.pointer_lost + o.unrecoverable > 0);
            peak_squares += (o.peak_context_size as u128).pow(2);
        }
        assert_eq!(sums.metrics[0].total, lost, "{}", cell.label());
        assert_eq!(sums.metrics[3].total, any, "{}", cell.label());
        assert_eq!(sums.metrics[4].squares, peak_squares, "{}", cell.label());
    }
    // The workloads are heavy enough that course-main loses results and course-latest, which
    // saves before it replaces, loses none.
    assert!(shard.cells[0].metrics[0].total > 0);
    assert_eq!(shard.cells[1].metrics[0].total, 0);
}

#[test]
fn one_thread_and_two_threads_give_the_same_result() {
    let study = study(40, &["course-main", "claude-code"]);
    let one = mc::run_with_threads(&study, 1, 1, Some(1), &mut |_, _| {}).unwrap();
    let two = mc::run_with_threads(&study, 1, 1, Some(2), &mut |_, _| {}).unwrap();
    assert_eq!(one, two);
    let args = [
        "montecarlo",
        "--sessions",
        "40",
        "--turns",
        "6",
        "--profiles",
        "course-main,claude-code",
        "--format",
        "json",
    ];
    let single = lab(&[&args[..], &["--threads", "1"]].concat());
    let double = lab(&[&args[..], &["--threads", "2"]].concat());
    assert_eq!(single.code, 0, "{}", single.stderr);
    assert_eq!(single.stdout, double.stdout);
}

#[test]
fn shards_merge_into_the_whole_study_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "montecarlo",
        "--sessions",
        "30",
        "--turns",
        "5",
        "--seed",
        "3",
    ];
    let whole = lab(&base);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert!(
        whole
            .stdout
            .starts_with("montecarlo · 30 sessions · seed 3 · 5 turns")
    );
    let mut files = Vec::new();
    for k in 1..=3 {
        let shard_arg = format!("{k}/3");
        let threads = if k == 2 { "1" } else { "2" };
        let out = lab(&[&base[..], &["--shard", &shard_arg, "--threads", threads]].concat());
        assert_eq!(out.code, 0, "{}", out.stderr);
        let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(value["format"], mc::SHARD_FORMAT);
        assert_eq!(value["index"], k);
        files.push(write(dir.path(), &format!("shard-{k}.json"), &out.stdout));
    }
    // Sessions 0..10, 10..20, 20..30.
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (value["first"].clone(), value["end"].clone()),
        (10.into(), 20.into())
    );
    // Any order of the files.
    let merged = lab(&["merge", arg(&files[2]), arg(&files[0]), arg(&files[1])]);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    assert_eq!(merged.stdout, whole.stdout);
}

/// The JSON text of shard `k` (`K/N`) of a small course-main study: `sessions` sessions of three
/// turns from master seed `seed`.
fn small_shard(sessions: &str, seed: &str, k: &str) -> String {
    let out = lab(&[
        "montecarlo",
        "--sessions",
        sessions,
        "--turns",
        "3",
        "--profiles",
        "course-main",
        "--seed",
        seed,
        "--shard",
        k,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

#[test]
fn merge_refuses_incomplete_or_foreign_shards() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |seed: &str, k: &str| small_shard("4", seed, k);
    let a1 = write(dir.path(), "a1.json", &shard("1", "1/2"));
    let a2 = write(dir.path(), "a2.json", &shard("1", "2/2"));
    let b2 = write(dir.path(), "b2.json", &shard("2", "2/2"));
    let junk = write(dir.path(), "junk.json", "{\"format\": 3}");
    let cases: [(Vec<&str>, String); 4] = [
        (vec![arg(&a1)], "merge: shards missing: 2/2".to_owned()),
        (
            vec![arg(&a1), arg(&a2), arg(&a1)],
            format!("{}: shard 1/2 is also in {}", arg(&a1), arg(&a1)),
        ),
        (
            vec![arg(&a1), arg(&b2)],
            format!("{}: a different study than {}", arg(&b2), arg(&a1)),
        ),
        (vec![arg(&junk)], format!("{}:1:", arg(&junk))),
    ];
    for (files, message) in cases {
        refused(&[&["merge"][..], &files].concat(), &[&message]);
    }
}

#[test]
fn montecarlo_refuses_cells_it_cannot_run() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["--grid", "unseen_guard=on,off"],
            "--grid unseen_guard: profile course-site has no such switch (nor claude-code,claude-code-2.1.332,anthropic-api,codex,cline,opencode,kilo,opencode-v2,gemini-cli,openhands,codex-remote); \
             the profiles that have it: course-main,course-latest,prototype",
        ),
        (
            // The bad value is named even though the first cell lacks the switch.
            &["--grid", "unseen_guard=on,maybe"],
            "--grid unseen_guard=maybe: switch `unseen_guard` expects on/off",
        ),
        (
            &[
                "--profiles",
                "course-main,claude-code",
                "--grid",
                "unseen_guard=on,off",
            ],
            "--grid unseen_guard: profile claude-code has no such switch",
        ),
        (
            &["--profiles", "memory-main"],
            "--profiles memory-main: a memory profile",
        ),
        (&["--shard", "3/2"], "expected K/N with 1 <= K <= N"),
        (&["--mix", "nope"], "unknown mix `nope`"),
        (&["--seed", "x"], "invalid value 'x' for '--seed <SEED>'"),
    ];
    for (args, message) in cases {
        refused(
            &[&["montecarlo", "--sessions", "2", "--turns", "2"][..], args].concat(),
            &[message],
        );
    }
    refused(
        &["montecarlo", "--sessions", "0"],
        &["--sessions: expected at least 1"],
    );
}

#[test]
fn progress_is_reported_per_chunk_of_the_shard() {
    let study = study(300, &["course-latest"]);
    let mut seen = Vec::new();
    let shard = mc::run_with_threads(&study, 2, 2, Some(2), &mut |done, total| {
        seen.push((done, total))
    })
    .unwrap();
    // Shard 2/2 holds sessions 150..300: one chunk of at most 256.
    assert_eq!((shard.first, shard.end), (150, 300));
    assert_eq!(seen, [(150, 150)]);
    let mut seen = Vec::new();
    mc::run_with_threads(&study, 1, 1, None, &mut |done, total| {
        seen.push((done, total))
    })
    .unwrap();
    assert_eq!(seen, [(256, 300), (300, 300)]);
}

/// A name, an edit of a shard's JSON, and the error it must draw.
type Edit = (&'static str, fn(&mut serde_json::Value), &'static str);

#[test]
fn merge_refuses_sums_no_run_can_produce() {
    let dir = tempfile::tempdir().unwrap();
    let run =
        |k: &str| serde_json::from_str::<serde_json::Value>(&small_shard("4", "1", k)).unwrap();
    let first = write(dir.path(), "s1.json", &run("1/2").to_string());
    let second = run("2/2");
    let edits: [Edit; 5] = [
        (
            "sessions",
            |v| v["cells"][0]["sessions"] = 0.into(),
            "cell course-main counts 0 sessions, not 2",
        ),
        (
            "metrics",
            |v| v["cells"][0]["metrics"] = serde_json::json!([]),
            "cell course-main has 0 metrics, not 7",
        ),
        (
            "any",
            |v| v["cells"][0]["metrics"][3]["total"] = 1_000_000.into(),
            "the sums of any_loss are impossible",
        ),
        (
            "squares",
            |v| v["cells"][0]["metrics"][0]["squares"] = serde_json::json!(1u128 << 127),
            "the sums of dropped_unsaved are impossible",
        ),
        (
            "huge",
            |v| {
                v["of"] = serde_json::json!(1u64 << 63);
                v["index"] = 1.into();
            },
            "shard 1/9223372036854775808 of a split into 9223372036854775808",
        ),
    ];
    for (label, edit, message) in edits {
        let mut value = second.clone();
        edit(&mut value);
        let path = write(dir.path(), &format!("{label}.json"), &value.to_string());
        refused(&["merge", arg(&first), arg(&path)], &[message]);
        // Alone, it is refused on its header, without allocating anything per shard.
        if label == "huge" {
            refused(
                &["merge", arg(&path)],
                &["does not hold the sessions its header names"],
            );
        }
    }
}

#[test]
fn merge_names_the_first_missing_shards() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s1.json", &small_shard("10", "1", "1/10"));
    let out = refused(&["merge", arg(&path)], &[]);
    assert_eq!(
        out.stderr,
        "lab: merge: shards missing: 2/10, 3/10, 4/10, 5/10, 6/10 and 4 more\n"
    );
}

#[test]
fn montecarlo_refuses_grids_that_repeat_a_cell() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--grid", "unseen_guard=on", "--grid", "unseen_guard=off"],
            "--grid unseen_guard is given twice",
        ),
        (
            &["--grid", "unseen_guard=on,true"],
            "cells `course-main unseen_guard=on` and `course-main unseen_guard=true` are the same run",
        ),
        (
            // Named before any cell is built (4b03605).
            &["--grid", "unseen_guard=maybe"],
            "--grid unseen_guard=maybe: switch `unseen_guard` expects on/off",
        ),
        (
            &["--threads", "100000"],
            "--threads 100000: expected at most 256",
        ),
    ];
    let base = [
        "montecarlo",
        "--sessions",
        "2",
        "--turns",
        "2",
        "--profiles",
        "course-main",
    ];
    for (args, message) in cases {
        refused(&[&base[..], args].concat(), &[message]);
    }
    refused(
        &["montecarlo", "--sessions", "3", "--shard", "1/4"],
        &["--shard 1/4: more shards than the 3 sessions"],
    );
}
