//! `lab search`: the property registry (`--list`), and a search's counterexample with the
//! commands that reproduce it.

use std::path::Path;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::{Format, render, table};
use crate::search::SearchReport;
use crate::search::properties::Property;

/// The property registry in `lab search --list --format json`.
struct Properties<'a>(&'a [Property]);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(property_value))
    }
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
    match format {
        Format::Table(screen) => {
            super::screen::fit(&search_text(report, written, command), screen.width)
        }
        _ => search_text(report, written, command),
    }
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
