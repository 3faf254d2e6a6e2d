//! Regression tests for the fuzz and file-system audit (issue 11):
//! each rebuilds a reproducer from the audit's text and checks the lab now refuses it cleanly
//! (exit 2, file and place named) or runs it without touching anything outside its directories.

use std::path::Path;

use crate::util::lab;

/// Writes `text` as `name` under `dir` and returns its path as a string.
fn scenario(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// One call `a`, then its result with `body` (the audit's D4 shape).
fn sized(body: &str) -> String {
    format!(
        r#"{{"profile":"course-main","steps":[{{"assistant":{{"calls":[{{"id":"a"}}]}}}},{{"results":[{{"id":"a",{body}}}]}},{{"prepare":true}}]}}"#
    )
}

/// Every regular file under `dir` with its bytes, sorted: a canary's checksum.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(next) = todo.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                todo.push(entry.path());
            } else {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                files.push((entry.path().to_string_lossy().into_owned(), bytes));
            }
        }
    }
    files.sort();
    files
}

/// A victim directory with ten notes, a MEMORY.md and a keep.txt, as in the audit's probes.
fn victim(dir: &Path) -> std::path::PathBuf {
    let victim = dir.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    for i in 0..10 {
        std::fs::write(victim.join(format!("note{i}.md")), format!("note {i}")).unwrap();
    }
    std::fs::write(victim.join("MEMORY.md"), "mine").unwrap();
    std::fs::write(victim.join("keep.txt"), "keep").unwrap();
    victim
}

