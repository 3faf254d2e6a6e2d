//! `lab explain`: what happened to one result, step by step, and why.

use serde::Serialize;

use crate::compaction::driver::RunReport;
use crate::compaction::observables::Fate;
use crate::error::LabError;
use crate::trace::Event;

/// The story of one result.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub scenario: String,
    pub profile: String,
    pub fate: Fate,
    pub events: Vec<Event>,
}

/// Picks one result's events and fate out of a run.
pub fn explain(report: &RunReport, id: &str) -> Result<Explanation, LabError> {
    let fate = report
        .fates
        .iter()
        .find(|f| f.id == id)
        .cloned()
        .ok_or_else(|| {
            let known: Vec<&str> = report.fates.iter().map(|f| f.id.as_str()).collect();
            LabError::Usage(format!(
                "{}: no result `{id}` in this run (results: {})",
                report.file,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
        })?;
    let events = report
        .trace
        .iter()
        .filter(|e| e.id.as_deref() == Some(id))
        .cloned()
        .collect();
    Ok(Explanation {
        scenario: report.scenario.clone(),
        profile: report.profile.clone(),
        fate,
        events,
    })
}
