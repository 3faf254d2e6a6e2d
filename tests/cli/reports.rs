//! `lab report` and `lab verify` through the binary: the fourteen report files, their `--check`
//! (stale, missing, a lost final newline), their determinism, the checked-in `reports/` being
//! current, and every finding of docs/findings.md reproduced by `lab verify`.

use crate::util::{arg, lab, lab_in, lab_ok, manifest_dir, table_cells};

/// The report files, in the order `lab report` lists them.
const REPORT_FILES: [&str; 14] = [
    "README.md",
    "breaks.md",
    "conformance.md",
    "field.md",
    "findings.md",
    "matrix.md",
    "memory-growth.md",
    "memory-growth.svg",
    "memory.md",
    "montecarlo.md",
    "montecarlo.svg",
    "profiles.md",
    "sweep-path.md",
    "sweep-path.svg",
];

#[test]
#[ignore = "regenerates every report (over 30 s in a debug build): .ci/run runs it"]
fn report_writes_fourteen_files_and_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("reports");
    let out = lab_ok(&["report", "--out", arg(&out_dir)]);
    assert_eq!(
        out.stdout,
        format!(
            "wrote 14 reports to {}: {}\n",
            out_dir.display(),
            REPORT_FILES.join(", ")
        )
    );
    let mut names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, REPORT_FILES);
    let read = |name: &str| std::fs::read_to_string(out_dir.join(name)).unwrap();
    assert!(read("sweep-path.svg").starts_with("<svg"));
    // The Monte Carlo chart: one dot and one whisker per profile of the "every profile" table.
    let montecarlo = read("montecarlo.svg");
    assert!(montecarlo.starts_with("<svg"));
    let profiles = lab::compaction::profile::PROFILES.len();
    assert_eq!(
        montecarlo.matches("<circle class=\"rate\"").count(),
        profiles
    );
    assert_eq!(
        montecarlo.matches("<path class=\"interval\"").count(),
        profiles
    );
    // FINDINGS and FIELD have 101 rows (F1-F4, F5 ×2, F6 ×2, F7 ×4, D2, D6 ×2, F8 ×3, F9, F10, F11
    // ×3, F12, F13 ×2, F14, C1-C5, C6 ×2, M1-M11, seven site rows, MB1-MB5, twelve R-* fidelity
    // rows: A, B, C ×2, D, E, H, I, J ×3, K, the observables O1-O4, anthropic-api A1-A3, codex
    // X1-X3, cline L1 ×2, L2, L3, opencode N1-N3, kilo K1-K3, opencode-v2 V1-V3, gemini-cli G1-G3,
    // openhands H1-H3 and codex-remote XR1-XR3).
    assert!(
        read("findings.md").contains("\n101 findings, 101 reproduced, 0 not.\n"),
        "{}",
        read("findings.md")
    );
    // Every committed conformance record replays exactly: 39 records (p01-p13 and p16-p18
    // under 2.1.88, p01-p18 under 2.1.332, p21-p23 under codex 0.171.0, p24-p25 under gemini-cli
    // 0.61.0); the items per column as the table lists them: 129 (2.1.88), 172 (2.1.332), 8 + 6
    // + 5 (codex) and 6 + 8 (gemini-cli), 334 in all.
    let conformance = read("conformance.md");
    assert!(
        conformance.contains("\n39 of 39 records exact; 334 of 334 compared items agree.\n"),
        "{conformance}"
    );
    // p03 compacts under 2.1.88 (its last request holds the summary and the last turn) and not
    // under 2.1.332 (threshold 967000: every call and result is still there); p14 and p15 exist
    // for 2.1.332 only.
    assert!(conformance.contains(
        "| `p03-probe-autocompact-usage-167000` | not recorded                   | not recorded          | exact (5/5)                      | exact (7/7)"
    ));
    assert!(conformance.contains(
        "| `p14-probe-compact-keeps-last-turn`  | not recorded                   | not recorded          | not recorded                     | exact (19/19)"
    ));
    assert!(conformance.contains(
        "| `p12-probe-restore-after-compact`    | not recorded                   | not recorded          | exact (9/9)                      | exact (9/9)"
    ));
    assert!(
        conformance.contains(
            "| `p23-probe-codex-compact-at`         | not recorded                   | exact (5/5)           | not recorded"
        )
    );
    assert!(conformance.contains(
        "| `p25-probe-gemini-mask-below`        | exact (8/8)                    | not recorded"
    ));
    // The field ranking (values checked against `lab montecarlo --sessions 100 --turns 60`):
    // opencode's prune leaves the outputs in its database, Kilo's erases them, so Kilo ranks
    // below opencode with originals gone; Cline's fold keeps nothing and ranks last.
    let field = read("field.md");
    let rank = |profile: &str| {
        field
            .lines()
            .find(|l| l.contains(&format!("| `{profile}` ")))
            .and_then(|l| l.split('|').nth(1))
            .and_then(|c| c.trim().parse::<usize>().ok())
            .unwrap_or_else(|| panic!("no row for {profile}:\n{field}"))
    };
    assert!(rank("opencode") < rank("kilo"), "{field}");
    assert_eq!(rank("cline"), 15, "{field}");
    assert!(field.contains(
        "| 10   | `kilo`                | 43.0% [33.7%, 52.8%]   | 11.40 results per session replaced \
         with no pointer; 13.28 originals kept nowhere"
    ), "{field}");
    // Both path sweeps (prototype guard-off and scene A) flip at 90.
    let sweep = read("sweep-path.md");
    assert_eq!(
        sweep
            .matches("- cliff: pointer_lost 0 → 1 at spill file path length 90\n")
            .count(),
        2,
        "{sweep}"
    );

    let check = lab_ok(&["report", "--out", arg(&out_dir), "--check"]);
    assert_eq!(
        check.stdout,
        format!("14 reports in {} are up to date\n", out_dir.display())
    );

    // One line appended to matrix.md: the first difference is that new last line.
    let matrix = out_dir.join("matrix.md");
    let lines = read("matrix.md").lines().count();
    let mut text = read("matrix.md");
    text.push_str("an edit by hand\n");
    std::fs::write(&matrix, text).unwrap();
    let stale = lab(&["report", "--out", arg(&out_dir), "--check"]);
    assert_eq!(stale.code, 1, "stderr: {}", stale.stderr);
    assert!(
        stale.stdout.starts_with(&format!(
            "stale report: {}: line {}: checked in \"an edit by hand\", generated \"<end of file>\"\n",
            matrix.display(),
            lines + 1
        )),
        "{}",
        stale.stdout
    );
}

