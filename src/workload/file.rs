//! A workload as a scenario file: the [`Frame`] of fixed top-level fields a caller adds (name,
//! provenance, profile, overrides, `expect`), the value in docs/scenario-format.md's key order, and
//! the file text with one top-level key per line and one step per line, byte-identical on every
//! machine.

use serde_json::{Map, Value, json};

use super::call::GenCall;
use super::generate::{GenStep, Workload, spill_dir};
use super::params::GenParams;
use crate::error::LabError;
use crate::python::json;
use crate::scenario::Scenario;

/// Fixed top-level fields a caller adds around a workload (name, provenance, profile, ...).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frame {
    pub name: String,
    pub about: String,
    pub source: String,
    pub profile: Option<String>,
    /// A spill directory that replaces the generated one.
    pub spill_dir: Option<String>,
    pub transcript_dir: Option<String>,
    pub constants: Vec<(String, usize)>,
    pub switches: Vec<(String, String)>,
    /// The `expect` block, in order.
    pub expect: Vec<(String, Value)>,
}

impl Workload {
    /// The steps in the scenario format.
    pub fn step_values(&self) -> Vec<Value> {
        self.steps
            .iter()
            .map(|step| match step {
                GenStep::Turn(calls) => json!({ "turn": {
                    "calls": calls.iter().map(|c| json!({
                        "id": c.id, "name": c.tool.name(), "input": c.input()
                    })).collect::<Vec<_>>(),
                    "results": calls.iter().map(GenCall::result).collect::<Vec<_>>(),
                }}),
                GenStep::Idle(minutes) => json!({ "idle": minutes }),
                GenStep::User(text) => json!({ "user": text }),
                GenStep::Answer(text) => json!({ "turn": { "text": text } }),
            })
            .collect()
    }

    /// The scenario as a JSON value, top-level keys in the order of docs/scenario-format.md.
    pub fn to_value(&self, frame: &Frame) -> Value {
        let mut top = Map::new();
        top.insert("name".into(), frame.name.clone().into());
        top.insert("about".into(), frame.about.clone().into());
        top.insert("source".into(), frame.source.clone().into());
        if let Some(profile) = &frame.profile {
            top.insert("profile".into(), profile.clone().into());
        }
        top.insert("request".into(), self.request.clone().into());
        match &frame.spill_dir {
            Some(dir) => {
                top.insert("spill_dir".into(), dir.clone().into());
            }
            None if self.spill_pad > 0 => {
                top.insert("spill_dir".into(), spill_dir(self.spill_pad).into());
            }
            None => {}
        }
        if let Some(dir) = &frame.transcript_dir {
            top.insert("transcript_dir".into(), dir.clone().into());
        }
        if !frame.constants.is_empty() {
            let map: Map<String, Value> = frame
                .constants
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(*v)))
                .collect();
            top.insert("constants".into(), Value::Object(map));
        }
        if !frame.switches.is_empty() {
            let map: Map<String, Value> = frame
                .switches
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                .collect();
            top.insert("switches".into(), Value::Object(map));
        }
        top.insert("steps".into(), Value::Array(self.step_values()));
        if !frame.expect.is_empty() {
            top.insert(
                "expect".into(),
                Value::Object(frame.expect.iter().cloned().collect()),
            );
        }
        Value::Object(top)
    }

    /// The scenario file: one top-level key per line, one step per line, Python's separators.
    pub fn to_json(&self, frame: &Frame) -> String {
        render_scenario(&self.to_value(frame))
    }

    /// The workload parsed by the normal scenario parser (`file` names it in errors).
    pub fn scenario(&self, frame: &Frame, file: &str) -> Result<Scenario, LabError> {
        Ok(Scenario::from_value(
            file,
            &frame.name,
            &self.to_value(frame),
        )?)
    }
}

/// A scenario value as a file: `{`, one `"key": value` line per top-level key (steps one per
/// line), `}` and a final newline.
pub fn render_scenario(value: &Value) -> String {
    let Value::Object(top) = value else {
        return json::dumps(value) + "\n";
    };
    let mut lines = Vec::new();
    for (key, value) in top {
        let key = json::dumps(&Value::from(key.clone()));
        match value {
            Value::Array(steps) if key == "\"steps\"" => {
                let body: Vec<String> = steps
                    .iter()
                    .map(|s| format!("    {}", json::dumps(s)))
                    .collect();
                lines.push(format!("  {key}: [\n{}\n  ]", body.join(",\n")));
            }
            other => lines.push(format!("  {key}: {}", json::dumps(other))),
        }
    }
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// `lab gen`: the frame of a generated file (name, provenance, no profile).
pub fn gen_frame(params: &GenParams, command: &str) -> Frame {
    Frame {
        name: format!("gen-seed{}", params.seed),
        about: format!(
            "A generated workload: {} turns of the `{}` mix, log-normal result sizes (mu {}, sigma {}, max {}). Reproduce with `{command}`.",
            params.turns, params.mix.name, params.size_mu, params.size_sigma, params.size_max
        ),
        source: "lab gen".to_owned(),
        ..Frame::default()
    }
}
