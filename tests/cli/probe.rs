//! `lab probe`: every committed conformance record replays exactly against its profile without
//! node or the agent (what CI proves), a broken profile constant makes a replay fail, bad records
//! are refused with exit 2, and (opt-in, `LAB_PROBE_LIVE=1` with Claude Code 2.1.88, Codex
//! 0.171.0 and Gemini CLI 0.61.0 installed by `lab probe [--agent codex] --install`) a live probe agrees with the
//! profile.

use std::path::{Path, PathBuf};

use crate::util::{lab, lab_ok};

fn records() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    for agent in std::fs::read_dir(&root).unwrap().flatten() {
        for file in std::fs::read_dir(agent.path()).unwrap().flatten() {
            out.push(file.path());
        }
    }
    out.sort();
    out
}

#[test]
fn every_committed_record_replays_exactly() {
    let records = records();
    assert!(records.len() >= 2, "{records:?}");
    let mut compared = 0;
    for record in &records {
        let out = lab_ok(&[
            "probe",
            "--replay",
            record.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["exact"], true, "{}", record.display());
        compared += v["rows"].as_array().unwrap().len();
    }
    // Each record: its items plus the summary-request row. Claude Code, 2.1.88 and 2.1.332:
    // p01 7 tool_use + 7 tool_result + 1 each; p02 (no compaction) 3 + 3 + 1 each; p04 5 + 5 + 1
    // each; p05 3 + 3 + 1, p06 4 + 4 + 1, p07 2 + 2 + 1, p08 2 + 2 + 1, p09 11 + 11 + 1 (+ 1
    // under 2.1.88: its appended TodoWrite reminder, D3), p10 2 + 2 + 1, p11 2 + 2 + 1, p13
    // 2 + 2 + 1 and p16 3 + 3 + 1 (2.1.88 runs Grep and Glob, 2.1.332 refuses them), each
    // under both. p03 under 2.1.88 (compacted: only b3's pair is left) 1 + 1 + 2 user texts
    // (the user context, the summary) + 1, under 2.1.332 (a 1M window: not compacted) 3 + 3 +
    // 1; p12 under 2.1.88 (compacted) 1 + 1 + 6 user texts (two restored files, the user
    // context, the summary) + 1, under 2.1.332 (not compacted) 4 + 4 + 1. 2.1.332 only: p14
    // (compacted keeping turn 2) 4 tool_use + 4 tool_result + 10 user texts (the summary, four
    // restored files as two blocks each, the attribution) + 1; p15 (one below) 8 + 8 + 1. p17
    // (compacted whole at the blocking limit) under 2.1.332 1 + 1 + 6 user texts (two
    // restored files as two blocks each, the attribution, the summary) + 1, under 2.1.88 1 + 1
    // + 2 (the user context, the summary: it restores no file `cat` read) + 1; p18 (one below:
    // 2.1.332 keeps everything) 3 + 3 + 1, under 2.1.88 (compacted) 1 + 1 + 2 + 1.
    // Codex 0.171.0: p21 the user message `go`, 3 calls, 3 outputs, 1; p22 `go`, 2 calls, 2
    // outputs, 1; p23 (compacted) `go`, the summary message, b2's call and output, 1. Gemini
    // CLI 0.61.0: p24 `go`, 2 calls, 2 outputs, 1; p25 `go`, 3 calls, 3 outputs, 1.
    assert_eq!(records.len(), 39);
    let both = 15 + 7 + 11 + 7 + 9 + 5 + 5 + 23 + 5 + 5 + 5 + 7;
    let claude_88 = 1 + 5 + 9 + 5 + 5;
    let claude_332 = 7 + 9 + 19 + 17 + 9 + 7;
    let codex = 8 + 6 + 5;
    let gemini = 6 + 8;
    assert_eq!(compared, 2 * both + claude_88 + claude_332 + codex + gemini);
}

#[test]
fn a_broken_constant_makes_the_replay_fail() {
    let record = "conformance/claude-code-2.1.88/p01-probe-bash-grep-thresholds.json";
    for (constant, item) in [
        ("bash_limit=30001", "toolu_b30001"),
        ("grep_limit=20001", "toolu_g20001"),
        ("preview=1999", "toolu_b30001"),
    ] {
        let out = lab(&["probe", "--replay", record, "--const", constant]);
        assert_eq!(out.code, 1, "{constant}");
        let text = out.stdout;
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("tool_result {item}")))
            .unwrap();
        assert!(line.contains("differs at "), "{constant}: {line}");
    }
}

#[test]
fn a_broken_read_cap_makes_the_read_replays_fail() {
    // p10's file is counted 25000 tokens (read whole), p11's 25001 (refused): a cap one lower
    // refuses p10's, one higher reads p11's.
    for (record, constant, item) in [
        (
            "conformance/claude-code-2.1.88/p10-probe-read-token-cap.json",
            "read_max_tokens=24999",
            "toolu_rat",
        ),
        (
            "conformance/claude-code-2.1.88/p11-probe-read-over-cap.json",
            "read_max_tokens=25001",
            "toolu_rover",
        ),
    ] {
        let out = lab(&["probe", "--replay", record, "--const", constant]);
        assert_eq!(out.code, 1, "{constant}");
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("tool_result {item}")))
            .unwrap();
        assert!(line.contains("differs at 0"), "{constant}: {line}");
        lab_ok(&["probe", "--replay", record]);
    }
}

