//! What Cline's `basic` compaction writes in place of the work it drops: the `<SYSTEM_NOTICE>` that
//! lists the files read and edited and the commands run in a span of dropped messages, with the
//! conversation's most recent assistant answers that fell in it (cline/cline
//! `sdk/packages/core/src/extensions/context/compaction-shared.ts` `summarizeToolActivity`,
//! `formatToolActivitySummary` and `basic-compaction.ts` `buildDroppedWorkSummaryBlock` @
//! 21cb8d25).

use serde_json::{Map, Value};

use crate::call_id::CallId;
use crate::transcript::{Block, Content, Message, Role, utf16_len};

/// COMMAND_SUMMARY_CHAR_LIMIT: longer commands are cut to this many UTF-16 units and `...`.
const COMMAND_CHARS: usize = 100;

/// The tool work in a span of dropped messages (each list in first-seen order, no duplicates).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Activity {
    pub(crate) read: Vec<String>,
    pub(crate) edited: Vec<String>,
    pub(crate) commands: Vec<String>,
}

impl Activity {
    pub(crate) fn is_empty(&self) -> bool {
        self.read.is_empty() && self.edited.is_empty() && self.commands.is_empty()
    }
}

fn push_unique(list: &mut Vec<String>, value: &str) {
    let trimmed = value.trim();
    if !trimmed.is_empty() && !list.iter().any(|v| v == trimmed) {
        list.push(trimmed.to_owned());
    }
}

/// `collectPaths`: strings under `path`, `file_path`, `target_file`, `new_file_path`,
/// `old_file_path`, `files[].path` and `file_paths`, in that order.
fn collect_paths(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) if !text.trim().is_empty() => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_paths(item, out)),
        Value::Object(record) => collect_record_paths(record, out),
        _ => {}
    }
}

/// [`collect_paths`] of an object (a tool call's input).
fn collect_record_paths(record: &Map<String, Value>, out: &mut Vec<String>) {
    for key in [
        "path",
        "file_path",
        "target_file",
        "new_file_path",
        "old_file_path",
    ] {
        if let Some(v) = record.get(key) {
            collect_paths(v, out);
        }
    }
    if let Some(Value::Array(files)) = record.get("files") {
        for file in files.iter().filter(|f| f.is_object()) {
            if let Some(path) = file.get("path") {
                collect_paths(path, out);
            }
        }
    }
    if let Some(paths @ Value::Array(_)) = record.get("file_paths") {
        collect_paths(paths, out);
    }
}

/// `formatReadFileEntry`: `path:start-end` when both lines are numbers, else the path.
fn read_entry(file: &Map<String, Value>) -> Option<String> {
    let path = file.get("path").and_then(Value::as_str)?.trim();
    if path.is_empty() {
        return None;
    }
    match (file.get("start_line"), file.get("end_line")) {
        (Some(Value::Number(start)), Some(Value::Number(end))) => {
            Some(format!("{path}:{start}-{end}"))
        }
        _ => Some(path.to_owned()),
    }
}

/// `truncateCommandForSummary`, counting UTF-16 units as JavaScript's `length` does.
fn short_command(command: &str) -> String {
    if utf16_len(command) <= COMMAND_CHARS {
        return command.to_owned();
    }
    let mut units = 0;
    let mut cut = String::new();
    for c in command.chars() {
        units += c.len_utf16();
        if units > COMMAND_CHARS {
            break;
        }
        cut.push(c);
    }
    cut + "..."
}

/// `extractDiffLineRange`: the smallest and largest line number of the numbered diff lines
/// (`-467: ` / `+467: ` at the start, after a newline or after a literal `\n`) in an editor
/// result, looking inside a JSON payload's `result` string when the result is one.
pub(crate) fn diff_range(content: &str) -> Option<(u64, u64)> {
    let parsed = serde_json::from_str::<Value>(content).ok();
    let text = match parsed.as_ref().and_then(|v| v.get("result")) {
        Some(Value::String(result)) => result.as_str(),
        _ => content,
    };
    let bytes = text.as_bytes();
    let mut range: Option<(u64, u64)> = None;
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let prefixed = (i == 0 && from == 0)
            || (i > from && bytes[i - 1] == b'\n')
            || (i >= from + 2 && &bytes[i - 2..i] == b"\\n");
        if !prefixed || (bytes[i] != b'-' && bytes[i] != b'+') {
            i += 1;
            continue;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = i + 1 + digits;
        if digits == 0 || !text[end..].starts_with(": ") {
            i += 1;
            continue;
        }
        if let Ok(line) = text[i + 1..end].parse::<u64>() {
            range = Some(match range {
                Some((lo, hi)) => (lo.min(line), hi.max(line)),
                None => (line, line),
            });
        }
        from = end + 2;
        i = from;
    }
    range
}

