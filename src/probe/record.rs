//! The conformance record: what the agent sent, normalised so that two runs on two machines give
//! the same text and no vendor prompt is stored. Kept exactly: every message (roles, blocks,
//! tool inputs, tool results), the model, `max_tokens` and the other body keys, the
//! `anthropic-beta` and `user-agent` headers. Replaced by their length and sha256: the system
//! prompt blocks, each tool schema, every text block that is a whole `<system-reminder>` (of a
//! restored Read result only the reminder nested in it), a `<system-reminder>` appended to a
//! tool result, and the compaction prompt (each normalised
//! first, so the hash does not depend on the run's directories). Normalised to the
//! profile's virtual layout: the run's working directory, HOME, TMPDIR and their `/`→`-` project
//! folder name, the session id, today's date (the profile's fixed 2026-03-31), and the shell
//! task id that names a Bash spill file (random in the agent; replaced by the profile's
//! deterministic stand-in, `bash_task_id` of the tool_use id: D1 of
//! docs/probe.md).

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::script::{COMPACT_MARKER, Kind};
use super::server::Logged;

/// The record format tag.
pub const FORMAT: &str = "harness-lab conformance v1";
/// The date the profile's context reminder carries.
pub const FIXED_DATE: &str = "2026-03-31";
const REMINDER_OPEN: &str = "<system-reminder>";
const REMINDER_CLOSE: &str = "</system-reminder>";

/// Real strings of a run and the virtual ones that replace them, longest real string first.
#[derive(Debug, Clone)]
pub struct Normaliser {
    pairs: Vec<(String, String)>,
}

/// The virtual layout of the profile: HOME, working directory, session id.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    pub home: &'a str,
    pub work: &'a str,
    pub tmp: &'a str,
    pub session: &'a str,
}

