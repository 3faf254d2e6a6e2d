//! The tabular experiments: `lab matrix`, `lab sweep` (with its cliffs), `lab compare` and
//! `lab memory --growth`.

use super::schema::{self, Document};
use super::{Format, render, table};
use crate::experiments::compare::{CompareReport, CompareRow};
use crate::experiments::matrix::MatrixReport;
use crate::experiments::sweep::SweepReport;
use crate::fmt::{short, text};
use crate::memory::growth::GrowthReport;

impl Document for MatrixReport {
    const SCHEMA: &'static str = schema::MATRIX;
}

impl Document for SweepReport {
    const SCHEMA: &'static str = schema::SWEEP;
}

impl Document for CompareReport {
    const SCHEMA: &'static str = schema::COMPARE;
}

impl Document for GrowthReport {
    const SCHEMA: &'static str = schema::MEMORY_GROWTH;
}

/// `lab matrix` as a table, markdown or JSON.
pub fn matrix(report: &MatrixReport, format: Format) -> String {
    render(report, format, matrix_text)
}

fn matrix_text(report: &MatrixReport, format: Format) -> String {
    let mut out = format!(
        "{} · profile {}{} · cells: {}\n\n",
        report.scenario,
        report.profile,
        match (&report.reference_file, report.spill_path_chars) {
            (Some(file), Some(n)) => format!(" · spill file {file} path {n} chars"),
            _ => String::new(),
        },
        report.observe.join("/")
    );
    let corner = format!("{} \\ {}", report.rows.title(), report.cols.title());
    let mut header: Vec<String> = vec![corner];
    header.extend(report.cols.labels());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .labels()
        .into_iter()
        .zip(&report.cells)
        .map(|(label, cells)| {
            let mut row = vec![label];
            row.extend(cells.iter().map(|cell| {
                let values = cell.values.iter().map(text).collect::<Vec<_>>().join("/");
                match &cell.label {
                    Some(name) => format!("{values} ({name})"),
                    None => values,
                }
            }));
            row
        })
        .collect();
    out.push_str(&table(&header, rows, format));
    out.push('\n');
    out
}

/// `lab sweep` as a table, markdown or JSON.
pub fn sweep(report: &SweepReport, format: Format) -> String {
    render(report, format, sweep_text)
}

fn sweep_text(report: &SweepReport, format: Format) -> String {
    let mut out = format!(
        "{} · profile {}{}{} · varying {}\n\n",
        report.scenario,
        report.profile,
        if report.switches.is_empty() {
            String::new()
        } else {
            format!(" · {}", report.switches.join(" "))
        },
        report
            .reference_file
            .as_ref()
            .map(|f| format!(" · spill file {f}"))
            .unwrap_or_default(),
        report.vary.title()
    );
    let mut header = vec![report.vary.title()];
    header.extend(report.observe.iter().cloned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.value.to_string()];
            cells.extend(row.values.iter().map(text));
            cells
        })
        .collect();
    out.push_str(&table(&header, rows, format));
    out.push_str("\n\n");
    if report.cliffs.is_empty() {
        out.push_str("no cliff: every observable is constant over the range\n");
    }
    for cliff in &report.cliffs {
        out.push_str(&format!("cliff: {}\n", cliff.describe(&report.vary)));
    }
    out
}

/// `lab compare` as a table, markdown or JSON.
pub fn compare(report: &CompareReport, format: Format) -> String {
    render(report, format, compare_text)
}

fn compare_text(report: &CompareReport, format: Format) -> String {
    match format {
        Format::Table(screen) => compare_blocks(report, screen.width, format),
        _ => compare_rows(report, format),
    }
}

/// The cell of `column` in `row`: the value, with the profile's unit on context sizes.
fn compare_cell(report: &CompareReport, row: &CompareRow, column: usize) -> String {
    let text = short(&row.values[column]);
    if report.columns[column].contains("context") {
        format!("{text} {}", row.unit)
    } else {
        text
    }
}

