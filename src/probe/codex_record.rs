//! Codex's requests as a conformance record, and their comparison with the `codex` profile.
//!
//! Kept exactly: every `input` item (user messages, `function_call` arguments,
//! `function_call_output` text), the model and the other body keys that say how it samples
//! (`stream`, `tool_choice`, `parallel_tool_calls`, `reasoning`, `store`, `include`, `text`),
//! the `originator` and `x-codex-beta-features` headers and the first word of `user-agent`
//! (`codex_exec/<version>`; the rest names the host's OS). Replaced by length and sha256:
//! `instructions`, each tool schema, every `developer` message part, every user message part
//! that is a contextual fragment (a whole `<tag>…</tag>` block such as `<environment_context>`),
//! and the compaction prompt. Dropped: `prompt_cache_key` and `client_metadata` (ids and the
//! turn's start time). Normalised: the run's directories and session id (to the profile's
//! virtual layout), the item ids Codex draws at random (`<id>`), the `<current_date>` (the
//! profile's fixed date), and in an `exec_command` output the `Chunk ID` (`<chunk>`) and `Wall
//! time` (`<wall>`).
//!
//! The comparison takes the last main request: per call id the command Codex ran (`function_call
//! ID`) and the output the model saw after the exec envelope's `Output:` line
//! (`function_call_output ID`: the envelope of chunk id, wall time, exit code and original token
//! count is the shell tool's, not context management); and every real user message in order
//! (`user message N`: the kept user messages and the summary after a compaction).

use serde_json::{Map, Value, json};

use super::compare::{Row, last_main, pair};
use super::record::{self, FIXED_DATE, Normaliser, digest, hashed_marker};
use super::responses::item_text;
use super::script::Kind;
use super::server::Logged;

const KEPT_HEADERS: [&str; 2] = ["originator", "x-codex-beta-features"];
const KEPT_KEYS: [&str; 8] = [
    "model",
    "stream",
    "tool_choice",
    "parallel_tool_calls",
    "reasoning",
    "store",
    "include",
    "text",
];
/// The line of an `exec_command` output after which the command's own output follows.
pub const OUTPUT_LINE: &str = "\nOutput:\n";

/// `Prefix: <value><end>` → `Prefix: <token><end>` for every occurrence.
fn mask_after(text: &str, prefix: &str, end: char, token: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let stop = after.find(end).unwrap_or(after.len());
        out.push_str(&rest[..at + prefix.len()]);
        out.push_str(token);
        rest = &after[stop..];
    }
    out.push_str(rest);
    out
}

/// Paths, session id and the run-dependent values of one string.
pub fn text(n: &Normaliser, s: &str) -> String {
    let s = n.text(s);
    let s = mask_after(&s, "<current_date>", '<', FIXED_DATE);
    let s = mask_after(&s, "Chunk ID: ", '\n', "<chunk>");
    mask_after(&s, "Wall time: ", ' ', "<wall>")
}

fn is_contextual(text: &str) -> bool {
    let t = text.trim();
    t.starts_with('<') && t.ends_with('>') && !t.starts_with("<hashed ")
}

/// One `input` item, normalised. `last_of_compact`: the compaction prompt, hashed.
fn item(n: &Normaliser, value: &Value, last_of_compact: bool) -> Value {
    let Some(obj) = value.as_object() else {
        return value.clone();
    };
    let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
    let hash_all = matches!(role, "developer" | "system") || last_of_compact;
    let mut out = Map::new();
    for (key, v) in obj {
        let v = match (key.as_str(), v) {
            ("id", _) => Value::String("<id>".into()),
            ("content", Value::Array(parts)) => Value::Array(
                parts
                    .iter()
                    .map(|p| {
                        let mut p = strings(n, p);
                        if let Some(t) = p.get("text").and_then(Value::as_str)
                            && (hash_all || is_contextual(t))
                        {
                            p["text"] = Value::String(hashed_marker(t));
                        }
                        p
                    })
                    .collect(),
            ),
            _ => strings(n, v),
        };
        out.insert(key.clone(), v);
    }
    Value::Object(out)
}

fn strings(n: &Normaliser, v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(text(n, s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| strings(n, x)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), strings(n, x))).collect())
        }
        other => other.clone(),
    }
}

/// One logged request as the record stores it.
pub fn request(n: &Normaliser, logged: &Logged) -> Value {
    if !matches!(logged.kind, Kind::Main(_) | Kind::Compact | Kind::Side) {
        return record::request(n, logged);
    }
    let body = &logged.body;
    let mut out = Map::new();
    out.insert("kind".into(), Value::String(logged.kind.name().into()));
    let mut headers: Map<String, Value> = KEPT_HEADERS
        .iter()
        .filter_map(|h| logged.headers.get(*h).map(|v| (h.to_string(), json!(v))))
        .collect();
    if let Some(ua) = logged.headers.get("user-agent") {
        let first = ua.split_whitespace().next().unwrap_or("");
        headers.insert("user-agent".into(), json!(first));
    }
    out.insert("headers".into(), Value::Object(headers));
    for key in KEPT_KEYS {
        if let Some(v) = body.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(Value::String(s)) = body.get("instructions") {
        out.insert("instructions".into(), digest(&text(n, s)));
    }
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let mut d = digest(&text(n, &t.to_string()));
            d["name"] = t.get("name").or_else(|| t.get("type")).cloned().into();
            d
        })
        .collect();
    out.insert("tools".into(), Value::Array(tools));
    let input = body.get("input").and_then(Value::as_array);
    let last = input.map_or(0, Vec::len).saturating_sub(1);
    let items: Vec<Value> = input
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, v)| item(n, v, logged.kind == Kind::Compact && i == last))
        .collect();
    out.insert("input".into(), Value::Array(items));
    Value::Object(out)
}

