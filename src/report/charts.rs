//! The SVG charts of the reports, drawn with plotters: the spill path sweep (F5) and the memory
//! store's growth against the reverse gate (M8). Both are line charts of one shape, drawn by
//! [`line_chart`].

use std::ops::Range;

use plotters::prelude::*;

use crate::error::LabError;
use crate::experiments::sweep::SweepReport;
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
        mesh.x_desc(frame.x_desc).y_desc(frame.y_desc);
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

/// `sweep-path.svg`: each observable of each sweep against the spill file path length.
pub(super) fn sweep_svg(sweeps: &[(String, SweepReport)]) -> Result<String, LabError> {
    let styles = [
        (RED, 0.0),
        (BLUE, 0.04),
        (RGBColor(230, 120, 0), 0.08),
        (RGBColor(0, 130, 60), 0.12),
    ];
    let mut lines = Vec::new();
    for (title, report) in sweeps {
        for (column, observable) in report.observe.iter().enumerate() {
            let (color, lift) = styles[lines.len() % styles.len()];
            // A small lift keeps overlapping lines apart.
            let points = report
                .rows
                .iter()
                .map(|row| {
                    let y = row.values[column].as_f64().unwrap_or(0.0);
                    (row.value as i32, y + lift)
                })
                .collect();
            lines.push(Line {
                label: format!("{observable}: {title}"),
                color,
                width: 2,
                points,
            });
        }
    }
    let frame = Frame {
        name: "sweep",
        caption: "Lost results against spill file path length",
        x_desc: "spill file path length (chars)",
        y_desc: "results (lines offset to stay apart)",
        y_label_area: 40,
        y_labels: Some(3),
        x: 60..120,
        y: -0.1..1.6,
    };
    line_chart(&frame, lines)
}

/// `memory-growth.svg`: the store size per session of each variant, and the consolidation
/// input cap.
pub(super) fn growth_svg(report: &GrowthReport) -> Result<String, LabError> {
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
        y_label_area: 56,
        y_labels: None,
        x: 0..end,
        y: 0.0..top,
    };
    line_chart(&frame, lines)
}