/// For a terminal: per scenario, one column per profile and one row per observable, the
/// profiles in groups that fit the screen (14 observables across would not).
fn compare_blocks(report: &CompareReport, width: usize, format: Format) -> String {
    let mut out = String::new();
    for scenario in &report.scenarios {
        let rows: Vec<&CompareRow> = report
            .rows
            .iter()
            .filter(|r| &r.scenario == scenario && r.error.is_none())
            .collect();
        out.push_str(&format!("{scenario}\n"));
        // The observable names take 28 columns; a profile column about 16.
        let per_block = ((width.saturating_sub(30)) / 16).max(1);
        for group in rows.chunks(per_block) {
            let mut header = vec!["observable".to_owned()];
            header.extend(group.iter().map(|r| r.profile.clone()));
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut lines: Vec<Vec<String>> = (0..report.columns.len())
                .map(|c| {
                    let mut line = vec![report.columns[c].clone()];
                    line.extend(group.iter().map(|r| compare_cell(report, r, c)));
                    line
                })
                .collect();
            let mut common = vec!["common tokens".to_owned()];
            common.extend(
                group
                    .iter()
                    .map(|r| r.common_tokens.map(|t| t.to_string()).unwrap_or_default()),
            );
            lines.push(common);
            out.push_str(&table(&header, lines, format));
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(crate::compaction::profile::COMMON_RULE);
    out.push_str(&format!(
        "\n{}\n",
        crate::compaction::observables::LOSS_LEGEND
    ));
    compare_errors(report, &mut out);
    out
}

fn compare_errors(report: &CompareReport, out: &mut String) {
    for row in &report.rows {
        if let Some(error) = &row.error {
            out.push_str(&format!(
                "\n{} cannot run {}: {error}\n",
                row.profile, row.scenario
            ));
        }
    }
}

fn compare_rows(report: &CompareReport, format: Format) -> String {
    let mut header = vec!["scenario".to_owned(), "profile".to_owned()];
    header.extend(report.columns.iter().cloned());
    header.push("common tokens".to_owned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.scenario.clone(), row.profile.clone()];
            match &row.error {
                Some(_) => {
                    // The whole reason follows the table: a cell would cut it.
                    cells.push("cannot run (below)".to_owned());
                    cells.extend(std::iter::repeat_n(String::new(), report.columns.len()));
                }
                None => {
                    cells.extend((0..report.columns.len()).map(|c| compare_cell(report, row, c)))
                }
            }
            if let Some(tokens) = row.common_tokens {
                cells.push(tokens.to_string());
            }
            cells
        })
        .collect();
    let mut out = table(&header, rows, format);
    out.push_str(&format!(
        "\n{}\n{}\n",
        crate::compaction::profile::COMMON_RULE,
        crate::compaction::observables::LOSS_LEGEND
    ));
    compare_errors(report, &mut out);
    out
}

/// `lab memory --growth`: the first session and every fifth, as a table, markdown or JSON.
pub fn memory_growth(report: &GrowthReport, format: Format) -> String {
    render(report, format, memory_growth_text)
}

fn memory_growth_text(report: &GrowthReport, format: Format) -> String {
    let mut header = vec!["session".to_owned()];
    for run in &report.runs {
        header.push(format!("{}: records", run.variant));
        header.push("store chars".to_owned());
        header.push("consolidated / skipped".to_owned());
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = (0..report.sessions)
        .filter(|i| (i + 1) % 5 == 0 || *i == 0)
        .map(|i| {
            let mut row = vec![(i + 1).to_string()];
            for run in &report.runs {
                let r = &run.rows[i];
                row.push(r.records.to_string());
                row.push(r.store_chars.to_string());
                row.push(format!(
                    "{} / {}",
                    r.consolidations, r.consolidations_skipped
                ));
            }
            row
        })
        .collect();
    format!(
        "memory growth · {} sessions · seed {}\n\n{}\n",
        report.sessions,
        report.seed,
        table(&header, rows, format)
    )
}