/// The session id of a Codex run (its `session-id` header).
pub fn session_id(log: &[Logged]) -> String {
    log.iter()
        .find_map(|l| l.headers.get("session-id").cloned())
        .unwrap_or_default()
}

/// The version in the `user-agent` of Codex's model requests (`codex_exec/0.171.0 (…)`; a
/// stray `CONNECT` names another client's version).
pub fn version(log: &[Logged]) -> String {
    log.iter()
        .filter(|l| matches!(l.kind, Kind::Main(_)))
        .find_map(|l| l.headers.get("user-agent"))
        .and_then(|ua| ua.split_whitespace().next())
        .and_then(|first| first.split_once('/'))
        .map(|(_, v)| v.to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The output the model saw of an `exec_command`, after the envelope.
fn command_output(output: &str) -> &str {
    output
        .split_once(OUTPUT_LINE)
        .map_or(output, |(_, rest)| rest)
}

/// The compared items of the last main request's `input`.
fn real_items(input: &[Value]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut users = 0;
    for it in input {
        let call = it.get("call_id").and_then(Value::as_str).unwrap_or("");
        match it.get("type").and_then(Value::as_str) {
            Some("message") if it.get("role").and_then(Value::as_str) == Some("user") => {
                let text = item_text(it);
                if !text.starts_with("<hashed ") {
                    users += 1;
                    out.push((format!("user message {users}"), text));
                }
            }
            Some("function_call") => {
                let args = it.get("arguments").and_then(Value::as_str).unwrap_or("");
                let cmd = serde_json::from_str::<Value>(args)
                    .ok()
                    .and_then(|a| a.get("cmd").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_else(|| args.to_string());
                out.push((format!("function_call {call}"), cmd));
            }
            Some("function_call_output") => {
                let output = match it.get("output") {
                    Some(Value::String(s)) => command_output(s).to_string(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                out.push((format!("function_call_output {call}"), output));
            }
            _ => {}
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
                    let text = cmd.map_or_else(|| b["input"].to_string(), str::to_string);
                    out.push((format!("function_call {}", str_of("id")), text));
                }
                Some("tool_result") => {
                    let text = match b.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => String::new(),
                    };
                    out.push((
                        format!("function_call_output {}", str_of("tool_use_id")),
                        text,
                    ));
                }
                _ => {}
            }
        }
    }
    out
}

/// Compares the record's last main request with the profile's messages, item by item.
pub fn compare(record: &Value, lab: &[Value]) -> Vec<Row> {
    pair(real_items(last_main(record, "input")), lab_items(lab))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_values_and_dates_are_masked() {
        let n = Normaliser::identity();
        let out = "Chunk ID: 09ece0\nWall time: 0.0012 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nhello\n";
        assert_eq!(
            text(&n, out),
            "Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nhello\n"
        );
        assert_eq!(command_output(&text(&n, out)), "hello\n");
        assert_eq!(
            text(&n, "<current_date>2026-12-03</current_date>"),
            "<current_date>2026-03-31</current_date>"
        );
    }

    #[test]
    fn developer_and_contextual_parts_are_hashed_user_text_kept() {
        let n = Normaliser::identity();
        let dev = json!({"type": "message", "id": "msg_x", "role": "developer",
            "content": [{"type": "input_text", "text": "You are Codex"}]});
        let out = item(&n, &dev, false);
        assert_eq!(out["id"], "<id>");
        assert_eq!(out["content"][0]["text"], hashed_marker("You are Codex"));
        let env = json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"},
            {"type": "input_text", "text": "go"}]});
        let out = item(&n, &env, false);
        assert!(
            out["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("<hashed chars=")
        );
        assert_eq!(out["content"][1]["text"], "go");
        assert!(
            item(&n, &env, true)["content"][1]["text"]
                .as_str()
                .unwrap()
                .starts_with("<hashed ")
        );
    }

    #[test]
    fn items_pair_by_call_id_and_user_order() {
        let record = json!({"requests": [{"kind": "main", "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<hashed chars=1 sha256=0>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call", "call_id": "b1", "name": "exec_command", "arguments": "{\"cmd\":\"cat fixtures/b1.out\"}"},
            {"type": "function_call_output", "call_id": "b1", "output": "Chunk ID: <chunk>\nOutput:\nabc"}]}]});
        let lab = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "cat fixtures/b1.out"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "abd"}]}),
        ];
        let rows = compare(&record, &lab);
        let got: Vec<(&str, bool)> = rows.iter().map(|r| (r.item.as_str(), r.exact())).collect();
        assert_eq!(
            got,
            [
                ("user message 1", true),
                ("function_call b1", true),
                ("function_call_output b1", false)
            ]
        );
    }
}
