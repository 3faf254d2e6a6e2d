//! A workload as a scenario file: the [`Frame`] of fixed top-level fields a caller adds (name,
//! provenance, profile, overrides, `expect`), the value in docs/scenario-format.md's key order, and
//! the file text with one top-level key per line and one step per line, byte-identical on every
//! machine.

use serde_json::{Map, Value, json};
use smol_str::SmolStr;

use super::call::GenCall;
use super::generate::{GenStep, Workload, spill_dir};
use super::params::GenParams;
use crate::call_id::CallId;
use crate::error::LabError;
use crate::python::json;
use crate::scenario::{
    AssistantSpec, Body, Call, DEFAULT_SPILL_DIR, DEFAULT_TRANSCRIPT_DIR, ResultSpec, Scenario,
    Step,
};

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

    /// The scenario [`Self::scenario`] parses from the file, built without writing and parsing
    /// it (a Monte Carlo study builds one per session). A workload the parser would refuse (its
    /// results over the scenario limit, a relative directory) or a frame with expectations
    /// goes through the parser, which says why.
    pub fn build(&self, frame: &Frame, file: &str) -> Result<Scenario, LabError> {
        let spill = match &frame.spill_dir {
            Some(dir) => Some(dir.clone()),
            None if self.spill_pad > 0 => Some(spill_dir(self.spill_pad)),
            None => None,
        };
        let relative = |dir: &Option<String>| dir.as_ref().is_some_and(|d| !d.starts_with('/'));
        if !frame.expect.is_empty() || relative(&spill) || relative(&frame.transcript_dir) {
            return self.scenario(frame, file);
        }
        let mut calls = crate::scenario::CallTools::default();
        let mut steps = Vec::with_capacity(self.steps.len());
        let mut total_chars = 0usize;
        for step in &self.steps {
            steps.push(match step {
                GenStep::Turn(turn) => {
                    let mut specs = Vec::with_capacity(turn.len());
                    let mut results = Vec::with_capacity(turn.len());
                    for call in turn {
                        let Value::Object(input) = call.input() else {
                            return self.scenario(frame, file);
                        };
                        let body = call.body();
                        total_chars = total_chars.saturating_add(match &body {
                            Body::Chars(n) => *n,
                            Body::Text(text) => text.chars().count(),
                            Body::Lines { .. } => usize::MAX,
                        });
                        if total_chars > crate::limits::MAX_TOTAL_RESULT_CHARS {
                            return self.scenario(frame, file);
                        }
                        let id = CallId::new(&call.id);
                        let name = SmolStr::new(call.tool.name());
                        calls.insert(id, name.clone());
                        specs.push(Call {
                            id,
                            name,
                            input: input.into(),
                        });
                        results.push(ResultSpec { id, body });
                    }
                    Step::Turn {
                        assistant: AssistantSpec {
                            text: None,
                            calls: specs,
                            ..AssistantSpec::default()
                        },
                        results,
                    }
                }
                GenStep::Idle(minutes) => Step::Idle(*minutes),
                GenStep::User(text) => Step::User(text.clone()),
                GenStep::Answer(text) => Step::Turn {
                    assistant: AssistantSpec {
                        text: Some(text.clone()),
                        ..AssistantSpec::default()
                    },
                    results: Vec::new(),
                },
            });
        }
        Ok(Scenario {
            file: file.to_owned(),
            name: frame.name.clone(),
            about: Some(frame.about.clone()),
            source: Some(frame.source.clone()),
            profile: frame.profile.clone(),
            request: Some(self.request.clone()),
            dirs_given: spill.is_some() || frame.transcript_dir.is_some(),
            spill_dir: spill.unwrap_or_else(|| DEFAULT_SPILL_DIR.to_owned()),
            transcript_dir: frame
                .transcript_dir
                .clone()
                .unwrap_or_else(|| DEFAULT_TRANSCRIPT_DIR.to_owned()),
            constants: frame.constants.clone(),
            switches: frame.switches.clone(),
            summary: None,
            claude_md: None,
            steps,
            expect: Vec::new(),
            calls,
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::generate;
    use crate::workload::params::{GenParams, MIXES};

    /// The direct build is what the parser makes of the file, over every mix, fetched pages
    /// with `Full output:` lines, Edit/Write acknowledgements, idle gaps, new requests, deep and
    /// given directories, constants and switches; a frame with expectations, a relative
    /// directory and results over the scenario limit go through the parser (the last two fail
    /// there, with its message).
    #[test]
    fn build_is_the_parsed_file() {
        let frames = [
            Frame {
                name: "plain".into(),
                ..Frame::default()
            },
            Frame {
                name: "framed".into(),
                about: "a \"quoted\" about".into(),
                source: "src".into(),
                profile: Some("claude-code".into()),
                spill_dir: Some("/tmp/spill".into()),
                transcript_dir: Some("/tmp/transcripts".into()),
                constants: vec![("keep_results".into(), 0)],
                switches: vec![("unseen_guard".into(), "off".into())],
                expect: Vec::new(),
            },
        ];
        let mut turns = 0;
        let mut texts = 0;
        for (i, mix) in MIXES.iter().enumerate() {
            for seed in 0..12 {
                let params = GenParams {
                    seed: seed * 7 + i as u64,
                    turns: 30,
                    mix,
                    inject_rate: 0.6,
                    idle_rate: 0.3,
                    user_rate: 0.3,
                    ..GenParams::default()
                };
                let workload = generate::generate(&params);
                for frame in &frames {
                    let built = workload.build(frame, "f.json").expect("builds");
                    let parsed = workload.scenario(frame, "f.json").expect("parses");
                    assert_eq!(built, parsed, "mix {} seed {seed}", mix.name);
                    turns += built.steps.len();
                    texts += built
                        .steps
                        .iter()
                        .filter_map(|s| match s {
                            Step::Turn { results, .. } => Some(results),
                            _ => None,
                        })
                        .flatten()
                        .filter(|r| matches!(r.body, Body::Text(_)))
                        .count();
                }
            }
        }
        // Enough of each kind to mean something: text results are the pages and the acks.
        assert!(
            turns > 2000 && texts > 100,
            "{turns} steps, {texts} text results"
        );

        let workload = generate::generate(&GenParams::default());
        let relative = Frame {
            spill_dir: Some("relative/dir".into()),
            ..Frame::default()
        };
        let err = workload.build(&relative, "f.json").unwrap_err().to_string();
        assert!(
            err.contains("`spill_dir` must be an absolute path"),
            "{err}"
        );
        let over = generate::generate(&GenParams {
            turns: 400,
            size_mu: 14.0,
            size_sigma: 0.1,
            size_max: 1_000_000,
            ..GenParams::default()
        });
        let err = over.build(&frames[0], "f.json").unwrap_err().to_string();
        assert_eq!(
            err,
            over.scenario(&frames[0], "f.json").unwrap_err().to_string()
        );
        assert!(
            err.contains("exceed the limit of 100000000 characters"),
            "{err}"
        );
    }
}
