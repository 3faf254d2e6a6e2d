//! Compares what the agent sent with what the profile predicts: the last main request of a
//! conformance record against the messages of the profile's run of the same (planned) scenario,
//! block by block per tool_use id: the tool_use (name and input) and its tool_result (content).
//! Both sides pass through the same normaliser; reminders the agent appended to a result (D3 of
//! docs/probe.md) are left out of the comparison, and results are matched by id,
//! not position (concurrent tools answer in completion order, D4). One more row compares the
//! number of summary requests with the profile's summariser calls.

use serde_json::Value;

use super::record::{self, Normaliser};

/// How one item compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Exact,
    /// The first differing character offset and a snippet of each side from there.
    Differs {
        offset: usize,
        real: String,
        lab: String,
    },
    /// Only one side has it.
    Missing {
        in_real: bool,
    },
}

/// One compared item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// `tool_use ID` or `tool_result ID`.
    pub item: String,
    /// Characters of the real side (0 when absent).
    pub chars: usize,
    pub outcome: Outcome,
}

impl Row {
    pub fn exact(&self) -> bool {
        self.outcome == Outcome::Exact
    }
}

const SNIPPET: usize = 40;

/// First differing offset (in characters) of two texts, with snippets.
pub fn first_difference(real: &str, lab: &str) -> Outcome {
    if real == lab {
        return Outcome::Exact;
    }
    let offset = real
        .chars()
        .zip(lab.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let snip = |s: &str| s.chars().skip(offset).take(SNIPPET).collect::<String>();
    Outcome::Differs {
        offset,
        real: snip(real),
        lab: snip(lab),
    }
}

/// The items of a message list: `tool_use ID` → block JSON, `tool_result ID` → content text,
/// in order of first appearance; with `reminders`, then `appended reminder N` → each reminder
/// appended to a tool_result (`\n\n<hashed …>`), in order (numbered, not tied to the result:
/// the agent appends it to the result that completed last, D4). The first reminder after a
/// Read result is Read's own (its malware reminder, part of the tool's output and not
/// modelled), never an appended one.
fn items(messages: &[Value], reminders: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut appended = Vec::new();
    let mut reads = std::collections::BTreeSet::new();
    for block in messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                if block.get("name").and_then(Value::as_str) == Some("Read") {
                    reads.insert(id.to_owned());
                }
                let shape =
                    serde_json::json!({"name": block.get("name"), "input": block.get("input")});
                out.push((format!("tool_use {id}"), shape.to_string()));
            }
            Some("tool_result") => {
                let id = block
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let text = match block.get("content") {
                    Some(Value::String(s)) => {
                        let kept = without_appended_reminders(s);
                        appended.extend(
                            s[kept.len()..]
                                .split("\n\n")
                                .filter(|r| !r.is_empty())
                                .skip(usize::from(reads.contains(id)))
                                .map(str::to_owned),
                        );
                        kept
                    }
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                out.push((format!("tool_result {id}"), text));
            }
            _ => {}
        }
    }
    if reminders {
        out.extend(
            appended
                .into_iter()
                .enumerate()
                .map(|(i, r)| (format!("appended reminder {}", i + 1), r)),
        );
    }
    out
}

/// A result text without the hashed reminders the record appended (`\n\n<hashed …>`).
fn without_appended_reminders(s: &str) -> String {
    let mut s = s;
    while let Some(at) = s.rfind("\n\n<hashed chars=") {
        if !s.ends_with('>') {
            break;
        }
        s = &s[..at];
    }
    s.to_string()
}

/// The last main request's list under `key` of a record (`messages` for the Anthropic API,
/// `input` for the Responses API, `contents` for Gemini).
pub fn last_main<'a>(record: &'a Value, key: &str) -> &'a [Value] {
    record
        .get("requests")
        .and_then(Value::as_array)
        .and_then(|r| {
            r.iter()
                .rev()
                .find(|r| r.get("kind").and_then(Value::as_str) == Some("main"))
        })
        .and_then(|r| r.get(key))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The user text blocks of a message list (a string content is one), in order: `user text N`
