//! memory-main's extraction: after a turn without tool calls, a side call proposes memory
//! candidates and two gates decide what is stored (s09 `extract_memories`,
//! `validate_memory_record`, `should_store_memory`; negentropy 173-claude-code-memory-management.md §7, M5). memory-site's is in
//! `site.rs`.
//!
//! The validity gate ([`validate`]): a dict with name, one of the four types, description, body,
//! and a scope of `persistent` or `current_task`. The storage gates ([`storage_gates`], MB3):
//! scope `persistent`, none of the 19 temporary markers (English, Chinese, Japanese) in the
//! normalised text, and no existing record (the same batch included) with the same slug,
//! description or body. Any exception skips the rest of the batch; what was written stays.

use serde_json::{Map, Value};

use super::format::memory_main::slug;
use super::recall::{extract_json_array, message_text};
use super::record::{MEMORY_TYPES, Record, normalized};
use super::side_call::{Call, call};
use super::store::{list_records, write_memory_file};
use super::world::{PyError, World};
use crate::python::json::char_prefix;
use crate::python::str::py_strip;

/// TEMPORARY_MEMORY_MARKERS, in the course's order (English, Chinese, Japanese).
pub(crate) const TEMPORARY_MARKERS: [&str; 19] = [
    "this session",
    "current session",
    "this turn",
    "current turn",
    "this task",
    "current task",
    "for now",
    "just this time",
    "today only",
    "本次会话",
    "当前会话",
    "这一轮",
    "当前轮次",
    "本次任务",
    "当前任务",
    "暂时",
    "今回だけ",
    "このセッション",
    "現在のタスク",
];

/// A validated candidate (`validate_memory_record`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) description: String,
    pub(crate) body: String,
    pub(crate) scope: String,
}

/// Python's `str(value)` of a value `json.loads` produced.
pub(crate) fn python_str(value: Option<&Value>) -> String {
    match value {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => "None".to_owned(),
        Some(other) => crate::python::json::repr(other),
    }
}

/// `validate_memory_record(record, require_scope)`.
pub(crate) fn validate(item: &Value, require_scope: bool) -> Option<Candidate> {
    let map: &Map<String, Value> = item.as_object()?;
    let field = |key: &str| py_strip(&python_str(map.get(key))).to_owned();
    let (name, kind, description, body, scope) = (
        field("name"),
        field("type"),
        field("description"),
        field("body"),
        field("scope"),
    );
    if name.is_empty()
        || !MEMORY_TYPES.contains(&kind.as_str())
        || description.is_empty()
        || body.is_empty()
    {
        return None;
    }
    if require_scope && scope != "persistent" && scope != "current_task" {
        return None;
    }
    Some(Candidate {
        name,
        kind,
        description,
        body,
        scope,
    })
}

/// The storage gates (MB3), `should_store_memory`: why a candidate is refused (scope, a
/// temporary marker, the same slug, description or body as an existing record), or `None` when
/// it may be stored.
fn storage_gates(candidate: &Candidate, existing: &[Record]) -> Option<String> {
    if candidate.scope != "persistent" {
        return Some(format!("scope `{}` is not persistent", candidate.scope));
    }
    let text = normalized(&format!(
        "{}\n{}\n{}",
        candidate.name, candidate.description, candidate.body
    ));
    if let Some(marker) = TEMPORARY_MARKERS.iter().find(|m| text.contains(*m)) {
        return Some(format!("temporary marker `{marker}`"));
    }
    let own_slug = slug(&candidate.name);
    let description = normalized(&candidate.description);
    let body = normalized(&candidate.body);
    for record in existing {
        if slug(&record.name) == own_slug {
            return Some(format!("same slug as `{}`", record.name));
        }
        if normalized(&record.description) == description {
            return Some(format!("same description as `{}`", record.name));
        }
        if normalized(&record.body) == body {
            return Some(format!("same body as `{}`", record.name));
        }
    }
    None
}

/// `dialogue_text`: `role: text` of the last messages, cut.
fn dialogue(world: &World) -> String {
    let c = world.profile.constants;
    let start = world.messages.len().saturating_sub(c.dialogue_messages);
    let lines: Vec<String> = world.messages[start..]
        .iter()
        .filter_map(|m| {
            let text = py_strip(&message_text(m)).to_owned();
            (!text.is_empty()).then(|| format!("{}: {text}", m.role.as_str()))
        })
        .collect();
    char_prefix(&lines.join("\n"), c.dialogue_limit).to_owned()
}

