//! `lab profiles`: each compaction profile (estimator, pipeline, stage steps, constants,
//! switches, provenance), then each memory profile, as tables or as one JSON document whose
//! `profiles` list holds them.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::schema::{self, Document};
use super::{Format, compact_object, fields, heading_at, render};
use crate::compaction::profile::{PROFILES, Profile, describe_pipeline};
use crate::memory::profile::{MEMORY_PROFILES, MemoryProfile};

/// Profiles as their JSON document, `{"profiles": [...]}`: each one through `value`.
struct Listed<'a, T>(&'a [T], fn(&T) -> Value);

impl<T> Serialize for Listed<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        profiles_map(serializer, self.0.iter().map(self.1).collect())
    }
}

impl<T> Document for Listed<'_, T> {
    const SCHEMA: &'static str = schema::PROFILES;
}

/// Every profile: the compaction profiles, then the memory profiles.
struct AllProfiles;

impl Serialize for AllProfiles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let compaction = PROFILES.iter().map(profile_value);
        let memory = MEMORY_PROFILES.iter().map(memory_profile_value);
        profiles_map(serializer, compaction.chain(memory).collect())
    }
}

impl Document for AllProfiles {
    const SCHEMA: &'static str = schema::PROFILES;
}

/// `{"profiles": list}`.
fn profiles_map<S: Serializer>(serializer: S, list: Vec<Value>) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry("profiles", &list)?;
    map.end()
}

/// `lab profiles`: the compaction profiles, then the memory profiles.
pub fn all_profiles(format: Format) -> String {
    render(&AllProfiles, format, |_, format| {
        let mut out = profiles_text(PROFILES, format);
        out.push_str(&memory_profiles_text(&MEMORY_PROFILES, format));
        out
    })
}

/// Compaction profiles as tables, markdown or a JSON document.
pub fn profiles(profiles: &[Profile], format: Format) -> String {
    render(&Listed(profiles, profile_value), format, |list, format| {
        profiles_text(list.0, format)
    })
}

fn profiles_text(profiles: &[Profile], format: Format) -> String {
    let mut out = String::new();
    for p in profiles {
        out.push_str(&heading_at(
            2,
            &format!("{} — {}", p.name, p.provenance.system),
            format,
        ));
        let one = |text: String| vec![text];
        let changed = p
            .provenance
            .changes
            .map(|(base, what)| (format!("changed from {base}"), what));
        let mut rows = vec![
            (
                "estimate",
                one(format!(
                    "{} ({})",
                    p.estimator.describe(),
                    p.estimator.unit()
                )),
            ),
            ("prepare", one(describe_pipeline(p.pipeline))),
        ];
        if let Some(swapped) = p.swapped_pipeline {
            rows.push(("prepare, order=swapped", one(describe_pipeline(swapped))));
        }
        let stages = p.stages.iter().map(|s| s.as_str()).collect::<Vec<_>>();
        rows.push(("stage steps", one(stages.join(", "))));
        rows.push((
            "constants",
            one(compact_object(&p.constants.to_value(p.constant_names))),
        ));
        rows.push((
            "switches (defaults)",
            one(compact_object(&p.switches.to_value(p.switch_names))),
        ));
        if let Some((label, changes)) = &changed {
            rows.push((label.as_str(), owned(changes)));
        }
        rows.push(("sources", owned(p.provenance.sources)));
        rows.push(("not modelled", owned(p.provenance.absent)));
        out.push_str(&fields(rows, format));
        out.push_str("\n\n");
    }
    out
}

/// One compaction profile in `lab profiles --format json`.
pub fn profile_value(p: &Profile) -> Value {
    serde_json::json!({
        "name": p.name,
        "system": p.provenance.system,
        "sources": p.provenance.sources,
        "estimate": p.estimator.describe(),
        "unit": p.estimator.unit(),
        "prepare": describe_pipeline(p.pipeline),
        "swapped": p.swapped_pipeline.map(describe_pipeline),
        "stages": p.stages.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "constants": p.constants.to_value(p.constant_names),
        "switches": p.switches.to_value(p.switch_names),
        "absent": p.provenance.absent,
        "changes": p.provenance.changes.map(|(base, what)| serde_json::json!({
            "from": base,
            "what": what,
        })),
        "kind": "compaction",
    })
}

/// Memory profiles as tables, markdown or a JSON document, as `lab profiles` lists them after the
/// compaction profiles.
pub fn memory_profiles(profiles: &[MemoryProfile], format: Format) -> String {
    render(
        &Listed(profiles, memory_profile_value),
        format,
        |list, format| memory_profiles_text(list.0, format),
    )
}

fn memory_profiles_text(profiles: &[MemoryProfile], format: Format) -> String {
    let mut out = String::new();
    for p in profiles {
        out.push_str(&heading_at(
            2,
            &format!("{} — {}", p.name, p.system),
            format,
        ));
        let settable = match p.switch_names {
            [] => "none".to_owned(),
            names => names.join(", "),
        };
        let constants = compact_object(&p.constants.to_value());
        let constants = if constants.contains("=0 ") || constants.ends_with("=0") {
            format!("{constants} (0: no limit)")
        } else {
            constants
        };
        let rows = vec![
            ("kind", vec!["memory store (docs/memory.md)".to_owned()]),
            ("constants", vec![constants]),
            (
                "switches (defaults)",
                vec![compact_object(&p.switches.to_value())],
            ),
            ("settable switches", vec![settable]),
            ("sources", owned(p.sources)),
            ("not modelled", owned(p.absent)),
        ];
        out.push_str(&fields(rows, format));
        out.push_str("\n\n");
    }
    out
}

/// One memory profile in `lab profiles --format json`.
pub fn memory_profile_value(p: &MemoryProfile) -> Value {
    serde_json::json!({
        "name": p.name,
        "system": p.system,
        "sources": p.sources,
        "kind": "memory",
        "constants": p.constants.to_value(),
        "switches": p.switches.to_value(),
        "settable": p.switch_names,
        "absent": p.absent,
    })
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
