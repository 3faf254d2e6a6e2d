//! The memory lab end to end: both store backends agree on every memory scenario, each break
//! MB1..MB5 changes what its safeguard protects and nothing else, the growth experiment keeps
//! its shape, and memory commands refuse what they cannot run.

use lab::compaction::store::StoreKind;
use lab::memory::breaks::{self, MemoryBreakReport};
use lab::memory::growth::{self, GrowthRun};
use lab::options::RunOptions;
use lab::replay::Ran;
use lab::scenario::Scenario;

use crate::util::{arg, lab, lab_ok, manifest_dir, refused, scenarios_dir};

fn memory_scenarios() -> Vec<std::path::PathBuf> {
    let files = lab::experiments::verify::scenario_files(&scenarios_dir().join("memory")).unwrap();
    assert!(files.len() >= 18, "found {} memory scenarios", files.len());
    files
}

fn memory_run(scenario: &Scenario, store: StoreKind) -> lab::memory::run::MemoryReport {
    let options = RunOptions {
        store,
        ..Default::default()
    };
    match lab::replay::run_any(scenario, &options).unwrap() {
        Ran::Memory(report) => *report,
        Ran::Compaction(report) => panic!("{} ran as compaction", report.scenario),
    }
}

#[test]
fn memory_and_dir_backends_agree_on_every_memory_scenario() {
    for path in memory_scenarios() {
        let scenario = Scenario::load(&path).unwrap();
        let memory = memory_run(&scenario, StoreKind::Memory);
        let dir = memory_run(&scenario, StoreKind::Dir);
        let label = path.display();
        assert!(memory.passed(), "{label}: {:?}", memory.expect);
        assert!(!memory.expect.is_empty(), "{label} has no expectations");
        assert_eq!(memory.observables, dir.observables, "{label}");
        assert_eq!(memory.files, dir.files, "{label}");
        assert_eq!(memory.index, dir.index, "{label}");
        assert_eq!(memory.system, dir.system, "{label}");
        assert_eq!(memory.expect, dir.expect, "{label}");
        assert_eq!(memory.trace, dir.trace, "{label}");
    }
}

#[test]
fn memory_runs_agree_through_the_binary_on_both_stores() {
    let path = scenarios_dir().join("memory/m07-consolidation-rollback.json");
    let on_memory = lab(&["run", arg(&path), "--format", "json"]);
    let on_dir = lab(&["run", arg(&path), "--store", "dir", "--format", "json"]);
    assert_eq!(on_memory.code, 0, "{}", on_memory.stderr);
    assert_eq!(on_memory.stdout, on_dir.stdout);
    let value: serde_json::Value = serde_json::from_str(&on_memory.stdout).unwrap();
    assert_eq!(value["observables"]["records_lost"], 0);
    assert_eq!(value["observables"]["records"], 11);
}

fn all_breaks() -> MemoryBreakReport {
    let list = breaks::parse("all").unwrap();
    breaks::run(&list, None, &RunOptions::default()).unwrap()
}

#[test]
fn each_break_changes_what_it_protects_and_nothing_else() {
    let report = all_breaks();
    assert_eq!(report.profile, "memory-main");
    let names: Vec<&str> = report.breaks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["MB1", "MB2", "MB3", "MB4", "MB5"]);
    for outcome in &report.breaks {
        assert!(
            !outcome.changed.is_empty(),
            "{} changes nothing",
            outcome.name
        );
        assert!(
            outcome.stray().is_empty(),
            "{} changes {:?} outside {:?}",
            outcome.name,
            outcome.stray(),
            outcome.protects
        );
    }
    // MB4 is the break with the largest effect: without the snapshot a failed consolidation
    // loses all eleven records of m07.
    let mb4 = &report.breaks[3];
    assert_eq!(mb4.scenario, "m07-consolidation-rollback");
    let lost = mb4
        .changed
        .iter()
        .find(|c| c.observable == "records_lost")
        .expect("MB4 changes records_lost");
    assert_eq!(
        (lost.baseline.clone(), lost.broken.clone()),
        (serde_json::json!(0), serde_json::json!(11))
    );
}

