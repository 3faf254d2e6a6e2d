//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`; openai/codex
//! `codex-rs/protocol/src/protocol.rs` `RolloutItem`, and the 0.171.0 rollouts of
//! `fixtures/sessions/codex`): one `{timestamp, type, payload}` per line. `response_item`s are the
//! conversation: `message` (user / assistant; developer messages are the harness's instructions and
//! are not replayed), `function_call`, `custom_tool_call` and `local_shell_call` with their outputs
//! paired by `call_id`; `compacted` is the agent's own compaction (its summary model's answer,
//! logged just before it as an assistant message, is folded into it); `event_msg` `token_count`
//! gives the usage of the last response. Read in one streaming pass: a response stays open until
//! its outputs are in.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{Map, Value};

use super::writer::{Header, ImportedCall, ScenarioWriter, Turn};
use super::{ImportError, Importer, record_error, str_field};
use crate::scenario::{Observed, Usage};

/// Line types that hold no conversation.
const BOOKKEEPING: &[&str] = &[
    "session_meta",
    "turn_context",
    "world_state",
    "token_usage_record",
];

/// The streaming state of one rollout.
struct Rollout {
    turn: Option<Turn>,
    /// The response's calls are answered: the next assistant item starts a new response.
    answered: bool,
    pending_ms: Option<i64>,
    notes: BTreeMap<String, usize>,
}

pub(super) fn import(path: &Path, base: &str, importer: &mut Importer) -> Result<(), ImportError> {
    let file = importer.display(path);
    let read_error = |source| ImportError::Read {
        path: file.clone(),
        source,
    };
    let handle = File::open(path).map_err(read_error)?;
    let mut reader = BufReader::with_capacity(1 << 16, handle);
    let header = Header {
        name: base.to_owned(),
        about: format!(
            "Imported from the Codex rollout {}: one turn per model response, tool calls and \
             outputs paired by call_id, idle gaps from timestamps, the agent's compactions as \
             observed steps.",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ),
        source: format!(
            "codex rollout {}",
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ),
        profile: None,
    };
    let mut problems = Vec::new();
    let strict = importer.options.strict;
    let mut session = importer.begin(base, &file, &header)?;
    let mut state = Rollout {
        turn: None,
        answered: false,
        pending_ms: None,
        notes: BTreeMap::new(),
    };
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(read_error)? == 0 {
            break;
        }
        number += 1;
        if line.trim().is_empty() {
            continue;
        }
        if let Err(message) = state.line(line.trim_end(), &mut session.writer)? {
            if strict {
                return Err(ImportError::Bad {
                    file,
                    line: number,
                    message,
                });
            }
            problems.push((number, message));
        }
    }
    state.close(&mut session.writer)?;
    let report = session.finish(state.notes)?;
    importer.report.sessions.push(report);
    for (number, message) in problems {
        importer.problem(&file, number, message)?;
    }
    Ok(())
}

type LineResult = Result<Result<(), String>, ImportError>;

impl Rollout {
    fn note(&mut self, what: &str) {
        *self.notes.entry(what.to_owned()).or_default() += 1;
    }

    /// One line: `Ok(Err(message))` when it is skipped as bad.
    fn line(&mut self, line: &str, writer: &mut ScenarioWriter) -> LineResult {
        let record: Value = match serde_json::from_str(line) {
            Ok(record) => record,
            Err(error) => return Ok(Err(record_error(error))),
        };
        let Some(map) = record.as_object() else {
            return Ok(Err("a record is a JSON object".to_owned()));
        };
        let Some(kind) = str_field(map, "type") else {
            return Ok(Err("a record needs a `type`".to_owned()));
        };
        let Some(payload) = map.get("payload").and_then(Value::as_object) else {
            return Ok(Err("a record needs a `payload` object".to_owned()));
        };
        let at = str_field(map, "timestamp").and_then(super::time::parse_millis);
        match kind {
            "response_item" => self.item(payload, at, writer),
            "compacted" => {
                self.compacted(payload, writer)?;
                Ok(Ok(()))
            }
            "event_msg" => {
                if str_field(payload, "type") == Some("token_count") {
                    self.token_count(payload);
                }
                Ok(Ok(()))
            }
            other if BOOKKEEPING.contains(&other) => {
                self.note(&format!("{other} records skipped"));
                Ok(Ok(()))
            }
            other => Ok(Err(format!("unknown record type `{other}`"))),
        }
    }

