//! The agent loop of the older s09 the course web site shows (`memory-site`,
//! shareAI-lab/learn-claude-code @ 67a9126c, site-track s09): the same four mechanisms as
//! memory-main with none of its safeguards. The driver (`run.rs`) calls these instead of
//! memory-main's when the profile's revision is `Site`; this file depends only on the store and the
//! shared helpers.
//!
//! - Store: [`write`] has no validation and no path guard, and rebuilds the index after every
//!   write, raising on an unreadable file; the record format is in `format/memory_site.rs`.
//! - Recall: every user message takes one of the three query slots (a tool-result message gives
//!   an empty text), `\[.*?\]` finds the reply's array, the keyword fallback runs on an exception
//!   *and* on a missing or undecodable array, no dedupe, no cap; the records are prepended to
//!   the current user turn inside `<relevant_memories>`, not put in the system prompt.
//! - Extraction: greedy `\[.*\]`, no validity or storage gate beyond "description and body are
//!   truthy"; any exception ends the batch silently.
//! - Consolidation: at the end of every turn with ≥ 10 files, the catalog cut silently at 16000
//!   characters, every file deleted before the new ones are written, no rollback, and `[]`
//!   leaves an empty store under a stale index.

use serde_json::Value;

use super::extract::python_str;
use super::format::memory_site::{document, index_line, slug};
use super::fs::WORKDIR;
use super::recall::py_int;
use super::record::Record;
use super::side_call::{Call, call};
use super::store::{INDEX, delete_record, index_text, list_records, read_file, read_index};
use super::store::{write_index, write_record};
use super::world::{PyError, World};
use crate::python::json::{char_len, char_prefix};
use crate::python::str::{py_split, py_strip};
use crate::transcript::{Block, Content, Message, Role};

/// A message's text as the site reads it: a string as it is, a block list as its text blocks
/// joined by spaces (tool results and tool calls give nothing, but the message still counts).
fn site_text(message: &Message) -> String {
    match &message.content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The query of the site's selector: the last three user messages, oldest first, joined by
/// spaces and cut.
fn recent_text(messages: &[Message], limit: usize) -> String {
    let mut texts: Vec<String> = messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .take(3)
        .map(site_text)
        .collect();
    texts.reverse();
    char_prefix(&texts.join(" "), limit).to_owned()
}

/// `re.search(r'\[.*?\]', text, re.DOTALL)`: the first `[` up to the first `]` after it.
fn shortest_brackets(text: &str) -> Option<&str> {
    let start = text.find('[')?;
    let end = start + text[start..].find(']')?;
    Some(&text[start..=end])
}

/// `re.search(r'\[.*\]', text, re.DOTALL)`: the first `[` up to the last `]`.
fn longest_brackets(text: &str) -> Option<&str> {
    let start = text.find('[')?;
    let end = text.rfind(']').filter(|end| *end > start)?;
    Some(&text[start..=end])
}

/// `json.loads` of a bracketed match: a list, or the exception's message.
fn loads(text: &str) -> Result<Vec<Value>, PyError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err(PyError::new("not a list")),
        Err(error) => Err(PyError(format!("JSONDecodeError: {error}"))),
    }
}

/// Python truthiness of a decoded JSON value.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// The system prompt of the site revision.
fn system(index: &str) -> String {
    let section = if index.is_empty() {
        String::new()
    } else {
        format!("\n\nMemories available:\n{index}")
    };
    format!(
        "You are a coding agent at {WORKDIR}.{section}\nRelevant memories are injected below. Respect user preferences from memory.\nWhen the user says 'remember' or expresses a clear preference, extract it as a memory."
    )
}

/// The site's `write_memory_file`: no validation, no guard, then the index rebuild.
pub(crate) fn write(
    world: &mut World,
    name: &str,
    kind: &str,
    description: &str,
    body: &str,
) -> Result<String, PyError> {
    let filename = format!("{}.md", slug(name));
    write_record(world, &filename, &document(name, kind, description, body))?;
    world.event(
        "store",
        "write",
        Some(&filename),
        format!("record `{name}` written"),
    );
    rebuild_index(world)?;
    Ok(filename)
}