/// Claude Code's project folder name of a working directory (`/` and `.` become `-`).
pub fn project_folder(work: &str) -> String {
    work.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

impl Normaliser {
    /// Maps the real directories and session id of a run onto `layout`.
    pub fn new(real: Layout<'_>, virt: Layout<'_>) -> Normaliser {
        let mut pairs = vec![
            (project_folder(real.work), project_folder(virt.work)),
            (real.work.to_string(), virt.work.to_string()),
            (real.home.to_string(), virt.home.to_string()),
            (real.tmp.to_string(), virt.tmp.to_string()),
        ];
        if !real.session.is_empty() {
            pairs.push((real.session.to_string(), virt.session.to_string()));
        }
        pairs.sort_by_key(|(real, _)| std::cmp::Reverse(real.len()));
        Normaliser { pairs }
    }

    /// The identity (for the profile's own output, already virtual).
    pub fn identity() -> Normaliser {
        Normaliser { pairs: Vec::new() }
    }

    /// Paths, session id and date of one string.
    pub fn text(&self, s: &str) -> String {
        let mut out = s.to_string();
        for (real, virt) in &self.pairs {
            if !real.is_empty() {
                out = out.replace(real.as_str(), virt);
            }
        }
        fix_date(&out)
    }
}

fn fix_date(s: &str) -> String {
    const LEAD: &str = "Today's date is ";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(LEAD) {
        let after = &rest[at + LEAD.len()..];
        out.push_str(&rest[..at + LEAD.len()]);
        let is_date = after.len() >= 10
            && after.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    *b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            });
        if is_date {
            out.push_str(FIXED_DATE);
            rest = &after[10..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `{"chars", "sha256"}` of a text that is not stored.
pub fn digest(text: &str) -> Value {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    json!({"chars": text.chars().count(), "sha256": hex})
}

/// The stored form of a hashed text block.
pub fn hashed_marker(text: &str) -> String {
    let d = digest(text);
    format!(
        "<hashed chars={} sha256={}>",
        d["chars"],
        d["sha256"].as_str().unwrap_or("")
    )
}

/// Splits a tool result text into its own text and the `<system-reminder>` blocks appended at
/// its end (each preceded by whitespace).
pub fn split_appended_reminders(content: &str) -> (&str, Vec<&str>) {
    let mut end = content.len();
    let mut reminders = Vec::new();
    loop {
        let head = content[..end].trim_end_matches('\n');
        if !head.ends_with(REMINDER_CLOSE) {
            break;
        }
        let Some(open) = head.rfind(REMINDER_OPEN) else {
            break;
        };
        reminders.push(&content[open..end]);
        end = content[..open].trim_end_matches('\n').len();
        if end == 0 || open == 0 {
            end = open;
            break;
        }
    }
    reminders.reverse();
    (&content[..end], reminders)
}

/// The opening of a restored Read result (`createToolResultMessage` after a compaction).
const READ_RESULT: &str = "<system-reminder>\nResult of calling the Read tool:\n";

/// A whole `<system-reminder>` block as a record stores it: hashed, except a restored Read
/// result, whose text is the file's (the lab's own fixture) and only the reminder nested in it
/// (Read's cyber-risk reminder, vendor text) is hashed, so a comparison can check the restored
/// text (D8 of docs/probe.md).
fn stored_reminder(text: &str) -> String {
    let Some(rest) = text.strip_prefix(READ_RESULT) else {
        return hashed_marker(text);
    };
    let nested = rest.rfind(REMINDER_OPEN).and_then(|open| {
        let close = open + rest[open..].find(REMINDER_CLOSE)? + REMINDER_CLOSE.len();
        Some((open, close))
    });
    match nested {
        Some((open, close)) => format!(
            "{READ_RESULT}{}{}{}",
            &rest[..open],
            hashed_marker(&rest[open..close]),
            &rest[close..]
        ),
        None => text.to_string(),
    }
}

fn is_reminder(text: &str) -> bool {
    let t = text.trim_end_matches('\n');
    t.starts_with(REMINDER_OPEN) && t.ends_with(REMINDER_CLOSE)
}

/// One message block, normalised.
fn block(n: &Normaliser, value: &Value, compact: bool, bash_ids: &[String]) -> Value {
    let Some(obj) = value.as_object() else {
        return value.clone();
    };
    let mut out = Map::new();
    for (key, value) in obj {
        if key == "cache_control" {
            continue;
        }
        out.insert(key.clone(), value.clone());
    }
    match obj.get("type").and_then(Value::as_str) {
        Some("text") => {
            let text = obj.get("text").and_then(Value::as_str).unwrap_or("");
            let text = n.text(text);
            let stored = if compact && text.contains(COMPACT_MARKER) {
                hashed_marker(&text)
            } else if is_reminder(&text) {
                stored_reminder(&text)
            } else {
                text
            };
            out.insert("text".into(), Value::String(stored));
        }
        Some("tool_use") => {
            out.insert(
                "input".into(),
                strings(n, obj.get("input").unwrap_or(&Value::Null)),
            );
        }
        Some("tool_result") => {
            let id = obj.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
            let content = match obj.get("content") {
                Some(Value::String(s)) => Value::String(result_text(n, s, id, bash_ids)),
                Some(Value::Array(blocks)) => Value::Array(
                    blocks
                        .iter()
                        .map(|b| block(n, b, false, bash_ids))
                        .collect(),
                ),
                other => other.cloned().unwrap_or(Value::Null),
            };
            out.insert("content".into(), content);
        }
        _ => {}
    }
    Value::Object(out)
}

/// A tool result's text: normalised, a Bash spill file renamed to its tool_use id, appended
/// reminders hashed.
pub fn result_text(n: &Normaliser, s: &str, id: &str, bash_ids: &[String]) -> String {
    let s = n.text(s);
    let (own, reminders) = split_appended_reminders(&s);
    let mut own = own.to_string();
    if bash_ids.iter().any(|b| b == id) {
        own = rename_spill(&own, id);
    }
    for r in reminders {
        own.push_str("\n\n");
        own.push_str(&hashed_marker(r));
    }
    own
}

/// `tool-results/<task id>.txt` → `tool-results/<the profile's stand-in task id>.txt`.
fn rename_spill(text: &str, id: &str) -> String {
    let id = &crate::compaction::world::bash_task_id(id);
    const DIR: &str = "/tool-results/";
    let Some(at) = text.find(DIR) else {
        return text.to_string();
    };
    let start = at + DIR.len();
    let Some(len) = text[start..].find(".txt") else {
        return text.to_string();
    };
    format!("{}{id}{}", &text[..start], &text[start + len..])
}

/// A normalised block with its `text` (when not hashed already) replaced by its hash.
fn hash_text(mut block: Value) -> Value {
    if let Some(Value::String(text)) = block.get_mut("text") {
        if !text.starts_with("<hashed chars=") {
            *text = hashed_marker(text);
        }
    }
    block
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

/// Normalised messages of a request body.
pub fn messages(n: &Normaliser, messages: &[Value], compact: bool) -> Vec<Value> {
    let bash_ids: Vec<String> = messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter(|b| b.get("name").and_then(Value::as_str) == Some("Bash"))
        .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_string))
        .collect();
    messages
        .iter()
        .map(|m| {
            let role = m.get("role").cloned().unwrap_or(Value::Null);
            // 2.1.332 sends part of its prompt as a `role: "system"` message: hashed whole.
            let system = role.as_str() == Some("system");
            let content = match m.get("content") {
                Some(Value::String(s)) => {
                    let s = n.text(s);
                    Value::String(if system {
                        hashed_marker(&s)
                    } else if is_reminder(&s) {
                        stored_reminder(&s)
                    } else {
                        s
                    })
                }
                Some(Value::Array(blocks)) => Value::Array(
                    blocks
                        .iter()
                        .map(|b| block(n, b, compact, &bash_ids))
                        .map(|b| if system { hash_text(b) } else { b })
                        .collect(),
                ),
                other => other.cloned().unwrap_or(Value::Null),
            };
            json!({"role": role, "content": content})
        })
        .collect()
}

const KEPT_HEADERS: [&str; 3] = ["anthropic-beta", "anthropic-version", "user-agent"];
const KEPT_KEYS: [&str; 7] = [
    "model",
    "max_tokens",
    "stream",
    "thinking",
    "context_management",
    "output_config",
    "temperature",
];

/// One logged request as the record stores it.
pub fn request(n: &Normaliser, logged: &Logged) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), Value::String(logged.kind.name().into()));
    match logged.kind {
        Kind::Connect => {
            out.insert("target".into(), Value::String(logged.path.clone()));
            return Value::Object(out);
        }
        Kind::CountTokens => {
            out.insert(
                "input_tokens".into(),
                json!(super::script::count_tokens(&logged.body)),
            );
            return Value::Object(out);
        }
        Kind::Other => {
            out.insert("method".into(), Value::String(logged.method.clone()));
            out.insert("path".into(), Value::String(logged.path.clone()));
            return Value::Object(out);
        }
        Kind::Main(_) | Kind::Compact | Kind::Side => {}
    }
    let body = &logged.body;
    let headers: Map<String, Value> = KEPT_HEADERS
        .iter()
        .filter_map(|h| {
            logged
                .headers
                .get(*h)
                .map(|v| (h.to_string(), Value::String(v.clone())))
        })
        .collect();
    out.insert("headers".into(), Value::Object(headers));
    for key in KEPT_KEYS {
        if let Some(v) = body.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let system = match body.get("system") {
        Some(Value::String(s)) => vec![digest(&n.text(s))],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| digest(&n.text(b.get("text").and_then(Value::as_str).unwrap_or(""))))
            .collect(),
        _ => Vec::new(),
    };
    out.insert("system".into(), Value::Array(system));
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    let mut d = digest(&n.text(&t.to_string()));
                    d["name"] = t.get("name").cloned().unwrap_or(Value::Null);
                    d
                })
                .collect()
        })
        .unwrap_or_default();
    out.insert("tools".into(), Value::Array(tools));
    let msgs = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    out.insert(
        "messages".into(),
        Value::Array(messages(n, msgs, logged.kind == Kind::Compact)),
    );
    Value::Object(out)
}

