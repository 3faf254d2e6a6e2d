//! Gemini CLI's requests as a conformance record, and their comparison with the `gemini-cli`
//! profile.
//!
//! Kept exactly: every part of `contents` (user text, `functionCall` args, `functionResponse`
//! output), `generationConfig`, the model and method of the path, and the first word of
//! `user-agent` (`GeminiCLI/<version>/<model>`; the rest names the host's OS). Replaced by length
//! and sha256: `systemInstruction`, each function declaration (named), and every text part that
//! is a whole `<session_context>…</session_context>` block (the date, OS, temporary directory
//! and folder listing). Normalised: the run's directories (to the profile's virtual layout).
//!
//! The comparison takes the last main request: every user text in order (`user message N`), per
//! call id the file `read_file` was asked for (`function_call ID`: the path of the scenario's
//! `cat`), and the output the model saw (`function_response ID`).

use serde_json::{Map, Value, json};

use super::compare::{Row, last_main, pair};
use super::record::{self, Normaliser, digest, hashed_marker};
use super::script::Kind;
use super::server::Logged;

fn is_context_block(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("<session_context>") && t.ends_with("</session_context>")
}

fn strings(n: &Normaliser, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(n.text(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| strings(n, x)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), strings(n, x))).collect())
        }
        other => other.clone(),
    }
}

/// One `contents` entry, normalised, its context blocks hashed.
fn content(n: &Normaliser, value: &Value) -> Value {
    let mut out = strings(n, value);
    if let Some(parts) = out.get_mut("parts").and_then(Value::as_array_mut) {
        for p in parts {
            if let Some(t) = p.get("text").and_then(Value::as_str)
                && is_context_block(t)
            {
                p["text"] = Value::String(hashed_marker(t));
            }
        }
    }
    out
}

/// One logged request as the record stores it.
pub fn request(n: &Normaliser, logged: &Logged) -> Value {
    if !matches!(logged.kind, Kind::Main(_) | Kind::Compact | Kind::Side) {
        return record::request(n, logged);
    }
    let body = &logged.body;
    let mut out = Map::new();
    out.insert("kind".into(), Value::String(logged.kind.name().into()));
    let path = logged.path.strip_prefix(super::gemini::PATH_PREFIX);
    out.insert("path".into(), json!(path.unwrap_or(&logged.path)));
    if let Some(ua) = logged.headers.get("user-agent") {
        let first = ua.split_whitespace().next().unwrap_or("");
        out.insert("headers".into(), json!({"user-agent": first}));
    }
    if let Some(v) = body.get("generationConfig") {
        out.insert("generationConfig".into(), v.clone());
    }
    if let Some(v) = body.get("systemInstruction") {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.insert("systemInstruction".into(), digest(&n.text(&text)));
    }
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|t| {
            t.get("functionDeclarations")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_else(|| vec![t.clone()])
        })
        .map(|f| {
            let mut d = digest(&n.text(&f.to_string()));
            d["name"] = f.get("name").cloned().unwrap_or(Value::Null);
            d
        })
        .collect();
    out.insert("tools".into(), Value::Array(tools));
    let contents: Vec<Value> = body
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| content(n, c))
        .collect();
    out.insert("contents".into(), Value::Array(contents));
    Value::Object(out)
}

/// The version in the `user-agent` of the main requests (`GeminiCLI/0.61.0/<model> (…)`).
pub fn version(log: &[Logged]) -> String {
    log.iter()
        .filter(|l| matches!(l.kind, Kind::Main(_)))
        .find_map(|l| l.headers.get("user-agent"))
        .and_then(|ua| ua.split_whitespace().next())
        .and_then(|first| first.split('/').nth(1))
        .map(str::to_string)
        .unwrap_or_else(|| "unknown".into())
}

