//! Output that fits a terminal: every command's table output at `COLUMNS=100` has no line wider
//! than 100 columns (unicode width: box-drawing characters, ✓ and → are 1), help included, and
//! nothing is coloured when stdout is a pipe unless `--color always` asks.

use unicode_width::UnicodeWidthStr;

use crate::util::{Output, arg, lab_at_width, manifest_dir, table_cells};

const WIDTH: usize = 100;

/// Runs `args` at 100 columns in the crate's root; returns the widest line and its width.
fn widest(args: &[&str]) -> (usize, String, Output) {
    let out = lab_at_width(manifest_dir(), WIDTH, args);
    let line = out
        .stdout
        .lines()
        .max_by_key(|line| line.width())
        .unwrap_or("")
        .to_owned();
    (line.width(), line, out)
}

fn assert_fits(args: &[&str]) {
    let (width, line, out) = widest(args);
    assert!(
        out.code <= 1 && !out.stdout.is_empty(),
        "lab {args:?} exit {}: {}",
        out.code,
        out.stderr
    );
    assert!(width <= WIDTH, "lab {args:?}: a line of {width}: {line}");
    assert!(
        !out.stdout.contains('\x1b'),
        "lab {args:?}: colour in a pipe"
    );
}

#[test]
fn every_command_fits_100_columns() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("shard.json");
    let claude = "tests/fixtures/import/claude-code/-home-u-proj/sess-a.jsonl";
    let found = dir.path().join("found");
    let imported = dir.path().join("imported");
    let commands: Vec<Vec<&str>> = vec![
        vec!["profiles"],
        vec!["profiles", "course-site"],
        vec!["profiles", "memory-main"],
        vec!["run", "scenarios/f01-coverage-gap.json"],
        vec!["run", "scenarios/f04-idempotency-deep-path.json"],
        vec!["run", "scenarios/memory/fidelity/j-main-crlf-recall.json"],
        vec!["explain", "scenarios/f01-coverage-gap.json", "toolu_1"],
        vec!["verify"],
        vec!["matrix", "--rows", "order", "--cols", "unseen_guard"],
        vec!["sweep", "--vary", "path", "--from", "86", "--to", "94"],
        vec!["compare"],
        vec!["memory", "--break", "all"],
        vec!["memory", "--growth"],
        vec!["montecarlo", "--sessions", "4", "--turns", "3"],
        vec!["search", "--list"],
        vec![
            "search",
            "--property",
            "dropped_unsaved",
            "--seed",
            "1",
            "--out-dir",
            arg(&found),
        ],
        vec!["import", claude, "-o", arg(&imported)],
        vec!["audit", claude],
        vec!["--break", "all"],
        vec!["--selftest"],
        vec!["--help"],
    ];
    for args in &commands {
        assert_fits(args);
    }
    // merge reads a shard of the same study.
    let out = lab_at_width(
        manifest_dir(),
        WIDTH,
        &[
            "montecarlo",
            "--sessions",
            "4",
            "--turns",
            "3",
            "--shard",
            "1/1",
        ],
    );
    std::fs::write(&shard, out.stdout).unwrap();
    assert_fits(&["merge", arg(&shard)]);
}

#[test]
fn every_subcommand_help_fits_100_columns() {
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
        assert_fits(&[command, "--help"]);
    }
}

