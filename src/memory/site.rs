//! The older s09 the course web site shows (`memory-site`, research/lcc_revisions.md §1 "Site
//! s09"): the same four mechanisms as memory-main with none of its safeguards.
//!
//! - Store: frontmatter written by hand (`name: {name}` lines, no quoting), a colon-splitting
//!   parser, slugs by two replaces, no path guard, `- [name](file) — desc` index lines.
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
use super::recall::py_int;
use super::store::{INDEX, Record};
use super::world::{Call, MemoryWorld, PyError};
use crate::python::json::{char_len, char_prefix, splitlines};
use crate::python::str::{py_split, py_strip};
use crate::transcript::{Block, Content, Message, Role};

/// The site's `_parse_frontmatter`: a text starting with `---` is split on the first two
/// `---`; every line of the middle part with a colon is `key: value` (quotes stripped, later
/// keys win); the body is the stripped rest. Anything else is all body.
pub fn parse(text: &str) -> (Vec<(String, String)>, String) {
    if !text.starts_with("---") {
        return (Vec::new(), text.to_owned());
    }
    let parts: Vec<&str> = text.splitn(3, "---").collect();
    if parts.len() < 3 {
        return (Vec::new(), text.to_owned());
    }
    let mut meta: Vec<(String, String)> = Vec::new();
    for line in splitlines(py_strip(parts[1])) {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = py_strip(key).to_owned();
        let value = py_strip(value).trim_matches('"').trim_matches('\'');
        meta.retain(|(k, _)| *k != key);
        meta.push((key, value.to_owned()));
    }
    (meta, py_strip(parts[2]).to_owned())
}

/// `meta.get(key, default)`.
fn get<'a>(meta: &'a [(String, String)], key: &str, default: &'a str) -> &'a str {
    meta.iter()
        .find(|(k, _)| k == key)
        .map_or(default, |(_, v)| v.as_str())
}

/// The record text the site's `write_memory_file` writes: nothing is quoted or stripped.
pub fn document(name: &str, kind: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n")
}

