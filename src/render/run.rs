//! `lab run` of a compaction or a memory scenario, and `lab explain` of one tool result.

use serde::Serialize;

use super::schema::{self, Document};
use super::{Format, compact_object, heading, heading_at, render, table};
use crate::check::CheckOutcome;
use crate::compaction::driver::RunReport;
use crate::compaction::explain::Explanation;
use crate::fmt::{mark, short};
use crate::memory::run::MemoryReport;
use crate::python::json::char_len;

impl Document for RunReport {
    const SCHEMA: &'static str = schema::RUN;
}

impl Document for MemoryReport {
    const SCHEMA: &'static str = schema::MEMORY_RUN;
}

impl Document for Explanation {
    const SCHEMA: &'static str = schema::EXPLAIN;
}

/// `lab run` as a table, markdown or JSON.
pub fn run(report: &RunReport, format: Format) -> String {
    render(report, format, run_text)
}

fn run_text(report: &RunReport, format: Format) -> String {
    let title = format!("{} · profile {}", report.scenario, report.profile);
    let mut out = heading_at(2, &title, format);
    out.push_str(&format!(
        "switches: {}\nconstants: {}\nspill dir: {} ({} chars)\n\n",
        compact_object(&report.switches),
        compact_object(&report.constants),
        report.spill_dir,
        char_len(&report.spill_dir)
    ));
    out.push_str(&observables(&report.observables, format));
    out.push_str(&legend(report.context_unit));
    let rows = report
        .fates
        .iter()
        .map(|f| {
            vec![
                f.id.to_string(),
                f.name.to_string(),
                f.chars.to_string(),
                f.status.to_owned(),
                f.detail.to_string(),
            ]
        })
        .collect::<Vec<_>>();
    if !rows.is_empty() {
        out.push_str(&heading("Results", format));
        out.push_str(&table(
            &["id", "tool", "chars", "status", "final content / where"],
            rows,
            format,
        ));
        out.push_str("\n\n");
    }
    if !report.spill.is_empty() {
        out.push_str(&heading("Spill store", format));
        let rows = report
            .spill
            .iter()
            .map(|f| {
                vec![
                    f.path.to_string(),
                    char_len(&f.path).to_string(),
                    f.chars.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(&["path", "path chars", "chars"], rows, format));
        out.push_str("\n\n");
    }
    if !report.transcripts.is_empty() {
        out.push_str(&heading("Transcript archive", format));
        let rows = report
            .transcripts
            .iter()
            .map(|t| {
                vec![
                    t.path.to_string(),
                    format!("{} (step {})", t.stage, t.step),
                    t.messages.to_string(),
                    t.originals.to_string(),
                    t.placeholders.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "path",
                "written by",
                "messages",
                "results verbatim",
                "results replaced",
            ],
            rows,
            format,
        ));
        out.push_str("\n\n");
    }
    out.push_str(&expectations(&report.expect, format));
    out
}

/// `lab run` of a memory profile as a table, markdown or JSON.
pub fn memory_run(report: &MemoryReport, format: Format) -> String {
    render(report, format, memory_run_text)
}

fn memory_run_text(report: &MemoryReport, format: Format) -> String {
    let title = format!("{} · profile {}", report.scenario, report.profile);
    let mut out = heading_at(2, &title, format);
    out.push_str(&format!(
        "switches: {}\nconstants: {}\n\n",
        compact_object(&report.switches),
        compact_object(&report.constants)
    ));
    out.push_str(&observables(&report.observables, format));
    out.push_str(&heading("Store", format));
    let rows = report
        .files
        .iter()
        .map(|f| vec![f.name.clone(), f.chars.to_string()])
        .collect();
    out.push_str(&table(&["file", "chars"], rows, format));
    out.push_str("\n\n");
    out.push_str(&heading("MEMORY.md", format));
    out.push_str(&format!("```\n{}```\n\n", report.index));
    out.push_str(&expectations(&report.expect, format));
    out
}

/// What the sizes under a compaction run's observables are in, and what its two loss counts mean.
fn legend(unit: &str) -> String {
    format!(
        "context_size and peak_context_size are in {unit} (the profile's estimate). {}\n\n",
        crate::compaction::observables::LOSS_LEGEND
    )
}

/// The observables of a run (compaction or memory), one row each in output order.
fn observables(observables: &impl Serialize, format: Format) -> String {
    let observed = serde_json::to_value(observables).expect("observables serialise");
    let rows = observed
        .as_object()
        .expect("observables are an object")
        .iter()
        .filter(|(k, _)| !crate::compaction::observables::is_deprecated(k))
        .map(|(k, v)| vec![k.clone(), short(v)])
        .collect();
    let mut out = heading("Observables", format);
    out.push_str(&table(&["observable", "value"], rows, format));
    out.push_str("\n\n");
    out
}

/// The expectations of a run (`check` steps and the final `expect`), or nothing.
fn expectations(checks: &[CheckOutcome], format: Format) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let rows = checks
        .iter()
        .map(|c| {
            vec![
                c.step.map_or("end".to_owned(), |s| format!("step {s}")),
                c.key.clone(),
                short(&c.expected),
                short(&c.measured),
                mark(c.ok).to_owned(),
            ]
        })
        .collect();
    let mut out = heading("Expectations", format);
    out.push_str(&table(
        &["when", "expectation", "expected", "measured", ""],
        rows,
        format,
    ));
    out.push('\n');
    out
}

/// `lab explain` as a table, markdown or JSON.
pub fn explain(explanation: &Explanation, format: Format) -> String {
    render(explanation, format, explain_text)
}

fn explain_text(explanation: &Explanation, format: Format) -> String {
    let fate = &explanation.fate;
    let mut out = format!(
        "{} ({}, {} chars) in {} under {}\n\n",
        fate.id, fate.name, fate.chars, explanation.scenario, explanation.profile
    );
    let rows = explanation
        .events
        .iter()
        .map(|e| {
            let chars = match (e.before.get(), e.after.get()) {
                (Some(b), Some(a)) if a != b => format!("{b} → {a}"),
                (_, Some(a)) => a.to_string(),
                (Some(b), None) => b.to_string(),
                (None, None) => String::new(),
            };
            vec![
                e.step.to_string(),
                e.stage.to_owned(),
                e.kind.to_owned(),
                chars,
                e.reason.to_string(),
            ]
        })
        .collect();
    out.push_str(&table(
        &["step", "stage", "action", "chars", "why"],
        rows,
        format,
    ));
    out.push_str(&format!("\n\nfinal: {} — {}\n", fate.status, fate.detail));
    out
}