#[test]
fn a_profile_is_a_vertical_block_and_colour_is_asked_for() {
    let (_, _, out) = widest(&["profiles", "memory-site"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("memory-site — "), "{}", out.stdout);
    // Each key on its own line, its value indented below it; no other profile.
    let kind = lines.iter().position(|l| *l == "kind").unwrap();
    assert_eq!(lines[kind + 1], "  memory store (docs/memory.md)");
    assert!(!out.stdout.contains("memory-main"), "{}", out.stdout);
    let (_, _, coloured) = widest(&["--color", "always", "--break", "D3"]);
    // The new value of each change is highlighted: `pairs_intact  true → false`.
    assert!(
        coloured.stdout.contains("true → \x1b[1;33mfalse\x1b[0m"),
        "{}",
        coloured.stdout
    );
    let (_, _, plain) = widest(&["--color", "never", "verify"]);
    assert!(plain.stdout.contains('✓') && !plain.stdout.contains('\x1b'));
}

#[test]
fn an_unknown_profile_names_the_known_ones() {
    let out = lab_at_width(manifest_dir(), WIDTH, &["profiles", "nope"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("unknown profile `nope` (known: course-site, course-main"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("memory-main, memory-site)"),
        "{}",
        out.stderr
    );
}

/// The tables of a boxed output: each one's header lines and body lines (between `┌`, `├` and
/// `└`).
fn boxed_tables(text: &str) -> Vec<(Vec<&str>, Vec<&str>)> {
    let mut tables = Vec::new();
    let mut current: Option<(Vec<&str>, Vec<&str>, bool)> = None;
    for line in text.lines() {
        if line.starts_with('┌') {
            current = Some((Vec::new(), Vec::new(), false));
        } else if line.starts_with('├') {
            if let Some(table) = current.as_mut() {
                table.2 = true;
            }
        } else if line.starts_with('└') {
            if let Some((head, body, _)) = current.take() {
                tables.push((head, body));
            }
        } else if let Some((head, body, in_body)) = current.as_mut() {
            if *in_body { body } else { head }.push(line);
        }
    }
    tables
}

/// `lab audit` at 100 columns: every table's header is one line of whole words and each profile
/// one line (no cell broken mid-word: `2183/88 c/hars`), the legend says what the short headers
/// are; at 200 columns each session is one table of all 14 columns.
#[test]
fn audit_tables_keep_whole_words_at_100_columns() {
    let folder = "tests/fixtures/import/claude-code";
    let (width, line, out) = widest(&["audit", folder]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(width <= WIDTH, "a line of {width}: {line}");
    let tables = boxed_tables(&out.stdout);
    // Three sessions and the totals, each split in two (the totals' first part, nine columns
    // beside the 19-char `claude-code-2.1.332`, does not fit 100 columns: its last column
    // opens the second part).
    assert_eq!(tables.len(), 8, "{}", out.stdout);
    let profiles = 15;
    for (head, body) in &tables {
        assert_eq!(head.len(), 1, "a header wraps: {head:#?}");
        assert_eq!(body.len(), profiles, "a row wraps: {body:#?}");
    }
    let headers: Vec<Vec<String>> = tables.iter().map(|(h, _)| table_cells(h[0])).collect();
    assert_eq!(
        headers[0],
        [
            "profile", "dropped", "ptr lost", "unrecov", "pairs", "calls", "compacts", "vs agent"
        ]
    );
    assert_eq!(
        headers[1],
        [
            "profile",
            "peak",
            "final tok",
            "rereads",
            "dangling",
            "churn",
            "split"
        ]
    );
    assert_eq!(headers[7][0..3], ["profile", "same turn", "peak"]);
    assert_eq!(headers[6].len() + headers[7].len(), 14 + 1);
    // The agent of sess-a compacted before turn 3; claude-code's peak cell is whole.
    let peak = tables[1]
        .1
        .iter()
        .map(|l| table_cells(l))
        .find(|cells| cells[0] == "claude-code")
        .unwrap();
    assert!(peak[1].ends_with(" tokens"), "{peak:?}");
    assert!(
        out.stdout
            .contains("ptr lost, unrecov: dropped_unsaved, pointer_lost")
    );
    let wide = lab_at_width(manifest_dir(), 200, &["audit", folder]);
    let tables = boxed_tables(&wide.stdout);
    assert_eq!(tables.len(), 4, "{}", wide.stdout);
    assert_eq!(table_cells(tables[0].0[0]).len(), 14);
    assert!(wide.stdout.lines().all(|l| l.width() <= 200));
}
