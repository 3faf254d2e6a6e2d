//! The experiments of docs/commands.md, docs/findings.md through the binary: `lab --break`, `lab
//! --selftest`, `lab run --break`, `lab matrix` and `lab sweep` (`lab report` and `lab verify` are
//! in `reports`). Every value below was derived by hand from docs/profiles.md (course-main) and
//! §5.4 (prototype) before it was asserted; the comment next to each says how.

use serde_json::{Value, json};

use crate::util::{SHORT_SPILL_DIR, arg, f01, lab_ok, scenario, table_row, usage_error};

/// Runs `lab` with `--format json` appended and parses stdout.
fn ok_json(args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&lab_ok(&args).stdout).unwrap()
}

/// The prototype replay's spill file `a1.txt`, read from the scenario file.
fn prototype_a1() -> String {
    let text = std::fs::read_to_string(scenario("prototype-replay.json")).unwrap();
    let replay: Value = serde_json::from_str(&text).unwrap();
    format!("{}/a1.txt", replay["spill_dir"].as_str().unwrap())
}

/// One `== Dn · label ==` section of the break output: its name and its indented lines.
#[derive(Debug)]
struct Section {
    name: String,
    lines: Vec<String>,
}

impl Section {
    /// The primary `observable  a → b` lines as `(observable, "a → b")`, spacing ignored.
    fn changes(&self) -> Vec<(String, String)> {
        self.lines
            .iter()
            .map(|line| line.trim())
            .filter(|line| {
                !line.starts_with("change: ")
                    && !line.starts_with("also changed")
                    && *line != "no observable difference"
            })
            .map(|line| {
                let (name, value) = line
                    .split_once(char::is_whitespace)
                    .unwrap_or_else(|| panic!("not a change line: {line}"));
                (name.to_owned(), value.trim().to_owned())
            })
            .collect()
    }

    fn has_line(&self, text: &str) -> bool {
        self.lines.iter().any(|line| line.trim() == text)
    }

    /// The `also changed (...): a 0 → 1, b 1 → 2` line, after its colon.
    fn also_changed(&self) -> Option<&str> {
        self.lines
            .iter()
            .map(|line| line.trim())
            .find(|line| line.starts_with("also changed"))
            .map(|line| line.split_once("): ").expect("a colon after the note").1)
    }
}

fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("== ") {
            let name = rest.split(' ').next().unwrap().to_owned();
            out.push(Section {
                name,
                lines: Vec::new(),
            });
            open = true;
        } else if open && line.starts_with("  ") {
            out.last_mut().unwrap().lines.push(line.to_owned());
        } else {
            open = false;
        }
    }
    out
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

/// `cells[r][c]` of a matrix report as `(values, label)`.
fn cells(report: &Value) -> Vec<Vec<(Value, Value)>> {
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|cell| (cell["values"].clone(), cell["label"].clone()))
                .collect()
        })
        .collect()
}

/// `(value, observed values)` per sweep row.
fn sweep_rows(report: &Value) -> Vec<(u64, Value)> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["value"].as_u64().unwrap(), row["values"].clone()))
        .collect()
}

