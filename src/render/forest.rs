//! The Monte Carlo chart (`reports/montecarlo.svg`, and `lab montecarlo --chart`): a forest
//! plot of P(any loss) per cell, a dot at the share of sessions with any loss and a whisker
//! over its 95% Wilson interval, on a 0-100% axis. Written by hand as SVG text: [`layout`]
//! computes every coordinate (tested), [`svg`] only prints them with one decimal.

use std::fmt::Write as _;

use crate::experiments::montecarlo::MonteCarloReport;

/// Estimated width of one character at a font size, as a share of the size (sans-serif,
/// generous: DejaVu Sans digits are 0.64 em).
const CHAR_EM: f64 = 0.64;
const FONT: f64 = 12.0;
const ROW: f64 = 22.0;
const TOP: f64 = 48.0;
/// The least width of the 0-100% axis, and of the whole chart.
const PLOT: f64 = 400.0;
const WIDTH: f64 = 720.0;
const RIGHT: f64 = 24.0;

/// One cell's row: its label and the x of its rate and interval bounds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub label: String,
    /// The vertical centre of the row.
    pub y: f64,
    pub mean_x: f64,
    pub low_x: f64,
    pub high_x: f64,
}

/// Every coordinate of the chart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Forest {
    pub caption: String,
    pub width: f64,
    pub height: f64,
    /// The x of 0% and of 100%.
    pub left: f64,
    pub right: f64,
    /// The y of the first row's top and of the axis line.
    pub top: f64,
    pub bottom: f64,
    pub rows: Vec<Row>,
}

impl Forest {
    /// The x of a share in [0, 1].
    fn x(&self, share: f64) -> f64 {
        self.left + share.clamp(0.0, 1.0) * (self.right - self.left)
    }
}

/// The chart's geometry: the label column as wide as the longest cell label, then the axis.
pub(crate) fn layout(report: &MonteCarloReport) -> Forest {
    let longest = report
        .cells
        .iter()
        .map(|c| c.cell.chars().count())
        .max()
        .unwrap_or(0);
    let left = 16.0 + longest as f64 * CHAR_EM * FONT + 12.0;
    let mut forest = Forest {
        caption: format!(
            "P(any loss) per cell over {} sessions, with its 95% Wilson interval",
            report.study.sessions
        ),
        width: (left + PLOT + RIGHT).max(WIDTH),
        height: 0.0,
        left,
        right: left + PLOT.max(WIDTH - left - RIGHT),
        top: TOP,
        bottom: TOP + ROW * report.cells.len() as f64,
        rows: Vec::new(),
    };
    forest.height = forest.bottom + 52.0;
    forest.rows = report
        .cells
        .iter()
        .enumerate()
        .filter_map(|(i, cell)| {
            let (_, e) = cell.estimates.iter().find(|(name, _)| name == "any_loss")?;
            Some(Row {
                label: cell.cell.clone(),
                y: TOP + ROW * (i as f64 + 0.5),
                mean_x: forest.x(e.mean),
                low_x: forest.x(e.low),
                high_x: forest.x(e.high),
            })
        })
        .collect();
    forest
}

/// `&`, `<`, `>` and `"` escaped for SVG text and attributes.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart of a Monte Carlo result as SVG text, ending in a newline.
pub(crate) fn montecarlo_svg(report: &MonteCarloReport) -> String {
    svg(&layout(report))
}

