//! The transcript model: messages and blocks in the Anthropic Messages shape
//! (docs/scenario-format.md).
//!
//! The course code holds assistant blocks as SDK objects that `json.dumps(default=str)` prints as
//! their repr; the lab serialises them as the plain dicts of docs/scenario-format.md instead (a
//! documented modelling choice). Key order is exactly `type, text` / `type, id, name, input` /
//! `type, tool_use_id, content`, and `role, content` for messages.

use std::cell::OnceCell;
use std::rc::Rc;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};
use smol_str::SmolStr;

use crate::call_id::CallId;
use crate::python::json::{self, Counter, Dialect, Sink};
use crate::python::weigh::weigh;
pub use crate::result_text::ResultText;

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

/// A tool call's input, shared by the copies of its message: each replay of a scenario (and
/// each Monte Carlo cell) appends the same calls, and an input is never changed once made. Its
/// `JSON.stringify` length, which Claude Code's and Cline's estimates count, and its JSON with
/// keys sorted, which identifies a repeated call, are each computed once. Counted and computed
/// without atomics, as [`ResultText`] is: a replay is one thread's.
#[derive(Clone, Default)]
pub struct Input(Rc<InputData>);

#[derive(Default)]
struct InputData {
    map: Map<String, Value>,
    js_len: OnceCell<usize>,
    sorted: OnceCell<String>,
    sorted_hash: OnceCell<u64>,
}

impl Input {
    /// `JSON.stringify(input).length` in UTF-16 units.
    pub fn js_len(&self) -> usize {
        *self.0.js_len.get_or_init(|| js_stringify_len(&self.0.map))
    }

    /// The input as compact JSON with object keys sorted at every depth: two calls with the
    /// same name and this text are the same call.
    pub fn sorted_json(&self) -> &str {
        self.0.sorted.get_or_init(|| {
            let text =
                serde_json::to_vec(&SortedMap(&self.0.map)).expect("a JSON value serialises");
            String::from_utf8(text).expect("serde_json writes UTF-8")
        })
    }

    /// A hash of [`Self::sorted_json`] (foldhash, fixed seed), computed once: a map keyed by a
    /// call's identity hashes this number, not the text again at every call a replay registers
    /// (issue 13: 4% of a course-main replay hashed those texts).
    pub fn sorted_hash(&self) -> u64 {
        *self.0.sorted_hash.get_or_init(|| {
            std::hash::BuildHasher::hash_one(
                &foldhash::fast::FixedState::default(),
                self.sorted_json(),
            )
        })
    }

    /// Prefetches the input's data: its map and the texts computed from it
    /// ([`crate::prefetch::prefetch`]), read when the call it belongs to is registered.
    pub(crate) fn prefetch(&self) {
        crate::prefetch::prefetch_slice(std::slice::from_ref(&*self.0));
    }
}

impl std::ops::Deref for Input {
    type Target = Map<String, Value>;
    fn deref(&self) -> &Map<String, Value> {
        &self.0.map
    }
}

impl From<Map<String, Value>> for Input {
    fn from(map: Map<String, Value>) -> Self {
        Input(Rc::new(InputData {
            map,
            js_len: OnceCell::new(),
            sorted: OnceCell::new(),
            sorted_hash: OnceCell::new(),
        }))
    }
}

impl PartialEq for Input {
    fn eq(&self, other: &Self) -> bool {
        self.0.map == other.0.map
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.map.fmt(f)
    }
}

/// A JSON object serialised with its keys sorted, at every depth (without copying it).
struct SortedMap<'a>(&'a Map<String, Value>);

impl Serialize for SortedMap<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut entries: Vec<(&String, &Value)> = self.0.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (key, value) in entries {
            map.serialize_entry(key, &Sorted(value))?;
        }
        map.end()
    }
}