#[test]
fn break_d6_on_the_deep_default_path_loses_a_result_and_a_pointer() {
    // a1.txt under the replay's spill directory: the prototype's 94-char path.
    let a1 = prototype_a1();
    assert_eq!(a1.chars().count(), 94);
    let out = lab_ok(&["--break", "D6"]);
    assert!(
        out.stdout.starts_with(&format!(
            "prototype-replay · profile prototype · spill file {a1} (94 chars)\n"
        )),
        "{}",
        out.stdout
    );
    let sections = sections(&out.stdout);
    assert_eq!(sections.len(), 1, "{}", out.stdout);
    let d6 = &sections[0];
    assert_eq!(d6.name, "D6");
    assert!(d6.has_line("change: order = swapped; unseen_guard = off"));
    // Swapped order runs micro before budget and, without the guard, micro replaces the unseen
    // b1 (500 chars, not yet persisted) by `omitted`: b1 is never spilled (dropped_unsaved 1). The
    // earlier pass turned a1 into a 31 + 94 = 125-char `saved at` placeholder, which the last
    // pass compacts again (> micro_min 120): pointer_lost 1.
    assert_eq!(
        d6.changes(),
        pairs(&[
            (
                "persisted_files",
                r#"["a1.txt","a2.txt","a3.txt","b1.txt","b2.txt","b3.txt"] → ["a1.txt","a2.txt","a3.txt","b2.txt","b3.txt"]"#
            ),
            ("dropped_unsaved", "0 → 1"),
            ("pointer_lost", "0 → 1"),
        ])
    );
    // a1 (pointer lost) and a2 (snipped without archive) are orphaned; a1, a3 and b1 are
    // placeholders.
    let also = d6.also_changed().expect("lab-only changes");
    assert!(also.contains("orphan_files 1 → 2"), "{also}");
    assert!(also.contains("placeholders 0 → 3"), "{also}");
    assert!(also.contains("unseen_compacted 0 → 1"), "{also}");
}

#[test]
fn break_d6_on_a_short_path_loses_only_the_result() {
    let out = lab_ok(&["--break", "D6", "--spill-dir", SHORT_SPILL_DIR]);
    // `/tmp/lab/tool-results/a1.txt`: 21 + 1 + 6 chars.
    assert!(
        out.stdout.starts_with(
            "prototype-replay · profile prototype · spill file /tmp/lab/tool-results/a1.txt (28 chars)\n"
        ),
        "{}",
        out.stdout
    );
    let sections = sections(&out.stdout);
    assert_eq!(sections.len(), 1, "{}", out.stdout);
    // The `saved at` placeholder is 31 + 28 = 59 chars ≤ 120: the pointer survives.
    let changes = sections[0].changes();
    assert!(
        changes.contains(&("dropped_unsaved".to_owned(), "0 → 1".to_owned())),
        "{changes:?}"
    );
    assert!(
        changes.iter().all(|(name, _)| name != "pointer_lost"),
        "{changes:?}"
    );
    let also = sections[0].also_changed().expect("lab-only changes");
    assert!(!also.contains("pointer_lost"), "{also}");
    assert!(!also.contains("orphan_files"), "{also}");
}

#[test]
fn break_all_runs_d1_to_d6_in_order() {
    let out = lab_ok(&["--break", "all"]);
    let sections = sections(&out.stdout);
    let names: Vec<&str> = sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["D1", "D2", "D3", "D4", "D5", "D6"],
        "{}",
        out.stdout
    );
    // D1: trusting stop_reason ends the loop on the distorted turn, whose tool never runs.
    assert_eq!(
        sections[0].changes(),
        pairs(&[("ran_late_tool", "true → false")])
    );
    // D2: with the guard on, the swapped order loses nothing the prototype measures.
    assert!(sections[1].has_line("no observable difference"));
    assert_eq!(sections[1].changes(), pairs(&[]));
    // D3: without pair protection the snip cut leaves a1's tool_use before the marker.
    assert_eq!(
        sections[2].changes(),
        pairs(&[("pairs_intact", "true → false")])
    );
    assert!(
        sections[2]
            .also_changed()
            .unwrap()
            .contains("api_valid true → false")
    );
    // D4: human approval first lets the deny-listed command through.
    assert_eq!(
        sections[3].changes(),
        pairs(&[("ran_deny_listed", "false → true")])
    );
    // D5: A=(3,1) B=(1,3) C=(1,1); pipelined each job takes ≤ 4, with a barrier 3 + 3.
    assert_eq!(sections[4].changes(), pairs(&[("makespan", "4.0 → 6.0")]));
    let d6 = sections[5].changes();
    assert!(d6.contains(&("dropped_unsaved".to_owned(), "0 → 1".to_owned())));
    assert!(d6.contains(&("pointer_lost".to_owned(), "0 → 1".to_owned())));
}

#[test]
fn an_unknown_break_exits_2_naming_the_accepted_values() {
    usage_error(
        &["--break", "D9"],
        &["unknown break `D9`", "D1, D2, D3, D4, D5, D6 or all"],
    );
}

