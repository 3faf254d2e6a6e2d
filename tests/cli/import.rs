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

#[test]
fn audit_sets_profiles_beside_the_agent() {
    let input = fixtures().join("claude-code");
    let profiles = "course-site,course-main,course-latest,prototype,claude-code";
    let run = lab(&[
        "audit",
        arg(&input),
        "--profiles",
        profiles,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let sessions = report["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3);
    let main = sessions.iter().find(|s| s["name"] == "sess-a").unwrap();
    assert_eq!(main["turns"], 3);
    assert_eq!(main["agent_compactions"], json!([3]));
    let profiles: Vec<&str> = main["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["profile"].as_str().unwrap())
        .collect();
    assert_eq!(
        profiles,
        [
            "course-site",
            "course-main",
            "course-latest",
            "prototype",
            "claude-code"
        ]
    );
    for profile in main["profiles"].as_array().unwrap() {
        let first = profile["compactions"].as_array().unwrap().first().cloned();
        let expected = match first.and_then(|t| t.as_u64()) {
            None => "never".to_owned(),
            Some(3) => "same turn".to_owned(),
            Some(t) if t < 3 => format!("earlier (turn {t})"),
            Some(t) => format!("later (turn {t})"),
        };
        assert_eq!(profile["versus_agent"], expected.as_str(), "{profile}");
    }
    // Worst first: the losses of all profiles together never grow down the list.
    let losses: Vec<u64> = sessions
        .iter()
        .map(|s| {
            s["profiles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    p["dropped_unsaved"].as_u64().unwrap()
                        + p["pointer_lost"].as_u64().unwrap()
                        + p["unrecoverable"].as_u64().unwrap()
                        + u64::from(p["pairs_broken"].as_bool().unwrap())
                })
                .sum()
        })
        .collect();
    assert!(losses.windows(2).all(|w| w[0] >= w[1]), "{losses:?}");
    assert_eq!(report["totals"].as_array().unwrap().len(), 5);
    assert_eq!(report["skipped_lines"], 2);
}

/// The real logs of `../shared/fixtures/sessions` (not committed; see its README): every file
/// imports and every folder audits. Skipped with a message when the folder is absent.
#[test]
fn real_session_logs_import_and_audit() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../shared/fixtures/sessions"),
        manifest.join("../../shared/fixtures/sessions"),
    ];
    let Some(root) = candidates.iter().find(|p| p.is_dir()) else {
        eprintln!("skipped: no ../shared/fixtures/sessions next to the checkout");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 4, "{folders:?}");
    for folder in &folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(&name);
        let run = lab(&["import", arg(folder), "-o", arg(&out)]);
        assert_eq!(run.code, 0, "import {name}: {}", run.stderr);
        let run = lab(&["audit", arg(folder), "--format", "json"]);
        assert_eq!(run.code, 0, "audit {name}: {}", run.stderr);
    }
    // The 2.1.88 autocompaction: the agent compacted before the third request; the usage the
    // API reported for the second response (1000 input + 165700 cache read + 10 output) plus
    // the estimate of the results after it is what crossed 167000 (docs/probe.md,
    // D6). The claude-code profile does not read reported usage yet (issue 14), so it does not
    // compact here; the scenario carries what it needs.
    let auto = dir
        .path()
        .join("claude-code/7f65b90a-5546-41aa-91e9-2b4f90386e28.json");
    let scenario = read_json(&auto);
    let kinds = kinds(&scenario);
    assert_eq!(kinds, ["user", "turn", "turn", "observed", "turn", "turn"]);
    let usage = &scenario["steps"][2]["turn"]["usage"];
    assert_eq!(
        usage,
        &json!({"input_tokens": 1000, "cache_read_input_tokens": 165700, "output_tokens": 10})
    );
    assert_eq!(scenario["steps"][3]["observed"]["pre_tokens"], 167000);
}

