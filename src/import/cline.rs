//! Cline sessions (`<session>.messages.json`; cline/cline @ 21cb8d25
//! `sdk/packages/core/fixtures/session/session.messages.json`, the real session of
//! `fixtures/sessions/cline` from cline/cline's SDK fixtures): one JSON document `{version,
//! sessionId, messages: [{id, role, content, ts, metrics}]}` whose content is in the Anthropic
//! block format (`text`, `tool_use`, `tool_result`, plus `file` blocks carrying the files the user
//! attached). A message with `metadata.kind: "compaction"` is Cline's own compaction: an observed
//! step, then its text as the user message the agent continued from (Cline rewrites the file, so
//! nothing before it is left). A whole document, not a stream: Cline keeps one file per session of
//! moderate size.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::claude_code::block_text;
use super::writer::{Header, ImportedCall, ScenarioWriter, Turn};
use super::{ImportError, Importer};
use crate::compaction::CLINE_ATTACHMENT;
use crate::scenario::{Observed, Usage};
use crate::transcript::{Block, Content, Message, Role};

pub(super) fn import(path: &Path, base: &str, importer: &mut Importer) -> Result<(), ImportError> {
    let file = importer.display(path);
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read {
        path: file.clone(),
        source,
    })?;
    let document: Value = match serde_json::from_str(&text) {
        Ok(document) => document,
        Err(error) => {
            let line = error.line();
            importer.problem(&file, line, super::record_error(error))?;
            return Ok(());
        }
    };
    let Some(messages) = document.get("messages").and_then(Value::as_array) else {
        importer.problem(
            &file,
            1,
            "a Cline session has a `messages` array".to_owned(),
        )?;
        return Ok(());
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let header = Header {
        name: base.to_owned(),
        about: format!(
            "Imported from the Cline session {name}: one turn per assistant message with the \
             results of the next user message, attached files as user text, Cline's \
             compactions as observed steps."
        ),
        source: format!("cline session {name}"),
        profile: None,
    };
    let mut bad = Vec::new();
    let mut session = importer.begin(base, &file, &header)?;
    let mut notes = BTreeMap::new();
    let mut pending: Option<Turn> = None;
    let mut request_ms = None;
    for (index, message) in messages.iter().enumerate() {
        let at = message.get("ts").and_then(Value::as_i64);
        let blocks = match message.get("content") {
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            Some(Value::Array(blocks)) => blocks.clone(),
            _ => {
                bad.push((index, "a message needs `content`".to_owned()));
                continue;
            }
        };
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                flush(&mut pending, &mut request_ms, &mut session.writer)?;
                pending = Some(assistant_turn(&blocks, message, at, &mut notes));
            }
            Some("user") => {
                request_ms = at.or(request_ms);
                if let Some(meta) = message
                    .get("metadata")
                    .filter(|m| m["kind"] == "compaction")
                {
                    flush(&mut pending, &mut request_ms, &mut session.writer)?;
                    let text = user_text(&blocks, &mut notes);
                    let observed = Observed::Compaction {
                        trigger: meta["reason"].as_str().unwrap_or("unknown").to_owned(),
                        pre_tokens: None,
                        post_tokens: None,
                        summary_chars: Some(text.chars().count()),
                    };
                    session
                        .writer
                        .observed(&observed)
                        .map_err(ImportError::from_write)?;
                    session
                        .writer
                        .user(&text)
                        .map_err(ImportError::from_write)?;
                    continue;
                }
                user_message(
                    &blocks,
                    &mut pending,
                    &mut request_ms,
                    &mut session.writer,
                    &mut notes,
                )?;
            }
            _ => bad.push((index, "a message has role `user` or `assistant`".to_owned())),
        }
    }
    flush(&mut pending, &mut request_ms, &mut session.writer)?;
    let report = session.finish(notes)?;
    importer.report.sessions.push(report);
    for (index, message) in bad {
        importer.problem(&file, 1, format!("message {index}: {message}"))?;
    }
    Ok(())
}

fn assistant_turn(
    blocks: &[Value],
    message: &Value,
    at: Option<i64>,
    notes: &mut BTreeMap<String, usize>,
) -> Turn {
    let mut turn = Turn {
        at_ms: at,
        ..Turn::default()
    };
    let mut texts = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_owned()),
            Some("tool_use") => turn.calls.push(ImportedCall {
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or("unknown").to_owned(),
                input: block["input"].as_object().cloned().unwrap_or_default(),
            }),
            other => {
                let kind = other.unwrap_or("untyped");
                *notes
                    .entry(format!("assistant `{kind}` blocks (not replayed)"))
                    .or_default() += 1;
            }
        }
    }
    if !texts.is_empty() {
        turn.text = Some(texts.join("\n\n"));
    }
    if let Some(metrics) = message.get("metrics") {
        let count = |key: &str| metrics.get(key).and_then(Value::as_u64).unwrap_or(0) as usize;
        turn.usage = Some(Usage {
            input_tokens: count("inputTokens"),
            output_tokens: count("outputTokens"),
            cache_read_input_tokens: count("cacheReadTokens"),
            cache_creation_input_tokens: count("cacheWriteTokens"),
        });
    }
    turn
}