    fn item(
        &mut self,
        item: &Map<String, Value>,
        at: Option<i64>,
        writer: &mut ScenarioWriter,
    ) -> LineResult {
        match str_field(item, "type") {
            Some("message") => match str_field(item, "role") {
                Some("user") => {
                    self.close(writer)?;
                    self.pending_ms = at.max(self.pending_ms);
                    let text = content_text(item.get("content"));
                    if !text.is_empty() {
                        writer.user(&text).map_err(ImportError::from_write)?;
                    }
                }
                Some("assistant") => {
                    let text = content_text(item.get("content"));
                    let turn = self.open(at, writer)?;
                    turn.text = Some(match turn.text.take() {
                        Some(existing) => format!("{existing}\n\n{text}"),
                        None => text,
                    });
                }
                Some(role) => self.note(&format!(
                    "`{role}` messages (harness instructions, not replayed)"
                )),
                None => return Ok(Err("a message needs a `role`".to_owned())),
            },
            Some(kind @ ("function_call" | "custom_tool_call" | "local_shell_call")) => {
                let Some(id) = str_field(item, "call_id").or_else(|| str_field(item, "id")) else {
                    return Ok(Err(format!("a {kind} needs a `call_id`")));
                };
                let call = ImportedCall {
                    id: id.to_owned(),
                    name: str_field(item, "name").unwrap_or(kind).to_owned(),
                    input: call_input(item),
                };
                self.open(at, writer)?.calls.push(call);
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                let Some(id) = str_field(item, "call_id") else {
                    return Ok(Err("a tool output needs a `call_id`".to_owned()));
                };
                self.pending_ms = at.max(self.pending_ms);
                let text = output_text(item.get("output"));
                let open = self
                    .turn
                    .as_mut()
                    .filter(|t| t.calls.iter().any(|c| c.id == id));
                match open {
                    Some(turn) if !turn.results.iter().any(|(r, _)| r == id) => {
                        turn.results.push((id.to_owned(), text));
                        self.answered = turn.results.len() == turn.calls.len();
                    }
                    _ => self.note("outputs without an open call (not replayed)"),
                }
            }
            Some(other) => self.note(&format!("`{other}` items (not replayed)")),
            None => return Ok(Err("a response_item needs a `type`".to_owned())),
        }
        Ok(Ok(()))
    }

    /// The open response, or a new one (closing an answered one first).
    fn open(
        &mut self,
        at: Option<i64>,
        writer: &mut ScenarioWriter,
    ) -> Result<&mut Turn, ImportError> {
        if self.answered {
            self.close(writer)?;
        }
        let turn = self.turn.get_or_insert_with(Turn::default);
        turn.at_ms = at.or(turn.at_ms);
        Ok(turn)
    }

    fn token_count(&mut self, payload: &Map<String, Value>) {
        let Some(last) = payload.get("info").and_then(|i| i.get("last_token_usage")) else {
            return;
        };
        let count = |key: &str| last.get(key).and_then(Value::as_u64).unwrap_or(0) as usize;
        let (input, cached) = (count("input_tokens"), count("cached_input_tokens"));
        let usage = Usage {
            input_tokens: input.saturating_sub(cached),
            cache_read_input_tokens: cached,
            output_tokens: count("output_tokens"),
            cache_creation_input_tokens: 0,
        };
        if let Some(turn) = self.turn.as_mut() {
            if usage.total() > 0 {
                turn.usage = Some(usage);
            }
        }
    }

    fn compacted(
        &mut self,
        payload: &Map<String, Value>,
        writer: &mut ScenarioWriter,
    ) -> Result<(), ImportError> {
        let message = str_field(payload, "message").unwrap_or_default();
        // The summary model's answer is logged as an assistant message just before.
        let folded = self.turn.as_ref().is_some_and(|t| {
            t.calls.is_empty()
                && t.text
                    .as_deref()
                    .is_some_and(|text| !text.is_empty() && message.contains(text))
        });
        if folded {
            self.turn = None;
            self.answered = false;
            self.note("summary responses folded into the compaction");
        }
        self.close(writer)?;
        writer
            .observed(&Observed::Compaction {
                trigger: "auto".to_owned(),
                pre_tokens: None,
                post_tokens: None,
                summary_chars: Some(message.chars().count()),
            })
            .map_err(ImportError::from_write)
    }

    fn close(&mut self, writer: &mut ScenarioWriter) -> Result<(), ImportError> {
        self.answered = false;
        if let Some(mut turn) = self.turn.take() {
            let order: Vec<String> = turn.calls.iter().map(|c| c.id.clone()).collect();
            turn.results
                .sort_by_key(|(id, _)| order.iter().position(|c| c == id));
            let request = self.pending_ms.take();
            writer
                .turn(&turn, request)
                .map_err(ImportError::from_write)?;
        }
        Ok(())
    }
}

/// `input_text` / `output_text` parts joined by blank lines.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// A call's input: the `arguments` JSON object, else the raw text under `arguments` / `input`.
fn call_input(item: &Map<String, Value>) -> Map<String, Value> {
    if let Some(arguments) = str_field(item, "arguments") {
        if let Ok(Value::Object(map)) = serde_json::from_str(arguments) {
            return map;
        }
        let mut map = Map::new();
        map.insert("arguments".into(), Value::String(arguments.to_owned()));
        return map;
    }
    let mut map = Map::new();
    for key in ["input", "action"] {
        if let Some(value) = item.get(key) {
            map.insert(key.into(), value.clone());
        }
    }
    map
}

/// An output: a string, or `{content: ..}` / content items.
fn output_text(output: Option<&Value>) -> String {
    match output {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Object(map)) => match map.get("content") {
            Some(Value::String(text)) => text.clone(),
            other => content_text(other),
        },
        Some(Value::Array(_)) => content_text(output),
        _ => String::new(),
    }
}