#[test]
fn the_todo_reminder_is_compared_when_the_profile_models_it() {
    // D3: 2.1.88 appended its TodoWrite reminder (481 chars, hashed) after ten assistant
    // records; the profile's `todo_reminder` (on by default) appends the same, and the replay
    // compares it. Switched off, the profile sends none and the comparison leaves it out.
    let record = "conformance/claude-code-2.1.88/p09-probe-ten-calls-reminder.json";
    let out = lab_ok(&["probe", "--replay", record]);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("appended reminder 1"))
        .unwrap();
    assert!(line.ends_with("exact"), "{line}");
    let off = lab_ok(&["probe", "--replay", record, "--set", "todo_reminder=off"]);
    assert!(!off.stdout.contains("appended reminder"), "{}", off.stdout);
    assert!(
        off.stdout.contains("23 of 23 items exact"),
        "{}",
        off.stdout
    );
    // 2.1.332 ran without TodoWrite (`--tools`): no reminder, and none compared.
    let out = lab_ok(&[
        "probe",
        "--replay",
        "conformance/claude-code-2.1.332/p09-probe-ten-calls-reminder.json",
    ]);
    assert!(!out.stdout.contains("appended reminder"), "{}", out.stdout);
}

#[test]
fn a_broken_restore_limit_makes_the_restoration_replay_fail() {
    // p12 restored both files read before the compaction, oldest first: with one file the
    // profile restores only the last one read.
    let record = "conformance/claude-code-2.1.88/p12-probe-restore-after-compact.json";
    let out = lab(&["probe", "--replay", record, "--const", "restore_files=1"]);
    assert_eq!(out.code, 1);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("user text 2"))
        .unwrap();
    assert!(line.contains("differs at 53"), "{line}");
    lab_ok(&["probe", "--replay", record]);
}

#[test]
fn a_broken_glob_cap_makes_the_glob_replay_fail() {
    // Glob's 50001-char result was persisted: with the cap one higher the profile keeps it.
    let record = "conformance/claude-code-2.1.88/p08-probe-glob-thresholds.json";
    let out = lab(&["probe", "--replay", record, "--const", "max_result=50001"]);
    assert_eq!(out.code, 1);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("tool_result toolu_gl50001"))
        .unwrap();
    assert!(line.contains("differs at 0"), "{line}");
}

#[test]
fn a_broken_2_1_332_window_or_blocking_limit_makes_its_boundary_replays_fail() {
    // p14 counted 967000 and compacted, p15 966999 and did not: a window one token larger
    // raises the threshold past p14's count, one smaller lowers it to p15's.
    // p17 counted 977000, at the blocking limit, and compacted with nothing before its last
    // turn; p18 976999, and did not: a blocking buffer one token smaller raises the limit past
    // p17, one larger lowers it to p18.
    for (record, constant, real, lab_calls) in [
        (
            "p14-probe-compact-keeps-last-turn",
            "context_window=1000001",
            1,
            0,
        ),
        ("p15-probe-compact-one-below", "context_window=999999", 0, 1),
        (
            "p17-probe-compact-whole-one-turn",
            "blocking_buffer=2999",
            1,
            0,
        ),
        (
            "p18-probe-compact-one-turn-below",
            "blocking_buffer=3001",
            0,
            1,
        ),
    ] {
        let path = format!("conformance/claude-code-2.1.332/{record}.json");
        lab_ok(&["probe", "--replay", &path]);
        let out = lab(&["probe", "--replay", &path, "--const", constant]);
        assert_eq!(out.code, 1, "{record}");
        let expected = format!("real \"{real}\" lab \"{lab_calls}\"");
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with("summary requests") && l.contains(&expected)),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn the_2_1_332_records_differ_from_the_2_1_88_profile() {
    // What changed between the versions shows up as differences: 2.1.88 estimates 4 characters
    // a token in a 200K window (it compacts p15 too, and sends the whole history as the summary
    // and restored files), refuses p11's file, and offers Grep and Glob.
    for (record, item) in [
        ("p15-probe-compact-one-below", "summary requests"),
        ("p11-probe-read-over-cap", "tool_result toolu_rover"),
        ("p16-probe-search-tools-absent", "tool_result toolu_gsmall"),
    ] {
        let path = format!("conformance/claude-code-2.1.332/{record}.json");
        let out = lab(&["probe", "--replay", &path, "--profile", "claude-code"]);
        assert_eq!(out.code, 1, "{record}");
        let line = out.stdout.lines().find(|l| l.starts_with(item)).unwrap();
        assert!(line.contains("differs at"), "{record}: {line}");
    }
    // And switch `search_tools` on, the 2.1.332 profile runs Grep and Glob where the agent
    // refused them.
    let path = "conformance/claude-code-2.1.332/p16-probe-search-tools-absent.json";
    let out = lab(&["probe", "--replay", path, "--set", "search_tools=on"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("5 of 7 items exact"), "{}", out.stdout);
}

#[test]
fn a_broken_autocompact_buffer_makes_the_boundary_replay_fail() {
    // 166999 counted: a buffer one token larger lowers the threshold to 166999, and the profile
    // compacts where the agent did not.
    let record = "conformance/claude-code-2.1.88/p02-probe-autocompact-usage-166999.json";
    let out = lab(&[
        "probe",
        "--replay",
        record,
        "--const",
        "autocompact_buffer=13001",
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("summary requests") && l.contains("real \"0\" lab \"1\"")),
        "{}",
        out.stdout
    );
    lab_ok(&["probe", "--replay", record]);
}

#[test]
fn a_broken_codex_constant_makes_the_replay_fail() {
    // An output cap one token higher keeps the 40001-byte output whole; the 49999-byte one is
    // still cut, but at other places.
    let record = "conformance/codex-0.171.0/p21-probe-codex-output-cap.json";
    lab_ok(&["probe", "--replay", record]);
    let out = lab(&[
        "probe",
        "--replay",
        record,
        "--const",
        "tool_output_tokens=10001",
    ]);
    assert_eq!(out.code, 1);
    for item in ["c40001", "c49999"] {
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("function_call_output {item}")))
            .unwrap();
        assert!(line.contains("differs at "), "{line}");
    }
    // The profile counts 244800 reported + 1 for b1's `one` = 244801; a window of 272004 puts
    // the limit at 244803 (272002 would give 244801, still reached): the profile does not
    // compact where Codex did.
    let record = "conformance/codex-0.171.0/p23-probe-codex-compact-at.json";
    lab_ok(&["probe", "--replay", record]);
    let out = lab(&[
        "probe",
        "--replay",
        record,
        "--const",
        "context_window=272004",
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("summary requests") && l.contains("real \"1\" lab \"0\"")),
        "{}",
        out.stdout
    );
}