/// A JSON value whose objects serialise with their keys sorted.
struct Sorted<'a>(&'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match self.0 {
            Value::Object(map) => SortedMap(map).serialize(serializer),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Sorted(item))?;
                }
                seq.end()
            }
            other => other.serialize(serializer),
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
        id: CallId,
        name: SmolStr,
        input: Input,
    },
    ToolResult {
        tool_use_id: CallId,
        content: ResultText,
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
                id: (*id).to_owned().into(),
                name: (*name).to_owned().into(),
                input: Default::default(),
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
    pub fn tool_use_ids(&self) -> impl Iterator<Item = &CallId> {
        self.block_list().iter().filter_map(|block| match block {
            Block::ToolUse { id, .. } => Some(id),
            _ => None,
        })
    }

    /// `(tool_use_id, content)` of this message's tool_result blocks, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = (&CallId, &str)> {
        let results = self.result_texts();
        results.map(|(id, content)| (id, content.as_str()))
    }

    /// [`Self::tool_results`] with each content as its [`ResultText`] (its counts known).
    pub fn result_texts(&self) -> impl Iterator<Item = (&CallId, &ResultText)> {
        self.block_list().iter().filter_map(|block| match block {
            Block::ToolResult {
                tool_use_id,
                content,
            } => Some((tool_use_id, content)),
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
        sink.name("role", d);
        sink.raw(": ");
        sink.name(self.role.as_str(), d);
        sink.raw(", ");
        sink.name("content", d);
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

    /// [`Self::json_chars`] of a message whose tool_result contents, in order, have the given
    /// sizes (measured already).
    pub(crate) fn json_chars_known(&self, known: &[usize]) -> usize {
        let mut counter = json::KnownContents {
            total: 0,
            known: known.iter().map(|&size| Some(size)),
        };
        self.write_py(&mut counter, Dialect::Json);
        counter.total
    }

    /// `len(json.dumps(message, ensure_ascii=False))`.
    pub fn json_chars(&self) -> usize {
        let mut counter = Counter::default();
        self.write_py(&mut counter, Dialect::Json);
        counter.0
    }

    /// Claude Code's rough token count of the message (per block, rounded per block).
    pub fn rough_tokens(&self) -> usize {
        self.rough_tokens_by(4)
    }

    /// [`Self::rough_tokens`] at `units_per_token` UTF-16 units a token (Claude Code v2.1.332:
    /// 3 for models outside its list of older ones).
    pub fn rough_tokens_by(&self, units_per_token: usize) -> usize {
        match &self.content {
            Content::Text(text) => rough_units_by(utf16_len(text), units_per_token),
            Content::Blocks(blocks) => blocks
                .iter()
                .map(|b| b.rough_tokens_by(units_per_token))
                .sum(),
        }
    }

    /// `len(json.dumps(message))` with its default `ensure_ascii=True`.
    pub fn json_ascii_chars(&self) -> usize {
        let mut counter = Counter::default();
        self.write_py(&mut counter, Dialect::JsonAscii);
        counter.0
    }

    /// [`Self::json_ascii_chars`] of a message whose tool_result contents' lengths, in block
    /// order, are known where given.
    pub(crate) fn json_ascii_chars_known(&self, known: &[Option<usize>]) -> usize {
        let mut counter = json::KnownContents {
            total: 0,
            known: known.iter().copied(),
        };
        self.write_py(&mut counter, Dialect::JsonAscii);
        counter.total
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
    pub fn tool_result(tool_use_id: impl Into<CallId>, content: impl Into<ResultText>) -> Self {
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
                map.insert("input".into(), Value::Object((**input).clone()));
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
    /// `name + JSON.stringify(input)`) at `units_per_token` UTF-16 units a token (4; v2.1.332:
    /// 3 for models outside its list of older ones).
    pub(crate) fn rough_tokens_by(&self, units_per_token: usize) -> usize {
        let units = match self {
            Block::Text { text } => utf16_len(text),
            Block::ToolResult { content, .. } => result_utf16(content),
            Block::ToolUse { name, input, .. } => utf16_len(name) + input.js_len(),
        };
        rough_units_by(units, units_per_token)
    }

    fn write_py<S: Sink>(&self, sink: &mut S, d: Dialect) {
        // The block's own keys after the first: `, "key": `.
        let key = |sink: &mut S, name: &'static str| {
            sink.raw(", ");
            sink.name(name, d);
            sink.raw(": ");
        };
        sink.raw("{");
        sink.name("type", d);
        sink.raw(": ");
        match self {
            Block::Text { text } => {
                sink.name("text", d);
                key(sink, "text");
                sink.string(text, d);
            }
            Block::ToolUse { id, name, input } => {
                sink.name("tool_use", d);
                key(sink, "id");
                sink.string(id, d);
                key(sink, "name");
                sink.string(name, d);
                key(sink, "input");
                sink.raw("{");
                for (index, (name, value)) in input.iter().enumerate() {
                    if index > 0 {
                        sink.raw(", ");
                    }
                    sink.string(name, d);
                    sink.raw(": ");
                    json::write_value(sink, value, d);
                }
                sink.raw("}");
            }
            Block::ToolResult {
                tool_use_id,
                content,
            } => {
                sink.name("tool_result", d);
                key(sink, "tool_use_id");
                sink.string(tool_use_id, d);
                key(sink, "content");
                sink.content(content, d);
            }
        }
        sink.raw("}");
    }
}

/// JavaScript's `string.length`: UTF-16 code units.
pub fn utf16_len(text: &str) -> usize {
    utf16_units(text.as_bytes())
}

/// [`utf16_len`] of a result's text: its length when the text is ASCII, known without reading
/// it ([`ResultText::is_ascii`]).
pub fn result_utf16(text: &ResultText) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        utf16_len(text)
    }
}

/// The UTF-16 code units of UTF-8 `bytes`: one per character (every byte but the continuation
/// bytes 0x80..0xbf), and a second for the characters above U+FFFF (lead bytes 0xf0 and up),
/// which take a surrogate pair. Each byte counts on its own, so a text may be counted in pieces
/// split anywhere. Summed in bulk ([`weigh`]): a byte weighs at most 2.
fn utf16_units(bytes: &[u8]) -> usize {
    weigh::<64>(bytes, |b| u8::from(b & 0xc0 != 0x80) + u8::from(b >= 0xf0))
}

/// How many of `bytes` are newlines, summed in bulk like [`utf16_units`].
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    weigh::<128>(bytes, |b| u8::from(b == b'\n'))
}

