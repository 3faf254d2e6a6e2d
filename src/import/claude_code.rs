//! Claude Code session logs (`~/.claude/projects/<encoded cwd>/<session>.jsonl`; research
//! daaain/claude-code-log `dev-docs/dag.md` @ a7bef38d and `dev-docs/messages.md` @ 57c310d0, and
//! the 2.1.88 / 2.1.332 logs of `fixtures/sessions/claude-code`).
//!
//! The file is append-only and its records form a tree through `parentUuid`: a rewind leaves a
//! dead branch, a resume replays records with the same `uuid`, a `compact_boundary` starts a new
//! root whose `logicalParentUuid` names the record before it. The live branch is the chain from
//! the last message back to the first; parallel tool results hang off the chain as siblings, so
//! results are found by `tool_use_id`, not by position. One assistant response is written as one
//! record per content block with the same `message.id`; they are merged back.
//!
//! Two passes keep memory independent of the texts: the first reads every line once and keeps
//! only its links and offset (about 190 bytes a record); the second seeks to the records of the
//! live branch and writes the scenario as it goes. Sidechains (old inline subagents) become
//! scenarios of their own; `subagents/*.jsonl` files are separate files anyway.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

use super::writer::{Header, ImportedCall, ScenarioWriter, Turn};
use super::{ImportError, Importer, record_error, str_field};
use crate::scenario::{Observed, Usage};

/// Record types that are not part of the conversation (metadata, bookkeeping, UI state).
const BOOKKEEPING: &[&str] = &[
    "summary",
    "queue-operation",
    "last-prompt",
    "file-history-snapshot",
    "atis-latch",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "tools-used",
    "cost-state",
    "custom-title",
    "ai-title",
    "agent-setting",
    "pr-link",
    "tag",
    "mode",
];
/// Record types on the chain that the lab does not replay (their text is the harness's own).
const CHAIN_ONLY: &[&str] = &["attachment", "progress", "system"];

/// What a chain record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A user record with text (a prompt, a meta message, a summary).
    Prompt,
    /// A user record with only tool results.
    Results,
    Assistant,
    /// `system` / `compact_boundary`.
    Boundary,
    /// Attachments, progress, other system records: links of the chain, not replayed.
    Other,
}

/// One chain record as the first pass keeps it.
#[derive(Debug, Clone)]
struct Node {
    parent: Option<u32>,
    /// A parent named by uuid that was not (yet) seen: resolved after the pass.
    parent_name: Option<String>,
    logical_parent_name: Option<String>,
    /// The previous record of the same group, the parent of a record whose `parentUuid` is null
    /// in logs written before the tree (all-null `parentUuid`).
    previous_in_group: Option<u32>,
    offset: u64,
    kind: Kind,
    group: u32,
}

/// The first pass: links, offsets, groups, and where each tool result is.
#[derive(Default)]
struct Index {
    nodes: Vec<Node>,
    uuids: HashMap<String, u32>,
    /// Group key (`""` for the main conversation, else the sidechain's agent id) by number.
    groups: Vec<String>,
    last_in_group: Vec<Option<u32>>,
    /// tool_use_id → byte offset of the first record that answers it.
    results: HashMap<String, u64>,
    /// Records skipped on purpose, by type.
    skipped: BTreeMap<String, usize>,
}