/// The session id of a run, read from the first request that names it.
pub fn session_id(log: &[Logged]) -> String {
    log.iter()
        .filter_map(|l| l.body.pointer("/metadata/user_id").and_then(Value::as_str))
        .filter_map(|s| serde_json::from_str::<Value>(s).ok())
        .find_map(|v| {
            v.get("session_id")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normaliser() -> Normaliser {
        Normaliser::new(
            Layout {
                home: "/tmp/lab-probe-AB/home",
                work: "/tmp/lab-probe-AB/work",
                tmp: "/tmp/lab-probe-AB/tmp",
                session: "c256",
            },
            Layout {
                home: "/home/lab",
                work: "/home/lab/repo",
                tmp: "/tmp",
                session: "5f0c",
            },
        )
    }

    #[test]
    fn paths_session_and_date_become_the_virtual_layout() {
        let n = normaliser();
        assert_eq!(
            n.text("/tmp/lab-probe-AB/home/.claude/projects/-tmp-lab-probe-AB-work/c256/tool-results/x.txt"),
            "/home/lab/.claude/projects/-home-lab-repo/5f0c/tool-results/x.txt"
        );
        assert_eq!(
            n.text("cat /tmp/lab-probe-AB/work/a"),
            "cat /home/lab/repo/a"
        );
        assert_eq!(
            n.text("Today's date is 2026-12-03.\nToday's date is soon"),
            "Today's date is 2026-03-31.\nToday's date is soon"
        );
    }

    #[test]
    fn bash_spill_names_and_appended_reminders() {
        let n = Normaliser::identity();
        let text = "<persisted-output>\nsaved to: /h/tool-results/bktzvp658.txt\n</persisted-output>\n\n<system-reminder>\nuse todos\n</system-reminder>\n";
        let out = result_text(&n, text, "toolu_b", &["toolu_b".into()]);
        let expected = format!(
            "<persisted-output>\nsaved to: /h/tool-results/bdo4dhqpf.txt\n</persisted-output>\n\n{}",
            hashed_marker("<system-reminder>\nuse todos\n</system-reminder>\n")
        );
        assert_eq!(out, expected);
        // Not a Bash result: the file name stays.
        assert!(result_text(&n, text, "g", &["toolu_b".into()]).contains("bktzvp658.txt"));
        assert_eq!(split_appended_reminders("plain"), ("plain", vec![]));
    }

    #[test]
    fn a_system_message_is_hashed_whole() {
        let n = Normaliser::identity();
        let sent = vec![
            json!({"role": "system", "content": [{"type": "text", "text": "# Environment\nvendor"}]}),
            json!({"role": "system", "content": "vendor"}),
            json!({"role": "user", "content": [{"type": "text", "text": "go"}]}),
        ];
        let out = messages(&n, &sent, false);
        assert_eq!(
            out[0]["content"][0]["text"],
            hashed_marker("# Environment\nvendor")
        );
        assert_eq!(out[1]["content"], hashed_marker("vendor"));
        assert_eq!(out[2]["content"][0]["text"], "go");
    }

    #[test]
    fn digest_is_sha256_of_the_bytes() {
        assert_eq!(
            digest("abc"),
            json!({"chars": 3, "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"})
        );
    }
}
