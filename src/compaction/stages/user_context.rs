//! Claude Code's user context: the meta user message `prependUserContext` sends before the
//! history on every request (v2.1.88; docs/profiles.md). It carries the scenario's CLAUDE.md under the
//! memory instruction prompt, and the date, fixed so that runs are deterministic. The history
//! pins it, so no compaction removes it. The API always receives it merged with the user message
//! after it (the request, or the summary after a compaction), which adds a `\n` to its end
//! (`joinTextAtSeam`; D10 of docs/probe.md: 306 chars without CLAUDE.md, measured in p03, p12).

use crate::transcript::Message;

/// Claude Code's `MEMORY_INSTRUCTION_PROMPT`, the heading of the CLAUDE.md entry.
const MEMORY_INSTRUCTION_PROMPT: &str = "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.";

/// The user-context message: CLAUDE.md, if any, and the date.
pub(crate) fn claude_md_message(claude_md: Option<&str>) -> Message {
    let mut entries = Vec::new();
    if let Some(text) = claude_md {
        entries.push(format!("# claudeMd\n{MEMORY_INSTRUCTION_PROMPT}\n\n{text}"));
    }
    entries.push("# currentDate\nToday's date is 2026-03-31.".to_owned());
    Message::user_text(format!(
        "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n{}\n\n      IMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this context unless it is highly relevant to your task.\n</system-reminder>\n\n",
        entries.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Content;

    fn text(message: Message) -> String {
        match message.content {
            Content::Text(text) => text,
            Content::Blocks(_) => unreachable!("the user context is text"),
        }
    }

    #[test]
    fn claude_md_follows_the_memory_instruction_prompt_before_the_date() {
        let with = text(claude_md_message(Some("Be terse.")));
        let entries = format!(
            "# claudeMd\n{MEMORY_INSTRUCTION_PROMPT}\n\nBe terse.\n# currentDate\nToday's date is 2026-03-31.\n\n"
        );
        assert!(with.contains(&entries), "{with}");
        assert!(with.starts_with("<system-reminder>\n"));
        let without = text(claude_md_message(None));
        assert!(!without.contains("# claudeMd"));
        assert!(without.contains("\n# currentDate\nToday's date is 2026-03-31.\n\n"));
        assert!(without.ends_with("</system-reminder>\n\n"));
        assert_eq!(without.chars().count(), 306);
    }
}