/// Imports one Claude Code log; `base` names its scenarios.
pub(super) fn import(path: &Path, base: &str, importer: &mut Importer) -> Result<(), ImportError> {
    let file = importer.display(path);
    let index = first_pass(path, &file, importer)?;
    let mut reader = Reader::open(path, &file)?;
    let main = index.groups.iter().position(|g| g.is_empty());
    for (group, key) in index.groups.iter().enumerate() {
        let spine = spine(&index, group as u32);
        if spine.is_empty() {
            continue;
        }
        let name = match (key.as_str(), main.is_some()) {
            ("", _) | (_, false) => base.to_owned(),
            (agent, true) => format!("{base}.{agent}"),
        };
        let header = Header {
            name: name.clone(),
            about: format!(
                "Imported from the Claude Code log {}{}: the live branch of its parentUuid \
                 chain, one turn per model response, results in call order, idle gaps from \
                 timestamps, compactions the agent made as observed steps.",
                file_name(path),
                if key.is_empty() {
                    String::new()
                } else {
                    format!(" (sidechain {key})")
                }
            ),
            source: format!("claude-code log {}", file_name(path)),
            profile: Some("claude-code"),
        };
        let mut session = importer.begin(&name, &file, &header)?;
        let mut replay = Replay {
            reader: &mut reader,
            index: &index,
            spill_dirs: spill_dirs(path),
            notes: BTreeMap::new(),
            pending_ms: None,
            pending_observed: None,
        };
        replay.write(&spine, &mut session.writer)?;
        let mut notes = replay.notes;
        // The file's skipped records are told once, with its main conversation.
        if key.is_empty() || main.is_none() {
            for (kind, count) in &index.skipped {
                *notes.entry(format!("{kind} records skipped")).or_default() += count;
            }
        }
        let report = session.finish(notes)?;
        importer.report.sessions.push(report);
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where `<persisted-output>` files of this log may be: `<session>/tool-results/` next to a
/// session file, or the session's `tool-results/` above a `subagents/` file.
fn spill_dirs(path: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    if let (Some(parent), Some(stem)) = (path.parent(), path.file_stem()) {
        dirs.push(parent.join(stem).join("tool-results"));
        if parent.file_name().is_some_and(|n| n == "subagents") {
            if let Some(session) = parent.parent() {
                dirs.push(session.join("tool-results"));
            }
        }
    }
    dirs
}

/// Reads every line once and keeps the index.
fn first_pass(path: &Path, file: &str, importer: &mut Importer) -> Result<Index, ImportError> {
    let handle = File::open(path).map_err(|source| ImportError::Read {
        path: file.to_owned(),
        source,
    })?;
    let mut reader = BufReader::with_capacity(1 << 16, handle);
    let mut index = Index::default();
    let mut line = String::new();
    let (mut offset, mut number) = (0u64, 0usize);
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|source| ImportError::Read {
                path: file.to_owned(),
                source,
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        let at = offset;
        offset += read as u64;
        if line.trim().is_empty() {
            continue;
        }
        if let Err(message) = index.add(line.trim_end(), at) {
            importer.problem(file, number, message)?;
        }
    }
    index.resolve();
    Ok(index)
}

impl Index {
    /// Indexes one line, or says why it cannot be used.
    fn add(&mut self, line: &str, offset: u64) -> Result<(), String> {
        let record: Value = serde_json::from_str(line).map_err(record_error)?;
        let map = record
            .as_object()
            .ok_or("a record is a JSON object".to_owned())?;
        let kind_name = str_field(map, "type").ok_or("a record needs a `type`".to_owned())?;
        if BOOKKEEPING.contains(&kind_name) {
            *self.skipped.entry(kind_name.to_owned()).or_default() += 1;
            return Ok(());
        }
        let kind = match kind_name {
            "user" => user_kind(map)?,
            "assistant" => {
                let message = map.get("message").and_then(Value::as_object);
                let content = message.and_then(|m| m.get("content"));
                if !content.is_some_and(|c| c.is_array() || c.is_string()) {
                    return Err("an assistant record needs `message.content`".to_owned());
                }
                Kind::Assistant
            }
            "system" if str_field(map, "subtype") == Some("compact_boundary") => Kind::Boundary,
            other if CHAIN_ONLY.contains(&other) => {
                let label = match (other, str_field(map, "subtype")) {
                    ("system", Some(subtype)) => format!("system/{subtype}"),
                    _ => other.to_owned(),
                };
                *self.skipped.entry(label).or_default() += 1;
                Kind::Other
            }
            other => return Err(format!("unknown record type `{other}`")),
        };
        let Some(uuid) = str_field(map, "uuid") else {
            if kind == Kind::Other {
                return Ok(());
            }
            return Err(format!("a `{kind_name}` record needs a `uuid`"));
        };
        if self.uuids.contains_key(uuid) {
            // A resume replays records with the same uuid: keep the first.
            *self
                .skipped
                .entry("replayed (same uuid)".to_owned())
                .or_default() += 1;
            return Ok(());
        }
        if kind == Kind::Results || kind == Kind::Prompt {
            self.index_results(map, offset);
        }
        let sidechain = map.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let key = match (sidechain, str_field(map, "agentId")) {
            (false, _) => String::new(),
            (true, Some(agent)) => agent.to_owned(),
            (true, None) => "sidechain".to_owned(),
        };
        let group = match self.groups.iter().position(|g| *g == key) {
            Some(group) => group,
            None => {
                self.groups.push(key);
                self.last_in_group.push(None);
                self.groups.len() - 1
            }
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent: None,
            parent_name: str_field(map, "parentUuid").map(str::to_owned),
            logical_parent_name: str_field(map, "logicalParentUuid").map(str::to_owned),
            previous_in_group: self.last_in_group[group],
            offset,
            kind,
            group: group as u32,
        });
        self.last_in_group[group] = Some(id);
        self.uuids.insert(uuid.to_owned(), id);
        Ok(())
    }

    /// Remembers where each tool_result of a user record is (the first answer wins).
    fn index_results(&mut self, map: &serde_json::Map<String, Value>, offset: u64) {
        let blocks = map
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array);
        for block in blocks.into_iter().flatten() {
            if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                self.results.entry(id.to_owned()).or_insert(offset);
            }
        }
    }

    /// Turns parent names into indices (a boundary's parent is its logical parent).
    fn resolve(&mut self) {
        for index in 0..self.nodes.len() {
            let node = &self.nodes[index];
            let name = match (&node.parent_name, node.kind) {
                (Some(name), _) => Some(name),
                (None, Kind::Boundary) => node.logical_parent_name.as_ref(),
                (None, _) => None,
            };
            // A parent that is not in the file (a record copied from another session) links to
            // the record before, as a null parent of the old format does.
            let parent = match name.and_then(|name| self.uuids.get(name)) {
                Some(&parent) => Some(parent),
                None => node.previous_in_group,
            };
            self.nodes[index].parent = parent;
            self.nodes[index].parent_name = None;
            self.nodes[index].logical_parent_name = None;
        }
    }
}

