//! Renders a probe or replay: the requests by kind, then one row per compared item, `exact` or
//! the first differing offset with both snippets; JSON is the `lab.probe/1` document: the
//! record's identity with the rows appended.

use serde::{Serialize, Serializer};
use serde_json::json;

use super::compare::Outcome;
use super::session::ProbeReport;
use crate::render::Format;
use crate::render::schema::{self, Document, document};

/// The report in `format`.
pub fn render(report: &ProbeReport, format: Format) -> String {
    match format {
        Format::Json => document(&Probe(report)),
        _ => table(report),
    }
}

/// A probe as its JSON document: the record's identity, the request counts and the rows.
struct Probe<'a>(&'a ProbeReport);

impl Serialize for Probe<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
        let rows: Vec<_> = report
            .rows
            .iter()
            .map(|r| json!({"item": r.item, "chars": r.chars, "comparison": describe(&r.outcome)}))
            .collect();
        json!({
            "scenario": report.scenario,
            "agent": report.agent,
            "version": report.version,
            "profile": report.profile,
            "requests": report.requests.iter().map(|(k, n)| json!([k, n])).collect::<Vec<_>>(),
            "rows": rows,
            "exact": report.exact(),
        })
        .serialize(serializer)
    }
}

impl Document for Probe<'_> {
    const SCHEMA: &'static str = schema::PROBE;
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Exact => "exact".into(),
        Outcome::Differs { offset, real, lab } => {
            format!("differs at {offset}: real {real:?} lab {lab:?}")
        }
        Outcome::Missing { in_real: true } => "only in the real request".into(),
        Outcome::Missing { in_real: false } => "only in the profile's".into(),
    }
}

fn table(report: &ProbeReport) -> String {
    let mut out = format!(
        "probe {} · {} {} · profile {}",
        report.scenario, report.agent, report.version, report.profile
    );
    if let Some(elapsed) = report.elapsed {
        out.push_str(&format!(" · agent ran {:.1} s", elapsed.as_secs_f64()));
    }
    out.push('\n');
    let counts: Vec<String> = report
        .requests
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    out.push_str(&format!("requests: {}\n\n", counts.join(", ")));
    let width = report
        .rows
        .iter()
        .map(|r| r.item.len())
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!("{:<width$}  {:>6}  comparison\n", "item", "chars"));
    for row in &report.rows {
        out.push_str(&format!(
            "{:<width$}  {:>6}  {}\n",
            row.item,
            row.chars,
            describe(&row.outcome)
        ));
    }
    let exact = report.rows.iter().filter(|r| r.exact()).count();
    out.push_str(&format!(
        "\n{exact} of {} items exact against the last main request\n",
        report.rows.len()
    ));
    out
}
