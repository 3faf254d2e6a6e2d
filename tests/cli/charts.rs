//! `--chart FILE` of `lab sweep` and `lab montecarlo`: the SVG is written where the user said,
//! stdout is the same as without it, and a path that cannot be written is refused (exit 2,
//! naming the file) before the run.

use crate::util::{arg, lab, lab_ok, refused, usage_error, write};

#[test]
fn montecarlo_chart_has_one_dot_per_profile() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("loss.svg");
    let args = ["montecarlo", "--sessions", "20", "--profiles"];
    let profiles = "course-main,course-latest,anthropic-api";
    let with = lab_ok(&[&args[..], &[profiles, "--chart", arg(&svg)]].concat());
    let without = lab_ok(&[&args[..], &[profiles]].concat());
    assert_eq!(with.stdout, without.stdout, "the table does not change");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg "), "{text}");
    assert!(text.ends_with("</svg>\n"), "{text}");
    assert_eq!(text.matches("<circle class=\"rate\"").count(), 3, "{text}");
    assert_eq!(
        text.matches("<path class=\"interval\"").count(),
        3,
        "{text}"
    );
    for profile in profiles.split(',') {
        assert!(
            text.contains(&format!(">{profile}</text>")),
            "{profile}: {text}"
        );
    }
    // course-latest loses nothing in 20 sessions: its dot sits on the 0% line.
    let zero = text
        .lines()
        .find(|l| l.ends_with(">0%</text>"))
        .and_then(|l| l.split("x=\"").nth(1))
        .and_then(|l| l.split('"').next())
        .unwrap()
        .to_owned();
    let latest = text
        .lines()
        .filter(|l| l.starts_with("<circle"))
        .nth(1)
        .unwrap();
    assert!(
        latest.contains(&format!("cx=\"{zero}\"")),
        "{latest} vs {zero}"
    );
}

#[test]
fn sweep_chart_draws_the_cliff_as_a_step() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("sweep.svg");
    let args = [
        "sweep",
        "--vary",
        "path",
        "--from",
        "86",
        "--to",
        "94",
        "--set",
        "unseen_guard=off",
        "--format",
        "json",
    ];
    let with = lab_ok(&[&args[..], &["--chart", arg(&svg)]].concat());
    assert_eq!(
        with.stdout,
        lab_ok(&args).stdout,
        "the JSON does not change"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg "), "{text}");
    // pointer_lost (the second, blue line) goes 0 → 1 at 90: one pair of points shares an x.
    let line = text
        .lines()
        .find(|l| l.contains("stroke=\"#0000FF\" stroke-width=\"2\""))
        .unwrap();
    let points: Vec<(i32, i32)> = line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(
        points.len(),
        10,
        "9 sweep points and one extra at the step: {line}"
    );
    let steps: Vec<usize> = (1..points.len())
        .filter(|&i| points[i].0 == points[i - 1].0)
        .collect();
    assert_eq!(steps, vec![5], "{line}");
    assert!(points[5].1 < points[4].1, "rises at the step: {line}");
}

#[test]
fn a_chart_path_that_cannot_be_written_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("c.svg");
    let file = write(dir.path(), "plain.txt", "x");
    let under_file = file.join("c.svg");
    // A million sessions would run for minutes: the refusal comes first.
    let mc = ["montecarlo", "--sessions", "1000000", "--chart"];
    let sweep = [
        "sweep", "--vary", "path", "--from", "60", "--to", "61", "--chart",
    ];
    for command in [&mc[..], &sweep[..]] {
        for (path, reason) in [
            (&missing, "does not exist"),
            (&under_file, "does not exist"),
            (&dir.path().to_path_buf(), "is a directory"),
        ] {
            let out = usage_error(&[command, &[arg(path)]].concat(), &[arg(path), reason]);
            assert!(out.stderr.starts_with("lab: --chart "), "{}", out.stderr);
        }
    }
    assert!(!missing.exists() && !under_file.exists());
    // An existing file is overwritten; the probe leaves no file behind when the run fails.
    let bad_run = dir.path().join("never.svg");
    let out = lab(&[
        "montecarlo",
        "--sessions",
        "2",
        "--profiles",
        "nope",
        "--chart",
        arg(&bad_run),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(!bad_run.exists(), "no chart of a run that failed");
    refused(
        &[
            "montecarlo",
            "--sessions",
            "4",
            "--shard",
            "1/2",
            "--chart",
            arg(&file),
        ],
        &["--chart", "--shard"],
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}