#[test]
fn break_d6_as_json_lists_each_change() {
    let report = ok_json(&["--break", "D6"]);
    assert_eq!(report["scenario"], "prototype-replay");
    assert_eq!(report["with_layers"], true);
    let breaks = report["breaks"].as_array().unwrap();
    assert_eq!(breaks.len(), 1);
    assert_eq!(breaks[0]["name"], "D6");
    assert_eq!(breaks[0]["spill_path"], prototype_a1());
    assert_eq!(breaks[0]["spill_path_chars"], 94);
    let changed = breaks[0]["changed"].as_array().unwrap();
    for change in changed {
        let keys: Vec<&String> = change.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["observable", "baseline", "broken"], "{change}");
    }
    assert_eq!(
        breaks[0]["changed"],
        json!([
            {"observable": "persisted_files",
             "baseline": ["a1.txt", "a2.txt", "a3.txt", "b1.txt", "b2.txt", "b3.txt"],
             "broken": ["a1.txt", "a2.txt", "a3.txt", "b2.txt", "b3.txt"]},
            {"observable": "dropped_unsaved", "baseline": 0, "broken": 1},
            {"observable": "pointer_lost", "baseline": 0, "broken": 1},
        ])
    );
}

#[test]
fn selftest_passes_its_eight_checks() {
    let out = lab_ok(&["--selftest"]);
    let text = &out.stdout;
    let passed: Vec<&str> = text.lines().filter(|l| l.starts_with("✓ ")).collect();
    assert_eq!(passed.len(), 8, "{text}");
    assert!(!text.contains('✗'), "{text}");
    assert!(text.ends_with("\nSELFTEST PASSED\n"), "{text}");
    // The baseline probe: every 500-char result is over `large` 300 and the batch over 400.
    let baseline = |key: &str| -> String {
        text.lines()
            .filter_map(|line| line.trim().split_once(" = "))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.to_owned())
            .unwrap_or_else(|| panic!("no baseline `{key}` in:\n{text}"))
    };
    assert_eq!(
        baseline("persisted_files"),
        r#"["a1.txt","a2.txt","a3.txt","b1.txt","b2.txt","b3.txt"]"#
    );
    assert_eq!(baseline("makespan"), "4.0");
    assert_eq!(baseline("dropped_unsaved"), "0");
    assert!(
        passed.contains(
            &"✓ the barrier-free pipeline takes 4.0 (makespan): expected 4.0, measured 4.0"
        ),
        "{text}"
    );
}

#[test]
fn run_break_d6_on_f1_shows_no_difference_and_the_broken_run() {
    let out = lab_ok(&["run", arg(&f01()), "--break", "D6"]);
    let text = &out.stdout;
    assert!(
        text.starts_with(
            "f01-coverage-gap · profile course-main · spill file /var/folders/lab/res/toolu_0.txt (32 chars)\n"
        ),
        "{text}"
    );
    // F1 runs its stages one by one (no `prepare`), so the order does not matter, and micro runs
    // after the assistant message, so the guard has nothing to hold back.
    let sections = sections(text);
    assert_eq!(sections.len(), 1, "{text}");
    assert_eq!(sections[0].name, "D6");
    assert!(sections[0].has_line("no observable difference"), "{text}");
    let (_, broken) = text
        .split_once("\nthe run with D6:\n\n")
        .unwrap_or_else(|| panic!("no broken run in:\n{text}"));
    assert!(
        broken.contains("switches: order=swapped unseen_guard=false pair_protection=true"),
        "{broken}"
    );
    assert_eq!(
        table_row(broken, "dropped_unsaved"),
        ["dropped_unsaved", "1"]
    );
}

#[test]
fn run_break_d1_on_f1_is_refused() {
    usage_error(
        &["run", arg(&f01()), "--break", "D1"],
        &["break D1", "`trust_stop_reason`", "profile course-main"],
    );
}