#[test]
fn a_broken_gemini_constant_makes_the_replay_fail() {
    // p25's outputs are 25000 tokens each (100000 chars / 4). Before the last request m3 (the
    // latest turn) is skipped; protecting 24999 instead of 50000 makes m2 cross the line, so m2
    // and m1 are prunable, 50000 tokens ≥ 30000: both are masked where Gemini CLI kept them.
    let record = "conformance/gemini-cli-0.61.0/p25-probe-gemini-mask-below.json";
    lab_ok(&["probe", "--replay", record]);
    let out = lab(&["probe", "--replay", record, "--const", "mask_protect=24999"]);
    assert_eq!(out.code, 1);
    for item in ["m1", "m2", "m3"] {
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("function_response {item}")))
            .unwrap();
        assert_eq!(line.contains("differs at 0"), item != "m3", "{line}");
    }
}

#[test]
fn a_file_that_is_not_a_record_is_refused() {
    let out = lab(&[
        "probe",
        "--replay",
        "scenarios/probe/p01-probe-bash-grep-thresholds.json",
    ]);
    assert_eq!(out.code, 2);
    let err = out.stderr;
    assert!(
        err.contains(
            "not a conformance record (expected \"format\": \"harness-lab conformance v1\")"
        ),
        "{err}"
    );
    let out = lab(&[
        "probe",
        "scenarios/probe/p01-probe-bash-grep-thresholds.json",
        "--agent-bin",
        "/nonexistent/claude",
    ]);
    assert_eq!(out.code, 2);
    let out = lab(&[
        "probe",
        "scenarios/probe/p21-probe-codex-output-cap.json",
        "--agent",
        "opencode",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("--agent opencode: expected claude-code, codex or gemini-cli"),
        "{}",
        out.stderr
    );
}

/// Opt-in: needs node and `lab probe --agent codex --install` (0.171.0); never part of
/// `.ci/run`.
#[test]
fn live_codex_probe_agrees_with_the_profile() {
    if std::env::var("LAB_PROBE_LIVE").as_deref() != Ok("1") {
        return;
    }
    let out = lab(&[
        "probe",
        "scenarios/probe/p23-probe-codex-compact-at.json",
        "--agent",
        "codex",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["version"], "0.171.0");
}

/// Opt-in: needs node and `lab probe --agent gemini-cli --install` (0.61.0); never part of
/// `.ci/run`.
#[test]
fn live_gemini_probe_agrees_with_the_profile() {
    if std::env::var("LAB_PROBE_LIVE").as_deref() != Ok("1") {
        return;
    }
    let out = lab(&[
        "probe",
        "scenarios/probe/p25-probe-gemini-mask-below.json",
        "--agent",
        "gemini-cli",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["version"], "0.61.0");
}

/// Opt-in: needs node and `lab probe --install` (2.1.88); never part of `.ci/run`.
#[test]
fn live_probe_agrees_with_the_profile() {
    if std::env::var("LAB_PROBE_LIVE").as_deref() != Ok("1") {
        return;
    }
    let out = lab(&[
        "probe",
        "scenarios/probe/p01-probe-bash-grep-thresholds.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["version"], "2.1.88");
}
