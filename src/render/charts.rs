//! The SVG line charts, drawn with plotters: a sweep (the spill path sweep of `lab report`, F5,
//! and `lab sweep --chart`) and the memory store's growth against the reverse gate (M8). Both are
//! line charts of one shape, drawn by [`line_chart`]. Tick labels print integers without `.0`,
//! and a sweep is drawn as steps: its values are discrete, so a value that changes between two
//! sweep points jumps vertically at the first point where it differs (the cliff's `at`).

use std::ops::Range;

use plotters::prelude::*;

use crate::error::LabError;
use crate::experiments::sweep::{SweepReport, Vary};
use crate::memory::growth::GrowthReport;

/// One line of a chart and its legend entry.
struct Line {
    label: String,
    color: RGBColor,
    width: u32,
    points: Vec<(i32, f64)>,
}

/// What frames a line chart: its caption, axes and their descriptions.
struct Frame<'a> {
    /// Names the chart in an error: `draw the {name} chart: …`.
    name: &'a str,
    caption: &'a str,
    x_desc: &'a str,
    y_desc: &'a str,
    /// Width of the y labels' area, in pixels.
    y_label_area: u32,
    /// How many y labels; `None` keeps plotters' default.
    y_labels: Option<usize>,
    x: Range<i32>,
    y: Range<f64>,
}

