//! `lab import` and `lab audit` on the hand-written fixtures of `tests/fixtures/import/` (one
//! per format, every record shape the importers handle, broken lines included) and, when the
//! folder is there, on the real logs of `../shared/fixtures/sessions`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{arg, lab};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The one key of each step.
fn kinds(scenario: &Value) -> Vec<String> {
    scenario["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_object().unwrap().keys().next().unwrap().clone())
        .collect()
}

#[test]
fn claude_code_log_follows_the_live_branch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let input = fixtures().join("claude-code");
    let run = lab(&["import", arg(&input), "-o", arg(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("imported 3 sessions"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("-home-u-proj/sess-a.jsonl:10: not JSON"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("-home-u-proj/sess-a.jsonl:11: unknown record type `telemetry-blob`"),
        "{}",
        run.stdout
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["sess-a.agent-sub1.json", "sess-a.json", "sess-a.side1.json"]
    );
    let main = read_json(&out.join("sess-a.json"));
    assert_eq!(main["profile"], "claude-code");
    // The rewound branch (`no, do something else`, toolu_dead) is gone; the resumed copy of the
    // first prompt is not repeated; the summary is an observed step, not a user message.
    assert_eq!(
        kinds(&main),
        ["user", "turn", "user", "idle", "turn", "observed", "turn"]
    );
    let steps = &main["steps"];
    assert_eq!(steps[0]["user"], "fix the build");
    let turn = &steps[1]["turn"];
    assert_eq!(turn["text"], "Looking.");
    let calls: Vec<&str> = turn["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        calls,
        ["toolu_read", "toolu_bash"],
        "three records, one response"
    );
    assert_eq!(
        turn["results"][0]["text"], "1\t[package]\n2\tname = \"proj\"\n[image]",
        "a result given as blocks"
    );
    let spilled = std::fs::read_to_string(
        fixtures().join("claude-code/-home-u-proj/sess-a/tool-results/bx1.txt"),
    )
    .unwrap();
    assert_eq!(spilled.len(), 34190);
    assert_eq!(
        turn["results"][1]["text"], spilled,
        "the original text of a persisted output"
    );
    assert_eq!(
        turn["usage"],
        json!({"input_tokens": 1000, "cache_read_input_tokens": 4000, "output_tokens": 20}),
        "the usage of the response's last record"
    );
    assert_eq!(steps[2]["user"], "try again, look for the type");
    // 10:00:01.200 → 11:30:00.000 is 89.98 minutes.
    assert_eq!(steps[3]["idle"], 89);
    assert_eq!(
        steps[4]["turn"]["results"][0]["text"], "src/lib.rs:3: mismatched",
        "a result written after the next response is still found by id"
    );
    assert_eq!(
        steps[5]["observed"],
        json!({"compaction": "auto", "pre_tokens": 167000, "post_tokens": 3000, "summary_chars": 112})
    );
    assert!(
        !std::fs::read_to_string(out.join("sess-a.json"))
            .unwrap()
            .contains("toolu_dead")
    );
    let side = read_json(&out.join("sess-a.side1.json"));
    assert_eq!(kinds(&side), ["user", "turn"]);
    assert!(
        side["steps"][1]["turn"]["results"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<persisted-output>"),
        "a persisted output whose file is missing stays as the model saw it"
    );
    let sub = read_json(&out.join("sess-a.agent-sub1.json"));
    assert_eq!(kinds(&sub), ["user", "turn", "turn"]);
}

#[test]
fn strict_makes_a_bad_line_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("claude-code");
    let run = lab(&["import", arg(&input), "--strict", "-o", arg(dir.path())]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("lab: failed to import -home-u-proj/sess-a.jsonl:10: not JSON"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_session_goes_to_stdout_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("claude-code/-home-u-proj/sess-a.jsonl");
    // Two sessions (the main one and a sidechain) need a folder.
    let run = lab(&["import", arg(&input)]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("holds 2 sessions (sess-a, sess-a.side1); name a folder"),
        "{}",
        run.stderr
    );
    let sub = fixtures().join("claude-code/-home-u-proj/sess-a/subagents/agent-sub1.jsonl");
    let run = lab(&["import", arg(&sub)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let scenario: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(scenario["name"], "sess-a.agent-sub1");
    // The imported main session runs, and its trace carries the agent's compaction and usage.
    let out = dir.path().join("out");
    assert_eq!(lab(&["import", arg(&input), "-o", arg(&out)]).code, 0);
    let run = lab(&["run", arg(&out.join("sess-a.json")), "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let events: Vec<(&str, &str, u64)> = report["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["stage"] == "observed" || e["kind"] == "usage")
        .map(|e| {
            (
                e["stage"].as_str().unwrap(),
                e["kind"].as_str().unwrap(),
                e["step"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("scenario", "usage", 2),
            ("scenario", "usage", 5),
            ("observed", "compaction", 6),
            ("scenario", "usage", 7)
        ]
    );
}