/// Counts the UTF-16 units of the UTF-8 text written to it.
#[derive(Default)]
struct Utf16Counter(usize);

impl std::io::Write for Utf16Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += utf16_units(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `JSON.stringify(value).length`, without building the string.
pub fn js_stringify_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = Utf16Counter::default();
    serde_json::to_writer(&mut counter, value).expect("a JSON value serialises");
    counter.0
}

/// `JSON.stringify(message)` of [`Message::to_value`], serialised from the message itself.
pub struct JsMessage<'a>(pub &'a Message);

impl Serialize for JsMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", self.0.role.as_str())?;
        match &self.0.content {
            Content::Text(text) => map.serialize_entry("content", text)?,
            Content::Blocks(blocks) => map.serialize_entry("content", &JsBlocks(blocks))?,
        }
        map.end()
    }
}

struct JsBlocks<'a>(&'a [Block]);

impl Serialize for JsBlocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for block in self.0 {
            seq.serialize_element(&JsBlock(block))?;
        }
        seq.end()
    }
}

struct JsBlock<'a>(&'a Block);

impl Serialize for JsBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The keys of `Block::to_value`, in its order.
        match self.0 {
            Block::Text { text } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
                map.end()
            }
            Block::ToolUse { id, name, input } => {
                let mut map = serializer.serialize_map(Some(4))?;
                map.serialize_entry("type", "tool_use")?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("input", &**input)?;
                map.end()
            }
            Block::ToolResult {
                tool_use_id,
                content,
            } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", tool_use_id)?;
                map.serialize_entry("content", content)?;
                map.end()
            }
        }
    }
}

/// Every size the lab's estimates take of one text (a tool result's content), measured once so
/// that the cells of a Monte Carlo session, which replay the same results, share them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextSizes {
    /// Characters ([`crate::python::json::char_len`]).
    pub(crate) chars: usize,
    /// `len(json.dumps(text, ensure_ascii=False))`.
    pub(crate) json: usize,
    /// `len(repr(text))`.
    pub(crate) repr: usize,
    /// UTF-16 code units (Claude Code's rough tokens are these over 4, or 3).
    pub(crate) utf16: usize,
    /// `JSON.stringify(text).length` (Cline's unit, unrounded).
    pub(crate) js: usize,
}

impl TextSizes {
    /// Measures `text` for every estimate.
    pub(crate) fn of(text: &str) -> Self {
        if text.is_ascii() {
            let (json, repr) = json::ascii_json_repr_chars(text);
            let len = text.len();
            return TextSizes {
                chars: len,
                json,
                repr,
                utf16: len,
                js: json,
            };
        }
        TextSizes {
            chars: json::char_len(text),
            json: json::json_str_chars(text),
            repr: json::repr_str_chars(text),
            utf16: utf16_len(text),
            js: json::js_str_units(text),
        }
    }

    /// The sizes of `lines` lines of `width` plain ASCII characters (no quote, backslash or
    /// control character) joined by `\n`, known without reading the text: each character
    /// counts once in every measure, each newline twice in the quoted ones (JSON, repr and
    /// `JSON.stringify` write it `\n`), and the quotes add two.
    pub(crate) fn of_plain_lines(lines: usize, width: usize) -> Self {
        let newlines = lines.saturating_sub(1);
        let chars = lines * width + newlines;
        let quoted = chars + newlines + 2;
        TextSizes {
            chars,
            json: quoted,
            repr: quoted,
            utf16: chars,
            js: quoted,
        }
    }
}

/// Claude Code's `roughTokenCountEstimation`: `Math.round(length / 4)` in UTF-16 units.
pub fn rough_tokens(text: &str) -> usize {
    rough_units(utf16_len(text))
}

/// `Math.round(units / 4)`: halves round up; lengths are non-negative.
pub(crate) fn rough_units(units: usize) -> usize {
    rough_units_by(units, 4)
}

/// `Math.round(units / per)`: halves round up; lengths are non-negative.
pub(crate) fn rough_units_by(units: usize, per: usize) -> usize {
    (units * 2 + per) / (2 * per)
}

/// `JSON.stringify(value)`: no spaces, non-ASCII kept.
pub fn js_stringify<T: Serialize + ?Sized>(value: &T) -> String {
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

/// Three messages for tests: a user text, an assistant text and call (an input with quotes, a
/// backslash, non-ASCII and a number), and a result with an emoji.
#[cfg(test)]
pub(crate) fn sample_messages() -> Vec<Message> {
    let input = serde_json::json!({"command": "grep \"中文\" a\\b", "n": 3})
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
                    input: input.into(),
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

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
