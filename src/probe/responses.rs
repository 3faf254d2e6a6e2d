//! The OpenAI Responses API as Codex speaks it (`wire_api = "responses"`): how a request to
//! `POST /v1/responses` is classified, and the answer as a server-sent event stream
//! (`response.created`, then `response.output_item.added` / `response.output_item.done` per
//! item, then `response.completed` with the turn's `usage`). A scripted `Bash` call becomes
//! Codex's own shell tool, `exec_command` with `{"cmd": …}`, under the scenario's call id.
//! Method: docs/probe.md "Codex".

use serde_json::{Value, json};

use super::script::{Block, Kind, Turn, Usage};

/// Codex's shell tool (codex-rs unified exec); a scripted `Bash` call is played as this.
pub const SHELL_TOOL: &str = "exec_command";

/// The phrase that opens Codex's local compaction prompt (`templates/compact/prompt.md`), sent as
/// the last user message of a summarisation request on the normal endpoint.
pub const COMPACT_MARKER: &str = "CONTEXT CHECKPOINT COMPACTION";

/// The text of a Responses `message` item: its `input_text` / `output_text` parts joined by `\n`.
pub fn item_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Classifies a Responses request body: `compact` when its last input item is a user message
/// holding [`COMPACT_MARKER`], `main` when it offers tools, else `side`.
pub fn classify(body: &Value) -> Kind {
    let last = body
        .get("input")
        .and_then(Value::as_array)
        .and_then(|items| items.last());
    let is_compact = last.is_some_and(|item| {
        item.get("role").and_then(Value::as_str) == Some("user")
            && item_text(item).contains(COMPACT_MARKER)
    });
    if is_compact {
        return Kind::Compact;
    }
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if has_tools { Kind::Main(0) } else { Kind::Side }
}

/// The Responses `usage`: input tokens include the cached ones; `total_tokens` (what Codex
/// adds its estimate of later items to) is the sum of all four counts.
pub fn usage(u: &Usage) -> Value {
    let input = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + u.output_tokens,
    })
}

/// One output item of a scripted turn.
pub fn item(block: &Block, index: usize, response: &str) -> Value {
    match block {
        Block::Text(text) => json!({
            "type": "message",
            "id": format!("msg_{response}_{index}"),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
        Block::ToolUse { id, name, input } => {
            let (name, arguments) = match (name.as_str(), input.get("command")) {
                ("Bash", Some(command)) => (SHELL_TOOL, json!({"cmd": command})),
                _ => (name.as_str(), input.clone()),
            };
            json!({
                "type": "function_call",
                "id": format!("fc_{id}"),
                "call_id": id,
                "name": name,
                "arguments": arguments.to_string(),
                "status": "completed",
            })
        }
    }
}

/// The answer as an event stream.
pub fn stream(turn: &Turn, id: &str, model: &str) -> String {
    let mut out = String::new();
    let created = json!({
        "type": "response.created",
        "response": {"id": id, "object": "response", "model": model, "status": "in_progress", "output": []},
    });
    event(&mut out, "response.created", &created);
    let items: Vec<Value> = turn
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| item(b, i, id))
        .collect();
    for (index, item) in items.iter().enumerate() {
        for name in ["response.output_item.added", "response.output_item.done"] {
            let data = json!({"type": name, "output_index": index, "item": item});
            event(&mut out, name, &data);
        }
    }
    let completed = json!({
        "type": "response.completed",
        "response": {
            "id": id, "object": "response", "model": model, "status": "completed",
            "output": items, "usage": usage(&turn.usage),
        },
    });
    event(&mut out, "response.completed", &completed);
    out
}

fn event(out: &mut String, name: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_main_compact_side() {
        let main = json!({"tools": [{"type": "function", "name": "exec_command"}],
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}]});
        assert_eq!(classify(&main), Kind::Main(0));
        let compact = json!({"tools": [{"name": "exec_command"}], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text",
             "text": "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary"}]}]});
        assert_eq!(classify(&compact), Kind::Compact);
        assert_eq!(classify(&json!({"input": []})), Kind::Side);
    }

    #[test]
    fn a_bash_call_becomes_exec_command_under_its_id() {
        let turn = Turn {
            blocks: vec![Block::ToolUse {
                id: "b1".into(),
                name: "Bash".into(),
                input: json!({"command": "cat fixtures/b1.out"}),
            }],
            usage: Usage {
                input_tokens: 1000,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 249_000,
                output_tokens: 10,
            },
        };
        let s = stream(&turn, "resp_1", "m");
        let names: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.output_item.added",
                "response.output_item.done",
                "response.completed"
            ]
        );
        assert!(
            s.contains(r#""call_id":"b1","name":"exec_command","arguments":"{\"cmd\":\"cat fixtures/b1.out\"}""#),
            "{s}"
        );
        // 1000 + 249000 input, 10 output.
        assert!(s.contains(r#""total_tokens":250010"#), "{s}");
        assert!(s.contains(r#""cached_tokens":249000"#), "{s}");
    }
}