/// One line of the site's index: the description falls back to the first 80 characters of the
/// body's first line.
pub fn index_line(text: &str, filename: &str) -> String {
    let (meta, body) = parse(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    let first = char_prefix(body.split('\n').next().unwrap_or(""), 80);
    format!(
        "- [{}]({filename}) — {}",
        get(&meta, "name", stem),
        get(&meta, "description", first)
    )
}

/// The site's `list_memory_files` entry of one file (type defaults to `user`).
pub fn record(filename: &str, text: &str) -> Record {
    let (meta, body) = parse(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    Record {
        filename: filename.to_owned(),
        name: get(&meta, "name", stem).to_owned(),
        description: get(&meta, "description", "").to_owned(),
        kind: get(&meta, "type", "user").to_owned(),
        body,
    }
}

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
pub fn recent_text(messages: &[Message], limit: usize) -> String {
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
pub fn shortest_brackets(text: &str) -> Option<&str> {
    let start = text.find('[')?;
    let end = start + text[start..].find(']')?;
    Some(&text[start..=end])
}

/// `re.search(r'\[.*\]', text, re.DOTALL)`: the first `[` up to the last `]`.
pub fn longest_brackets(text: &str) -> Option<&str> {
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
        "You are a coding agent at {}.{section}\nRelevant memories are injected below. Respect user preferences from memory.\nWhen the user says 'remember' or expresses a clear preference, extract it as a memory.",
        super::store::workdir()
    )
}

impl MemoryWorld {
    /// The site's `write_memory_file`: no validation, no guard, then the index rebuild.
    pub(crate) fn site_write(
        &mut self,
        name: &str,
        kind: &str,
        description: &str,
        body: &str,
    ) -> Result<String, PyError> {
        let filename = format!("{}.md", super::store::slug(self.profile.revision, name));
        self.write_record(&filename, &document(name, kind, description, body))?;
        self.event(
            "store",
            "write",
            Some(&filename),
            format!("record `{name}` written"),
        );
        self.site_rebuild_index()?;
        Ok(filename)
    }

    /// The site's `_rebuild_index`: a file that cannot be read raises.
    pub(crate) fn site_rebuild_index(&mut self) -> Result<(), PyError> {
        let mut lines = Vec::new();
        for filename in self.fs.glob_md() {
            if filename == INDEX {
                continue;
            }
            let text = self.read_file(&filename)?;
            lines.push(index_line(&text, &filename));
        }
        let mut index = lines.join("\n");
        if !lines.is_empty() {
            index.push('\n');
        }
        self.fs
            .write(INDEX, &index)
            .map_err(|e| PyError(e.to_string()))?;
        self.event(
            "store",
            "index",
            None,
            "MEMORY.md rebuilt from every record file",
        );
        Ok(())
    }

    /// The site's `select_relevant_memories`.
    fn site_select(&mut self) -> Vec<String> {
        let records = self.list_records();
        if records.is_empty() {
            return Vec::new();
        }
        let recent = recent_text(&self.messages, self.profile.constants.query_limit);
        if py_strip(&recent).is_empty() {
            self.event("recall", "skip", None, "no user text: no selector call");
            return Vec::new();
        }
        let max = self.profile.constants.max_items;
        let why = match self.call(Call::Select) {
            Err(error) => format!("the selector raised {}", error.0),
            Ok(reply) => match shortest_brackets(py_strip(&reply)) {
                None => "the reply holds no `[...]`".to_owned(),
                Some(matched) => match loads(matched) {
                    Err(error) => format!("`{matched}` does not decode ({})", error.0),
                    Ok(indices) => {
                        let selected: Vec<String> = indices
                            .iter()
                            .filter_map(|v| py_int(v).and_then(|i| usize::try_from(i).ok()))
                            .filter_map(|i| records.get(i))
                            .take(max)
                            .map(|r| r.filename.clone())
                            .collect();
                        self.event(
                            "recall",
                            "select",
                            None,
                            format!("selected: {}", selected.join(", ")),
                        );
                        return selected;
                    }
                },
            },
        };
        let words: Vec<String> = py_split(&recent)
            .filter(|w| w.chars().count() > 3)
            .map(str::to_lowercase)
            .collect();
        let chosen: Vec<String> = records
            .iter()
            .filter(|r| {
                let text = format!("{} {}", r.name, r.description).to_lowercase();
                words.iter().any(|w| text.contains(w.as_str()))
            })
            .take(max)
            .map(|r| r.filename.clone())
            .collect();
        self.event(
            "recall",
            "fallback",
            None,
            format!("keyword fallback ({why}): {}", chosen.join(", ")),
        );
        chosen
    }

    /// The site's `load_memories`, once per user request: the block prepended to the user turn.
    pub(crate) fn site_recall(&mut self) {
        let selected = self.site_select();
        let mut parts = vec!["<relevant_memories>".to_owned()];
        let mut recalled = Vec::new();
        for filename in &selected {
            let Ok(content) = self.read_file(filename) else {
                continue;
            };
            if !content.is_empty() {
                parts.push(content);
                recalled.push(filename.clone());
            }
        }
        parts.push("</relevant_memories>".to_owned());
        self.last_recall = if selected.is_empty() {
            String::new()
        } else {
            parts.join("\n\n")
        };
        self.last_recalled = recalled;
        self.site_request();
    }

    /// `build_system()` before every model request of the agent loop.
    pub(crate) fn site_request(&mut self) {
        let index = self.read_index();
        self.last_system = system(&index);
    }

    /// The site's `extract_memories(pre_compress)`: the records written (a failure keeps what
    /// was written before it and says nothing).
    pub(crate) fn site_extract(&mut self) -> usize {
        // The snapshot is taken before the final reply is appended.
        let pre = &self.messages[..self.messages.len().saturating_sub(1)];
        let start = pre
            .len()
            .saturating_sub(self.profile.constants.dialogue_messages);
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
        let outcome = self.site_extract_inner(&mut stored);
        self.stored += stored;
        match outcome {
            Ok(()) if stored > 0 => self.event(
                "extract",
                "store",
                None,
                format!("[Memory: extracted {stored} new memories]"),
            ),
            Ok(()) => {}
            Err(error) => self.event(
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

    fn site_extract_inner(&mut self, stored: &mut usize) -> Result<(), PyError> {
        self.list_records();
        let reply = self.call(Call::Extract)?;
        let Some(matched) = longest_brackets(py_strip(&reply)) else {
            self.event("extract", "skip", None, "the reply holds no `[...]`");
            return Ok(());
        };
        let items = loads(matched)?;
        self.site_write_items(&items, "extract", stored)
    }

    /// Writes every item with a truthy description and body, as extraction and consolidation
    /// both do; a non-dict item or a non-string name raises.
    fn site_write_items(
        &mut self,
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
                None => format!("memory_{}", self.clock),
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
                self.event(
                    stage,
                    "drop",
                    None,
                    format!("`{name}` dropped: no description or body"),
                );
                continue;
            };
            self.site_write(
                &name,
                &kind,
                &python_str(Some(description)),
                &python_str(Some(body)),
            )?;
            *written += 1;
        }
        Ok(())
    }

    /// The site's `consolidate_memories`, at the end of every turn.
    pub(crate) fn site_consolidate(&mut self) {
        let records = self.list_records();
        let threshold = self.profile.constants.consolidate_threshold;
        if records.len() < threshold {
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
        let limit = self.profile.constants.consolidate_input;
        // Records whose whole entry lies past the cut: the consolidator cannot give them back.
        let mut start = 0;
        let mut unseen = Vec::new();
        for (record, entry) in records.iter().zip(&entries) {
            if start >= limit {
                unseen.push(record.filename.clone());
            }
            start += char_len(entry) + 2;
        }
        if char_len(&catalog) > limit {
            self.event(
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
        match self.site_consolidate_inner(&mut written, &mut deleted) {
            Ok(Some(items)) => {
                self.consolidations += 1;
                let present = self.fs.glob_md();
                self.records_lost += if written == 0 {
                    before.len()
                } else {
                    unseen.iter().filter(|f| !present.contains(f)).count()
                };
                self.event(
                    "consolidate",
                    "done",
                    None,
                    format!(
                        "[Memory: consolidated {} → {items} memories]",
                        records.len()
                    ),
                );
            }
            Ok(None) => {
                self.consolidations_skipped += 1;
                self.event(
                    "consolidate",
                    "skip",
                    None,
                    "the reply holds no `[...]`: nothing changed, nothing said",
                );
            }
            Err(error) => {
                self.consolidations_skipped += 1;
                if deleted {
                    let present = self.fs.glob_md();
                    let lost = before.iter().filter(|f| !present.contains(f)).count();
                    self.records_lost += lost;
                }
                self.event(
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

    fn site_consolidate_inner(
        &mut self,
        written: &mut usize,
        deleted: &mut bool,
    ) -> Result<Option<usize>, PyError> {
        let reply = self.call(Call::Consolidate)?;
        let Some(matched) = longest_brackets(py_strip(&reply)) else {
            return Ok(None);
        };
        let items = loads(matched)?;
        *deleted = true;
        for name in self.fs.glob_md() {
            if name != INDEX {
                self.delete_record(&name)?;
            }
        }
        self.site_write_items(&items, "consolidate", written)?;
        Ok(Some(items.len()))
    }
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
    fn frontmatter_by_colons() {
        let (meta, body) = parse("---\nname: \"Tabs\"\ndescription: a: b\nnoise\n---\n\nBody\n\n");
        assert_eq!(
            meta,
            [
                ("name".to_owned(), "Tabs".to_owned()),
                ("description".to_owned(), "a: b".to_owned())
            ]
        );
        assert_eq!(body, "Body");
        // A `---` inside the description ends the frontmatter early.
        let text = document("x", "user", "before --- after", "B");
        let (meta, body) = parse(&text);
        assert_eq!(get(&meta, "description", "?"), "before");
        assert_eq!(body, "after\ntype: user\n---\n\nB");
        // Not frontmatter: the whole text is the body, unstripped.
        assert_eq!(parse(" ---\nx\n").1, " ---\nx\n");
    }

    #[test]
    fn index_line_falls_back_to_the_body() {
        assert_eq!(
            index_line(
                &document("Tabs", "user", "indentation", "Use tabs."),
                "tabs.md"
            ),
            "- [Tabs](tabs.md) — indentation"
        );
        let long = "y".repeat(100);
        assert_eq!(
            index_line(&format!("{long}\nsecond"), "raw.md"),
            format!("- [raw](raw.md) — {}", "y".repeat(80))
        );
    }

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
        let messages = vec![
            Message::user_text("first"),
            Message::user_text("second"),
            Message::blocks(
                Role::User,
                vec![Block::ToolResult {
                    tool_use_id: "t".into(),
                    content: "secret".into(),
                }],
            ),
            Message::user_text("third"),
        ];
        assert_eq!(recent_text(&messages, 2000), "second  third");
        assert_eq!(recent_text(&messages, 3), "sec");
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
