//! Writing one imported session as a scenario file (docs/scenario-format.md), step by step as the
//! importer reads it, so that memory does not grow with the session: the header, then one step per
//! line, then the closing brackets. Every importer hands its messages over in the same neutral
//! shape ([`Turn`]); redaction ([`super::redact`]) happens here, once for all formats.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::redact;
use crate::scenario::{Observed, Usage};

/// The minutes of an `idle` step: the gap from the last assistant message to the next request,
/// whole minutes, written when at least one.
const MILLIS_PER_MINUTE: i64 = 60_000;

/// One tool call of an imported assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedCall {
    pub id: String,
    pub name: String,
    pub input: Map<String, Value>,
}

/// One model response with the results of its calls (those the log holds, in call order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    pub text: Option<String>,
    pub calls: Vec<ImportedCall>,
    pub results: Vec<(String, String)>,
    pub usage: Option<Usage>,
    /// When the response was recorded (ms since 1970), for the next idle gap.
    pub at_ms: Option<i64>,
}

/// The top-level fields of an imported scenario.
#[derive(Debug, Clone)]
pub struct Header {
    pub name: String,
    pub about: String,
    pub source: String,
    /// The profile that models the system the log came from, when the lab has one.
    pub profile: Option<&'static str>,
}

/// What one written scenario holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub steps: usize,
    /// Model responses (`turn` steps, or `prepare` + `assistant` when a call has no result).
    pub turns: usize,
    pub calls: usize,
    pub results: usize,
    /// Calls the log never answered (the run's pair repair or api_valid shows them).
    pub unanswered: usize,
    pub user_messages: usize,
    pub idle_steps: usize,
    pub observed_compactions: usize,
    /// Characters of all result texts.
    pub result_chars: usize,
}

/// Writes one scenario.
pub struct ScenarioWriter<'w> {
    out: Box<dyn Write + 'w>,
    redact: bool,
    counts: Counts,
    last_assistant_ms: Option<i64>,
}

impl<'w> ScenarioWriter<'w> {
    /// Writes the header and opens the step list.
    pub fn begin(mut out: Box<dyn Write + 'w>, header: &Header, redact: bool) -> io::Result<Self> {
        let mut top = Map::new();
        top.insert("name".into(), Value::String(header.name.clone()));
        top.insert("about".into(), Value::String(header.about.clone()));
        top.insert("source".into(), Value::String(header.source.clone()));
        if let Some(profile) = header.profile {
            top.insert("profile".into(), Value::String(profile.to_owned()));
        }
        out.write_all(b"{\n")?;
        for (key, value) in &top {
            writeln!(out, "  {}: {},", json!(key), value)?;
        }
        out.write_all(b"  \"steps\": [")?;
        Ok(ScenarioWriter {
            out,
            redact,
            counts: Counts::default(),
            last_assistant_ms: None,
        })
    }

    fn text(&self, text: &str) -> Value {
        Value::String(if self.redact {
            redact::text(text)
        } else {
            text.to_owned()
        })
    }

    fn step(&mut self, key: &str, value: Value) -> io::Result<()> {
        let separator = if self.counts.steps == 0 { "\n" } else { ",\n" };
        write!(self.out, "{separator}    {{{}: ", json!(key))?;
        serde_json::to_writer(&mut self.out, &value)?;
        self.out.write_all(b"}")?;
        self.counts.steps += 1;
        Ok(())
    }

    /// A user message (a request, or any other text the user side sent).
    pub fn user(&mut self, text: &str) -> io::Result<()> {
        let value = self.text(text);
        self.counts.user_messages += 1;
        self.step("user", value)
    }