#[test]
fn every_memory_scenario_runs_under_every_applicable_break() {
    // A break run on any memory-main scenario must either change nothing or stay inside what
    // its safeguard protects.
    let list = breaks::parse("all").unwrap();
    for path in memory_scenarios() {
        let scenario = Scenario::load(&path).unwrap();
        if scenario.profile.as_deref() != Some("memory-main") {
            continue;
        }
        let report = breaks::run(&list, Some(&scenario), &RunOptions::default()).unwrap();
        for outcome in &report.breaks {
            assert!(
                outcome.stray().is_empty(),
                "{}: {} changes {:?}",
                path.display(),
                outcome.name,
                outcome.stray()
            );
        }
    }
}

#[test]
fn lab_memory_break_prints_baseline_against_broken() {
    let out = lab(&["memory", "--break", "MB4"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("memory breaks · profile memory-main\n")
    );
    assert!(out.stdout.contains("== MB4 · "), "{}", out.stdout);
    assert!(out.stdout.contains("records_lost"), "{}", out.stdout);
    assert!(out.stdout.contains("0 → 11"), "{}", out.stdout);
    let json = lab(&["memory", "--break", "all", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["breaks"].as_array().map(Vec::len), Some(5));
}

fn column(run: &GrowthRun, f: impl Fn(&growth::SessionRow) -> usize) -> Vec<usize> {
    run.rows.iter().map(f).collect()
}

#[test]
fn growth_main_stops_consolidating_and_only_grows() {
    let report = growth::run();
    assert_eq!(report, growth::run(), "the experiment is deterministic");
    assert_eq!(report.sessions, 60);
    let main = &report.runs[0];
    assert_eq!(main.variant, "memory-main");
    assert_eq!(main.rows.len(), 60);
    let skipped = column(main, |r| r.consolidations_skipped);
    let first = skipped
        .iter()
        .position(|&s| s > 0)
        .expect("memory-main skips a consolidation");
    // From the first skip on, the catalog is over the cap for good: every later session skips
    // once more, no consolidation succeeds again and the store only grows.
    assert!(main.rows[first].catalog_chars > 20000);
    let done = main.rows[first].consolidations;
    for pair in main.rows[first..].windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert_eq!(b.consolidations_skipped, a.consolidations_skipped + 1);
        assert_eq!(b.consolidations, done);
        assert!(b.records > a.records && b.store_chars > a.store_chars);
    }
    // Before it, every consolidation stayed under the cap.
    assert!(
        main.rows[..first]
            .iter()
            .all(|r| r.consolidations_skipped == 0)
    );
}

#[test]
fn growth_chunked_never_skips_and_stays_bounded() {
    let report = growth::run();
    let (main, chunked) = (&report.runs[0], &report.runs[1]);
    assert_eq!(chunked.variant, "memory-main + chunked_consolidation");
    assert!(chunked.rows.iter().all(|r| r.consolidations_skipped == 0));
    let last = |run: &GrowthRun| run.rows.last().cloned().unwrap();
    assert!(last(chunked).store_chars < last(main).store_chars);
    assert!(last(chunked).records < last(main).records);
    // Chunking pays in model calls.
    assert!(last(chunked).model_calls > last(main).model_calls);
    // Both variants saw the same facts.
    assert_eq!(last(chunked).facts_stored, last(main).facts_stored);
}

#[test]
fn memory_commands_refuse_what_they_cannot_run() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["memory", "--break", "MB9"],
            "unknown memory break `MB9` (expected MB1, MB2, MB3, MB4, MB5 or all)",
        ),
        (
            &["memory", "--break", "MB1", "--profile", "memory-site"],
            "MB1 (path_guard = off) does not apply to memory-site",
        ),
        (
            &["memory", "--break", "MB1", "--profile", "course-main"],
            "memory breaks need a memory profile (memory-main, memory-site), not course-main",
        ),
        (&["memory"], "required arguments were not provided"),
        (
            &[
                "run",
                "scenarios/memory/m02-path-guards.json",
                "--break",
                "D6",
            ],
            "`D6` is a compaction break and memory-main is a memory profile",
        ),
        (
            &["run", "scenarios/f01-coverage-gap.json", "--break", "MB1"],
            "memory breaks need a memory profile",
        ),
    ];
    let root = manifest_dir();
    for (args, message) in cases {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.starts_with("scenarios/") {
                    root.join(a).display().to_string()
                } else {
                    (*a).to_owned()
                }
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, &[message]);
    }
}

