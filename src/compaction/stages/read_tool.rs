//! Claude Code's Read tool as it shapes its own result (v2.1.88 `tools/FileReadTool/FileReadTool.ts`
//! of the public source map; D5 of docs/probe.md, probed: p10, p11). The file's text comes back
//! with its number and a tab before every line (`utils/file.ts` addLineNumbers, compact form),
//! unless the text is over Read's token cap (`limits.ts` maxTokens: 25000, or the environment's
//! `CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS`; the constant `read_max_tokens`): then the result is
//! the error of `MaxFileReadTokenExceededError` and the file is not remembered as read, so no
//! compaction restores it. `validateContentTokens` asks the API to count only when the rough
//! estimate (per file type: 4 characters a token, 2 for JSON) is over a quarter of the cap; the
//! lab stands for the API's count with the scripted model server's count of the same request,
//! ⌈(4 + characters) / 4⌉ (`user` and the text; docs/probe.md), since it has no tokenizer.

use crate::compaction::world::World;
use crate::python::json::char_len;
use crate::trace::Event;
use crate::transcript::{rough_tokens, utf16_len};

/// `file_path` content as Read returns it: every line (split at `\n`) after its number and a tab.
pub(crate) fn numbered(content: &str) -> String {
    content
        .split('\n')
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `text` is already Read's output rather than a file's text: its lines numbered from 1,
/// optionally followed by the `<system-reminder>` Read appends (as in a result imported from a
/// Claude Code log, which holds what the model saw). Such a result is kept as it is instead of
/// being numbered twice. A file whose every line starts with its own number and a tab would be
/// taken the same way (docs/probe.md, D5).
pub(crate) fn is_read_output(text: &str) -> bool {
    let lines = text
        .split_once("\n\n<system-reminder>")
        .map_or(text, |(lines, _)| lines);
    lines.split('\n').enumerate().all(|(i, line)| {
        line.strip_prefix(&(i + 1).to_string())
            .is_some_and(|rest| rest.starts_with('\t'))
    })
}

/// `roughTokenCountEstimationForFileType`: round(length / 4), JSON files round(length / 2).
pub(crate) fn file_tokens(path: &str, content: &str) -> usize {
    let json = [".json", ".jsonl", ".jsonc"]
        .iter()
        .any(|e| path.ends_with(e));
    if json {
        (utf16_len(content) * 2 + 2) / 4
    } else {
        rough_tokens(content)
    }
}

/// The token count `validateContentTokens` compares with the cap, when it asks for one: the
/// count of a request whose one message is `{role: "user", content}` as the scripted server
/// counts it (`None` when the rough estimate is within a quarter of the cap: no count asked).
fn counted_tokens(path: &str, content: &str, cap: usize) -> Option<usize> {
    if file_tokens(path, content) * 4 <= cap {
        return None;
    }
    Some((4 + char_len(content)).div_ceil(4))
}

/// The text of `MaxFileReadTokenExceededError`.
fn cap_error(tokens: usize, cap: usize) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({cap}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
    )
}

/// A Read result arrives holding the file's text: it becomes the numbered text, or the cap's
/// error. Either is the tool's own output, so it counts as the original result.
pub(crate) fn arrive(world: &mut World, message: usize, block: usize, id: &str, content: &str) {
    if is_read_output(content) {
        world.record(
            Event::new("arrival", "keep")
                .id(id)
                .sizes(char_len(content), char_len(content))
                .reason("already Read's output (numbered lines); Read results are never persisted"),
        );
        return;
    }
    let cap = world.profile.constants.read_max_tokens;
    let path = world.read_path(id).unwrap_or_default();
    let counted = counted_tokens(&path, content, cap);
    let (shown, reason) = match counted {
        Some(tokens) if tokens > cap => {
            world.ledger.read_files.forget(&path);
            (
                cap_error(tokens, cap),
                format!("Read refused: {tokens} tokens > read_max_tokens {cap}"),
            )
        }
        _ => (
            numbered(content),
            "Read numbers the lines of the file".to_owned(),
        ),
    };
    let chars = char_len(&shown);
    world.replace_result(message, block, shown, "arrival", reason.clone());
    if let Some(record) = world.ledger.results.get_mut(id) {
        record.is_original = true;
        record.original_chars = chars;
    }
    world.record(
        Event::new("arrival", "keep")
            .id(id)
            .sizes(char_len(content), chars)
            .reason(format!("{reason}; Read results are never persisted")),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_counts_like_the_scripted_server() {
        // p10: one line of 99996 x is counted 25000 (not over); p11: 99997 x is 25001.
        assert_eq!(
            counted_tokens("a.txt", &"x".repeat(99_996), 25_000),
            Some(25_000)
        );
        assert_eq!(
            counted_tokens("a.txt", &"x".repeat(99_997), 25_000),
            Some(25_001)
        );
        // Within a quarter of the cap no count is asked.
        assert_eq!(counted_tokens("a.txt", &"x".repeat(25_000), 25_000), None);
        assert_eq!(counted_tokens("a.json", &"x".repeat(12_500), 25_000), None);
        assert_eq!(
            counted_tokens("a.json", &"x".repeat(12_502), 25_000),
            Some(3_127)
        );
        assert_eq!(cap_error(25_001, 25_000).chars().count(), 204);
        assert_eq!(numbered("a\nb"), "1\ta\n2\tb");
    }

    #[test]
    fn a_result_that_is_already_read_output_is_recognised() {
        assert!(is_read_output("1\ta\n2\tb"));
        assert!(is_read_output(
            "1\ta\n2\tb\n\n<system-reminder>\nWhenever you read a file\n</system-reminder>"
        ));
        assert!(is_read_output(&numbered(&"x\n".repeat(12))));
        // A file's own text, a gap in the numbers, or numbers not from 1 are a file's text.
        assert!(!is_read_output("a\nb"));
        assert!(!is_read_output("1\ta\n3\tb"));
        assert!(!is_read_output("2\ta\n3\tb"));
        assert!(!is_read_output("1 a"));
        assert!(!is_read_output(""));
    }
}