#[test]
#[ignore = "regenerates every report (over 30 s in a debug build): .ci/run runs it"]
fn report_check_of_a_missing_directory_fails() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing-here");
    let out = lab(&["report", "--out", arg(&missing), "--check"]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    assert!(
        out.stdout.starts_with(&format!(
            "stale report: {} is missing\n",
            missing.join("README.md").display()
        )),
        "{}",
        out.stdout
    );
    assert!(!missing.exists(), "--check must not write");
}

/// A checked-in file that differs only by its final newline is stale, and the message says so
/// instead of showing two identical sides.
#[test]
#[ignore = "regenerates every report (over 30 s in a debug build): .ci/run runs it"]
fn report_check_names_a_missing_final_newline() {
    let dir = tempfile::tempdir().unwrap();
    lab_ok(&["report", "--out", arg(dir.path())]);
    let readme = dir.path().join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    assert!(text.ends_with(".\n") && !text.ends_with("\n\n"));
    std::fs::write(&readme, &text[..text.len() - 1]).unwrap();
    let out = lab(&["report", "--out", arg(dir.path()), "--check"]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    assert!(
        out.stdout.contains(&readme.display().to_string()),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("only the final newlines differ: checked in 0, generated 1"),
        "{}",
        out.stdout
    );
}

#[test]
#[ignore = "regenerates every report (over 30 s in a debug build): .ci/run runs it"]
fn the_checked_in_reports_are_current() {
    let out = lab_in(manifest_dir(), &["report", "--check"]);
    assert_eq!(
        out.code, 0,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert_eq!(out.stdout, "14 reports in reports are up to date\n");
}

#[test]
#[ignore = "regenerates every report (over 30 s in a debug build): .ci/run runs it"]
fn reports_are_byte_for_byte_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    lab_ok(&["report", "--out", arg(&a)]);
    lab_ok(&["report", "--out", arg(&b)]);
    for name in REPORT_FILES {
        let first = std::fs::read(a.join(name)).unwrap();
        let second = std::fs::read(b.join(name)).unwrap();
        assert!(!first.is_empty(), "{name}");
        assert!(first == second, "{name} differs between two runs");
    }
}

#[test]
fn verify_reproduces_every_finding() {
    let out = lab_in(manifest_dir(), &["verify"]);
    assert_eq!(
        out.code, 0,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert_eq!(out.stderr, "");
    assert!(!out.stdout.contains('✗'), "{}", out.stdout);
    let (_, findings) = out
        .stdout
        .split_once("\nFindings\n")
        .unwrap_or_else(|| panic!("no Findings table in:\n{}", out.stdout));
    let rows: Vec<Vec<String>> = findings
        .lines()
        .filter(|line| line.starts_with('│'))
        .map(table_cells)
        .filter(|cells| cells[0] != "finding")
        .collect();
    let ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        ids,
        [
            "F1", "F2", "F3", "F4", "F5", "F5", "F6", "F6", "F7", "F7", "F7", "F7", "D2", "D6",
            "D6", "F8", "F8", "F8", "F9", "F10", "F11", "F11", "F11", "F12", "F13", "F13", "F14",
            "C1", "C2", "C3", "C4", "C5", "C6", "C6", "M1", "M2", "M3", "M4", "M5", "M6", "M7",
            "M8", "M9", "M10", "M11", "M1 site", "M2 site", "M3 site", "M5 site", "M6 site",
            "M7 site", "M8 site", "MB1", "MB2", "MB3", "MB4", "MB5", "R-A", "R-B", "R-C", "R-C",
            "R-D", "R-E", "R-H", "R-I", "R-J", "R-J", "R-J", "R-K", "O1", "O2", "O3", "O4", "A1",
            "A2", "A3", "X1", "X2", "X3", "L1", "L1", "L2", "L3", "N1", "N2", "N3", "K1", "K2",
            "K3", "V1", "V2", "V3", "G1", "G2", "G3", "H1", "H2", "H3", "XR1", "XR2", "XR3"
        ]
    );
    for cells in &rows {
        assert_eq!(cells.last().map(String::as_str), Some("✓"), "{cells:?}");
    }
    assert!(
        findings.contains("\n101 findings, 101 reproduced, 0 not\n"),
        "{findings}"
    );
}