#[test]
fn codex_rollout_pairs_calls_by_call_id() {
    let input = fixtures().join("codex/rollout-2026-01-01T09-00-00-test.jsonl");
    let run = lab(&["import", arg(&input)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let scenario: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(scenario.get("profile").is_none(), "no Codex profile yet");
    // The developer message is not replayed; the summary answer folds into the compaction.
    assert_eq!(
        kinds(&scenario),
        ["user", "turn", "observed", "user", "idle", "turn", "turn"]
    );
    let turn = &scenario["steps"][1]["turn"];
    assert_eq!(
        turn["calls"],
        json!([
            {"id": "call_1", "name": "exec_command", "input": {"cmd": "ls"}},
            {"id": "call_2", "name": "exec_command", "input": {"arguments": "not json"}}
        ])
    );
    assert_eq!(
        turn["results"],
        json!([
            {"id": "call_1", "text": "Output:\na.rs\nb.rs\n"},
            {"id": "call_2", "text": "bash: not: command not found"}
        ]),
        "outputs in call order"
    );
    assert_eq!(
        turn["usage"],
        json!({"input_tokens": 1000, "cache_read_input_tokens": 4000, "output_tokens": 12})
    );
    let summary = "Another language model started to solve this problem ... SUMMARY: listed files";
    assert_eq!(
        scenario["steps"][2]["observed"],
        json!({"compaction": "auto", "summary_chars": summary.len()})
    );
    // 09:00:02.100 (the last response) → 10:10:02.100: 70 minutes.
    assert_eq!(scenario["steps"][4]["idle"], 70);
    assert_eq!(
        scenario["steps"][5]["turn"]["calls"][0]["input"],
        json!({"input": "*** Begin Patch\n*** End Patch"})
    );
    assert_eq!(scenario["steps"][6]["turn"]["text"], "done");
    let dir = tempfile::tempdir().unwrap();
    let run = lab(&["import", arg(&input), "-o", arg(dir.path())]);
    assert!(
        run.stdout
            .contains("rollout-2026-01-01T09-00-00-test.jsonl:10: not JSON"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(":11: unknown record type `mystery`"),
        "{}",
        run.stdout
    );
    let run = lab(&["import", arg(&input), "--strict"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("-test.jsonl:10: not JSON"),
        "{}",
        run.stderr
    );
}

#[test]
fn cline_session_with_its_compaction() {
    let input = fixtures().join("cline/demo.messages.json");
    let dir = tempfile::tempdir().unwrap();
    let run = lab(&["import", arg(&input), "-o", arg(dir.path())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("demo.messages.json:1: message 5: a message has role `user` or `assistant`"),
        "{}",
        run.stdout
    );
    let scenario = read_json(&dir.path().join("demo.json"));
    assert_eq!(
        kinds(&scenario),
        ["observed", "user", "user", "turn", "turn"]
    );
    // `<SYSTEM_NOTICE>` 15 + `\n` + `Earlier context was compacted.` 30 + `\n` + 16.
    assert_eq!(
        scenario["steps"][0]["observed"],
        json!({"compaction": "manual_compaction", "summary_chars": 63})
    );
    assert_eq!(
        scenario["steps"][2]["user"],
        "fix the header\n\n[file /p/h.tsx]\nexport const H = 1;\n"
    );
    let turn = &scenario["steps"][3]["turn"];
    assert_eq!(
        turn["results"],
        json!([
            {"id": "toolu_c1", "text": "export const H = 1;"},
            {"id": "toolu_c2", "text": "h.tsx"}
        ])
    );
    assert_eq!(
        turn["usage"],
        json!({"input_tokens": 900, "cache_read_input_tokens": 100, "output_tokens": 30})
    );
}

/// `--redact`: the same structure, ids, tool names and sizes, and none of the original text.
#[test]
fn redact_keeps_sizes_and_structure() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures().join("claude-code");
    let (plain, redacted) = (dir.path().join("plain"), dir.path().join("redacted"));
    assert_eq!(lab(&["import", arg(&input), "-o", arg(&plain)]).code, 0);
    let run = lab(&["import", arg(&input), "--redact", "-o", arg(&redacted)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for name in ["sess-a.json", "sess-a.side1.json", "sess-a.agent-sub1.json"] {
        let a = read_json(&plain.join(name));
        let b = read_json(&redacted.join(name));
        same_shape(&a["steps"], &b["steps"], "steps");
        let text = std::fs::read_to_string(redacted.join(name)).unwrap();
        for secret in [
            "fix the build",
            "mismatched",
            "Cargo.toml",
            "proj",
            "Looking",
        ] {
            let steps = serde_json::to_string(&b["steps"]).unwrap();
            assert!(!steps.contains(secret), "{name} leaks {secret}: {text}");
        }
        // Every profile measures the same sizes.
        for profile in ["course-main", "course-site", "claude-code"] {
            let measure = |dir: &Path| {
                let run = lab(&[
                    "run",
                    arg(&dir.join(name)),
                    "--profile",
                    profile,
                    "--format",
                    "json",
                ]);
                let report: Value = serde_json::from_str(&run.stdout).unwrap();
                report["observables"]["peak_context_size"].clone()
            };
            assert_eq!(
                measure(&plain),
                measure(&redacted),
                "{name} under {profile}"
            );
        }
    }
}

/// Equal keys, ids, tool names, numbers and string lengths (in characters, and line counts).
fn same_shape(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            assert_eq!(x.chars().count(), y.chars().count(), "{at}");
            assert_eq!(x.lines().count(), y.lines().count(), "{at}");
            if at.ends_with(".id") || at.ends_with(".name") {
                assert_eq!(x, y, "{at}");
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                same_shape(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (key, value) in x {
                same_shape(value, &y[key], &format!("{at}.{key}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}