/// → the text as stored. Compared after a compaction, where they are the restored files, the
/// user context and the summary (D8-D10); the grouping into messages is not compared.
fn user_texts(messages: &[Value]) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for m in messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    {
        match m.get("content") {
            Some(Value::String(s)) => texts.push(s.clone()),
            Some(Value::Array(blocks)) => texts.extend(
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .map(str::to_owned),
            ),
            _ => {}
        }
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| (format!("user text {}", i + 1), t))
        .collect()
}

/// What the comparison takes besides tool_use and tool_result blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra {
    /// The reminders appended to tool_results (the profile models them: switch
    /// `todo_reminder`, D3); else they are left out.
    pub reminders: bool,
    /// The user text blocks (the request compacted: restored files, user context, summary).
    pub user_texts: bool,
}

/// Compares the real messages (already normalised) with the profile's raw messages.
pub fn compare(real: &[Value], lab: &[Value], extra: Extra) -> Vec<Row> {
    let lab = record::messages(&Normaliser::identity(), lab, false);
    let mut rows = pair(items(real, extra.reminders), items(&lab, extra.reminders));
    if extra.user_texts {
        rows.extend(pair(user_texts(real), user_texts(&lab)));
    }
    rows
}

/// One row per real item, compared with the profile's item of the same name (the first one
/// not yet taken), then one row per profile item the real request did not have, in order.
pub fn pair(real: Vec<(String, String)>, mut lab: Vec<(String, String)>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (item, text) in real {
        let outcome = match lab.iter().position(|(name, _)| *name == item) {
            Some(i) => first_difference(&text, &lab.remove(i).1),
            None => Outcome::Missing { in_real: true },
        };
        rows.push(Row {
            item,
            chars: text.chars().count(),
            outcome,
        });
    }
    rows.extend(lab.into_iter().map(|(item, _)| Row {
        item,
        chars: 0,
        outcome: Outcome::Missing { in_real: false },
    }));
    rows
}

/// The summary requests the agent sent against the profile's summariser calls (`model_calls`):
/// whether both compacted as often (the autocompact trigger, D6). `chars` holds the real count.
pub fn summary_requests(real: usize, lab: usize) -> Row {
    Row {
        item: "summary requests".into(),
        chars: real,
        outcome: first_difference(&real.to_string(), &lab.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_difference_reports_offset_and_snippets() {
        assert_eq!(first_difference("abc", "abc"), Outcome::Exact);
        assert_eq!(
            first_difference("abcX", "abcY"),
            Outcome::Differs {
                offset: 3,
                real: "X".into(),
                lab: "Y".into()
            }
        );
        assert_eq!(
            first_difference("ab", "abc"),
            Outcome::Differs {
                offset: 2,
                real: "".into(),
                lab: "c".into()
            }
        );
    }

    #[test]
    fn matches_by_id_and_ignores_appended_reminders() {
        let real = vec![
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "cat x"}}, {"type": "tool_use", "id": "b", "name": "Bash", "input": {}}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "b", "content": "B"},
                {"type": "tool_result", "tool_use_id": "a", "content": "A\n\n<hashed chars=3 sha256=ff>"}]}),
        ];
        let lab = vec![
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "cat x"}}, {"type": "tool_use", "id": "b", "name": "Bash", "input": {}}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "A"},
                {"type": "tool_result", "tool_use_id": "b", "content": "C"}]}),
        ];
        let rows = compare(&real, &lab, Extra::default());
        let summary: Vec<(&str, bool)> =
            rows.iter().map(|r| (r.item.as_str(), r.exact())).collect();
        assert_eq!(
            summary,
            [
                ("tool_use a", true),
                ("tool_use b", true),
                ("tool_result b", false),
                ("tool_result a", true)
            ]
        );
    }
}