/// The F6 2×2 of the prototype replay (`--rows order --cols unseen_guard`) under three command
/// lines. Each case names its extra arguments, the spill file's path length and the values
/// `[dropped_unsaved, pointer_lost]` of the two guard-off cells (intact order, then swapped); the
/// guard-on cells lose nothing, and the labels stay where they are in every case.
#[test]
fn the_order_guard_matrix() {
    let cases: [(&str, &[&str], u64, [Value; 2]); 3] = [
        // F6 with a file path ≥ 90: guard-off alone already loses a pointer (125 > 120).
        ("deep path", &[], 94, [json!([0, 1]), json!([1, 1])]),
        // F6, short path: only removing both safeguards (D6) loses anything, and no pointer.
        (
            "short path",
            &["--spill-dir", SHORT_SPILL_DIR],
            28,
            [json!([0, 0]), json!([1, 0])],
        ),
        // A `--set` that an axis overrides does not move the labels: cells are named against
        // the scenario's own switches, so the cell with both safeguards off is still D6.
        (
            "a --set the axes override",
            &["--set", "unseen_guard=off"],
            94,
            [json!([0, 1]), json!([1, 1])],
        ),
    ];
    for (case, extra, path_chars, [guard_off, both_off]) in cases {
        let args = [
            &["matrix", "--rows", "order", "--cols", "unseen_guard"][..],
            extra,
        ]
        .concat();
        let report = ok_json(&args);
        assert_eq!(report["reference_file"], "a1.txt", "{case}");
        assert_eq!(report["spill_path_chars"], path_chars, "{case}");
        assert_eq!(
            report["rows"]["values"],
            json!(["intact", "swapped"]),
            "{case}"
        );
        assert_eq!(report["cols"]["values"], json!(["on", "off"]), "{case}");
        assert_eq!(
            report["observe"],
            json!(["dropped_unsaved", "pointer_lost"]),
            "{case}"
        );
        assert_eq!(
            cells(&report),
            [
                [(json!([0, 0]), json!("baseline")), (guard_off, Value::Null)],
                [(json!([0, 0]), json!("D2")), (both_off, json!("D6"))],
            ],
            "{case}"
        );
    }
}

#[test]
fn path_experiments_refuse_the_real_directory_store() {
    usage_error(
        &[
            "sweep", "--vary", "path", "--from", "60", "--to", "61", "--store", "dir",
        ],
        &["memory store"],
    );
    usage_error(
        &[
            "matrix",
            "--rows",
            "path=28,94",
            "--cols",
            "order",
            "--store",
            "dir",
        ],
        &["memory store"],
    );
}

#[test]
fn a_matrix_over_keep_results_on_f1() {
    let report = ok_json(&[
        "matrix",
        arg(&f01()),
        "--rows",
        "keep_results=0,1,2,3",
        "--cols",
        "unseen_guard",
        "--observe",
        "dropped_unsaved,placeholders",
    ]);
    assert_eq!(
        report["rows"],
        json!({"kind": "constant", "name": "keep_results", "values": [0, 1, 2, 3]})
    );
    // All five results are seen when micro runs; micro replaces `[:-k]` of them. toolu_0 keeps a
    // pointer (persisted by budget); toolu_1 (120000) and toolu_2..4 (500 > 120) become
    // `omitted` with no file. k=0: nothing (`[:-0]`); k=1: 0..3 → 3 lost, 4 placeholders;
    // k=2: 0..2 → 2 lost, 3; k=3: 0..1 → 1 lost, 2. The guard changes nothing here.
    let expected = [[0, 0], [3, 4], [2, 3], [1, 2]];
    let cells = cells(&report);
    assert_eq!(cells.len(), 4);
    for (k, row) in cells.iter().enumerate() {
        assert_eq!(row.len(), 2);
        for (c, (values, _)) in row.iter().enumerate() {
            assert_eq!(*values, json!(expected[k]), "keep_results={k}, column {c}");
        }
    }
    // Only the profile's own keep_results (3) with the guard on is the baseline.
    let labels: Vec<Vec<&Value>> = cells
        .iter()
        .map(|row| row.iter().map(|(_, label)| label).collect())
        .collect();
    let null = Value::Null;
    let baseline = json!("baseline");
    assert_eq!(
        labels,
        [
            [&null, &null],
            [&null, &null],
            [&null, &null],
            [&baseline, &null]
        ]
    );
}