/// A user message: the results of the pending response's calls, then its other blocks as text.
fn user_message(
    blocks: &[Value],
    pending: &mut Option<Turn>,
    request_ms: &mut Option<i64>,
    writer: &mut ScenarioWriter,
    notes: &mut BTreeMap<String, usize>,
) -> Result<(), ImportError> {
    for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
        let id = block["tool_use_id"].as_str().unwrap_or_default();
        let text = block_text(block.get("content"), notes);
        match pending.as_mut() {
            Some(turn)
                if turn.calls.iter().any(|c| c.id == id)
                    && !turn.results.iter().any(|(r, _)| r == id) =>
            {
                turn.results.push((id.to_owned(), text));
            }
            _ => {
                *notes
                    .entry("results without their call (not replayed)".to_owned())
                    .or_default() += 1
            }
        }
    }
    flush(pending, request_ms, writer)?;
    let text = user_text(blocks, notes);
    if !text.is_empty() {
        writer.user(&text).map_err(ImportError::from_write)?;
    }
    Ok(())
}

/// Text and attached files of a user message (tool results excluded).
fn user_text(blocks: &[Value], notes: &mut BTreeMap<String, usize>) -> String {
    let mut parts = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => parts.push(block["text"].as_str().unwrap_or_default().to_owned()),
            Some("file") => parts.push(format!(
                "{CLINE_ATTACHMENT}{}]\n{}",
                block["path"].as_str().unwrap_or_default(),
                block["content"].as_str().unwrap_or_default()
            )),
            Some("tool_result") => {}
            other => {
                let kind = other.unwrap_or("untyped");
                *notes
                    .entry(format!("`{kind}` blocks (as [{kind}])"))
                    .or_default() += 1;
                parts.push(format!("[{kind}]"));
            }
        }
    }
    parts.join("\n\n")
}

fn flush(
    pending: &mut Option<Turn>,
    request_ms: &mut Option<i64>,
    writer: &mut ScenarioWriter,
) -> Result<(), ImportError> {
    if let Some(mut turn) = pending.take() {
        let order: Vec<String> = turn.calls.iter().map(|c| c.id.clone()).collect();
        turn.results
            .sort_by_key(|(id, _)| order.iter().position(|c| c == id));
        writer
            .turn(&turn, request_ms.take())
            .map_err(ImportError::from_write)?;
    }
    Ok(())
}

/// A Cline messages document (`{messages: [...]}`) as the lab's messages, for replaying it
/// through Cline's own compaction: text, `tool_use` and `tool_result` blocks as they are (a
/// result's content flattened as the importer does), a `file` block as a text block
/// `[file PATH]\nCONTENT` (what the `cline` profile treats as an attachment), any other block
/// as `[type]`. A string content stays a string.
pub fn session_messages(text: &str) -> Result<Vec<Message>, String> {
    let document: Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON document: {e}"))?;
    let messages = document
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("a Cline session has a `messages` array")?;
    let mut notes = BTreeMap::new();
    let mut out = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                return Err(format!(
                    "message {index}: role is not `user` or `assistant`"
                ));
            }
        };
        let content = match message.get("content") {
            Some(Value::String(text)) => Content::Text(text.clone()),
            Some(Value::Array(blocks)) => {
                Content::Blocks(blocks.iter().map(|b| lab_block(b, &mut notes)).collect())
            }
            _ => return Err(format!("message {index}: a message needs `content`")),
        };
        out.push(Message { role, content });
    }
    Ok(out)
}

fn lab_block(block: &Value, notes: &mut BTreeMap<String, usize>) -> Block {
    let text = |key: &str| block[key].as_str().unwrap_or_default().to_owned();
    match block["type"].as_str() {
        Some("text") => Block::Text { text: text("text") },
        Some("tool_use") => Block::ToolUse {
            id: text("id").into(),
            name: text("name").into(),
            input: block["input"]
                .as_object()
                .cloned()
                .unwrap_or_default()
                .into(),
        },
        Some("tool_result") => Block::ToolResult {
            tool_use_id: text("tool_use_id").into(),
            content: block_text(block.get("content"), notes).into(),
        },
        Some("file") => Block::Text {
            text: format!("{CLINE_ATTACHMENT}{}]\n{}", text("path"), text("content")),
        },
        other => Block::Text {
            text: format!("[{}]", other.unwrap_or("untyped")),
        },
    }
}