/// `summarizeToolActivity` over `messages`: `read_files` inputs give the reads (with their
/// line ranges), `editor` and `apply_patch` calls the edits (the range from their result's
/// diff when the result is in the span), `run_commands` the commands.
pub(crate) fn summarize(messages: &[Message]) -> Activity {
    let mut activity = Activity::default();
    let mut editors: Vec<(CallId, String)> = Vec::new();
    for message in messages {
        let Content::Blocks(blocks) = &message.content else {
            continue;
        };
        for block in blocks {
            match block {
                Block::ToolUse { id, name, input } => match name.as_str() {
                    "read_files" => match input.get("files") {
                        Some(Value::Array(files)) => {
                            for entry in files
                                .iter()
                                .filter_map(Value::as_object)
                                .filter_map(read_entry)
                            {
                                push_unique(&mut activity.read, &entry);
                            }
                        }
                        _ => {
                            let mut paths = Vec::new();
                            collect_record_paths(input, &mut paths);
                            paths
                                .iter()
                                .for_each(|p| push_unique(&mut activity.read, p));
                        }
                    },
                    "editor" | "apply_patch" => {
                        let mut paths = Vec::new();
                        collect_record_paths(input, &mut paths);
                        if let Some(path) = paths.into_iter().next() {
                            // A JavaScript Map keeps a key's first position when it is set again.
                            match editors.iter_mut().find(|(e, _)| e == id) {
                                Some(slot) => slot.1 = path,
                                None => editors.push((*id, path)),
                            }
                        }
                    }
                    "run_commands" => {
                        if let Some(Value::Array(commands)) = input.get("commands") {
                            for command in commands.iter().filter_map(Value::as_str) {
                                if !command.trim().is_empty() {
                                    push_unique(
                                        &mut activity.commands,
                                        &short_command(command.trim()),
                                    );
                                }
                            }
                        }
                    }
                    _ => {}
                },
                Block::ToolResult {
                    tool_use_id,
                    content,
                } => {
                    let Some(at) = editors.iter().position(|(e, _)| e == tool_use_id) else {
                        continue;
                    };
                    let (_, path) = editors.remove(at);
                    let entry = match diff_range(content) {
                        Some((start, end)) => format!("{path}:{start}-{end}"),
                        None => path,
                    };
                    push_unique(&mut activity.edited, &entry);
                }
                Block::Text { .. } => {}
            }
        }
    }
    for (_, path) in editors {
        push_unique(&mut activity.edited, &path);
    }
    activity
}

/// `assistantTextContent`: an assistant message's trimmed, non-empty text blocks joined by
/// newlines, or None.
pub(crate) fn assistant_text(message: &Message) -> Option<String> {
    if message.role != Role::Assistant {
        return None;
    }
    let text = match &message.content {
        Content::Text(text) => text.trim().to_owned(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } if !text.trim().is_empty() => Some(text.trim()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    (!text.is_empty()).then_some(text)
}

/// `buildDroppedWorkSummaryBlock`: the notice text for a dropped span.
pub(crate) fn notice(activity: &Activity, responses: &[String]) -> String {
    let responses = if responses.is_empty() {
        String::new()
    } else {
        format!("\n\nYour recent responses:\n{}", responses.join("\n---\n"))
    };
    format!(
        "<SYSTEM_NOTICE>\nEarlier context was compacted. Summary of your actions after the request above:\nFiles read:\n{}\n\nFiles edited:\n{}\n\nCommands ran:\n{}{responses}</SYSTEM_NOTICE>",
        activity.read.join("\n"),
        activity.edited.join("\n"),
        activity.commands.join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value) -> Block {
        Block::ToolUse {
            id: id.to_owned().into(),
            name: name.to_owned().into(),
            input: input.as_object().cloned().unwrap().into(),
        }
    }

    #[test]
    fn the_diff_range_spans_the_numbered_lines() {
        // A JSON payload whose `result` holds the diff (real newlines once parsed).
        let payload = json!({"query": "edit:/a.ts", "result": "Edited /a.ts\n```diff\n-467: x\n+467: y\n+477: z\n```"});
        assert_eq!(diff_range(&payload.to_string()), Some((467, 477)));
        // Raw text, a line at the very start, and a literal backslash-n separator.
        assert_eq!(diff_range("+12: a\\n-3: b"), Some((3, 12)));
        // A number not followed by ": " and a sign mid-line do not count.
        assert_eq!(diff_range("x -5: y\n+7 z"), None);
    }

    #[test]
    fn activity_lists_reads_edits_and_commands_in_first_seen_order() {
        let long = "g".repeat(120);
        let messages = vec![
            Message::blocks(
                Role::Assistant,
                vec![
                    call(
                        "r1",
                        "read_files",
                        json!({"files": [{"path": "/b.ts", "start_line": 1, "end_line": 45}, {"path": "/a.ts"}]}),
                    ),
                    call("e1", "editor", json!({"path": "/a.ts", "old_text": "x"})),
                    call("e2", "editor", json!({"path": "/c.ts"})),
                    call(
                        "c1",
                        "run_commands",
                        json!({"commands": ["  ls  ", long, "ls"]}),
                    ),
                ],
            ),
            Message::blocks(Role::User, vec![Block::tool_result("e1", "-9: a\n+10: b")]),
        ];
        let activity = summarize(&messages);
        assert_eq!(activity.read, vec!["/b.ts:1-45", "/a.ts"]);
        // e1's range comes from its result; e2 has no result in the span: the bare path.
        assert_eq!(activity.edited, vec!["/a.ts:9-10", "/c.ts"]);
        assert_eq!(
            activity.commands,
            vec!["ls".to_owned(), format!("{}...", "g".repeat(100))]
        );
    }

    #[test]
    fn the_notice_keeps_empty_sections_and_adds_responses_only_when_some() {
        let activity = Activity {
            edited: vec!["/a.ts:2-2".to_owned()],
            ..Activity::default()
        };
        assert_eq!(
            notice(&activity, &[]),
            "<SYSTEM_NOTICE>\nEarlier context was compacted. Summary of your actions after the request above:\nFiles read:\n\n\nFiles edited:\n/a.ts:2-2\n\nCommands ran:\n</SYSTEM_NOTICE>"
        );
        assert!(
            notice(&activity, &["one".to_owned(), "two".to_owned()]).ends_with(
                "Commands ran:\n\n\nYour recent responses:\none\n---\ntwo</SYSTEM_NOTICE>"
            )
        );
    }
}