#[test]
fn a_matrix_refuses_one_axis_twice() {
    usage_error(
        &[
            "matrix",
            "--rows",
            "keep_results=1,2",
            "--cols",
            "keep_results=3,4",
        ],
        &["--rows and --cols are both `keep_results`", "lab sweep"],
    );
}

#[test]
fn a_matrix_rejects_unknown_axes_and_observables() {
    usage_error(
        &["matrix", "--rows", "nope", "--cols", "unseen_guard"],
        &[
            "axis `nope`",
            "profile prototype has no such switch or constant",
        ],
    );
    usage_error(
        &["matrix", "--rows", "keep_results", "--cols", "unseen_guard"],
        &["axis `keep_results` is a constant", "keep_results=1,2,3"],
    );
    usage_error(
        &[
            "matrix",
            "--rows",
            "order",
            "--cols",
            "unseen_guard",
            "--observe",
            "nope",
        ],
        &["unknown observable `nope`", "dropped_unsaved"],
    );
}

#[test]
fn a_path_sweep_of_the_guard_off_replay_has_its_cliff_at_90() {
    let report = ok_json(&[
        "sweep",
        "--vary",
        "path",
        "--from",
        "85",
        "--to",
        "95",
        "--set",
        "unseen_guard=off",
    ]);
    assert_eq!(report["reference_file"], "a1.txt");
    assert_eq!(report["switches"], json!(["unseen_guard=off"]));
    // a1's `saved at` placeholder is 31 + L chars; micro compacts it again when L + 31 > 120.
    let rows = sweep_rows(&report);
    let values: Vec<u64> = rows.iter().map(|(v, _)| *v).collect();
    assert_eq!(values, (85..=95).collect::<Vec<u64>>());
    for (length, observed) in &rows {
        let pointer_lost = u64::from(*length >= 90);
        assert_eq!(*observed, json!([0, pointer_lost]), "path length {length}");
    }
    assert_eq!(
        report["cliffs"],
        json!([{"observable": "pointer_lost", "from": 0, "to": 1, "at": 90}])
    );
}

#[test]
fn a_path_sweep_of_f4_prints_its_cliff() {
    let out = lab_ok(&[
        "sweep",
        arg(&scenario("f04-idempotency-deep-path.json")),
        "--vary",
        "path",
        "--from",
        "60",
        "--to",
        "120",
    ]);
    // The second micro pass compacts toolu_0's `saved at` placeholder (31 + L) when L ≥ 90;
    // toolu_1..3 stay among the last three, so nothing is lost forever.
    assert_eq!(table_row(&out.stdout, "89")[1..], ["0", "0"]);
    assert_eq!(table_row(&out.stdout, "90")[1..], ["0", "1"]);
    let cliffs: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("cliff: "))
        .collect();
    assert_eq!(
        cliffs,
        ["cliff: pointer_lost 0 → 1 at spill file path length 90"],
        "{}",
        out.stdout
    );
}

#[test]
fn a_sweep_of_keep_results_on_f12() {
    let report = ok_json(&[
        "sweep",
        arg(&scenario("f12-keep-results-zero.json")),
        "--vary",
        "keep_results",
        "--from",
        "0",
        "--to",
        "4",
        "--observe",
        "placeholders",
    ]);
    assert_eq!(
        report["vary"],
        json!({"kind": "constant", "name": "keep_results"})
    );
    // Four seen 500-char results: `[:-k]` replaces 4 - k of them for k = 1..4, none for k = 0.
    assert_eq!(
        sweep_rows(&report),
        [
            (0, json!([0])),
            (1, json!([3])),
            (2, json!([2])),
            (3, json!([1])),
            (4, json!([0])),
        ]
    );
    assert_eq!(
        report["cliffs"],
        json!([
            {"observable": "placeholders", "from": 0, "to": 3, "at": 1},
            {"observable": "placeholders", "from": 3, "to": 2, "at": 2},
            {"observable": "placeholders", "from": 2, "to": 1, "at": 3},
            {"observable": "placeholders", "from": 1, "to": 0, "at": 4},
        ])
    );
}