    /// A compaction the real agent made at this point.
    pub fn observed(&mut self, observed: &Observed) -> io::Result<()> {
        let Observed::Compaction {
            trigger,
            pre_tokens,
            post_tokens,
            summary_chars,
        } = observed;
        let mut map = Map::new();
        map.insert("compaction".into(), Value::String(trigger.clone()));
        for (key, value) in [
            ("pre_tokens", pre_tokens),
            ("post_tokens", post_tokens),
            ("summary_chars", summary_chars),
        ] {
            if let Some(value) = value {
                map.insert(key.into(), json!(value));
            }
        }
        self.counts.observed_compactions += 1;
        self.step("observed", Value::Object(map))
    }

    /// One model response: an `idle` step first when the request came a minute or more after the
    /// previous response (`request_ms`), then a `turn`, or `prepare` + `assistant` (+ `results`)
    /// when a call has no result in the log.
    pub fn turn(&mut self, turn: &Turn, request_ms: Option<i64>) -> io::Result<()> {
        if let (Some(last), Some(now)) = (self.last_assistant_ms, request_ms) {
            let minutes = (now - last) / MILLIS_PER_MINUTE;
            if minutes >= 1 {
                self.counts.idle_steps += 1;
                self.step("idle", json!(minutes))?;
            }
        }
        if turn.at_ms.is_some() {
            self.last_assistant_ms = turn.at_ms;
        }
        let mut assistant = Map::new();
        if let Some(text) = &turn.text {
            assistant.insert("text".into(), self.text(text));
        }
        if !turn.calls.is_empty() {
            let calls: Vec<Value> = turn.calls.iter().map(|call| self.call(call)).collect();
            assistant.insert("calls".into(), Value::Array(calls));
        }
        if !assistant.contains_key("text") && !assistant.contains_key("calls") {
            // A response with only thinking or server-tool blocks: an empty text keeps its place.
            assistant.insert("text".into(), Value::String(String::new()));
        }
        let results: Vec<Value> = turn
            .results
            .iter()
            .map(|(id, text)| json!({"id": id, "text": self.text(text)}))
            .collect();
        self.counts.turns += 1;
        self.counts.calls += turn.calls.len();
        self.counts.results += turn.results.len();
        self.counts.result_chars += turn
            .results
            .iter()
            .map(|(_, t)| t.chars().count())
            .sum::<usize>();
        self.counts.unanswered += turn.calls.len() - turn.results.len();
        let usage = turn.usage.map(usage_value);
        if turn.results.len() == turn.calls.len() {
            if !results.is_empty() {
                assistant.insert("results".into(), Value::Array(results));
            }
            if let Some(usage) = usage {
                assistant.insert("usage".into(), usage);
            }
            return self.step("turn", Value::Object(assistant));
        }
        if let Some(usage) = usage {
            assistant.insert("usage".into(), usage);
        }
        self.step("prepare", Value::Bool(true))?;
        self.step("assistant", Value::Object(assistant))?;
        if !results.is_empty() {
            self.step("results", Value::Array(results))?;
        }
        Ok(())
    }

    fn call(&self, call: &ImportedCall) -> Value {
        let input = if self.redact {
            redact::value(&Value::Object(call.input.clone()))
        } else {
            Value::Object(call.input.clone())
        };
        json!({"id": call.id, "name": call.name, "input": input})
    }

    /// Closes the scenario and flushes it.
    pub fn finish(mut self) -> io::Result<Counts> {
        self.out.write_all(b"\n  ]\n}\n")?;
        self.out.flush()?;
        Ok(self.counts)
    }
}

/// `usage` as a scenario writes it: the four counts, zeros left out.
fn usage_value(usage: Usage) -> Value {
    let mut map = Map::new();
    for (key, value) in [
        ("input_tokens", usage.input_tokens),
        (
            "cache_creation_input_tokens",
            usage.cache_creation_input_tokens,
        ),
        ("cache_read_input_tokens", usage.cache_read_input_tokens),
        ("output_tokens", usage.output_tokens),
    ] {
        if value > 0 {
            map.insert(key.into(), json!(value));
        }
    }
    if map.is_empty() {
        map.insert("input_tokens".into(), json!(0));
    }
    Value::Object(map)
}
