//! Regression tests for the fuzz and file-system audit (`research/fuzz_audit.md`, issue 11):
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
    for profile in ["course-site", "claude-code"] {
        for id in [format!("{up}{v}/spilled"), format!("{v}/keep")] {
            let text = format!(
                r#"{{"profile":"{profile}","steps":[{{"assistant":{{"calls":[{{"id":"{id}","name":"Bash"}}]}}}},{{"results":[{{"id":"{id}","chars":250000}}]}},{{"prepare":true}}]}}"#
            );
            let file = scenario(dir.path(), "spill.json", &text);
            let out = lab(&["run", &file, "--store", "dir"]);
            assert_eq!(snapshot(&victim), before, "{profile} {id}: {}", out.stderr);
            assert!(!victim.join("spilled.txt").exists());
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