#[test]
fn d4_result_sizes_are_bounded_at_load() {
    let dir = tempfile::tempdir().unwrap();
    for (body, place) in [
        (r#""chars":18446744073709551615"#, "result `a`"),
        (r#""chars":10000000000"#, "result `a`"),
        (r#""chars":2000000000"#, "result `a`"),
        (r#""lines":9223372036854775807,"width":0"#, "result `a`"),
        (r#""lines":1000000,"width":10000"#, "result `a`"),
    ] {
        let file = scenario(dir.path(), "big.json", &sized(body));
        let out = lab(&["run", &file, "--store", "dir"]);
        assert_eq!(out.code, 2, "{body}: {}", out.stderr);
        assert!(out.stderr.contains(&file), "{}", out.stderr);
        assert!(out.stderr.contains(place), "{}", out.stderr);
        assert!(out.stderr.contains("10000000 characters"), "{}", out.stderr);
    }
    // Zero lines of any width is the empty text (the old code panicked rendering the width).
    let file = scenario(
        dir.path(),
        "zero.json",
        &sized(r#""lines":0,"width":18446744073709551615"#),
    );
    assert_eq!(lab(&["run", &file]).code, 0);
    // The limit itself is allowed.
    let file = scenario(dir.path(), "max.json", &sized(r#""chars":10000000"#));
    assert_eq!(lab(&["run", &file]).code, 0);
}

#[test]
fn d4_total_result_text_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<String> = (0..11).map(|i| format!(r#"{{"id":"c{i}"}}"#)).collect();
    let results: Vec<String> = (0..11)
        .map(|i| format!(r#"{{"id":"c{i}","chars":10000000}}"#))
        .collect();
    let text = format!(
        r#"{{"steps":[{{"assistant":{{"calls":[{}]}}}},{{"results":[{}]}}]}}"#,
        calls.join(","),
        results.join(",")
    );
    let file = scenario(dir.path(), "total.json", &text);
    let out = lab(&["run", &file]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("step 2 (results)"), "{}", out.stderr);
    assert!(
        out.stderr.contains("100000000 characters in all"),
        "{}",
        out.stderr
    );
}

#[test]
fn d5_memory_symlink_loops_end_in_both_stores() {
    let dir = tempfile::tempdir().unwrap();
    for text in [
        r#"{"profile":"memory-main","steps":[{"symlink":{"name":"x.md","target":"/lab/work/.memory/x.md","text":""}},{"user":"hi"}]}"#,
        r#"{"profile":"memory-main","steps":[{"symlink":{"name":"a.md","target":"/lab/work/.memory/b.md","text":""}},{"symlink":{"name":"b.md","target":"/lab/work/.memory/a.md","text":""}},{"user":"hi"}]}"#,
    ] {
        let file = scenario(dir.path(), "loop.json", text);
        let memory = lab(&["run", &file]);
        let real = lab(&["run", &file, "--store", "dir"]);
        assert!(memory.code == 0 || memory.code == 1, "{}", memory.stderr);
        assert_eq!(memory.code, real.code, "{}\n{}", memory.stderr, real.stderr);
    }
}

#[test]
fn d1_memory_writes_and_links_stay_inside_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let victim = victim(dir.path());
    let before = snapshot(&victim);
    let up = "../".repeat(13);
    let v = victim.to_string_lossy().into_owned();
    let steps = [
        format!(r#"{{"write_file":{{"name":"{up}{v}/w_rel.md","text":"pwned"}}}}"#),
        format!(r#"{{"write_file":{{"name":"{v}/w_abs.md","text":"pwned"}}}}"#),
        format!(r#"{{"write_file":{{"name":"{v}/keep.txt","text":"pwned"}}}}"#),
        format!(r#"{{"symlink":{{"name":"x.md","target":"/{up}{v}/made","text":"pwned"}}}}"#),
        format!(r#"{{"symlink":{{"name":"x.md","target":"/{up}{v}/keep.txt","text":"pwned"}}}}"#),
        format!(r#"{{"symlink":{{"name":"{up}{v}/planted","target":"/lab/x","text":""}}}}"#),
        format!(
            r#"{{"symlink":{{"name":".","target":"/{up}{v}","text":""}}}},{{"consolidate_reply":"[]"}},{{"user":"hello"}},{{"assistant":{{"text":"hi"}}}}"#
        ),
    ];
    for profile in ["memory-main", "memory-site"] {
        for step in &steps {
            let text = format!(r#"{{"profile":"{profile}","steps":[{step}]}}"#);
            let file = scenario(dir.path(), "escape.json", &text);
            let out = lab(&["run", &file, "--store", "dir"]);
            assert_ne!(out.code, 101, "{}", out.stderr);
            assert_eq!(
                snapshot(&victim),
                before,
                "{profile}: {step}: {}",
                out.stderr
            );
            assert_eq!(
                std::fs::read_dir(&victim).unwrap().count(),
                12,
                "{profile}: {step}"
            );
        }
    }
}

#[test]
fn d2_raw_spill_ids_do_not_write_outside() {
    let dir = tempfile::tempdir().unwrap();
    let victim = victim(dir.path());
    let before = snapshot(&victim);
    let v = victim.to_string_lossy().into_owned();
    let up = "../".repeat(13);
    // course-site joins with pathlib (an absolute id replaces the directory), claude-code with
    // Node's path.join (an absolute id stays below it): the traversals the modelled code makes.
    // A Grep result: claude-code names a Bash spill file by its shell task id, not the tool_use
    // id (D1), so a Bash id cannot traverse there.
    for (profile, absolute_escapes) in [("course-site", 1), ("claude-code", 0)] {
        for (id, escaping) in [
            (format!("{up}{v}/spilled"), 1),
            (format!("{v}/keep"), absolute_escapes),
        ] {
            let text = format!(
                r#"{{"profile":"{profile}","steps":[{{"assistant":{{"calls":[{{"id":"{id}","name":"Grep"}}]}}}},{{"results":[{{"id":"{id}","chars":250000}}]}},{{"prepare":true}}]}}"#
            );
            let file = scenario(dir.path(), "spill.json", &text);
            let out = lab(&["run", &file, "--store", "dir", "--format", "json"]);
            assert_eq!(snapshot(&victim), before, "{profile} {id}: {}", out.stderr);
            assert!(!victim.join("spilled.txt").exists());
            // The modelled write is still modelled: counted, in memory, the same in both stores.
            assert_eq!(out.code, 0, "{profile} {id}: {}", out.stderr);
            let escapes = |stdout: &str| {
                let json: serde_json::Value = serde_json::from_str(stdout).unwrap();
                json["observables"]["path_escapes"].clone()
            };
            assert_eq!(escapes(&out.stdout), escaping, "{profile} {id}");
            let memory = lab(&["run", &file, "--format", "json"]);
            assert_eq!(escapes(&memory.stdout), escaping, "{profile} {id}");
        }
    }
}

#[test]
fn d3_file_expectations_do_not_read_host_files() {
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("secret.txt");
    std::fs::write(&host, "host secret").unwrap();
    let h = host.to_string_lossy().into_owned();
    let text = format!(
        r#"{{"profile":"memory-main","steps":[{{"user":"hi"}},{{"check":{{"file:{h}":"x","file:{}{h}":"y"}}}}]}}"#,
        "../".repeat(13)
    );
    let file = scenario(dir.path(), "read.json", &text);
    let out = lab(&["run", &file, "--store", "dir"]);
    assert!(!out.stdout.contains("host secret"), "{}", out.stdout);
    let memory = lab(&["run", &file]);
    assert_eq!(out.stdout, memory.stdout);
}

#[test]
fn d10_store_errors_exit_2_and_name_the_file() {
    let out = lab(&[
        "run",
        "scenarios/f01-coverage-gap.json",
        "--store",
        "dir",
        "--spill-dir",
        "/dev/null/x",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("/dev/null/x"), "{}", out.stderr);
}

#[test]
fn d12_idle_minutes_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(
        dir.path(),
        "idle.json",
        r#"{"profile":"claude-code","steps":[{"idle":18446744073709551615},{"idle":1},{"prepare":true}]}"#,
    );
    let out = lab(&["run", &file]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("step 1 (idle)"), "{}", out.stderr);
    assert!(out.stderr.contains("limit of 10000000"), "{}", out.stderr);
}

#[test]
fn d13_endless_and_bom_inputs_are_refused() {
    let out = lab(&["run", "/dev/zero"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("/dev/zero"), "{}", out.stderr);
    assert!(
        out.stderr.contains("limit of 67108864 bytes"),
        "{}",
        out.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "bom.json", "\u{feff}{\"steps\":[]}");
    let out = lab(&["run", &file]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("byte order mark"), "{}", out.stderr);
}

#[test]
fn d6_a_given_dir_with_files_is_refused_and_reuse_leaves_them_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (spill, transcripts) = (dir.path().join("s"), dir.path().join("t"));
    std::fs::create_dir_all(&spill).unwrap();
    std::fs::create_dir_all(&transcripts).unwrap();
    std::fs::write(spill.join("keep.txt"), "mine").unwrap();
    let f01 = crate::util::scenario("f01-coverage-gap.json");
    let run = |profile: &str, reuse: bool| {
        let mut args = vec![
            "run".to_owned(),
            f01.to_string_lossy().into_owned(),
            "--profile".into(),
            profile.into(),
            "--store".into(),
            "dir".into(),
            "--spill-dir".into(),
            spill.to_string_lossy().into_owned(),
            "--transcript-dir".into(),
            transcripts.to_string_lossy().into_owned(),
            "--format".into(),
            "json".into(),
        ];
        if reuse {
            args.push("--reuse-dir".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        lab(&args)
    };
    let out = run("course-main", false);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("already holds files"), "{}", out.stderr);
    assert!(out.stderr.contains("--reuse-dir"), "{}", out.stderr);
    // With --reuse-dir the run goes on; keep.txt is neither counted nor changed, and the run's
    // own spill file (f01 persists toolu_0) is there. (Exit 1: f01's own expectations assume
    // its short default spill path.)
    let out = run("course-main", true);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        report["observables"]["persisted_files"],
        serde_json::json!(["toolu_0.txt"])
    );
    assert_eq!(
        std::fs::read_to_string(spill.join("keep.txt")).unwrap(),
        "mine"
    );
    // course-latest would overwrite a file named like its own: refused, the file kept.
    std::fs::remove_file(spill.join("toolu_0.txt")).unwrap();
    std::fs::write(spill.join("toolu_0.txt"), "mine too").unwrap();
    let out = run("course-latest", true);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("does not overwrite it"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(spill.join("toolu_0.txt")).unwrap(),
        "mine too"
    );
}

#[test]
fn d7_sweep_and_matrix_extremes_are_refused() {
    let f01 = crate::util::scenario("f01-coverage-gap.json");
    let f01 = f01.to_string_lossy();
    for (args, needle) in [
        (
            vec![
                "sweep",
                &f01,
                "--vary",
                "keep_results",
                "--from",
                "0",
                "--to",
                "18446744073709551615",
            ],
            "at most 10000000",
        ),
        (
            vec![
                "sweep",
                &f01,
                "--vary",
                "keep_results",
                "--from",
                "0",
                "--to",
                "10000000",
            ],
            "10000001 points, over the limit of 10000",
        ),
        (
            vec![
                "matrix",
                &f01,
                "--rows",
                "path=1000000000",
                "--cols",
                "unseen_guard",
            ],
            "over the limit of 10000000",
        ),
    ] {
        let out = lab(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
    }
}

#[cfg(unix)]
#[test]
fn d9_verify_does_not_enter_linked_directories() {
    let dir = tempfile::tempdir().unwrap();
    let f01 = crate::util::scenario("f01-coverage-gap.json");
    std::fs::copy(&f01, dir.path().join("f01.json")).unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("b")).unwrap();
    let out = crate::util::lab_in(dir.path(), &["verify", "."]);
    // The one scenario is checked once (its eight expectations), not once per path through a
    // link (the walk used to loop until ELOOP).
    assert!(
        out.stdout
            .contains("\n8 expectations, 8 passed, 0 failed\n"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn d13_duplicate_keys_are_refused_naming_both_places() {
    let dir = tempfile::tempdir().unwrap();
    for (text, key, first, second) in [
        (
            "{\"steps\": [{\"user\": \"a\"}],\n \"steps\": []}",
            "steps",
            "line 1, column 2",
            "line 2, column 2",
        ),
        (
            &sized(r#""chars": 5, "chars": 300000"#),
            "chars",
            "column 94",
            "column 106",
        ),
        (
            r#"{"steps": [{"user": "a", "user": "b"}]}"#,
            "user",
            "column 13",
            "column 26",
        ),
    ] {
        let file = scenario(dir.path(), "dup.json", text);
        let out = lab(&["run", &file]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        let given_twice = format!("key `{key}` given twice");
        for needle in [given_twice.as_str(), first, second] {
            assert!(out.stderr.contains(needle), "{needle}: {}", out.stderr);
        }
    }
}

#[test]
fn d13_a_shard_of_zero_sessions_is_refused() {
    let out = lab(&[
        "montecarlo",
        "--sessions",
        "2",
        "--turns",
        "3",
        "--profiles",
        "course-main",
        "--shard",
        "1/1",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut shard: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    shard["study"]["sessions"] = serde_json::json!(0);
    shard["end"] = serde_json::json!(0);
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "zero.json", &shard.to_string());
    let out = lab(&["merge", &file]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("a study of 0 sessions"),
        "{}",
        out.stderr
    );
}

#[test]
fn d13_explain_on_a_memory_scenario_names_the_file() {
    let file = crate::util::scenarios_dir().join("memory/fidelity/j-main-crlf-recall.json");
    let out = lab(&["explain", &file.to_string_lossy(), "x"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("memory/fidelity/j-main-crlf-recall.json: explain follows"),
        "{}",
        out.stderr
    );
}

/// Runs `lab` with `TMPDIR` set to `tmp`: (exit code, stdout, stderr).
fn lab_with_tmpdir(tmp: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(args)
        .env("TMPDIR", tmp)
        .env("COLUMNS", "1000")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Determinism: no absolute temporary path in any output. A `--store dir` run whose directories
/// are not given keeps them at their modelled paths below a private temporary directory, so its
/// output, traces and errors name the modelled path, as the in-memory store does (it used to
/// print `/tmp/.tmpXXXXXX/tool-results/toolu_0.txt` in the pointer, the trace and the spill list).
#[test]
fn d10_dir_store_output_and_errors_show_no_temporary_path() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("private-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let tmp_text = tmp.to_string_lossy().into_owned();
    for format in ["table", "json", "markdown"] {
        let args = ["run", "scenarios/f01-coverage-gap.json", "--format", format];
        let (code, memory, _) = lab_with_tmpdir(&tmp, &args);
        let (dir_code, real, stderr) =
            lab_with_tmpdir(&tmp, &[&args[..], &["--store", "dir"]].concat());
        assert_eq!((code, dir_code), (0, 0), "{stderr}");
        assert!(!real.contains(&tmp_text), "{real}");
        assert!(real.contains("/var/folders/lab/res/toolu_0.txt"), "{real}");
        assert_eq!(memory, real, "{format}");
    }
    // A 300-character raw id (a Grep result: a Bash spill file is named by the task-id
    // stand-in since D1): the file name is too long for the file system (ENAMETOOLONG,
    // "File name too long (os error 36)" on Linux, NAME_MAX 255 bytes).
    let id = "t".repeat(300);
    let text = format!(
        r#"{{"profile":"claude-code","steps":[{{"assistant":{{"calls":[{{"id":"{id}","name":"Grep"}}]}}}},{{"results":[{{"id":"{id}","chars":40000}}]}},{{"prepare":true}}]}}"#
    );
    let file = scenario(dir.path(), "long-id.json", &text);
    let (code, stdout, stderr) = lab_with_tmpdir(&tmp, &["run", &file, "--store", "dir"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(!stderr.contains(&tmp_text), "{stderr}");
    let spill = "/home/lab/.claude/projects/-home-lab-repo/5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de/tool-results";
    assert!(
        stderr.contains(&format!("failed to write {spill}/{id}.txt: ")),
        "{stderr}"
    );
    // The in-memory store refuses the same name alike (audit D11: it used to accept it).
    let (code, _, memory_stderr) = lab_with_tmpdir(&tmp, &["run", &file]);
    assert_eq!((code, memory_stderr), (2, stderr));
    // Every run removed its temporary directory.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

/// D3, second half: course-latest with `validate_pointer` off follows a persisted-output pointer
/// to a host file (it printed the host's `/etc/hostname`) or to `/dev/zero` (read until memory
/// ran out). The sandbox keeps both outside the run's directories: nothing is read, the run ends
/// at once, and both stores print the same.
#[test]
fn d3_pointers_to_host_files_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("secret.txt");
    std::fs::write(&host, "host secret").unwrap();
    for target in [host.to_string_lossy().into_owned(), "/dev/zero".to_owned()] {
        let text = format!(
            "<persisted-output>\nFull output: {target}\nPreview:\n{}",
            "x".repeat(250_000)
        );
        let scenario_json = serde_json::json!({
            "profile": "course-latest",
            "switches": {"validate_pointer": false},
            "steps": [
                {"assistant": {"calls": [{"id": "a", "name": "bash"}]}},
                {"results": [{"id": "a", "text": text}]},
                {"prepare": true},
            ],
        });
        let file = scenario(dir.path(), "pointer.json", &scenario_json.to_string());
        let real = lab(&["run", &file, "--store", "dir"]);
        assert_eq!(real.code, 0, "{}", real.stderr);
        assert!(!real.stdout.contains("host secret"), "{}", real.stdout);
        assert_eq!(real.stdout, lab(&["run", &file]).stdout, "{target}");
    }
}
