//! Codex's cap on a tool's output as it arrives (`Arrival::TruncateTokens`): an output longer
//! than `4 × tool_output_tokens` bytes (the model's `truncation_policy`, `tokens` 10000 for
//! gpt-5.5 in 0.171.0's model list) is replaced by `formatted_truncate_text`: the line
//! `Warning: truncated output (original token count: N)` (N = ceil(bytes / 4)), `Total output
//! lines: L` (Rust `str::lines`), a blank line, then the head and tail of the output, each
//! half of the byte budget on char boundaries, around `…M tokens truncated…` (M = ceil(removed
//! bytes / 4)). The model cannot get the middle back; the rollout keeps the whole output (its
//! `item_completed` event, measured in a 0.171.0 rollout). Sources: openai/codex
//! `codex-rs/utils/output-truncation/src/lib.rs` (formatted_truncate_text) and
//! `codex-rs/utils/string/src/truncate.rs` (truncate_middle_with_token_budget,
//! split_string); measured with `lab probe --agent codex` (p21).

use crate::compaction::world::World;
use crate::error::RunError;
use crate::python::json::char_len;
use crate::transcript::{Block, Content, ResultText};

/// codex `approx_token_count`: UTF-8 bytes / 4, rounded up.
fn approx_tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// codex `split_string`: the head of at most `head` bytes and the tail starting at the first
/// char that begins at or after `len - tail`, both on char boundaries. Codex walks the chars;
/// with `head + tail < len` (the only use: a text over its budget) the head ends at the last
/// boundary at or before `head`, and the tail starts at the first boundary at or after
/// `len - tail`, which lies past the head.
fn split(text: &str, head: usize, tail: usize) -> (&str, &str) {
    debug_assert!(
        head + tail < text.len(),
        "split of a text within its budget"
    );
    let mut head_end = head;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - tail;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    (&text[..head_end], &text[tail_start.max(head_end)..])
}