#[test]
fn a_size_sweep_of_f1_crosses_the_batch_budget() {
    // The batch is 120000 + S + 3 × 500 = 121500 + S chars. Up to S = 78500 it is within
    // batch_budget 200000: budget spills nothing and micro drops both toolu_0 and toolu_1.
    // From S = 78501 budget persists toolu_0 (the largest, first on a tie), the total falls
    // under the budget, and only toolu_1 is lost.
    let observe = "persisted_files,dropped_unsaved";
    let report = ok_json(&[
        "sweep",
        arg(&f01()),
        "--vary",
        "size:toolu_1",
        "--from",
        "78499",
        "--to",
        "78502",
        "--observe",
        observe,
    ]);
    assert_eq!(
        sweep_rows(&report),
        [
            (78499, json!([[], 2])),
            (78500, json!([[], 2])),
            (78501, json!([["toolu_0.txt"], 1])),
            (78502, json!([["toolu_0.txt"], 1])),
        ]
    );
    assert_eq!(
        report["cliffs"],
        json!([
            {"observable": "persisted_files", "from": [], "to": ["toolu_0.txt"], "at": 78501},
            {"observable": "dropped_unsaved", "from": 2, "to": 1, "at": 78501},
        ])
    );
    // Past 120000 toolu_1 is the largest: it is persisted instead and toolu_0 is lost; at
    // exactly 120000 the stable sort keeps toolu_0 first.
    let report = ok_json(&[
        "sweep",
        arg(&f01()),
        "--vary",
        "size:toolu_1",
        "--from",
        "119999",
        "--to",
        "120002",
        "--observe",
        observe,
    ]);
    assert_eq!(
        report["cliffs"],
        json!([{"observable": "persisted_files", "from": ["toolu_0.txt"],
                "to": ["toolu_1.txt"], "at": 120001}])
    );
}

#[test]
fn a_sweep_rejects_bad_ranges_and_parameters() {
    usage_error(
        &["sweep", "--vary", "path", "--from", "10", "--to", "5"],
        &["from ≤ to and step ≥ 1", "got 10..5 by 1"],
    );
    usage_error(
        &[
            "sweep", "--vary", "path", "--from", "85", "--to", "95", "--step", "0",
        ],
        &["got 85..95 by 0"],
    );
    usage_error(
        &["sweep", "--vary", "size:nope", "--from", "1", "--to", "2"],
        &["--vary size:nope", "no call `nope`"],
    );
    // F12's results are 500 chars each, far under every threshold: no spill file to measure.
    let f12 = scenario("f12-keep-results-zero.json");
    usage_error(
        &[
            "sweep",
            arg(&f12),
            "--vary",
            "path",
            "--from",
            "85",
            "--to",
            "95",
        ],
        &[arg(&f12), "spills no file"],
    );
}

#[test]
fn compare_gives_one_common_token_measure_for_every_profile() {
    // The common rule is Claude Code's own rough estimate, so under claude-code it must equal
    // the profile's context size; under a profile that counts characters it is about a quarter
    // of them (a JSON character count adds quotes, keys and escapes that the estimate does not).
    let report = ok_json(&[
        "compare",
        "scenarios/c1-per-tool-thresholds.json",
        "scenarios/x1-codex-trigger.json",
        "--profiles",
        "claude-code,codex,course-main",
    ]);
    let columns: Vec<&str> = report["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let at = columns.iter().position(|c| *c == "context_size").unwrap();
    let mut checked = 0;
    for row in report["rows"].as_array().unwrap() {
        if row["error"].is_string() {
            continue;
        }
        let common = row["common_tokens"].as_u64().unwrap();
        let own = row["values"][at].as_u64().unwrap();
        match row["profile"].as_str().unwrap() {
            "claude-code" | "codex" => assert_eq!(common, own, "{row}"),
            _ => assert!(4 * common < own && own < 8 * common, "{row}"),
        }
        checked += 1;
    }
    assert!(checked >= 4, "{report}");
}
