//! The transcript model: messages and blocks in the Anthropic Messages shape
//! (docs/scenario-format.md).
//!
//! The course code holds assistant blocks as SDK objects that `json.dumps(default=str)` prints as
//! their repr; the lab serialises them as the plain dicts of docs/scenario-format.md instead (a
//! documented modelling choice). Key order is exactly `type, text` / `type, id, name, input` /
//! `type, tool_use_id, content`, and `role, content` for messages.

use serde_json::{Map, Value};

use crate::python::json::{self, Counter, Dialect, Sink};

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One content block.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Map<String, Value>,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
    },
}

/// A message's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

/// One message of the history.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Content,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: Content::Text(text.into()),
        }
    }

    pub fn blocks(role: Role, blocks: Vec<Block>) -> Self {
        Message {
            role,
            content: Content::Blocks(blocks),
        }
    }

    /// A user message holding one tool_result block.
    #[cfg(test)]
    pub(crate) fn tool_result(id: &str, content: &str) -> Self {
        Message::blocks(Role::User, vec![Block::tool_result(id, content)])
    }

    /// An assistant message calling each `(id, tool name)` with empty input.
    #[cfg(test)]
    pub(crate) fn tool_uses(calls: &[(&str, &str)]) -> Self {
        let blocks = calls
            .iter()
            .map(|(id, name)| Block::ToolUse {
                id: (*id).to_owned(),
                name: (*name).to_owned(),
                input: Map::new(),
            })
            .collect();
        Message::blocks(Role::Assistant, blocks)
    }

    /// The course's `has_tool_use`: an assistant message with a list holding a tool_use block.
    pub fn has_tool_use(&self) -> bool {
        self.role == Role::Assistant
            && matches!(&self.content, Content::Blocks(blocks)
                if blocks.iter().any(|b| matches!(b, Block::ToolUse { .. })))
    }

    /// The course's `is_tool_result`: a user message with a list holding a tool_result block.
    pub fn is_tool_result(&self) -> bool {
        self.role == Role::User
            && matches!(&self.content, Content::Blocks(blocks)
                if blocks.iter().any(|b| matches!(b, Block::ToolResult { .. })))
    }

    /// The blocks of a list-content message, or an empty slice.
    pub fn block_list(&self) -> &[Block] {
        match &self.content {
            Content::Blocks(blocks) => blocks,
            Content::Text(_) => &[],
        }
    }

    /// The ids of this message's tool_use blocks, in order.
    pub fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.block_list().iter().filter_map(|block| match block {
            Block::ToolUse { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// `(tool_use_id, content)` of this message's tool_result blocks, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = (&str, &str)> {
        self.block_list().iter().filter_map(|block| match block {
            Block::ToolResult {
                tool_use_id,
                content,
            } => Some((tool_use_id.as_str(), content.as_str())),
            _ => None,
        })
    }

    /// The canonical JSON value of docs/scenario-format.md.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("role".into(), Value::from(self.role.as_str()));
        let content = match &self.content {
            Content::Text(text) => Value::from(text.as_str()),
            Content::Blocks(blocks) => Value::Array(blocks.iter().map(Block::to_value).collect()),
        };
        map.insert("content".into(), content);
        Value::Object(map)
    }

    /// Writes the message as `json.dumps(message, ensure_ascii=False)` (or `repr`) would.
    pub(crate) fn write_py<S: Sink>(&self, sink: &mut S, d: Dialect) {
        sink.raw("{");
        sink.string("role", d);
        sink.raw(": ");
        sink.string(self.role.as_str(), d);
        sink.raw(", ");
        sink.string("content", d);
        sink.raw(": ");
        match &self.content {
            Content::Text(text) => sink.string(text, d),
            Content::Blocks(blocks) => {
                sink.raw("[");
                for (index, block) in blocks.iter().enumerate() {
                    if index > 0 {
                        sink.raw(", ");
                    }
                    block.write_py(sink, d);
                }
                sink.raw("]");
            }
        }
        sink.raw("}");
    }

    /// `len(json.dumps(message, ensure_ascii=False))`.
    pub fn json_chars(&self) -> usize {
        let mut counter = Counter::default();
        self.write_py(&mut counter, Dialect::Json);
        counter.0
    }

    /// Claude Code's rough token count of the message (per block, rounded per block).
    pub fn rough_tokens(&self) -> usize {
        match &self.content {
            Content::Text(text) => rough_tokens(text),
            Content::Blocks(blocks) => blocks.iter().map(Block::rough_tokens).sum(),
        }
    }

    /// `len(json.dumps(message))` with its default `ensure_ascii=True`.
    pub fn json_ascii_chars(&self) -> usize {
        let mut counter = Counter::default();
        self.write_py(&mut counter, Dialect::JsonAscii);
        counter.0
    }

    /// `len(repr(message))`.
    pub fn repr_chars(&self) -> usize {
        let mut counter = Counter::default();
        self.write_py(&mut counter, Dialect::Repr);
        counter.0
    }

    /// The JSONL line a transcript archive holds for this message (without the newline).
    pub fn json_line(&self) -> String {
        let mut out = String::new();
        self.write_py(&mut out, Dialect::Json);
        out
    }

    /// `repr(message)`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_py(&mut out, Dialect::Repr);
        out
    }
}