/// The text of a `functionResponse`: its `output` when that is a string, else its JSON.
fn response_text(fr: &Value) -> String {
    match fr.get("response") {
        Some(r) => match r.get("output") {
            Some(Value::String(s)) => s.clone(),
            _ => r.to_string(),
        },
        None => String::new(),
    }
}

/// The compared items of the last main request's `contents`.
fn real_items(contents: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut users = 0;
    for c in contents {
        for p in c
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                if c.get("role").and_then(Value::as_str) == Some("user")
                    && !t.starts_with("<hashed ")
                {
                    users += 1;
                    out.push((format!("user message {users}"), t.to_string()));
                }
            } else if let Some(fc) = p.get("functionCall") {
                let id = fc.get("id").and_then(Value::as_str).unwrap_or("");
                let path = fc.pointer("/args/file_path").and_then(Value::as_str);
                let text = path.map_or_else(|| fc["args"].to_string(), str::to_string);
                out.push((format!("function_call {id}"), text));
            } else if let Some(fr) = p.get("functionResponse") {
                let id = fr.get("id").and_then(Value::as_str).unwrap_or("");
                out.push((format!("function_response {id}"), response_text(fr)));
            }
        }
    }
    out
}

/// The same items of the profile's messages (lab JSON: user text, tool_use, tool_result).
fn lab_items(messages: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut users = 0;
    for m in messages {
        let user = m.get("role").and_then(Value::as_str) == Some("user");
        let blocks = match m.get("content") {
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            Some(Value::Array(b)) => b.clone(),
            _ => Vec::new(),
        };
        for b in &blocks {
            let str_of = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            match b.get("type").and_then(Value::as_str) {
                Some("text") if user => {
                    users += 1;
                    out.push((format!("user message {users}"), str_of("text")));
                }
                Some("tool_use") => {
                    let cmd = b.pointer("/input/command").and_then(Value::as_str);
                    let path = cmd.and_then(super::gemini::cat_path);
                    let text = path.map_or_else(|| b["input"].to_string(), str::to_string);
                    out.push((format!("function_call {}", str_of("id")), text));
                }
                Some("tool_result") => {
                    let text = match b.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => String::new(),
                    };
                    let id = str_of("tool_use_id");
                    out.push((format!("function_response {id}"), text));
                }
                _ => {}
            }
        }
    }
    out
}

/// Compares the record's last main request with the profile's messages, item by item.
pub fn compare(record: &Value, lab: &[Value]) -> Vec<Row> {
    pair(real_items(last_main(record, "contents")), lab_items(lab))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_context_is_hashed_and_user_text_kept() {
        let n = Normaliser::identity();
        let c = json!({"role": "user", "parts": [
            {"text": "<session_context>\nToday's date is Thursday\n</session_context>"},
            {"text": "go"}]});
        let out = content(&n, &c);
        let first = out["parts"][0]["text"].as_str().unwrap();
        // 17 (`<session_context>`) + 1 + 24 (the date line) + 1 + 18 (the closing tag).
        assert!(first.starts_with("<hashed chars=61 sha256="), "{first}");
        assert_eq!(out["parts"][1]["text"], "go");
    }

    #[test]
    fn calls_and_responses_pair_by_id_with_the_lab_cat() {
        let record = json!({"requests": [{"kind": "main", "contents": [
            {"role": "user", "parts": [{"text": "<hashed chars=1 sha256=0>"}, {"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "r1", "name": "read_file",
                "args": {"file_path": "fixtures/r1.out"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "r1", "name": "read_file",
                "response": {"output": "abc"}}}]}]}]});
        let lab = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": "Bash", "input": {"command": "cat fixtures/r1.out"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r1", "content": "abd"}]}),
        ];
        let rows = compare(&record, &lab);
        let got: Vec<(&str, bool)> = rows.iter().map(|r| (r.item.as_str(), r.exact())).collect();
        assert_eq!(
            got,
            [
                ("user message 1", true),
                ("function_call r1", true),
                ("function_response r1", false)
            ]
        );
    }
}
