//! The Gemini API as Gemini CLI speaks it (`GOOGLE_GEMINI_BASE_URL`, auth type
//! `gemini-api-key`): how a `POST /v1beta/models/<model>:<method>` request is classified, and the
//! answer, as one server-sent `data:` chunk for `streamGenerateContent?alt=sse` or as JSON for
//! `generateContent`. A scripted `Bash` call `cat fixtures/<id>.out` becomes Gemini CLI's
//! `read_file` of that fixture (it offers no shell tool in `-p` mode), a `functionCall` part under
//! the scenario's call id; the turn's `usage` becomes `usageMetadata`. The model-router
//! classifier (a request whose `generationConfig.responseMimeType` is `application/json`) gets a
//! JSON answer, without which Gemini CLI retries until it times out. Method:
//! docs/probe.md "Codex" and "Gemini CLI".

use serde_json::{Value, json};

use super::script::{Block, Kind, Script, Turn, Usage};

/// Gemini CLI's file tool; a scripted `Bash` `cat <path>` call is played as this.
pub const READ_TOOL: &str = "read_file";

/// The path prefix of every Gemini API request.
pub const PATH_PREFIX: &str = "/v1beta/models/";

/// The model router's answer: the classifier's JSON schema asks for these two fields.
pub const ROUTER_ANSWER: &str = r#"{"complexity_reasoning":"lab","complexity_score":10}"#;

fn wants_json(body: &Value) -> bool {
    body.pointer("/generationConfig/responseMimeType")
        .and_then(Value::as_str)
        == Some("application/json")
}

/// Classifies a Gemini request body: `side` when it wants a JSON answer (the router) or offers
/// no tools, else `main`.
pub fn classify(body: &Value) -> Kind {
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    if wants_json(body) || !has_tools {
        Kind::Side
    } else {
        Kind::Main(0)
    }
}

/// The text a side request gets: the router's JSON when asked for JSON.
pub fn side_text(body: &Value, plain: &str) -> String {
    if wants_json(body) {
        ROUTER_ANSWER.to_string()
    } else {
        plain.to_string()
    }
}

/// `usageMetadata`: the prompt count includes the cached tokens.
pub fn usage(u: &Usage) -> Value {
    let prompt = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    json!({
        "promptTokenCount": prompt,
        "cachedContentTokenCount": u.cache_read_input_tokens,
        "candidatesTokenCount": u.output_tokens,
        "totalTokenCount": prompt + u.output_tokens,
    })
}

/// The path a `Bash` `cat <path>` command reads.
pub fn cat_path(command: &str) -> Option<&str> {
    command.strip_prefix("cat ").map(str::trim)
}

/// One part of a scripted turn.
pub fn part(block: &Block) -> Value {
    match block {
        Block::Text(text) => json!({"text": text}),
        Block::ToolUse { id, name, input } => {
            let command = input.get("command").and_then(Value::as_str);
            match (name.as_str(), command.and_then(cat_path)) {
                ("Bash", Some(path)) => json!({"functionCall": {
                    "id": id, "name": READ_TOOL, "args": {"file_path": path}}}),
                _ => json!({"functionCall": {"id": id, "name": name, "args": input}}),
            }
        }
    }
}

/// The whole answer as one `GenerateContentResponse` (a turn with no block, a scenario's last
/// text-only turn, answers [`Script::FINAL_TEXT`]).
pub fn response(turn: &Turn, model: &str) -> Value {
    let mut parts: Vec<Value> = turn.blocks.iter().map(part).collect();
    if parts.is_empty() {
        parts.push(json!({"text": Script::FINAL_TEXT}));
    }
    json!({
        "candidates": [{
            "content": {"role": "model", "parts": parts},
            "finishReason": "STOP",
            "index": 0,
        }],
        "usageMetadata": usage(&turn.usage),
        "modelVersion": model,
    })
}

/// The answer as an event stream of one chunk.
pub fn stream(turn: &Turn, model: &str) -> String {
    format!("data: {}\r\n\r\n", response(turn, model))
}

/// The model named in a request path (`/v1beta/models/<model>:<method>`).
pub fn model_of(path: &str) -> &str {
    path.strip_prefix(PATH_PREFIX)
        .and_then(|rest| rest.split(':').next())
        .unwrap_or("lab-model")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_router_is_side_with_json_and_a_tool_request_is_main() {
        let router =
            json!({"contents": [], "generationConfig": {"responseMimeType": "application/json"}});
        assert_eq!(classify(&router), Kind::Side);
        assert_eq!(side_text(&router, "ok"), ROUTER_ANSWER);
        let main = json!({"contents": [], "tools": [{"functionDeclarations": []}]});
        assert_eq!(classify(&main), Kind::Main(0));
        assert_eq!(side_text(&main, "ok"), "ok");
        assert_eq!(
            model_of("/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"),
            "gemini-3.8-flash"
        );
    }

    #[test]
    fn a_bash_cat_becomes_read_file_under_its_id_with_usage() {
        let turn = Turn {
            blocks: vec![Block::ToolUse {
                id: "r1".into(),
                name: "Bash".into(),
                input: json!({"command": "cat fixtures/r1.out"}),
            }],
            usage: Usage {
                input_tokens: 1000,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 249_000,
                output_tokens: 10,
            },
        };
        let s = stream(&turn, "m");
        assert!(s.starts_with("data: {") && s.ends_with("}\r\n\r\n"), "{s}");
        let v: Value = serde_json::from_str(s[6..].trim()).unwrap();
        assert_eq!(
            v["candidates"][0]["content"]["parts"][0]["functionCall"],
            json!({"id": "r1", "name": "read_file", "args": {"file_path": "fixtures/r1.out"}})
        );
        // 1000 + 249000 prompt, 10 candidates.
        assert_eq!(v["usageMetadata"]["promptTokenCount"], 250_000);
        assert_eq!(v["usageMetadata"]["totalTokenCount"], 250_010);
    }
}