/// The site's `_rebuild_index`: a file that cannot be read raises.
fn rebuild_index(world: &mut World) -> Result<(), PyError> {
    let mut lines = Vec::new();
    for filename in world.fs.glob_md() {
        if filename == INDEX {
            continue;
        }
        let text = read_file(world, &filename)?;
        lines.push(index_line(&text, &filename));
    }
    write_index(world, &index_text(&lines))
}

/// The site's `select_relevant_memories`: the selector's choice, else the keyword fallback (on
/// an exception *and* on a reply without a decodable `[...]`).
fn select(world: &mut World) -> Vec<String> {
    let records = list_records(world);
    if records.is_empty() {
        return Vec::new();
    }
    let recent = recent_text(&world.messages, world.profile.constants.query_limit);
    if py_strip(&recent).is_empty() {
        world.event("recall", "skip", None, "no user text: no selector call");
        return Vec::new();
    }
    let why = match selection(world, &records) {
        Ok(selected) => {
            world.event(
                "recall",
                "select",
                None,
                format!("selected: {}", selected.join(", ")),
            );
            return selected;
        }
        Err(why) => why,
    };
    keyword_fallback(world, &records, &recent, &why)
}

/// The selector's call and the first `[...]` of its reply as record numbers, or why there is
/// no selection.
fn selection(world: &mut World, records: &[Record]) -> Result<Vec<String>, String> {
    let reply = call(world, Call::Select).map_err(|e| format!("the selector raised {}", e.0))?;
    let matched = shortest_brackets(py_strip(&reply))
        .ok_or_else(|| "the reply holds no `[...]`".to_owned())?;
    let indices = loads(matched).map_err(|e| format!("`{matched}` does not decode ({})", e.0))?;
    Ok(indices
        .iter()
        .filter_map(|v| py_int(v).and_then(|i| usize::try_from(i).ok()))
        .filter_map(|i| records.get(i))
        .take(world.profile.constants.max_items)
        .map(|r| r.filename.clone())
        .collect())
}

/// The site's keyword fallback: records whose name or description contains a word of more
/// than three characters of the query, in listing order.
fn keyword_fallback(world: &mut World, records: &[Record], recent: &str, why: &str) -> Vec<String> {
    let words: Vec<String> = py_split(recent)
        .filter(|w| w.chars().count() > 3)
        .map(str::to_lowercase)
        .collect();
    let chosen: Vec<String> = records
        .iter()
        .filter(|r| {
            let text = r.catalog_text();
            words.iter().any(|w| text.contains(w.as_str()))
        })
        .take(world.profile.constants.max_items)
        .map(|r| r.filename.clone())
        .collect();
    super::recall::fell_back(world, why, chosen)
}

/// The site's `load_memories`, once per user request: the block prepended to the user turn.
pub(crate) fn recall(world: &mut World) {
    let selected = select(world);
    let mut parts = vec!["<relevant_memories>".to_owned()];
    let mut recalled = Vec::new();
    for filename in &selected {
        let Ok(content) = read_file(world, filename) else {
            continue;
        };
        if !content.is_empty() {
            parts.push(content);
            recalled.push(filename.clone());
        }
    }
    parts.push("</relevant_memories>".to_owned());
    world.turn.recall = if selected.is_empty() {
        String::new()
    } else {
        parts.join("\n\n")
    };
    world.turn.recalled = recalled;
    request(world);
}

/// `build_system()`, once per user turn at the start of the agent loop (ac822662, since 8aa8adb).
pub(crate) fn request(world: &mut World) {
    let index = read_index(world);
    world.turn.system = system(&index);
}