/// memory-main's `extract_memories`: the number of records stored (0 when skipped).
pub(crate) fn extract(world: &mut World) -> usize {
    if dialogue(world).is_empty() {
        return 0;
    }
    match store_candidates(world) {
        Ok(stored) => stored,
        Err(error) => {
            world.event(
                "extract",
                "skip",
                None,
                format!("[Memory extraction skipped: {}]", error.0),
            );
            0
        }
    }
}

/// The extractor's call, the validity gate and the storage gates, then one write per candidate
/// that passes; an exception ends the batch and what was written stays.
fn store_candidates(world: &mut World) -> Result<usize, PyError> {
    let mut existing = list_records(world);
    let reply = call(world, Call::Extract)?;
    let candidates: Vec<Candidate> = extract_json_array(&reply)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| validate(item, true))
        .collect();
    let mut stored = 0;
    for candidate in candidates {
        if world.profile.switches.storage_gates {
            if let Some(why) = storage_gates(&candidate, &existing) {
                world.event(
                    "extract",
                    "refuse",
                    None,
                    format!("`{}` refused: {why}", candidate.name),
                );
                continue;
            }
        }
        let filename = write_memory_file(
            world,
            &candidate.name,
            &candidate.kind,
            &candidate.description,
            &candidate.body,
        )?;
        existing.push(Record {
            filename,
            name: candidate.name,
            description: candidate.description,
            kind: candidate.kind,
            body: candidate.body,
        });
        stored += 1;
    }
    if stored > 0 {
        world.event(
            "extract",
            "store",
            None,
            format!("[Memory: stored {stored} records]"),
        );
    }
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn candidate(name: &str, description: &str, body: &str, scope: &str) -> Candidate {
        validate(
            &json!({"name": name, "type": "user", "description": description, "body": body, "scope": scope}),
            true,
        )
        .unwrap()
    }

    #[test]
    fn validity_gate() {
        assert!(
            validate(
                &json!({"name": "a", "type": "user", "description": "d", "body": "b"}),
                true
            )
            .is_none()
        );
        assert!(validate(&json!({"name": "a", "type": "note", "description": "d", "body": "b", "scope": "persistent"}), true).is_none());
        assert!(
            validate(
                &json!({"name": "a", "type": "user", "description": "d", "body": "b"}),
                false
            )
            .is_some()
        );
        assert!(validate(&json!([1]), false).is_none());
        // str(3) is "3": a number is a valid name.
        assert_eq!(
            validate(
                &json!({"name": 3, "type": "user", "description": "d", "body": "b"}),
                false
            )
            .unwrap()
            .name,
            "3"
        );
    }

    #[test]
    fn storage_gates_in_order() {
        let existing = vec![Record {
            filename: "tabs.md".into(),
            name: "Tabs".into(),
            description: "Prefers tabs".into(),
            kind: "user".into(),
            body: "Use tabs.".into(),
        }];
        assert!(
            storage_gates(&candidate("x", "d", "b", "current_task"), &existing)
                .unwrap()
                .contains("scope")
        );
        assert!(
            storage_gates(
                &candidate("x", "for NOW only", "b", "persistent"),
                &existing
            )
            .unwrap()
            .contains("for now")
        );
        assert!(
            storage_gates(
                &candidate("x", "本次会话的偏好", "b", "persistent"),
                &existing
            )
            .unwrap()
            .contains("本次会话")
        );
        assert!(
            storage_gates(
                &candidate("TABS", "other", "other", "persistent"),
                &existing
            )
            .unwrap()
            .contains("slug")
        );
        assert!(
            storage_gates(
                &candidate("y", "prefers   TABS", "other", "persistent"),
                &existing
            )
            .unwrap()
            .contains("description")
        );
        assert!(
            storage_gates(&candidate("y", "z", "use tabs.", "persistent"), &existing)
                .unwrap()
                .contains("body")
        );
        assert_eq!(
            storage_gates(&candidate("y", "z", "w", "persistent"), &existing),
            None
        );
    }
}
