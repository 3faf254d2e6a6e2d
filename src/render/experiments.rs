//! The tabular experiments: `lab matrix`, `lab sweep` (with its cliffs), `lab compare` and
//! `lab memory --growth`.

use super::{Format, render, table};
use crate::experiments::compare::CompareReport;
use crate::experiments::matrix::MatrixReport;
use crate::experiments::sweep::SweepReport;
use crate::fmt::{short, text};
use crate::memory::growth::GrowthReport;

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
    let mut header = vec!["scenario".to_owned(), "profile".to_owned()];
    header.extend(report.columns.iter().cloned());
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
                    cells.extend(std::iter::repeat_n(String::new(), report.columns.len() - 1));
                }
                None => cells.extend(report.columns.iter().zip(&row.values).map(
                    |(column, value)| {
                        let text = short(value);
                        if column.contains("context") {
                            format!("{text} {}", row.unit)
                        } else {
                            text
                        }
                    },
                )),
            }
            cells
        })
        .collect();
    let mut out = table(&header, rows, format);
    out.push('\n');
    for row in &report.rows {
        if let Some(error) = &row.error {
            out.push_str(&format!(
                "\n{} cannot run {}: {error}\n",
                row.profile, row.scenario
            ));
        }
    }
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