/// Rust's `str::lines().count()`: the newlines, and one more for a last line without one.
fn line_count(text: &str) -> usize {
    let newlines = crate::transcript::count_newlines(text.as_bytes());
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// codex `formatted_truncate_text(text, TruncationPolicy::Tokens(tokens))`.
#[cfg(test)]
pub(crate) fn formatted_truncate(text: &str, tokens: usize) -> String {
    if text.len() <= tokens * 4 {
        return text.to_owned();
    }
    capped(text, tokens, text.is_ascii()).0
}

/// [`formatted_truncate`] of a text over the budget, and its length in characters. Written in
/// one buffer of its final size, and counted from its pieces: `ascii` (the result's counts say
/// so) makes the kept head and tail their byte lengths (issue 13: `format!` copied each head
/// and tail again as its buffer grew, and the capped text was counted char by char whole).
fn capped(text: &str, tokens: usize, ascii: bool) -> (String, usize) {
    let budget = tokens * 4;
    debug_assert!(text.len() > budget);
    let original = approx_tokens(text.len()).to_string();
    let lines = line_count(text).to_string();
    let (head, tail) = if budget == 0 {
        ("", "")
    } else {
        let left = budget / 2;
        split(text, left, budget - left)
    };
    let removed = if budget == 0 {
        original.clone()
    } else {
        approx_tokens(text.len() - budget).to_string()
    };
    let pieces = [
        "Warning: truncated output (original token count: ",
        &original,
        ")\nTotal output lines: ",
        &lines,
        "\n\n",
        head,
        "…",
        &removed,
        " tokens truncated…",
        tail,
    ];
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for piece in pieces {
        out.push_str(piece);
    }
    let kept = if ascii {
        head.len() + tail.len()
    } else {
        char_len(head) + char_len(tail)
    };
    // Everything but the kept text is ASCII, except the two ellipses (three bytes each).
    let chars = out.len() - head.len() - tail.len() - 4 + kept;
    (out, chars)
}

/// Caps every result of the newest message (a batch of results).
pub(crate) fn run(world: &mut World) -> Result<(), RunError> {
    let tokens = world.profile.constants.tool_output_tokens;
    let message = world.history.len() - 1;
    let Content::Blocks(blocks) = &world.history.messages()[message].content else {
        return Ok(());
    };
    let results: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter_map(|(bi, b)| matches!(b, Block::ToolResult { .. }).then_some(bi))
        .collect();
    for bi in results {
        let content = world.history.result_at(message, bi).1;
        let bytes = content.len();
        if bytes <= tokens * 4 {
            continue;
        }
        let (text, chars) = capped(content, tokens, content.is_ascii());
        world.replace_result(
            message,
            bi,
            ResultText::counted(text, chars),
            "arrival",
            format!(
                "{bytes} bytes > {} (tool_output_tokens {tokens} × 4): head and tail kept",
                tokens * 4
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_nothing_changes_above_it_head_and_tail_halves() {
        let at = "x".repeat(40_000);
        assert_eq!(formatted_truncate(&at, 10_000), at);
        // Measured from codex 0.171.0: 40000 x and a newline → 20000 head bytes, 1 token cut,
        // the last 20000 bytes.
        let over = format!("{}\n", "x".repeat(40_000));
        let out = formatted_truncate(&over, 10_000);
        let expected = format!(
            "Warning: truncated output (original token count: 10001)\nTotal output lines: 1\n\n{}…1 tokens truncated…{}\n",
            "x".repeat(20_000),
            "x".repeat(19_999)
        );
        assert_eq!(out, expected);
    }

    /// The boundary search cuts where codex's walk over the chars does, and the line count is
    /// `str::lines`', on texts of one- to four-byte characters and every budget below their length.
    #[test]
    fn the_cut_and_the_line_count_match_the_walk() {
        fn walk(text: &str, head: usize, tail: usize) -> (&str, &str) {
            let tail_target = text.len().saturating_sub(tail);
            let (mut head_end, mut tail_start) = (0, text.len());
            for (index, ch) in text.char_indices() {
                if index + ch.len_utf8() <= head {
                    head_end = index + ch.len_utf8();
                } else if index >= tail_target {
                    tail_start = index;
                    break;
                }
            }
            (&text[..head_end], &text[tail_start.max(head_end)..])
        }
        for text in ["aéé😀b\n中x", "😀😀😀", "\n\nab\r\n", "abcdefgh"] {
            for budget in 0..text.len() {
                let left = budget / 2;
                assert_eq!(
                    split(text, left, budget - left),
                    walk(text, left, budget - left),
                    "{text:?} {budget}"
                );
            }
        }
        for text in ["", "\n", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n"] {
            assert_eq!(line_count(text), text.lines().count(), "{text:?}");
        }
    }

    /// The capped text's characters are counted from its pieces: its count is the text's own,
    /// with the result's ASCII flag or without it, at every budget below the text's length.
    #[test]
    fn a_capped_text_knows_its_characters() {
        for text in ["aéé😀b\n中x", "😀😀😀", "abc\ndefgh\n", &"xy\n".repeat(50)] {
            // Every budget below the text's bytes, where the text is capped.
            for tokens in (0..text.len()).take_while(|tokens| tokens * 4 < text.len()) {
                for ascii in [false, text.is_ascii()] {
                    let (out, chars) = capped(text, tokens, ascii);
                    assert_eq!(chars, out.chars().count(), "{text:?} {tokens}");
                }
            }
        }
    }

    #[test]
    fn cuts_fall_on_char_boundaries() {
        // "aéééé" is 9 bytes; 1 token → budget 4, halves of 2: the head is "a" (the first é
        // would end at byte 3), the tail starts at the first char at or after byte 7 (the last
        // é); 9 - 4 = 5 bytes removed → 2 tokens; 9 bytes → 3 tokens in all.
        assert_eq!(
            formatted_truncate("aéééé", 1),
            "Warning: truncated output (original token count: 3)\nTotal output lines: 1\n\na…2 tokens truncated…é"
        );
        let lines = "a\nb\nc\n".repeat(10);
        assert!(formatted_truncate(&lines, 1).contains("Total output lines: 30\n"));
    }
}
