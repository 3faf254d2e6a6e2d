//! `lab --break`, `lab run --break` (D1-D6) and `lab memory --break` (MB1-MB5): each break
//! against its baseline, as one block per break in a terminal or one table row in markdown. Both
//! families share the layout of their changes.

use super::schema::{self, Document};
use super::{Format, render, table};
use crate::diff::{Change, describe_changes, describe_or_nothing};
use crate::experiments::breaks::BreakReport;
use crate::fmt::text;
use crate::memory::breaks::MemoryBreakReport;

impl Document for BreakReport {
    const SCHEMA: &'static str = schema::BREAKS;
}

impl Document for MemoryBreakReport {
    const SCHEMA: &'static str = schema::MEMORY_BREAKS;
}

/// `lab --break` and `lab run --break` as a table, markdown or JSON.
pub fn breaks(report: &BreakReport, format: Format) -> String {
    render(report, format, breaks_text)
}

fn breaks_text(report: &BreakReport, format: Format) -> String {
    let path = report.breaks.first().and_then(|b| {
        b.spill_path
            .as_ref()
            .map(|p| format!("spill file {p} ({} chars)", b.spill_path_chars.unwrap_or(0)))
    });
    let title = format!(
        "{} · profile {}{}",
        report.scenario,
        report.profile,
        path.map(|p| format!(" · {p}")).unwrap_or_default()
    );
    if format == Format::Markdown {
        let rows = report
            .breaks
            .iter()
            .map(|b| {
                vec![
                    b.name.clone(),
                    b.changes.join("; "),
                    describe_or_nothing(&b.changed, ", "),
                    describe_changes(&b.also_changed, ", "),
                ]
            })
            .collect();
        let header = if report.with_layers {
            [
                "break",
                "change",
                "prototype observables",
                "also changed (lab only)",
            ]
        } else {
            ["break", "change", "observables", ""]
        };
        return markdown(&title, &header, rows);
    }
    let mut out = format!("{title}\n");
    for b in &report.breaks {
        let head = format!("  change: {}\n", b.changes.join("; "));
        out.push_str(&block(&b.name, &b.label, &head, &b.changed));
        if !b.also_changed.is_empty() {
            out.push_str(&format!(
                "  also changed (lab observables the prototype did not measure): {}\n",
                describe_changes(&b.also_changed, ", ")
            ));
        }
    }
    if !report.skipped.is_empty() {
        out.push('\n');
    }
    for reason in &report.skipped {
        out.push_str(&format!("not run: {reason}\n"));
    }
    out
}

/// `lab memory --break` as a table, markdown or JSON.
pub fn memory_breaks(report: &MemoryBreakReport, format: Format) -> String {
    render(report, format, memory_breaks_text)
}

fn memory_breaks_text(report: &MemoryBreakReport, format: Format) -> String {
    let title = format!("memory breaks · profile {}", report.profile);
    if format == Format::Markdown {
        let rows = report
            .breaks
            .iter()
            .map(|b| {
                vec![
                    b.name.clone(),
                    b.change.clone(),
                    b.scenario.clone(),
                    describe_or_nothing(&b.changed, ", "),
                ]
            })
            .collect();
        return markdown(
            &title,
            &["break", "change", "scenario", "observables"],
            rows,
        );
    }
    let mut out = format!("{title}\n");
    for b in &report.breaks {
        let head = format!("  change:   {}\n  scenario: {}\n", b.change, b.scenario);
        out.push_str(&block(&b.name, &b.label, &head, &b.changed));
        let stray: Vec<String> = b.stray().iter().map(|c| c.observable.clone()).collect();
        if !stray.is_empty() {
            out.push_str(&format!(
                "  outside what the safeguard protects: {}\n",
                stray.join(", ")
            ));
        }
    }
    out
}

/// Breaks in markdown: the title line, then one row per break.
fn markdown(title: &str, header: &[&str], rows: Vec<Vec<String>>) -> String {
    format!("{title}\n\n{}\n", table(header, rows, Format::Markdown))
}

/// One break in a terminal: its name and label, the `head` lines (what it changes), then each
/// observable that changed, names aligned, or `no observable difference`.
fn block(name: &str, label: &str, head: &str, changed: &[Change]) -> String {
    let mut out = format!("\n== {name} · {label} ==\n{head}");
    if changed.is_empty() {
        out.push_str("  no observable difference\n");
    }
    let width = changed
        .iter()
        .map(|c| c.observable.len())
        .max()
        .unwrap_or(0);
    for c in changed {
        out.push_str(&format!(
            "  {:width$}  {} → {}\n",
            c.observable,
            text(&c.baseline),
            text(&c.broken)
        ));
    }
    out
}
