//! `--chart FILE` of `lab sweep`, `lab montecarlo` and `lab merge`: the SVG is written where the user said,
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

/// The x of a `<text>` tick label `label` of a forest chart.
fn tick_x(svg: &str, label: &str) -> f64 {
    svg.lines()
        .find(|l| l.ends_with(&format!(">{label}</text>")))
        .and_then(|l| l.split("x=\"").nth(1))
        .and_then(|l| l.split('"').next())
        .unwrap()
        .parse()
        .unwrap()
}

/// The two lines that follow a profile's label: its interval path and its dot.
fn row_of<'a>(svg: &'a str, profile: &str) -> (&'a str, &'a str) {
    let mut lines = svg
        .lines()
        .skip_while(|l| !l.ends_with(&format!(">{profile}</text>")))
        .skip(1);
    (lines.next().unwrap(), lines.next().unwrap())
}

#[test]
fn merge_chart_is_the_chart_of_the_unsplit_study() {
    let dir = tempfile::tempdir().unwrap();
    let study = [
        "montecarlo",
        "--sessions",
        "20",
        "--turns",
        "6",
        "--profiles",
        "course-main,course-latest,claude-code",
    ];
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let out = lab_ok(&[&study[..], &["--shard", k]].concat());
        shards.push(write(
            dir.path(),
            &format!("shard-{}.json", &k[..1]),
            &out.stdout,
        ));
    }
    let merged = dir.path().join("merged.svg");
    let whole = dir.path().join("whole.svg");
    let with = lab_ok(&[
        "merge",
        arg(&shards[0]),
        arg(&shards[1]),
        "--chart",
        arg(&merged),
    ]);
    let without = lab_ok(&["merge", arg(&shards[0]), arg(&shards[1])]);
    assert_eq!(with.stdout, without.stdout, "the table does not change");
    lab_ok(&[&study[..], &["--chart", arg(&whole)]].concat());
    let svg = std::fs::read_to_string(&merged).unwrap();
    assert_eq!(svg, std::fs::read_to_string(&whole).unwrap());
    assert!(
        svg.contains("P(any loss) per cell over 20 sessions"),
        "{svg}"
    );
    let (zero, hundred) = (tick_x(&svg, "0%"), tick_x(&svg, "100%"));
    let share = |x: f64| (x - zero) / (hundred - zero);
    // course-latest loses nothing in 20 sessions: the Wilson interval of 0 of 20 is
    // [0, 3.8416 / 23.8416] = [0%, 16.11%].
    let (interval, dot) = row_of(&svg, "course-latest");
    let ends: Vec<f64> = interval
        .split("d=\"M")
        .nth(1)
        .unwrap()
        .split('M')
        .next()
        .unwrap()
        .split(['H', ','])
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(share(ends[0]).abs() < 0.002, "{interval}");
    assert!((share(ends[2]) - 0.1611).abs() < 0.002, "{interval}");
    assert!(dot.contains(&format!("cx=\"{zero:.1}\"")), "{dot}");
    // course-main loses a result in 19 of the 20 (the table's 95.00%).
    assert!(with.stdout.contains("95.00%"), "{}", with.stdout);
    let (_, dot) = row_of(&svg, "course-main");
    let cx: f64 = dot
        .split("cx=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((share(cx) - 0.95).abs() < 0.002, "{dot}");
}

#[test]
fn merge_refuses_a_chart_path_before_reading_the_shards() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("c.svg");
    // The shard does not exist either: the chart's path is what is named.
    let shard = dir.path().join("shard.json");
    for (path, reason) in [
        (&missing, "does not exist"),
        (&dir.path().to_path_buf(), "is a directory"),
    ] {
        let out = usage_error(
            &["merge", arg(&shard), "--chart", arg(path)],
            &[arg(path), reason],
        );
        assert!(out.stderr.starts_with("lab: --chart "), "{}", out.stderr);
    }
    assert!(!missing.exists());
}
