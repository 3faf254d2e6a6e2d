//! The Messages API answer in its two wire forms: a server-sent event stream (message_start,
//! content_block_start / content_block_delta / content_block_stop per block with `text_delta`
//! or `input_json_delta`, message_delta, message_stop) and a plain JSON message. Both carry the
//! turn's full `usage` (message_start and message_delta alike), since a client may read either.

use serde_json::{Value, json};

use super::script::{Block, Turn};

/// The final message as a non-streaming answer returns it.
pub fn message(turn: &Turn, id: &str, model: &str) -> Value {
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": turn.blocks.iter().map(Block::json).collect::<Vec<_>>(),
        "stop_reason": turn.stop_reason(),
        "stop_sequence": null,
        "usage": turn.usage.json(),
    })
}

/// The answer as an event stream.
pub fn stream(turn: &Turn, id: &str, model: &str) -> String {
    let mut out = String::new();
    let start = json!({
        "type": "message_start",
        "message": {
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": turn.usage.json(),
        }
    });
    event(&mut out, "message_start", &start);
    for (index, block) in turn.blocks.iter().enumerate() {
        let (opening, delta) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            ),
        };
        let start =
            json!({"type": "content_block_start", "index": index, "content_block": opening});
        event(&mut out, "content_block_start", &start);
        let delta = json!({"type": "content_block_delta", "index": index, "delta": delta});
        event(&mut out, "content_block_delta", &delta);
        let stop = json!({"type": "content_block_stop", "index": index});
        event(&mut out, "content_block_stop", &stop);
    }
    let delta = json!({
        "type": "message_delta",
        "delta": {"stop_reason": turn.stop_reason(), "stop_sequence": null},
        "usage": turn.usage.json(),
    });
    event(&mut out, "message_delta", &delta);
    event(&mut out, "message_stop", &json!({"type": "message_stop"}));
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
    use crate::probe::script::Usage;

    fn turn() -> Turn {
        Turn {
            blocks: vec![
                Block::Text("hi".into()),
                Block::ToolUse {
                    id: "toolu_7".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "/w/a.txt"}),
                },
            ],
            usage: Usage {
                input_tokens: 10,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 5,
                output_tokens: 3,
            },
        }
    }

    #[test]
    fn stream_has_the_events_in_order() {
        let s = stream(&turn(), "msg_1", "m");
        let names: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert!(s.contains(r#""partial_json":"{\"file_path\":\"/w/a.txt\"}""#));
        assert!(s.contains(r#""delta":{"stop_reason":"tool_use","stop_sequence":null}"#));
        assert!(s.ends_with("data: {\"type\":\"message_stop\"}\n\n"));
    }

    #[test]
    fn message_carries_blocks_and_usage() {
        let m = message(&turn(), "msg_1", "m");
        assert_eq!(m["content"][1]["id"], "toolu_7");
        assert_eq!(m["usage"]["cache_read_input_tokens"], 5);
        assert_eq!(m["stop_reason"], "tool_use");
    }
}