impl Block {
    /// A tool_result block answering `tool_use_id`.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<String>) -> Self {
        Block::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: content.into(),
        }
    }

    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        match self {
            Block::Text { text } => {
                map.insert("type".into(), "text".into());
                map.insert("text".into(), text.as_str().into());
            }
            Block::ToolUse { id, name, input } => {
                map.insert("type".into(), "tool_use".into());
                map.insert("id".into(), id.as_str().into());
                map.insert("name".into(), name.as_str().into());
                map.insert("input".into(), Value::Object(input.clone()));
            }
            Block::ToolResult {
                tool_use_id,
                content,
            } => {
                map.insert("type".into(), "tool_result".into());
                map.insert("tool_use_id".into(), tool_use_id.as_str().into());
                map.insert("content".into(), content.as_str().into());
            }
        }
        Value::Object(map)
    }

    /// Claude Code's rough token count of one block (text, tool_result content, or tool_use
    /// `name + JSON.stringify(input)`).
    pub(crate) fn rough_tokens(&self) -> usize {
        match self {
            Block::Text { text } => rough_tokens(text),
            Block::ToolResult { content, .. } => rough_tokens(content),
            Block::ToolUse { name, input, .. } => rough_tokens(&format!(
                "{name}{}",
                js_stringify(&Value::Object(input.clone()))
            )),
        }
    }

    fn write_py<S: Sink>(&self, sink: &mut S, d: Dialect) {
        let key = |sink: &mut S, name: &str, first: bool| {
            if !first {
                sink.raw(", ");
            }
            sink.string(name, d);
            sink.raw(": ");
        };
        sink.raw("{");
        key(sink, "type", true);
        match self {
            Block::Text { text } => {
                sink.string("text", d);
                key(sink, "text", false);
                sink.string(text, d);
            }
            Block::ToolUse { id, name, input } => {
                sink.string("tool_use", d);
                key(sink, "id", false);
                sink.string(id, d);
                key(sink, "name", false);
                sink.string(name, d);
                key(sink, "input", false);
                sink.raw("{");
                for (index, (name, value)) in input.iter().enumerate() {
                    key(sink, name, index == 0);
                    json::write_value(sink, value, d);
                }
                sink.raw("}");
            }
            Block::ToolResult {
                tool_use_id,
                content,
            } => {
                sink.string("tool_result", d);
                key(sink, "tool_use_id", false);
                sink.string(tool_use_id, d);
                key(sink, "content", false);
                sink.content(content, d);
            }
        }
        sink.raw("}");
    }
}