/// A user record is a prompt (some text) or a results message (only tool results).
fn user_kind(map: &serde_json::Map<String, Value>) -> Result<Kind, String> {
    let content = map
        .get("message")
        .and_then(Value::as_object)
        .and_then(|m| m.get("content"))
        .ok_or("a user record needs `message.content`".to_owned())?;
    match content {
        Value::String(_) => Ok(Kind::Prompt),
        Value::Array(blocks) => {
            for block in blocks {
                let kind = block.get("type").and_then(Value::as_str);
                if kind.is_none() {
                    return Err("a content block needs a `type`".to_owned());
                }
                if kind == Some("tool_result")
                    && block.get("tool_use_id").is_none_or(|v| !v.is_string())
                {
                    return Err("a tool_result block needs a `tool_use_id`".to_owned());
                }
            }
            let only_results = !blocks.is_empty()
                && blocks
                    .iter()
                    .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
            Ok(if only_results {
                Kind::Results
            } else {
                Kind::Prompt
            })
        }
        _ => Err("`message.content` is a string or an array of blocks".to_owned()),
    }
}

/// The live branch of one group, oldest first: from its last message back through the parents.
fn spine(index: &Index, group: u32) -> Vec<u32> {
    let leaf = index.nodes.iter().rposition(|n| {
        n.group == group && matches!(n.kind, Kind::Assistant | Kind::Prompt | Kind::Boundary)
    });
    let Some(leaf) = leaf else {
        return Vec::new();
    };
    let mut seen = vec![false; index.nodes.len()];
    let mut chain = Vec::new();
    let mut at = Some(leaf as u32);
    while let Some(node) = at {
        if std::mem::replace(&mut seen[node as usize], true) {
            break; // a cycle of parentUuid links
        }
        let record = &index.nodes[node as usize];
        if record.group != group {
            break;
        }
        chain.push(node);
        at = record.parent;
    }
    chain.reverse();
    chain
}

/// Reads records by offset (the second pass).
struct Reader {
    reader: BufReader<File>,
    file: String,
    line: String,
}

impl Reader {
    fn open(path: &Path, file: &str) -> Result<Reader, ImportError> {
        let handle = File::open(path).map_err(|source| ImportError::Read {
            path: file.to_owned(),
            source,
        })?;
        Ok(Reader {
            reader: BufReader::with_capacity(1 << 16, handle),
            file: file.to_owned(),
            line: String::new(),
        })
    }