/// The site's `extract_memories(pre_compress)`: the records written (a failure keeps what was
/// written before it and says nothing).
pub(crate) fn extract(world: &mut World) -> usize {
    // The snapshot is taken before the final reply is appended.
    let pre = &world.messages[..world.messages.len().saturating_sub(1)];
    let start = pre
        .len()
        .saturating_sub(world.profile.constants.dialogue_messages);
    let dialogue: Vec<String> = pre[start..]
        .iter()
        .filter_map(|m| {
            let text = site_text(m);
            (!py_strip(&text).is_empty()).then(|| format!("{}: {text}", m.role.as_str()))
        })
        .collect();
    if py_strip(&dialogue.join("\n")).is_empty() {
        return 0;
    }
    let mut stored = 0;
    match extract_batch(world, &mut stored) {
        Ok(()) if stored > 0 => world.event(
            "extract",
            "store",
            None,
            format!("[Memory: extracted {stored} new memories]"),
        ),
        Ok(()) => {}
        Err(error) => world.event(
            "extract",
            "fail",
            None,
            format!(
                "extraction raised `{}` after {stored} records; swallowed by `except Exception: pass`",
                error.0
            ),
        ),
    }
    stored
}

/// The extractor's call and the writes of its greedy `[...]`.
fn extract_batch(world: &mut World, stored: &mut usize) -> Result<(), PyError> {
    list_records(world);
    let reply = call(world, Call::Extract)?;
    let Some(matched) = longest_brackets(py_strip(&reply)) else {
        world.event("extract", "skip", None, "the reply holds no `[...]`");
        return Ok(());
    };
    let items = loads(matched)?;
    write_items(world, &items, "extract", stored)
}

/// Writes every item with a truthy description and body, as extraction and consolidation both
/// do; a non-dict item or a non-string name raises.
fn write_items(
    world: &mut World,
    items: &[Value],
    stage: &'static str,
    written: &mut usize,
) -> Result<(), PyError> {
    for item in items {
        let Some(map) = item.as_object() else {
            return Err(PyError(format!(
                "AttributeError: '{}' object has no attribute 'get'",
                python_type(item)
            )));
        };
        let name = match map.get("name") {
            None => format!("memory_{}", world.clock),
            Some(Value::String(name)) => name.clone(),
            Some(other) => {
                return Err(PyError(format!(
                    "AttributeError: '{}' object has no attribute 'lower'",
                    python_type(other)
                )));
            }
        };
        let kind = map
            .get("type")
            .map_or_else(|| "user".to_owned(), |v| python_str(Some(v)));
        let (Some(description), Some(body)) = (
            map.get("description").filter(|v| truthy(v)),
            map.get("body").filter(|v| truthy(v)),
        ) else {
            world.event(
                stage,
                "drop",
                None,
                format!("`{name}` dropped: no description or body"),
            );
            continue;
        };
        write(
            world,
            &name,
            &kind,
            &python_str(Some(description)),
            &python_str(Some(body)),
        )?;
        *written += 1;
    }
    Ok(())
}

/// The site's `consolidate_memories`, at the end of every turn with at least
/// `consolidate_threshold` files: no reverse gate (the catalog is cut silently at
/// `consolidate_input`), no snapshot, no restore.
pub(crate) fn consolidate(world: &mut World) {
    let records = list_records(world);
    if records.len() < world.profile.constants.consolidate_threshold {
        return;
    }
    let entries: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                "## {}\nname: {}\ndescription: {}\n{}",
                r.filename, r.name, r.description, r.body
            )
        })
        .collect();
    let catalog = entries.join("\n\n");
    let limit = world.profile.constants.consolidate_input;
    let unseen = past_the_cut(&records, &entries, limit);
    if char_len(&catalog) > limit {
        world.event(
            "consolidate",
            "cut",
            None,
            format!(
                "catalog of {} chars cut silently to {limit}: the consolidator does not see the rest",
                char_len(&catalog)
            ),
        );
    }
    let before: Vec<String> = records.iter().map(|r| r.filename.clone()).collect();
    let mut written = 0;
    let mut deleted = false;
    let outcome = consolidate_batch(world, &mut written, &mut deleted);
    settle(world, outcome, &before, &unseen, written, deleted);
}