/// Prints a laid-out chart.
fn svg(f: &Forest) -> String {
    let mut out = String::new();
    let text = "font-family=\"sans-serif\" fill=\"#000000\"";
    let _ = writeln!(
        out,
        "<svg width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" xmlns=\"http://www.w3.org/2000/svg\">",
        w = f.width,
        h = f.height
    );
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{:.0}\" height=\"{:.0}\" fill=\"#FFFFFF\"/>",
        f.width, f.height
    );
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" {text}>{}</text>",
        f.width / 2.0,
        escape(&f.caption)
    );
    for percent in [0u32, 25, 50, 75, 100] {
        let x = f.x(f64::from(percent) / 100.0);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#000000\" stroke-opacity=\"0.15\" stroke-width=\"1\"/>",
            f.top, f.bottom
        );
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"{FONT}\" {text}>{percent}%</text>",
            f.bottom + 18.0
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{:.1}\" y1=\"{b:.1}\" x2=\"{:.1}\" y2=\"{b:.1}\" stroke=\"#000000\" stroke-width=\"1\"/>",
        f.left,
        f.right,
        b = f.bottom
    );
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"{FONT}\" {text}>share of sessions with dropped_unsaved, pointer_lost or unrecoverable above 0</text>",
        (f.left + f.right) / 2.0,
        f.bottom + 40.0
    );
    for row in &f.rows {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"{FONT}\" {text}>{}</text>",
            f.left - 12.0,
            row.y + 4.0,
            escape(&row.label)
        );
        let _ = writeln!(
            out,
            "<path class=\"interval\" d=\"M{lo:.1},{y:.1}H{hi:.1}M{lo:.1},{t:.1}V{b:.1}M{hi:.1},{t:.1}V{b:.1}\" stroke=\"#1F4E9A\" stroke-width=\"1.5\" fill=\"none\"/>",
            lo = row.low_x,
            hi = row.high_x,
            y = row.y,
            t = row.y - 5.0,
            b = row.y + 5.0
        );
        let _ = writeln!(
            out,
            "<circle class=\"rate\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"#C0282D\"/>",
            row.mean_x, row.y
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::montecarlo::{CellResult, Estimate, Study};

    fn report(rates: &[(&str, f64, f64, f64)]) -> MonteCarloReport {
        MonteCarloReport {
            study: Study {
                sessions: 500,
                generator: crate::workload::options::GenOptions::default(),
                cells: Vec::new(),
            },
            cells: rates
                .iter()
                .map(|&(cell, mean, low, high)| CellResult {
                    cell: cell.to_owned(),
                    profile: cell.to_owned(),
                    switches: Vec::new(),
                    sessions: 500,
                    unit: "chars".to_owned(),
                    estimates: vec![
                        (
                            "dropped_unsaved".to_owned(),
                            Estimate {
                                mean: 9.0,
                                low: 8.0,
                                high: 10.0,
                            },
                        ),
                        ("any_loss".to_owned(), Estimate { mean, low, high }),
                    ],
                })
                .collect(),
        }
    }

    #[test]
    fn whiskers_match_the_rates() {
        // anthropic-api's row of reports/montecarlo.md: 13.40% [10.69%, 16.67%].
        let r = report(&[
            ("course-site", 1.0, 0.9924, 1.0),
            ("anthropic-api", 0.134, 0.1069, 0.1667),
        ]);
        let f = layout(&r);
        // 13 chars of "anthropic-api" × 0.64 × 12 px + 28 px of padding.
        assert!((f.left - 127.84).abs() < 1e-9, "{}", f.left);
        // The axis fills the 720 px chart: 720 - 127.84 - 24 right margin = 568.16 px.
        assert!((f.right - f.left - 568.16).abs() < 1e-9, "{}", f.right);
        let row = &f.rows[1];
        let at = |share: f64| f.left + share * 568.16;
        assert!((row.mean_x - at(0.134)).abs() < 1e-9, "{row:?}");
        assert!((row.low_x - at(0.1069)).abs() < 1e-9, "{row:?}");
        assert!((row.high_x - at(0.1667)).abs() < 1e-9, "{row:?}");
        // 13.40% of 568.16 px is 76.1 px right of 0%.
        assert_eq!(format!("{:.1}", row.mean_x - f.left), "76.1");
        assert_eq!(f.rows[0].high_x, f.right);
        assert_eq!((f.rows[0].y, f.rows[1].y), (59.0, 81.0));
        assert_eq!(f.bottom, 92.0);
    }

    #[test]
    fn one_dot_and_one_whisker_per_cell() {
        let r = report(&[
            ("a", 0.5, 0.4, 0.6),
            ("b<c", 0.0, 0.0, 0.0076),
            ("d", 0.2, 0.1, 0.3),
        ]);
        let text = montecarlo_svg(&r);
        assert!(text.starts_with("<svg "), "{text}");
        assert!(text.ends_with("</svg>\n"), "{text}");
        assert_eq!(text.matches("<circle class=\"rate\"").count(), 3);
        assert_eq!(text.matches("<path class=\"interval\"").count(), 3);
        assert!(text.contains(">b&lt;c</text>"), "{text}");
        let f = layout(&r);
        // The whisker of "a" runs from 40% to 60% of the axis with caps at both ends.
        let a = format!(
            "M{lo:.1},59.0H{hi:.1}M{lo:.1},54.0V64.0M{hi:.1},54.0V64.0",
            lo = f.left + 0.4 * (f.right - f.left),
            hi = f.left + 0.6 * (f.right - f.left)
        );
        assert!(text.contains(&a), "{a} in {text}");
        assert_eq!(montecarlo_svg(&r), text, "deterministic");
        assert_eq!(crate::render::charts::tests::overlap(&text), None);
    }

    #[test]
    fn labels_clear_the_axis() {
        let long = "course-main unseen_guard=off order=swapped";
        let f = layout(&report(&[(long, 1.0, 0.99, 1.0)]));
        // The label ends 12 px left of 0%, and starts 16 px right of the edge.
        let width = long.len() as f64 * CHAR_EM * FONT;
        assert!((f.left - 12.0 - width - 16.0).abs() < 1e-9);
        assert_eq!(f.width, f.left + PLOT + RIGHT);
        assert!((f.right - f.left - PLOT).abs() < 1e-9);
    }
}