/// A 720×380 SVG line chart with its legend in the upper left, ending in a newline.
fn line_chart(frame: &Frame, lines: Vec<Line>) -> Result<String, LabError> {
    let mut svg = String::new();
    let chart_error =
        |e: &dyn std::fmt::Display| LabError::Usage(format!("draw the {} chart: {e}", frame.name));
    {
        let root = SVGBackend::with_string(&mut svg, (720, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| chart_error(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(frame.caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(frame.y_label_area)
            .build_cartesian_2d(frame.x.clone(), frame.y.clone())
            .map_err(|e| chart_error(&e))?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(frame.x_desc)
            .y_desc(frame.y_desc)
            .x_label_formatter(&|x| x.to_string())
            .y_label_formatter(&|y| tick(*y));
        if let Some(n) = frame.y_labels {
            mesh.y_labels(n);
        }
        mesh.draw().map_err(|e| chart_error(&e))?;
        for line in lines {
            let color = line.color;
            chart
                .draw_series(LineSeries::new(line.points, color.stroke_width(line.width)))
                .map_err(|e| chart_error(&e))?
                .label(line.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| chart_error(&e))?;
        root.present().map_err(|e| chart_error(&e))?;
    }
    svg.push('\n');
    Ok(svg)
}

/// A tick label: an integer without `.0`, else at most two decimals without trailing zeros.
fn tick(value: f64) -> String {
    let value = value + 0.0; // no "-0"
    if (value - value.round()).abs() < 1e-9 {
        return format!("{:.0}", value.round() + 0.0);
    }
    let text = format!("{value:.2}");
    text.trim_end_matches('0').to_owned()
}

/// The points of a step line through `(x, y)` samples: where y changes between two samples it
/// holds its old value up to the later sample's x and jumps there, so the jump is two points
/// with the same x.
fn steps(samples: &[(i32, f64)]) -> Vec<(i32, f64)> {
    let mut points: Vec<(i32, f64)> = Vec::with_capacity(samples.len() * 2);
    for &(x, y) in samples {
        if let Some(&(_, last)) = points.last()
            && last != y
        {
            points.push((x, last));
        }
        points.push((x, y));
    }
    points
}

/// A sweep's sample as a number: counts as they are, `true`/`false` as 1/0, anything else 0.
fn sample(value: &serde_json::Value) -> f64 {
    value
        .as_f64()
        .or_else(|| value.as_bool().map(|b| if b { 1.0 } else { 0.0 }))
        .unwrap_or(0.0)
}

/// A sweep chart (`sweep-path.svg`, and `lab sweep --chart`): each observable of each sweep
/// against the varied value, as steps; each line is lifted by a small share of the y range so
/// that equal lines stay apart (the legend says so).
pub(crate) fn sweep_svg(sweeps: &[(String, SweepReport)]) -> Result<String, LabError> {
    let styles = [
        RED,
        BLUE,
        RGBColor(230, 120, 0),
        RGBColor(0, 130, 60),
        RGBColor(140, 60, 170),
        RGBColor(120, 120, 120),
    ];
    let samples = |report: &SweepReport, column: usize| -> Vec<(i32, f64)> {
        let x = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
        report
            .rows
            .iter()
            .map(|row| (x(row.value), row.values.get(column).map_or(0.0, sample)))
            .collect()
    };
    let all: Vec<(i32, f64)> = sweeps
        .iter()
        .flat_map(|(_, r)| (0..r.observe.len()).flat_map(move |c| samples(r, c)))
        .collect();
    let top = all.iter().map(|p| p.1).fold(1.0, f64::max);
    let lift = 0.04 * top;
    let mut lines = Vec::new();
    for (title, report) in sweeps {
        for (column, observable) in report.observe.iter().enumerate() {
            let up = lift * lines.len() as f64;
            let points = steps(&samples(report, column))
                .into_iter()
                .map(|(x, y)| (x, y + up))
                .collect();
            lines.push(Line {
                label: format!("{observable}: {title}"),
                color: styles[lines.len() % styles.len()],
                width: 2,
                points,
            });
        }
    }
    let low = all.iter().map(|p| p.0).min().unwrap_or(0);
    let high = all.iter().map(|p| p.0).max().unwrap_or(1).max(low + 1);
    // The legend (15 px a line in a plot about 290 px high) sits above the highest line.
    let legend = (lines.len() as f64 * 15.0 + 20.0) / 290.0;
    let data_top = top + lift * lines.len().saturating_sub(1) as f64;
    let path = sweeps.iter().all(|(_, r)| r.vary == Vary::Path);
    let title = sweeps
        .first()
        .map_or_else(String::new, |(_, r)| r.vary.title());
    let caption = if path {
        "Lost results against spill file path length".to_owned()
    } else {
        format!("Observables against {title}")
    };
    let frame = Frame {
        name: "sweep",
        caption: &caption,
        x_desc: &if path {
            "spill file path length (chars)".to_owned()
        } else {
            title.clone()
        },
        y_desc: "per run (lines lifted to stay apart)",
        y_label_area: 40,
        y_labels: Some(4),
        x: low..high,
        y: -0.1 * top..data_top / (1.0 - legend.min(0.6)),
    };
    line_chart(&frame, lines)
}

/// `memory-growth.svg`: the store size per session of each variant, and the consolidation
/// input cap.
pub(crate) fn growth_svg(report: &GrowthReport) -> Result<String, LabError> {
    let top = report
        .runs
        .iter()
        .flat_map(|r| r.rows.iter().map(|row| row.store_chars))
        .max()
        .unwrap_or(1) as f64
        * 1.1;
    let end = report.sessions as i32 + 1;
    let mut lines: Vec<Line> = report
        .runs
        .iter()
        .zip([RED, BLUE])
        .map(|(run, color)| Line {
            label: run.variant.clone(),
            color,
            width: 2,
            points: run
                .rows
                .iter()
                .map(|r| (r.session as i32, r.store_chars as f64))
                .collect(),
        })
        .collect();
    lines.push(Line {
        label: "consolidation input cap (20000 chars of catalog)".to_owned(),
        color: RGBColor(120, 120, 120),
        width: 1,
        points: vec![(0, 20_000.0), (end, 20_000.0)],
    });
    let frame = Frame {
        name: "growth",
        caption: "Memory store size per session",
        x_desc: "session",
        y_desc: "characters in .memory/",
        // Wide enough that the rotated description clears the five-digit tick labels.
        y_label_area: 64,
        y_labels: None,
        x: 0..end,
        y: 0.0..top,
    };
    line_chart(&frame, lines)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::experiments::sweep::SweepRow;
    use crate::memory::growth::{GrowthRun, SessionRow};

    /// The value of `name="…"` in a tag.
    fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[start..].split('"').next()
    }

    /// Each `<text>` of an SVG with its estimated box `[left, top, right, bottom]`: 0.62 em a
    /// character (DejaVu Sans digits are 0.64, letters less), one em high, placed by its
    /// anchor, `dy` and a `rotate(270, …)` as browsers and rsvg place them.
    pub(crate) fn label_boxes(svg: &str) -> Vec<(String, [f64; 4])> {
        let mut boxes = Vec::new();
        for piece in svg.split("<text ").skip(1) {
            let (tag, rest) = piece.split_once('>').expect("a closed tag");
            let tag = &format!(" {tag}");
            let content = rest.split("</text>").next().unwrap_or("").trim().to_owned();
            let num = |name: &str| attr(tag, name).map(|v| v.parse::<f64>().unwrap());
            let (x, y, size) = (
                num("x").unwrap(),
                num("y").unwrap(),
                num("font-size").unwrap(),
            );
            let width = content.chars().count() as f64 * 0.62 * size;
            let (left, right) = match attr(tag, "text-anchor") {
                Some("middle") => (-width / 2.0, width / 2.0),
                Some("end") => (-width, 0.0),
                _ => (0.0, width),
            };
            let (top, bottom) = match attr(tag, "dy") {
                Some("0.76em") => (0.0, size),
                Some("0.5ex") => (-size / 2.0, size / 2.0),
                Some("-0.5ex") => (-size, 0.0),
                None => (-0.8 * size, 0.2 * size),
                Some(other) => panic!("dy {other}"),
            };
            let placed = if attr(tag, "transform").is_some_and(|t| t.starts_with("rotate(270")) {
                // Turned a quarter left about (x, y): text runs upwards, its top faces left.
                [x + top, y - right, x + bottom, y - left]
            } else {
                [x + left, y + top, x + right, y + bottom]
            };
            boxes.push((content, placed));
        }
        boxes
    }

    /// The first pair of labels whose boxes overlap by more than half a pixel both ways.
    pub(crate) fn overlap(svg: &str) -> Option<(String, String)> {
        let boxes = label_boxes(svg);
        for (i, (a, p)) in boxes.iter().enumerate() {
            for (b, q) in &boxes[i + 1..] {
                let across = p[2].min(q[2]) - p[0].max(q[0]);
                let down = p[3].min(q[3]) - p[1].max(q[1]);
                if across > 0.5 && down > 0.5 {
                    return Some((a.clone(), b.clone()));
                }
            }
        }
        None
    }

    fn growth() -> GrowthReport {
        let row = |session: usize, store_chars: usize| SessionRow {
            session,
            records: session,
            store_chars,
            catalog_chars: 0,
            consolidations: 0,
            consolidations_skipped: 0,
            model_calls: 0,
            facts_kept: 0,
            facts_stored: 0,
        };
        GrowthReport {
            seed: 1,
            sessions: 60,
            runs: vec![
                GrowthRun {
                    variant: "memory-main".to_owned(),
                    rows: (1..=60).map(|s| row(s, s * 900)).collect(),
                },
                GrowthRun {
                    variant: "memory-main + chunked_consolidation".to_owned(),
                    rows: (1..=60).map(|s| row(s, s * 300)).collect(),
                },
            ],
        }
    }

    fn sweep(values: &[(usize, u64)]) -> SweepReport {
        SweepReport {
            scenario: "s".to_owned(),
            profile: "prototype".to_owned(),
            vary: Vary::Path,
            switches: Vec::new(),
            reference_file: None,
            observe: vec!["pointer_lost".to_owned()],
            rows: values
                .iter()
                .map(|&(value, y)| SweepRow {
                    value,
                    values: vec![y.into()],
                })
                .collect(),
            cliffs: Vec::new(),
        }
    }

    #[test]
    fn the_label_estimate_sees_the_old_overprint() {
        // The rotated description at x 12 spans x 12-21.7; a right-aligned "40000.0" ending at
        // x 58 starts at 58 - 7 × 0.62 × 9.68 = 16.0: the overprint the newcomer review saw.
        let old = "<text x=\"12\" y=\"184\" dy=\"0.76em\" text-anchor=\"middle\" font-size=\"9.67741935483871\" transform=\"rotate(270, 12, 184)\">\ncharacters in .memory/\n</text>\
                   <text x=\"58\" y=\"121\" dy=\"0.5ex\" text-anchor=\"end\" font-size=\"9.67741935483871\">\n40000.0\n</text>";
        let boxes = label_boxes(old);
        assert_eq!(boxes[0].1[0], 12.0);
        assert!((boxes[1].1[0] - 16.0).abs() < 0.05, "{boxes:?}");
        assert_eq!(
            overlap(old),
            Some(("characters in .memory/".to_owned(), "40000.0".to_owned()))
        );
    }

    #[test]
    fn growth_labels_do_not_overlap() {
        let svg = growth_svg(&growth()).unwrap();
        assert_eq!(overlap(&svg), None);
        let labels: Vec<String> = label_boxes(&svg).into_iter().map(|(t, _)| t).collect();
        // Integer ticks, no ".0"; the top tick of 54000 × 1.1 is 50000.
        assert!(labels.contains(&"50000".to_owned()), "{labels:?}");
        assert!(!labels.iter().any(|l| l.ends_with(".0")), "{labels:?}");
        // The description's box ends left of the widest tick label's.
        let boxes = label_boxes(&svg);
        let desc = boxes
            .iter()
            .find(|(t, _)| t.starts_with("characters"))
            .unwrap();
        let tick = boxes.iter().find(|(t, _)| t == "50000").unwrap();
        assert!(desc.1[2] < tick.1[0], "{desc:?} {tick:?}");
    }

    #[test]
    fn a_cliff_is_a_vertical_step() {
        assert_eq!(
            steps(&[(88, 0.0), (89, 0.0), (90, 1.0), (91, 1.0), (93, 3.0)]),
            vec![
                (88, 0.0),
                (89, 0.0),
                (90, 0.0),
                (90, 1.0),
                (91, 1.0),
                (93, 1.0),
                (93, 3.0)
            ]
        );
        let svg =
            sweep_svg(&[("s".to_owned(), sweep(&[(88, 0), (89, 0), (90, 1), (91, 1)]))]).unwrap();
        let line = svg
            .lines()
            .find(|l| l.contains("stroke=\"#FF0000\" stroke-width=\"2\""))
            .unwrap();
        let points: Vec<&str> = attr(line, "points").unwrap().split_whitespace().collect();
        // Five points: the jump at 90 is two of them with one x, the lower y first.
        assert_eq!(points.len(), 5, "{line}");
        let xy = |p: &str| -> (i32, i32) {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        };
        let (a, b) = (xy(points[2]), xy(points[3]));
        assert_eq!(a.0, b.0, "{line}");
        assert!(b.1 < a.1, "the value rises (screen y falls): {line}");
        assert_eq!(xy(points[1]).1, a.1, "flat before the step: {line}");
        assert_eq!(overlap(&svg), None);
    }

    #[test]
    fn the_checked_in_charts_have_no_overprinted_labels() {
        for (name, svg) in [
            (
                "memory-growth",
                include_str!("../../reports/memory-growth.svg"),
            ),
            ("sweep-path", include_str!("../../reports/sweep-path.svg")),
            ("montecarlo", include_str!("../../reports/montecarlo.svg")),
        ] {
            assert_eq!(overlap(svg), None, "{name}");
            assert!(label_boxes(svg).len() >= 10, "{name}");
        }
    }

    #[test]
    fn ticks_print_integers_plainly() {
        assert_eq!(tick(40000.0), "40000");
        assert_eq!(tick(-0.0), "0");
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(1.25), "1.25");
    }
}
