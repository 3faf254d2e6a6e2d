//! What the scripted model server answers: the scenario's assistant turns (tool_use blocks with
//! the scenario's ids and a per-turn `usage`), the summary of a compaction request and a short
//! text for side requests (titles, topic checks). Answers are built as Messages API values here;
//! `sse` turns them into an event stream. Method: docs/probe.md.

use serde_json::{Value, json};

/// Token counts a turn reports, as the Messages API `usage` object carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    /// The default usage of a turn that sets none: 1 input token, 1 output token.
    pub const SMALL: Usage = Usage {
        input_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
    };

    /// The API object.
    pub fn json(&self) -> Value {
        json!({
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "output_tokens": self.output_tokens,
        })
    }
}

/// One content block of a scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

impl Block {
    /// The block as the final message carries it.
    pub fn json(&self) -> Value {
        match self {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        }
    }
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub blocks: Vec<Block>,
    pub usage: Usage,
}

impl Turn {
    /// A text-only turn.
    pub fn text(text: &str, usage: Usage) -> Turn {
        Turn {
            blocks: vec![Block::Text(text.to_string())],
            usage,
        }
    }

    /// `tool_use` when the turn calls a tool, else `end_turn`.
    pub fn stop_reason(&self) -> &'static str {
        if self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
        {
            "tool_use"
        } else {
            "end_turn"
        }
    }
}

/// Everything the server plays.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// Answers to the main requests, in order; once they are used up every main request gets
    /// [`Script::FINAL_TEXT`], so the agent stops.
    pub turns: Vec<Turn>,
    /// The text inside `<summary>` of the answer to a compaction request.
    pub summary: String,
}

impl Script {
    /// The answer once the turns are used up.
    pub const FINAL_TEXT: &'static str = "done";
    /// The answer to a side request (a title, a topic check).
    pub const SIDE_TEXT: &'static str = "ok";

    /// The answer to main request `n` (from 0).
    pub fn main_turn(&self, n: usize) -> Turn {
        self.turns
            .get(n)
            .cloned()
            .unwrap_or_else(|| Turn::text(Self::FINAL_TEXT, Usage::SMALL))
    }

    /// The answer to a compaction request: an analysis block, then the scenario's summary.
    pub fn compact_turn(&self) -> Turn {
        let text = format!(
            "<analysis>\nscripted\n</analysis>\n\n<summary>\n{}\n</summary>",
            self.summary
        );
        Turn::text(&text, Usage::SMALL)
    }
}

/// What a request is, decided from its path and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A request of the agent loop (it carries tools and is not a summary request); the index
    /// of its answer.
    Main(usize),
    /// The summary request of a compaction.
    Compact,
    /// Any other Messages request (no tools: titles, topic checks).
    Side,
    /// `/v1/messages/count_tokens`.
    CountTokens,
    /// A proxy `CONNECT`, refused.
    Connect,
    /// Anything else, answered 404.
    Other,
}

impl Kind {
    /// The name in the request log.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Main(_) => "main",
            Kind::Compact => "compact",
            Kind::Side => "side",
            Kind::CountTokens => "count_tokens",
            Kind::Connect => "connect",
            Kind::Other => "other",
        }
    }
}

/// The phrase that marks Claude Code's summary request (its 9-section prompt opens with it).
pub const COMPACT_MARKER: &str = "create a detailed summary of the conversation";

/// Classifies a Messages request body: `compact` when the text of its last message holds
/// [`COMPACT_MARKER`], `main` when it has tools, else `side`. `main` carries no index here.
pub fn classify_messages(body: &Value) -> Kind {
    let last_text = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .map(message_text)
        .unwrap_or_default();
    if last_text.contains(COMPACT_MARKER) {
        return Kind::Compact;
    }
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if has_tools { Kind::Main(0) } else { Kind::Side }
}

/// All text of a message: its string content, or its text blocks joined.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The mock's token count for `count_tokens`: the characters of every string inside
/// `messages` (and `system`, `tools` are not counted), divided by 4 and rounded up. Real
/// counts differ; what matters is that the same request always gets the same count.
pub fn count_tokens(body: &Value) -> u64 {
    fn chars(v: &Value) -> u64 {
        match v {
            Value::String(s) => s.chars().count() as u64,
            Value::Array(a) => a.iter().map(chars).sum(),
            Value::Object(o) => o.values().map(chars).sum(),
            _ => 0,
        }
    }
    chars(body.get("messages").unwrap_or(&Value::Null)).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_main_compact_side() {
        let main =
            json!({"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "go"}]});
        assert_eq!(classify_messages(&main), Kind::Main(0));
        let compact = json!({"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": ""},
            {"type": "text", "text": "Your task is to create a detailed summary of the conversation so far"}]}]});
        assert_eq!(classify_messages(&compact), Kind::Compact);
        let side = json!({"messages": [{"role": "user", "content": "title please"}]});
        assert_eq!(classify_messages(&side), Kind::Side);
        let no_tools = json!({"tools": [], "messages": []});
        assert_eq!(classify_messages(&no_tools), Kind::Side);
    }

    #[test]
    fn turns_run_out_into_the_final_text() {
        let script = Script {
            turns: vec![Turn {
                blocks: vec![Block::ToolUse {
                    id: "toolu_1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "true"}),
                }],
                usage: Usage::SMALL,
            }],
            summary: "S".into(),
        };
        assert_eq!(script.main_turn(0).stop_reason(), "tool_use");
        assert_eq!(script.main_turn(1), Turn::text("done", Usage::SMALL));
        assert_eq!(script.main_turn(1).stop_reason(), "end_turn");
        assert_eq!(
            script.compact_turn().blocks,
            vec![Block::Text(
                "<analysis>\nscripted\n</analysis>\n\n<summary>\nS\n</summary>".into()
            )]
        );
    }

    #[test]
    fn counts_message_characters_over_four() {
        let body =
            json!({"system": "x".repeat(100), "messages": [{"role": "user", "content": "abcde"}]});
        // "user" (4) + "abcde" (5) = 9 chars → 3 tokens.
        assert_eq!(count_tokens(&body), 3);
    }
}
