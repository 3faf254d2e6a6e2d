//! `lab search`: the property registry (`--list`), and a search's counterexample with the
//! commands that reproduce it.

use std::path::Path;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::schema::{self, Document};
use super::{Format, render, table};
use crate::search::SearchReport;
use crate::search::properties::Property;

/// The property registry in `lab search --list --format json`: `{"properties": [...]}`.
struct Properties<'a>(&'a [Property]);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let list: Vec<Value> = self.0.iter().map(property_value).collect();
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("properties", &list)?;
        map.end()
    }
}

impl Document for Properties<'_> {
    const SCHEMA: &'static str = schema::PROPERTIES;
}

fn property_value(p: &Property) -> Value {
    serde_json::json!({
        "property": p.name,
        "violated_when": p.violated_when,
        "observable": p.observable,
        "about": p.about,
    })
}

/// `lab search --list`: the property registry as a table, markdown or JSON.
pub fn properties(list: &[Property], format: Format) -> String {
    render(&Properties(list), format, |list, format| {
        let rows = list
            .0
            .iter()
            .map(|p| {
                vec![
                    p.name.to_owned(),
                    p.violated_when.to_owned(),
                    p.about.to_owned(),
                ]
            })
            .collect();
        table(&["property", "violated when", "meaning"], rows, format) + "\n"
    })
}

/// `lab search`: what was found, where it was written and how to reproduce it, its lines fitted
/// to the screen of a table `format`.
pub fn search(
    report: &SearchReport,
    written: Option<&Path>,
    command: &str,
    format: Format,
) -> String {
    let search = Search {
        report,
        written,
        command,
    };
    render(&search, format, |s, _| {
        search_text(s.report, s.written, s.command)
    })
}

/// A search as its JSON document: what was searched, and what was found (or `null`).
struct Search<'a> {
    report: &'a SearchReport,
    written: Option<&'a Path>,
    command: &'a str,
}

impl Serialize for Search<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.report;
        let found = report.found.as_ref().map(|found| {
            let measured: serde_json::Map<String, Value> =
                found.frame.expect.iter().cloned().collect();
            serde_json::json!({
                "candidate": found.candidate,
                "candidate_seed": format!("{:#018x}", found.candidate_seed),
                "original_turns": found.original_turns,
                "original_calls": found.original_calls,
                "turns": found.workload.turns(),
                "calls": found.workload.calls(),
                "shrink": {
                    "accepted": found.shrink.accepted,
                    "runs": found.shrink.runs,
                    "passes": found.shrink.passes,
                },
                "measured": measured,
                "written": self.written.map(|p| p.display().to_string()),
            })
        });
        serde_json::json!({
            "property": report.property.name,
            "violated_when": report.property.violated_when,
            "profile": report.profile,
            "seed": report.seed,
            "budget": report.budget,
            "tried": report.tried,
            "found": found,
            "command": self.command,
        })
        .serialize(serializer)
    }
}

impl Document for Search<'_> {
    const SCHEMA: &'static str = schema::SEARCH;
}

fn search_text(report: &SearchReport, written: Option<&Path>, command: &str) -> String {
    let property = report.property;
    let Some(found) = &report.found else {
        return format!(
            "no counterexample in {} candidates: {} ({}) held under {} (seed {})\nrepeat: {command}\n",
            report.budget, property.name, property.violated_when, report.profile, report.seed
        );
    };
    let measured: Vec<String> = found
        .frame
        .expect
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let mut out = format!(
        "{} ({}) violated under {}: candidate {} of {} (seed {}, child seed {:#018x})\n",
        property.name,
        property.violated_when,
        report.profile,
        found.candidate,
        report.budget,
        report.seed,
        found.candidate_seed
    );
    out.push_str(&format!(
        "shrunk from {} turns / {} calls to {} turns / {} calls: {} reductions kept in {} runs ({} passes)\n",
        found.original_turns,
        found.original_calls,
        found.workload.turns(),
        found.workload.calls(),
        found.shrink.accepted,
        found.shrink.runs,
        found.shrink.passes
    ));
    out.push_str(&format!("measured: {}\n", measured.join(", ")));
    if let Some(path) = written {
        out.push_str(&format!(
            "wrote {}\nreproduce:\n  lab run {}\n  {command}\n",
            path.display(),
            path.display()
        ));
    }
    out
}
