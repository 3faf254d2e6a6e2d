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

use crate::call_id::CallId;
use crate::compaction::js_str::js_trim;
use crate::compaction::profile::ReadOverCap;
use crate::compaction::world::World;
use crate::trace::{Event, reason};
use crate::transcript::{ResultText, js_stringify, result_utf16, rough_units_by, utf16_len};

/// A `<system-reminder>` block around `text` (a restored Read's call and result).
pub(super) fn system_reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// A restored file as Claude Code attaches it after a compaction: the Read call with its
/// `file_path` input, then `Result of calling the Read tool:` and `result` (the numbered file, and
/// whatever the version appends to it), each in a `<system-reminder>` block.
pub(super) fn read_attachment(path: &str, result: &str) -> [String; 2] {
    let input = js_stringify(&serde_json::json!({ "file_path": path }));
    [
        system_reminder(&format!(
            "Called the Read tool with the following input: {input}"
        )),
        system_reminder(&format!("Result of calling the Read tool:\n{result}")),
    ]
}

/// The profile's working directory (the project folder of its default directories): a Read's
/// relative `file_path` is restored as the absolute path the agent resolved it to.
const CWD: &str = "/home/lab/repo";

/// A read file's path as the agent names it when it restores the file: absolute, a relative
/// `file_path` resolved against [`CWD`].
pub(super) fn absolute(path: String) -> String {
    if path.starts_with('/') {
        path
    } else {
        crate::compaction::store::join(CWD, &path)
    }
}

/// `file_path` content as Read returns it: every line (split at `\n`) after its number and a tab.
pub(crate) fn numbered(content: &str) -> String {
    numbered_lines(content).0
}

/// [`numbered`], with the number of lines it numbered.
fn numbered_lines(content: &str) -> (String, usize) {
    let lines = crate::transcript::count_newlines(content.as_bytes()) + 1;
    // Each line gains its number and a tab; room for seven digits a line, one buffer in all.
    let mut out = String::with_capacity(content.len() + lines * 8);
    let mut number = LineNumber::default();
    // Line ends found with `memchr` (issue 13: `split`'s char searcher over a whole file).
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', content.as_bytes()).chain([content.len()]);
    for end in ends {
        number.advance();
        out.push_str(number.as_str());
        out.push('\t');
        out.push_str(&content[start..end]);
        if end < content.len() {
            out.push('\n');
        }
        start = end + 1;
    }
    (out, lines)
}

/// What numbering adds to a text of `lines` lines: each line's number and a tab.
fn numbering_added(lines: usize) -> usize {
    let mut added = lines;
    let (mut low, mut digits) = (1usize, 1);
    while low <= lines {
        let high = low.saturating_mul(10) - 1;
        added += digits * (high.min(lines) - low + 1);
        low = low.saturating_mul(10);
        digits += 1;
    }
    added
}

/// [`numbered_lines`] of a result as its text: of a generated result, a prefix of its buffer's
/// numbered text (numbering a prefix numbers the lines it holds, the last one perhaps in
/// part, as numbering the whole does), so that nothing is written for it.
fn numbered_result(world: &mut World, content: &ResultText) -> (ResultText, usize) {
    if content.is_only_x() {
        // A generated text of one shape knows its newlines: 10 MB of Read results in the
        // issue-13 session were read for them (issue 13).
        let newlines = content
            .newlines()
            .unwrap_or_else(|| crate::transcript::count_newlines(content.as_bytes()));
        let lines = newlines + 1;
        let len = content.len() + numbering_added(lines);
        if let Some(shown) = world.numbered.prefix(content, len, len, numbered) {
            return (shown, lines);
        }
    }
    let (shown, lines) = numbered_lines(content);
    let chars = content.chars() + (shown.len() - content.len());
    (ResultText::counted(shown, chars), lines)
}

/// A line number in decimal, counted up a digit at a time instead of formatted through
/// `write!` for each line of a literal file.
struct LineNumber {
    /// The digits, right-aligned.
    digits: [u8; 20],
    /// Where the number starts in `digits`.
    start: usize,
}

impl Default for LineNumber {
    /// Zero, written as no digits: the first [`Self::advance`] makes it 1.
    fn default() -> Self {
        LineNumber {
            digits: [b'0'; 20],
            start: 20,
        }
    }
}