#[test]
fn lab_profiles_lists_the_memory_profiles_after_the_compaction_ones() {
    let out = lab(&["profiles", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "lab.profiles/1");
    let list = doc["profiles"].as_array().unwrap();
    let names: Vec<(&str, &str)> = list
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("course-site", "compaction"),
            ("course-main", "compaction"),
            ("course-latest", "compaction"),
            ("prototype", "compaction"),
            ("claude-code", "compaction"),
            ("claude-code-2.1.332", "compaction"),
            ("anthropic-api", "compaction"),
            ("codex", "compaction"),
            ("cline", "compaction"),
            ("opencode", "compaction"),
            ("kilo", "compaction"),
            ("opencode-v2", "compaction"),
            ("gemini-cli", "compaction"),
            ("openhands", "compaction"),
            ("codex-remote", "compaction"),
            ("memory-main", "memory"),
            ("memory-site", "memory"),
        ]
    );
    assert_eq!(list[15]["constants"]["recall_limit"], 20000);
    assert_eq!(list[16]["constants"]["consolidate_input"], 16000);
    assert_eq!(list[16]["settable"], serde_json::json!([]));
    let text = lab(&["profiles"]).stdout;
    assert!(text.contains("\nmemory-site — "), "{text}");
    assert!(text.contains("(0: no limit)"), "{text}");
}

/// Options that do not apply to a command are not offered there (issue 17 item 5): the memory
/// lab writes no spill file or transcript, and search candidates run on the memory store only.
#[test]
fn options_that_do_not_apply_are_not_offered() {
    let help = lab_ok(&["memory", "--help"]).stdout;
    assert!(
        help.contains("--store") && help.contains("--profile"),
        "{help}"
    );
    for absent in ["--spill-dir", "--transcript-dir", "--reuse-dir"] {
        assert!(!help.contains(absent), "memory offers {absent}: {help}");
    }
    let help = lab_ok(&["search", "--help"]).stdout;
    assert!(help.contains("--spill-dir"), "{help}");
    assert!(
        !help.contains("--store") && !help.contains("--reuse-dir"),
        "{help}"
    );
    let help = lab_ok(&["run", "--help"]).stdout;
    for present in ["--spill-dir", "--transcript-dir", "--store", "--reuse-dir"] {
        assert!(help.contains(present), "run lacks {present}: {help}");
    }
    // `lab run` takes both kinds of scenario: on a memory one the directories are refused,
    // not ignored.
    let memory = scenarios_dir().join("memory/m02-path-guards.json");
    for flag in [&["--spill-dir", "/tmp/x"][..], &["--reuse-dir"][..]] {
        let mut args = vec!["run", arg(&memory)];
        args.extend_from_slice(flag);
        let out = lab(&args);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "m02-path-guards: {} does not apply to a memory run (memory-main",
                flag[0]
            )),
            "{}",
            out.stderr
        );
    }
    let out = lab(&["memory", "--break", "MB1", "--spill-dir", "/tmp/x"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("unexpected argument '--spill-dir'"));
}