/// Records whose whole catalog entry lies past the cut: the consolidator cannot give them back.
fn past_the_cut(records: &[Record], entries: &[String], limit: usize) -> Vec<String> {
    let mut start = 0;
    let mut unseen = Vec::new();
    for (record, entry) in records.iter().zip(entries) {
        if start >= limit {
            unseen.push(record.filename.clone());
        }
        start += char_len(entry) + 2;
    }
    unseen
}

/// Counts and traces how a consolidation pass ended: the records it lost, and whether it
/// completed, found no `[...]` or raised (swallowed, no rollback).
fn settle(
    world: &mut World,
    outcome: Result<Option<usize>, PyError>,
    before: &[String],
    unseen: &[String],
    written: usize,
    deleted: bool,
) {
    match outcome {
        Ok(Some(items)) => {
            world.counters.consolidations += 1;
            let present = world.fs.glob_md();
            world.counters.records_lost += if written == 0 {
                before.len()
            } else {
                unseen.iter().filter(|f| !present.contains(f)).count()
            };
            world.event(
                "consolidate",
                "done",
                None,
                format!("[Memory: consolidated {} → {items} memories]", before.len()),
            );
        }
        Ok(None) => {
            world.counters.consolidations_skipped += 1;
            world.event(
                "consolidate",
                "skip",
                None,
                "the reply holds no `[...]`: nothing changed, nothing said",
            );
        }
        Err(error) => {
            world.counters.consolidations_skipped += 1;
            if deleted {
                let present = world.fs.glob_md();
                let lost = before.iter().filter(|f| !present.contains(f)).count();
                world.counters.records_lost += lost;
            }
            world.event(
                "consolidate",
                "fail",
                None,
                format!(
                    "consolidation raised `{}` after writing {written}; no rollback, swallowed by `except Exception: pass`",
                    error.0
                ),
            );
        }
    }
}

/// The consolidator's call, then every file deleted before the new ones are written; the
/// number of items, or `None` when the reply holds no `[...]`.
fn consolidate_batch(
    world: &mut World,
    written: &mut usize,
    deleted: &mut bool,
) -> Result<Option<usize>, PyError> {
    let reply = call(world, Call::Consolidate)?;
    let Some(matched) = longest_brackets(py_strip(&reply)) else {
        return Ok(None);
    };
    let items = loads(matched)?;
    *deleted = true;
    for name in world.fs.glob_md() {
        if name != INDEX {
            delete_record(world, &name)?;
        }
    }
    write_items(world, &items, "consolidate", written)?;
    Ok(Some(items.len()))
}

/// Python's type name of a decoded JSON value.
fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.to_string().contains(['.', 'e', 'E']) => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_as_the_regexes_find_them() {
        assert_eq!(shortest_brackets("pick [0, [1]] ok"), Some("[0, [1]"));
        assert_eq!(
            longest_brackets("pick [0, [1]] ok ]"),
            Some("[0, [1]] ok ]")
        );
        assert_eq!(longest_brackets("] before ["), None);
        assert_eq!(shortest_brackets("none"), None);
    }

    #[test]
    fn recent_text_counts_tool_result_messages() {
        // The tool result takes a slot with an empty text, so "second" drops out.
        let messages = crate::memory::fixtures::user_turns_with_a_tool_result();
        assert_eq!(recent_text(&messages, 2000), " third fourth");
        assert_eq!(recent_text(&messages, 3), " th");
    }

    #[test]
    fn python_truthiness() {
        let values: Vec<Value> =
            serde_json::from_str("[0, 0.0, \"\", [], {}, null, false, 1, \"x\", [0]]").unwrap();
        let truth: Vec<bool> = values.iter().map(truthy).collect();
        assert_eq!(
            truth,
            [
                false, false, false, false, false, false, false, true, true, true
            ]
        );
    }
}