impl LineNumber {
    /// Adds one.
    fn advance(&mut self) {
        let mut at = self.digits.len();
        loop {
            at -= 1;
            if at < self.start {
                self.start = at;
                self.digits[at] = b'1';
                return;
            }
            if self.digits[at] == b'9' {
                self.digits[at] = b'0';
            } else {
                self.digits[at] += 1;
                return;
            }
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits are ever written.
        std::str::from_utf8(&self.digits[self.start..]).unwrap_or_default()
    }
}

/// Whether `text` is already Read's output rather than a file's text: its lines numbered from 1,
/// optionally followed by the `<system-reminder>` Read appends (as in a result imported from a
/// Claude Code log, which holds what the model saw). Such a result is kept as it is instead of
/// being numbered twice. A file whose every line starts with its own number and a tab would be
/// taken the same way (docs/probe.md, D5).
pub(crate) fn is_read_output(text: &str) -> bool {
    // The first line is the text's own first line wherever a reminder starts: numbered 1, or
    // not Read's output (and the text is not searched for a reminder).
    if !text.starts_with("1\t") {
        return false;
    }
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
    file_tokens_of(path, utf16_len(content))
}

/// [`file_tokens`] of a file of `units` UTF-16 units.
fn file_tokens_of(path: &str, units: usize) -> usize {
    let json = [".json", ".jsonl", ".jsonc"]
        .iter()
        .any(|e| path.ends_with(e));
    if json {
        (units * 2 + 2) / 4
    } else {
        rough_units_by(units, 4)
    }
}

/// The token count `validateContentTokens` compares with the cap, when it asks for one: the
/// count of a request whose one message is `{role: "user", content}` as the scripted server
/// counts it (`None` when the rough estimate is within a quarter of the cap: no count asked).
fn counted_tokens(path: &str, content: &ResultText, cap: usize) -> Option<usize> {
    let chars = content.chars();
    if file_tokens_of(path, result_utf16(content)) * 4 <= cap {
        return None;
    }
    Some((4 + chars).div_ceil(4))
}

/// The text of `MaxFileReadTokenExceededError`.
fn cap_error(tokens: usize, cap: usize) -> String {
    format!(
        "File content ({tokens} tokens) exceeds maximum allowed tokens ({cap}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
    )
}

/// Byte offset of the first `units` UTF-16 units of `text`, never inside a character (a pair
/// cut in half loses its high half, as JavaScript's `slice` and the check after it do).
fn byte_below_unit(text: &str, units: usize) -> usize {
    let mut seen = 0;
    for (index, c) in text.char_indices() {
        seen += c.len_utf16();
        if seen > units {
            return index;
        }
    }
    text.len()
}

/// What v2.1.332's Read keeps of a file of `tokens` tokens over the cap (`ReadOverCap::Cut`,
/// probed: p11): the first lines, as many as 85% of the cap's share of the lines, shrunk by 0.7
/// up to six times until their estimate (characters per token of the whole file) fits; when
/// even that does not fit or is blank, the first characters instead, 85% of the cap at that
/// rate, shrunk the same way. The arithmetic is JavaScript's: doubles, left to right.
pub(crate) fn cut_to_cap(content: &str, tokens: usize, cap: usize) -> &str {
    let total = utf16_len(content) as f64;
    let (cap_f, tokens_f) = (cap as f64, tokens.max(1) as f64);
    let per_token = (total / tokens_f).max(0.5);
    let fits = |s: &str| utf16_len(s) as f64 / per_token <= cap_f;
    let line_ends: Vec<usize> = content
        .match_indices('\n')
        .map(|(i, _)| i)
        .chain([content.len()])
        .collect();
    let lines = line_ends.len();
    let first_lines = |n: usize| &content[..line_ends[n - 1]];
    let mut n = ((lines as f64 * cap_f / tokens_f * 0.85).floor() as usize).clamp(1, lines);
    let mut kept = first_lines(n);
    for _ in 0..6 {
        if fits(kept) || n <= 1 {
            break;
        }
        n = ((n as f64 * 0.7).floor() as usize).max(1);
        kept = first_lines(n);
    }
    if fits(kept) && !js_trim(kept).is_empty() {
        return kept;
    }
    let mut units = ((cap_f * per_token * 0.85).floor() as usize).max(1);
    for _ in 0..6 {
        kept = &content[..byte_below_unit(content, units)];
        if fits(kept) {
            break;
        }
        units = ((units as f64 * 0.7).floor() as usize).max(1);
    }
    kept
}

/// A Read result arrives holding the file's text: it becomes the numbered text, or the cap's
/// error (v2.1.88) or the file's first part (v2.1.332). Each is the tool's own output, so it
/// counts as the original result.
pub(crate) fn arrive(
    world: &mut World,
    message: usize,
    block: usize,
    id: &CallId,
    content: &ResultText,
) {
    let content_chars = content.chars();
    if is_read_output(content) {
        world.record(
            Event::new("arrival", "keep")
                .id(id)
                .sizes(content_chars, content_chars)
                .reason("already Read's output (numbered lines); Read results are never persisted"),
        );
        return;
    }
    let cap = world.profile.constants.read_max_tokens;
    let path = world.read_path(id).unwrap_or_default();
    // `lines`: the whole file numbered, with its number of lines.
    let (shown, reason, lines) = match counted_tokens(&path, content, cap) {
        Some(tokens) if tokens > cap && world.profile.read_over_cap == ReadOverCap::Cut => {
            let kept = cut_to_cap(content, tokens, cap);
            let kept_chars = utf16_len(kept);
            world.ledger.read_files.set_text(&path, kept.to_owned());
            (
                ResultText::from(numbered(kept)),
                format!(
                    "Read cut: {tokens} tokens > read_max_tokens {cap}, the first {kept_chars} of {} characters kept",
                    utf16_len(content)
                ),
                None,
            )
        }
        Some(tokens) if tokens > cap => {
            world.ledger.read_files.forget(&path);
            (
                ResultText::from(cap_error(tokens, cap)),
                format!("Read refused: {tokens} tokens > read_max_tokens {cap}"),
                None,
            )
        }
        _ => {
            let (shown, lines) = numbered_result(world, content);
            let reason = "Read numbers the lines of the file".to_owned();
            (shown, reason, Some(lines))
        }
    };
    // Numbering adds ASCII only, a number and a tab per line: the text's `json.dumps` length
    // grows by what was added and one more per line (`\t`).
    let grown = lines.map(|lines| shown.len() - content.len() + lines);
    let chars = shown.chars();
    world.replace_result_grown(message, block, shown, grown, "arrival", reason.clone());
    if let Some(record) = world.ledger.results.get_mut(id) {
        record.is_original = true;
        record.original_chars = chars;
    }
    world.record(
        Event::new("arrival", "keep")
            .id(id)
            .sizes(content_chars, chars)
            .reason(reason!("{reason}; Read results are never persisted")),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_counts_like_the_scripted_server() {
        // p10: one line of 99996 x is counted 25000 (not over); p11: 99997 x is 25001.
        assert_eq!(
            counted_tokens("a.txt", &"x".repeat(99_996).into(), 25_000),
            Some(25_000)
        );
        assert_eq!(
            counted_tokens("a.txt", &"x".repeat(99_997).into(), 25_000),
            Some(25_001)
        );
        // Within a quarter of the cap no count is asked.
        assert_eq!(
            counted_tokens("a.txt", &"x".repeat(25_000).into(), 25_000),
            None
        );
        assert_eq!(
            counted_tokens("a.json", &"x".repeat(12_500).into(), 25_000),
            None
        );
        assert_eq!(
            counted_tokens("a.json", &"x".repeat(12_502).into(), 25_000),
            Some(3_127)
        );
        assert_eq!(cap_error(25_001, 25_000).chars().count(), 204);
        assert_eq!(numbered("a\nb"), "1\ta\n2\tb");
        // Every line numbered, the empty last one too; numbering adds ASCII only, so the
        // result's characters are the file's plus the added bytes, and its `json.dumps`
        // length the file's plus those and an escape per line (the tab), as the arrival counts
        // them without measuring the numbered text.
        use crate::python::json::{char_len, json_str_chars};
        let twelve = "é\n".repeat(11);
        // Line numbers past each power of ten, counted a digit at a time.
        let long = "x\n".repeat(100_000);
        let texts = ["", "\n", "a\n", "é😀\n\nb", "\"q\"\t\\", &twelve, &long];
        for text in texts {
            let by_line: Vec<String> = text
                .split('\n')
                .enumerate()
                .map(|(i, line)| format!("{}\t{line}", i + 1))
                .collect();
            let shown = numbered(text);
            assert_eq!(shown, by_line.join("\n"), "{text:?}");
            let added = shown.len() - text.len();
            assert_eq!(char_len(&shown), char_len(text) + added);
            let lines = text.split('\n').count();
            assert_eq!(numbered_lines(text).1, lines, "{text:?}");
            assert_eq!(json_str_chars(&shown), json_str_chars(text) + added + lines);
        }
    }

    /// A generated result's numbered text, a prefix of its buffer's, is the text numbering it
    /// writes, over one-line and many-line shapes, prefixes that end mid-buffer, at a line's
    /// end and on an empty last line, and across the growth of a buffer; a literal text is
    /// numbered as before.
    #[test]
    fn a_generated_result_is_numbered_as_a_prefix_of_its_buffer() {
        use crate::compaction::profile::CLAUDE_CODE;
        use crate::scenario::{Body, Renderer};
        let mut world = World::for_test(CLAUDE_CODE);
        let mut renderer = Renderer::default();
        let bodies = [
            Body::Chars(0),
            Body::Chars(5),
            Body::Lines { lines: 1, width: 0 },
            Body::Lines { lines: 3, width: 0 },
            Body::Lines {
                lines: 12,
                width: 3,
            },
            Body::Lines { lines: 9, width: 3 },
            Body::Lines {
                lines: 1_001,
                width: 3,
            },
            Body::Lines {
                lines: 150,
                width: 3,
            },
            Body::Chars(40_000),
            Body::Chars(7),
        ];
        for body in bodies {
            let content = body.text(&mut renderer);
            assert!(content.is_only_x(), "{body:?}");
            let (shown, lines) = numbered_result(&mut world, &content);
            assert_eq!(shown.as_str(), numbered(&content), "{body:?}");
            assert_eq!(lines, content.split('\n').count(), "{body:?}");
            assert_eq!(shown.chars(), shown.len(), "{body:?}");
        }
        // One numbered buffer per buffer still in use (one per shape): the outgrown ones are
        // let go.
        assert_eq!(world.numbered.len(), 3);
        let literal = ResultText::from("a\nb");
        let (shown, lines) = numbered_result(&mut world, &literal);
        assert_eq!((shown.as_str(), lines), ("1\ta\n2\tb", 2));
        for lines in [0, 1, 9, 10, 99, 100, 12_345] {
            let text = "\n".repeat(lines.max(1) - 1);
            let added = numbered(&text).len() - text.len();
            assert_eq!(numbering_added(lines.max(1)), added, "{lines}");
        }
        assert_eq!(numbering_added(0), 0);
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

    #[test]
    fn the_cut_of_a_file_over_the_cap_follows_v2_1_332() {
        // p11: one line of 99997 x, 25001 tokens: one line does not fit, so characters:
        // floor(25000 × (99997 / 25001) × 0.85) = 84994.
        let line = "x".repeat(99_997);
        assert_eq!(cut_to_cap(&line, 25_001, 25_000).len(), 84_994);
        // p13: 1000 lines of 99 x (99999 chars), 25001 tokens: floor(1000 × 25000 / 25001 ×
        // 0.85) = 849 lines, 84899 chars, which fit (21226 tokens at the file's rate).
        let lines = vec!["x".repeat(99); 1000].join("\n");
        let kept = cut_to_cap(&lines, 25_001, 25_000);
        assert_eq!(kept.split('\n').count(), 849);
        assert_eq!(kept.len(), 84_899);
        // Heavy lines first: 50 of 2000 z, then 50 of `a` (100149 chars), 30000 tokens. 70
        // lines (100089 chars, 29982 tokens at 3.34 a token) do not fit, nor 49; 34 do.
        let heavy = [vec!["z".repeat(2_000); 50], vec!["a".to_owned(); 50]]
            .concat()
            .join("\n");
        let kept = cut_to_cap(&heavy, 30_000, 25_000);
        assert_eq!((kept.split('\n').count(), kept.len()), (34, 68_033));
        // A cut inside a surrogate pair drops its high half: 26 units in 2 tokens is 13 a
        // token, 85% of a 1-token cap is 11.05 units, floor 11: inside the third 😀 (units
        // 10-11).
        let emoji = format!("abcdef{}", "😀".repeat(10));
        assert_eq!(cut_to_cap(&emoji, 2, 1), "abcdef😀😀");
    }
}
