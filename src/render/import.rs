//! `lab import`: what was written, what was skipped.

use std::path::Path;

use super::schema::{self, Document};
use super::{Format, heading, render, table};
use crate::import::ImportReport;

impl Document for ImportReport {
    const SCHEMA: &'static str = schema::IMPORT;
}

/// The summary of an import into `out`.
pub fn import(report: &ImportReport, out: &Path, format: Format) -> String {
    render(report, format, |report, format| {
        let mut text = heading(
            &format!(
                "imported {} session{} into {}",
                report.sessions.len(),
                if report.sessions.len() == 1 { "" } else { "s" },
                out.display()
            ),
            format,
        );
        let rows = report
            .sessions
            .iter()
            .map(|s| {
                let c = &s.counts;
                vec![
                    format!("{}.json", s.name),
                    s.format.name().to_owned(),
                    s.file.clone(),
                    c.turns.to_string(),
                    format!("{}/{}", c.results, c.calls),
                    c.result_chars.to_string(),
                    c.user_messages.to_string(),
                    c.idle_steps.to_string(),
                    c.observed_compactions.to_string(),
                ]
            })
            .collect();
        text.push_str(&table(
            &[
                "scenario",
                "from",
                "log",
                "turns",
                "results/calls",
                "result chars",
                "user msgs",
                "idle steps",
                "compactions seen",
            ],
            rows,
            format,
        ));
        text.push('\n');
        for session in report.sessions.iter().filter(|s| !s.notes.is_empty()) {
            let notes: Vec<String> = session
                .notes
                .iter()
                .map(|(what, n)| format!("{n} {what}"))
                .collect();
            text.push_str(&format!("{}: {}\n", session.name, notes.join("; ")));
        }
        if report.skipped_lines > 0 {
            text.push_str(&format!(
                "skipped {} bad line{} (--strict makes them errors):\n",
                report.skipped_lines,
                if report.skipped_lines == 1 { "" } else { "s" }
            ));
            for problem in &report.problems {
                text.push_str(&format!(
                    "  {}:{}: {}\n",
                    problem.file, problem.line, problem.message
                ));
            }
            if report.skipped_lines > report.problems.len() {
                text.push_str(&format!(
                    "  ... and {} more\n",
                    report.skipped_lines - report.problems.len()
                ));
            }
        }
        text
    })
}