    fn record(&mut self, offset: u64) -> Result<Value, ImportError> {
        let error = |source| ImportError::Read {
            path: self.file.clone(),
            source,
        };
        self.reader.seek(SeekFrom::Start(offset)).map_err(error)?;
        self.line.clear();
        self.reader
            .read_line(&mut self.line)
            .map_err(|source| ImportError::Read {
                path: self.file.clone(),
                source,
            })?;
        serde_json::from_str(&self.line).map_err(|e| ImportError::Read {
            path: self.file.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    }
}

/// The second pass over one group's live branch.
struct Replay<'a> {
    reader: &'a mut Reader,
    index: &'a Index,
    spill_dirs: Vec<std::path::PathBuf>,
    notes: BTreeMap<String, usize>,
    /// The latest user-side timestamp since the last response: when the next request went out.
    pending_ms: Option<i64>,
    /// A compaction whose summary record may follow.
    pending_observed: Option<Observed>,
}

impl Replay<'_> {
    fn note(&mut self, what: &str) {
        *self.notes.entry(what.to_owned()).or_default() += 1;
    }

    fn write(&mut self, spine: &[u32], writer: &mut ScenarioWriter) -> Result<(), ImportError> {
        let mut turn: Option<(String, Turn)> = None;
        for &node in spine {
            let node = &self.index.nodes[node as usize];
            if node.kind == Kind::Other {
                continue;
            }
            let record = self.reader.record(node.offset)?;
            let message_id = record
                .pointer("/message/id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let continues = node.kind == Kind::Assistant
                && turn
                    .as_ref()
                    .is_some_and(|(id, _)| !id.is_empty() && *id == message_id);
            if !continues {
                if let Some((_, done)) = turn.take() {
                    self.finish_turn(done, writer)?;
                }
            }
            match node.kind {
                Kind::Assistant => {
                    let entry = turn.get_or_insert_with(|| (message_id, Turn::default()));
                    self.add_to_turn(&record, &mut entry.1);
                }
                Kind::Prompt => self.prompt(&record, writer)?,
                Kind::Results => self.saw_time(&record),
                Kind::Boundary => self.boundary(&record, writer)?,
                Kind::Other => {}
            }
        }
        if let Some((_, done)) = turn.take() {
            self.finish_turn(done, writer)?;
        }
        self.flush_observed(writer)
    }

    fn saw_time(&mut self, record: &Value) {
        let at = timestamp(record);
        if at > self.pending_ms {
            self.pending_ms = at;
        }
    }

    fn flush_observed(&mut self, writer: &mut ScenarioWriter) -> Result<(), ImportError> {
        if let Some(observed) = self.pending_observed.take() {
            writer
                .observed(&observed)
                .map_err(ImportError::from_write)?;
        }
        Ok(())
    }

    fn boundary(&mut self, record: &Value, writer: &mut ScenarioWriter) -> Result<(), ImportError> {
        self.flush_observed(writer)?;
        let meta = record.get("compactMetadata");
        let number = |key: &str| {
            meta.and_then(|m| m.get(key))
                .and_then(Value::as_u64)
                .map(|n| n as usize)
        };
        self.pending_observed = Some(Observed::Compaction {
            trigger: meta
                .and_then(|m| m.get("trigger"))
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned(),
            pre_tokens: number("preTokens"),
            post_tokens: number("postTokens"),
            summary_chars: None,
        });
        Ok(())
    }

    /// A user record with text: the compaction summary, or a user message.
    fn prompt(&mut self, record: &Value, writer: &mut ScenarioWriter) -> Result<(), ImportError> {
        self.saw_time(record);
        let text = user_text(record.pointer("/message/content"), &mut self.notes);
        if record.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            if let Some(Observed::Compaction { summary_chars, .. }) = &mut self.pending_observed {
                *summary_chars = Some(text.chars().count());
            } else {
                self.note("compact summaries without a boundary (not replayed)");
            }
            return Ok(());
        }
        self.flush_observed(writer)?;
        if record.get("isMeta").and_then(Value::as_bool) == Some(true) {
            self.note("meta user messages (replayed as user messages)");
        }
        if !text.is_empty() {
            writer.user(&text).map_err(ImportError::from_write)?;
        }
        Ok(())
    }