/// JavaScript's `string.length`: UTF-16 code units.
pub fn utf16_len(text: &str) -> usize {
    // One unit per character (every byte but the UTF-8 continuation bytes 0x80..0xbf), and a
    // second for the characters above U+FFFF (lead bytes 0xf0 and up), which take a surrogate
    // pair: a byte sum the compiler vectorises.
    text.as_bytes()
        .iter()
        .map(|&b| usize::from(b & 0xc0 != 0x80) + usize::from(b >= 0xf0))
        .sum()
}

/// Claude Code's `roughTokenCountEstimation`: `Math.round(length / 4)` in UTF-16 units.
pub fn rough_tokens(text: &str) -> usize {
    // Math.round rounds halves up; lengths are non-negative.
    (utf16_len(text) * 2 + 4) / 8
}

/// `JSON.stringify(value)`: no spaces, non-ASCII kept.
pub fn js_stringify(value: &Value) -> String {
    serde_json::to_string(value).expect("a JSON value serialises")
}

/// `len(json.dumps(messages, ensure_ascii=False))` for a list whose messages have the given
/// lengths: the brackets plus `", "` between items.
pub fn list_chars(count: usize, sum_of_items: usize) -> usize {
    2 + sum_of_items + 2 * count.saturating_sub(1)
}

/// `len(json.dumps(messages, ensure_ascii=False))`, serialising everything (the slow reference
/// for the incremental estimate the compaction history keeps).
pub fn estimate_chars(messages: &[Message]) -> usize {
    list_chars(
        messages.len(),
        messages.iter().map(Message::json_chars).sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Vec<Message> {
        let input = json!({"command": "grep \"中文\" a\\b", "n": 3})
            .as_object()
            .unwrap()
            .clone();
        vec![
            Message::user_text("inspect the logs"),
            Message::blocks(
                Role::Assistant,
                vec![
                    Block::Text {
                        text: "ok\n".into(),
                    },
                    Block::ToolUse {
                        id: "toolu_0".into(),
                        name: "bash".into(),
                        input,
                    },
                ],
            ),
            Message::blocks(
                Role::User,
                vec![Block::ToolResult {
                    tool_use_id: "toolu_0".into(),
                    content: "line1\nline2\t😀".into(),
                }],
            ),
        ]
    }

    #[test]
    fn estimate_matches_python_json_dumps() {
        // CPython 3.11: len(json.dumps(<the same list of dicts>, ensure_ascii=False)) == 336.
        let messages = sample();
        assert_eq!(estimate_chars(&messages), 336);
        let values = Value::Array(messages.iter().map(Message::to_value).collect());
        assert_eq!(json::value_chars(&values), 336);
    }

    #[test]
    fn canonical_shape_key_order() {
        let text = json::dumps(&sample()[2].to_value());
        assert_eq!(
            text,
            r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "line1\nline2\t😀"}]}"#
        );
        assert_eq!(sample()[2].json_line(), text);
    }

    #[test]
    fn repr_matches_python_str() {
        // CPython 3.11: len(str(<the same list of dicts>)) == 334, and the tool_result message
        // prints as below (single quotes, the emoji kept, \n and \t escaped).
        let messages = sample();
        let total = list_chars(
            messages.len(),
            messages.iter().map(Message::repr_chars).sum(),
        );
        assert_eq!(total, 334);
        assert_eq!(
            messages[2].repr(),
            "{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_0', 'content': 'line1\\nline2\\t😀'}]}"
        );
    }

    #[test]
    fn empty_list_and_predicates() {
        assert_eq!(estimate_chars(&[]), 2);
        let messages = sample();
        assert!(messages[1].has_tool_use());
        assert!(!messages[1].is_tool_result());
        assert!(messages[2].is_tool_result());
        assert!(!messages[0].is_tool_result());
    }
}
