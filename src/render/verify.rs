//! `lab verify` (every scenario's expectations, then the findings table) and `lab --selftest`.

use super::schema::{self, Document};
use super::{Format, heading, render, table};
use crate::experiments::findings::FindingRow;
use crate::experiments::selftest::Selftest;
use crate::experiments::verify::VerifyReport;
use crate::fmt::{mark, short, text};

impl Document for VerifyReport {
    const SCHEMA: &'static str = schema::VERIFY;
}

impl Document for Selftest {
    const SCHEMA: &'static str = schema::SELFTEST;
}

/// `lab verify` as a table, markdown or JSON.
pub fn verify(report: &VerifyReport, format: Format) -> String {
    render(report, format, verify_text)
}

fn verify_text(report: &VerifyReport, format: Format) -> String {
    let rows = report
        .rows
        .iter()
        .map(|r| {
            let expectation = match r.step {
                Some(step) => format!("{} (step {step})", r.expectation),
                None => r.expectation.clone(),
            };
            vec![
                r.scenario.clone(),
                expectation,
                short(&r.expected),
                short(&r.measured),
                mark(r.ok).to_owned(),
            ]
        })
        .collect();
    if report.rows.is_empty() && report.without_expect.is_empty() {
        let mut out =
            "no scenario files (name FILE or DIR, or run where scenarios/ is)\n".to_owned();
        if !report.findings.is_empty() {
            out.push('\n');
            out.push_str(&findings_text(report, format));
        }
        return out;
    }
    let mut out = table(
        &["scenario", "expectation", "expected", "measured", ""],
        rows,
        format,
    );
    out.push_str(&format!(
        "\n{} expectations, {} passed, {} failed\n",
        report.rows.len(),
        report.rows.len() - report.failures(),
        report.failures()
    ));
    for file in &report.without_expect {
        out.push_str(&format!("note: {file} has no expectations\n"));
    }
    if report.findings.is_empty() {
        return out;
    }
    out.push('\n');
    out.push_str(&findings_text(report, format));
    out
}

/// The findings section: its heading, table and count.
fn findings_text(report: &VerifyReport, format: Format) -> String {
    let mut out = heading("Findings", format);
    out.push_str(&findings_table(&report.findings, format));
    let failed = report.findings.iter().filter(|f| !f.ok).count();
    out.push_str(&format!(
        "\n{} findings, {} reproduced, {} not\n",
        report.findings.len(),
        report.findings.len() - failed,
        failed
    ));
    out
}

/// The findings table: id, seed section, expected, measured, ✓/✗.
pub fn findings_table(rows: &[FindingRow], format: Format) -> String {
    let rows = rows
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.source.clone(),
                f.expected.clone(),
                f.measured.clone(),
                mark(f.ok).to_owned(),
            ]
        })
        .collect();
    table(
        &["finding", "source", "expected", "measured", ""],
        rows,
        format,
    )
}

/// `lab --selftest` as text, markdown or JSON.
pub fn selftest(report: &Selftest, format: Format) -> String {
    render(report, format, selftest_text)
}

fn selftest_text(report: &Selftest, _format: Format) -> String {
    let mut out = String::from("baseline (prototype replay and layers)\n");
    let width = report
        .baseline
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(0);
    for (key, value) in &report.baseline {
        out.push_str(&format!("  {key:width$} = {}\n", text(value)));
    }
    out.push('\n');
    for a in &report.assertions {
        out.push_str(&format!(
            "{} {}: expected {}, measured {}\n",
            mark(a.ok),
            a.what,
            a.expected,
            a.measured
        ));
    }
    out.push_str(if report.passed() {
        "\nSELFTEST PASSED\n"
    } else {
        "\nSELFTEST FAILED\n"
    });
    out
}