    fn add_to_turn(&mut self, record: &Value, turn: &mut Turn) {
        let blocks = record
            .pointer("/message/content")
            .cloned()
            .unwrap_or(Value::Null);
        let list = match blocks {
            Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
            Value::Array(list) => list,
            _ => Vec::new(),
        };
        for block in list {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    match &mut turn.text {
                        Some(existing) => {
                            existing.push_str("\n\n");
                            existing.push_str(text);
                        }
                        None => turn.text = Some(text.to_owned()),
                    }
                }
                Some("tool_use") => {
                    let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                    if id.is_empty() || turn.calls.iter().any(|c| c.id == id) {
                        self.note("tool_use blocks without an id or repeated (skipped)");
                        continue;
                    }
                    turn.calls.push(ImportedCall {
                        id: id.to_owned(),
                        name: block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("unknown")
                            .to_owned(),
                        input: block
                            .get("input")
                            .and_then(Value::as_object)
                            .cloned()
                            .unwrap_or_default(),
                    });
                }
                Some(other) => self.note(&format!("assistant `{other}` blocks (not replayed)")),
                None => self.note("assistant blocks without a type (skipped)"),
            }
        }
        if let Some(usage) = record.pointer("/message/usage").and_then(usage) {
            turn.usage = Some(usage);
        }
        turn.at_ms = timestamp(record).or(turn.at_ms);
    }

    /// Finds each call's result by id, then writes the turn.
    fn finish_turn(
        &mut self,
        mut turn: Turn,
        writer: &mut ScenarioWriter,
    ) -> Result<(), ImportError> {
        self.flush_observed(writer)?;
        let request_ms = self.pending_ms.take();
        let mut latest = None;
        for call in &turn.calls {
            let Some(&offset) = self.index.results.get(&call.id) else {
                continue;
            };
            let record = self.reader.record(offset)?;
            latest = latest.max(timestamp(&record));
            let blocks = record.pointer("/message/content").and_then(Value::as_array);
            let block = blocks
                .into_iter()
                .flatten()
                .find(|b| b.get("tool_use_id").and_then(Value::as_str) == Some(call.id.as_str()));
            if let Some(block) = block {
                let text = self.result_text(block);
                turn.results.push((call.id.clone(), text));
            }
        }
        writer
            .turn(&turn, request_ms)
            .map_err(ImportError::from_write)?;
        self.pending_ms = latest;
        Ok(())
    }

    /// A tool_result's text; a `<persisted-output>` block becomes its original text when the
    /// spill file is next to the log.
    fn result_text(&mut self, block: &Value) -> String {
        let text = block_text(block.get("content"), &mut self.notes);
        if !text.starts_with("<persisted-output>") {
            return text;
        }
        let name = text.lines().find_map(|line| {
            let (_, path) = line.split_once("saved to: ")?;
            Some(path.rsplit('/').next()?.to_owned())
        });
        let original = name.and_then(|name| {
            self.spill_dirs
                .iter()
                .find_map(|dir| std::fs::read(dir.join(&name)).ok())
        });
        match original {
            Some(bytes) => {
                self.note("persisted outputs restored from tool-results/");
                String::from_utf8_lossy(&bytes).into_owned()
            }
            None => {
                self.note("persisted outputs without their file (kept as the model saw them)");
                text
            }
        }
    }
}

/// The text of a user record's content: text blocks joined by blank lines, images as `[image]`.
fn user_text(content: Option<&Value>, notes: &mut BTreeMap<String, usize>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => {
            let parts: Vec<String> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("tool_result"))
                .map(|b| one_block(b, notes))
                .collect();
            parts.join("\n\n")
        }
        _ => String::new(),
    }
}

/// A tool_result's content: a string, or blocks (text, image) joined by newlines.
pub(super) fn block_text(content: Option<&Value>, notes: &mut BTreeMap<String, usize>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => {
            let parts: Vec<String> = blocks.iter().map(|b| one_block(b, notes)).collect();
            parts.join("\n")
        }
        _ => String::new(),
    }
}

fn one_block(block: &Value, notes: &mut BTreeMap<String, usize>) -> String {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        Some(other) => {
            *notes
                .entry(format!("`{other}` blocks (as [{other}])"))
                .or_default() += 1;
            format!("[{other}]")
        }
        None => String::new(),
    }
}

fn timestamp(record: &Value) -> Option<i64> {
    record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(super::time::parse_millis)
}

/// The Messages API's `usage` object.
pub(super) fn usage(value: &Value) -> Option<Usage> {
    let map = value.as_object()?;
    let count = |key: &str| map.get(key).and_then(Value::as_u64).unwrap_or(0) as usize;
    Some(Usage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_creation_input_tokens: count("cache_creation_input_tokens"),
        cache_read_input_tokens: count("cache_read_input_tokens"),
    })
}
