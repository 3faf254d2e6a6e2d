//! Arrival: what happens to a tool result before it enters the history.
//!
//! Claude Code v2.1.88 `maybePersistLargeToolResult` (toolResultStorage.ts; docs/profiles.md, C1): an
//! empty or whitespace-only result becomes `(<tool> completed with no output)`; a result longer
//! than its tool's threshold (`min(maxResultSizeChars, 50000)`: Bash 30000, Grep 20000, Read
//! never: it numbers its lines or refuses a file over its token cap, `read_tool`) is written once (`wx`) to `tool-results/<id>.txt` and replaced by a `<persisted-output>`
//! block with a 2KB preview cut at a newline past 1000. Lengths are JavaScript's UTF-16 units,
//! except Bash's (D2 in docs/probe.md, probed: p04): a Bash result is the
//! raw output, measured in UTF-8 bytes with its trailing newline, and the model sees it with its
//! leading blank lines and trailing white space removed (`replace(/^(\s*\n)+/, "").trimEnd()`);
//! a persisted one names its size in bytes and previews the trimmed first 30000 bytes.

use crate::call_id::CallId;
use crate::compaction::js_str::{js_is_space, js_trim};
use crate::compaction::profile::{Arrival, fill};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::{IncomingResult, World};
use crate::compaction::{archive, persist};
use crate::error::RunError;
use crate::python::json::char_len;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, ResultText, result_utf16, utf16_len};
use smol_str::SmolStr;

/// Tools Claude Code never persists (their output bounds itself).
const NEVER_PERSISTED: [&str; 1] = ["Read"];

/// What Claude Code v2.1.332 answers a call to Grep or Glob when they are not among its tools
/// (switch `search_tools` off, as a stock user has it; probed: p07, p08): the call is refused
/// with a pointer to the shell, the tool never runs.
fn absent_tool(world: &World, tool: &str) -> Option<String> {
    let hint = match tool {
        "Grep" => "search file contents with `grep`",
        "Glob" => "find files with `find`",
        _ => return None,
    };
    let profile = world.profile;
    if !profile.has_switch(SwitchName::SearchTools) || profile.on(SwitchName::SearchTools) {
        return None;
    }
    Some(format!(
        "<tool_use_error>Error: No such tool available: {tool}. {tool} is not available in this session — {hint} via the Bash tool instead.</tool_use_error>"
    ))
}

/// Replaces the result of a call to a tool the agent does not have by its refusal
/// ([`absent_tool`]); false when the agent has the tool. The tool never ran, so the refusal is
/// the only output there is: the original.
fn refuse_absent(world: &mut World, message: usize, block: usize, id: &CallId, tool: &str) -> bool {
    let Some(refusal) = absent_tool(world, tool) else {
        return false;
    };
    let chars = char_len(&refusal);
    let reason = format!("{tool} is not among the agent's tools (switch search_tools off)");
    world.replace_result(message, block, refusal, "arrival", reason);
    if let Some(record) = world.ledger.results.get_mut(id) {
        record.is_original = true;
        record.original_chars = chars;
    }
    true
}

/// The persist threshold of a tool, or `None` for never.
fn threshold(world: &World, tool: &str) -> Option<usize> {
    let c = world.profile.constants;
    if NEVER_PERSISTED.contains(&tool) {
        return None;
    }
    let declared = match tool {
        "Bash" | "PowerShell" => c.bash_limit,
        "Grep" => c.grep_limit,
        // Every other tool declares 100000, capped at DEFAULT_MAX_RESULT_SIZE_CHARS.
        _ => usize::MAX,
    };
    Some(declared.min(c.max_result))
}

/// `formatFileSize`: `N bytes`, or KB/MB/GB with one decimal (`.0` dropped), rounded as
/// JavaScript's `toFixed(1)` rounds (halves up).
fn format_file_size(size: usize) -> String {
    const UNITS: [(usize, &str); 3] = [(1 << 10, "KB"), (1 << 20, "MB"), (1 << 30, "GB")];
    if size < 1024 {
        return format!("{size} bytes");
    }
    let (divisor, unit) = UNITS
        .iter()
        .copied()
        .find(|(divisor, _)| size < divisor * 1024)
        .unwrap_or(UNITS[2]);
    let tenths = (size * 10 + divisor / 2) / divisor;
    if tenths % 10 == 0 {
        format!("{}{unit}", tenths / 10)
    } else {
        format!("{}.{}{unit}", tenths / 10, tenths % 10)
    }
}

/// Byte offset of UTF-16 unit `units` in `text` (never inside a character).
fn byte_at_unit(text: &str, units: usize) -> usize {
    let mut seen = 0;
    for (index, c) in text.char_indices() {
        if seen >= units {
            return index;
        }
        seen += c.len_utf16();
    }
    text.len()
}

/// `generatePreview(content, max)`: the whole text if it fits; else the first `max` units, cut
/// back to the last newline when that newline lies past half of `max`. `ascii`: the text is
/// known to be ASCII (a slice of a result whose counts say so), so its units are its bytes and
/// it is not read to count them (issue 13: every persisted result was counted whole).
fn preview(content: &str, max: usize, ascii: bool) -> (&str, bool) {
    debug_assert!(!ascii || content.is_ascii());
    let units = |text: &str| if ascii { text.len() } else { utf16_len(text) };
    if units(content) <= max {
        return (content, false);
    }
    let end = if ascii {
        max
    } else {
        byte_at_unit(content, max)
    };
    let truncated = &content[..end];
    let cut = match truncated.rfind('\n') {
        Some(newline) if units(&truncated[..newline]) > max / 2 => newline,
        _ => truncated.len(),
    };
    (&content[..cut], true)
}

/// What Claude Code's Bash tool shows of its output: `replace(/^(\s*\n)+/, "").trimEnd()`.
fn bash_text(raw: &str) -> &str {
    let blank = raw.find(|c| !js_is_space(c)).unwrap_or(raw.len());
    let start = raw[..blank].rfind('\n').map_or(0, |newline| newline + 1);
    raw[start..].trim_end_matches(js_is_space)
}

/// An inline Bash result becomes the text the tool shows. That trimming is the tool's own
/// rendering, not a compaction: the shown text counts as the original result.
///
/// An output with no blank lines around it is shown as it is: it is neither copied nor
/// compared again (issue 13: most outputs, each up to the 30000-unit threshold).
fn show_trimmed_bash(
    world: &mut World,
    message: usize,
    block: usize,
    id: &CallId,
    raw: &ResultText,
) {
    let shown = bash_text(raw);
    let chars = if shown.len() == raw.len() {
        raw.chars()
    } else {
        let chars = char_len(shown);
        let reason = "Bash shows its output without the blank lines around it".to_owned();
        world.replace_result(message, block, shown.to_owned(), "arrival", reason);
        chars
    };
    if let Some(record) = world.ledger.results.get_mut(id) {
        record.is_original = true;
        record.original_chars = chars;
    }
}

/// The largest char boundary of `text` at or below byte `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// A batch of results arrives: the world registers it and appends it as one user message, the
/// profile's arrival rule applies, and then the message as the rule left it reaches the session
/// transcript (so a persisted result is logged as its persisted-output block); under Codex's
/// output cap the transcript gets the whole output first.
pub(crate) fn deliver(world: &mut World, batch: Vec<IncomingResult>) -> Result<(), RunError> {
    world.push_results(batch);
    if world.profile.arrival == Arrival::TruncateTokens {
        // Codex's rollout records the command's whole output (an `item_completed` event) before
        // the capped copy enters the history.
        archive::log_newest(world)?;
        return super::output_cap::run(world);
    }
    run(world)?;
    archive::log_newest(world)?;
    // The reminder is an attachment of its own in the session transcript, not part of the result.
    super::todo_reminder::run(world);
    Ok(())
}

/// The tool_result blocks of a message: block index, tool_use id and tool name.
fn results_of(world: &World, message: usize) -> Vec<(usize, CallId, SmolStr)> {
    let Content::Blocks(blocks) = &world.history.messages()[message].content else {
        return Vec::new();
    };
    let tool = |id: &CallId| {
        world
            .ledger
            .results
            .get(id)
            .map(|r| r.name.clone())
            .unwrap_or_default()
    };
    blocks
        .iter()
        .enumerate()
        .filter_map(|(bi, b)| match b {
            Block::ToolResult { tool_use_id, .. } => Some((bi, *tool_use_id, tool(tool_use_id))),
            _ => None,
        })
        .collect()
}

/// Writes a result over its tool's threshold `limit` to the spill store once (`wx`) and
/// replaces it in context by the persisted-output block with its preview.
fn persist_with_preview(
    world: &mut World,
    (message, bi): (usize, usize),
    id: &CallId,
    tool: &str,
    content: &ResultText,
    limit: usize,
) -> Result<(), RunError> {
    let bash = tool == "Bash";
    let size = if bash {
        content.len()
    } else {
        result_utf16(content)
    };
    let path = world.spill_path(id);
    let note = if world.store.is_file(&path) {
        "file existed (EEXIST counts as written)"
    } else {
        persist::write_new_spill_file(world, id, &path, content)?;
        "written once (wx)"
    };
    let chars = world.profile.constants.preview;
    let previewed = if bash {
        bash_text(&content[..floor_char_boundary(content, limit)])
    } else {
        content
    };
    let (shown, more) = preview(previewed, chars, content.is_ascii());
    let replacement = fill(
        world.profile.strings.persisted,
        &[
            ("size", &format_file_size(size)),
            ("path", &path),
            ("preview_size", &format_file_size(chars)),
            ("preview", shown),
            ("more", if more { "\n...\n" } else { "\n" }),
        ],
    );
    let tool = SmolStr::new(tool);
    world.replace_result(
        message,
        bi,
        replacement,
        "arrival",
        reason!("persisted to {path} ({note}): {size} > {tool} threshold {limit}"),
    );
    Ok(())
}

/// Applies the profile's arrival rule to the newest message (a batch of results).
fn run(world: &mut World) -> Result<(), RunError> {
    if world.profile.arrival == Arrival::Verbatim {
        return Ok(());
    }
    let message = world.history.len() - 1;
    for (bi, id, tool) in results_of(world, message) {
        if refuse_absent(world, message, bi, &id, &tool) {
            continue;
        }
        let content = world.history.owned_result_at(message, bi).1;
        if js_trim(&content).is_empty() {
            world.replace_result(
                message,
                bi,
                format!("({tool} completed with no output)"),
                "arrival",
                "empty result".to_owned(),
            );
            continue;
        }
        let bash = tool == "Bash";
        let size = if bash {
            content.len()
        } else {
            result_utf16(&content)
        };
        if tool == "Read" {
            super::read_tool::arrive(world, message, bi, &id, &content);
            continue;
        }
        let Some(limit) = threshold(world, &tool) else {
            world.record(
                Event::new("arrival", "keep")
                    .id(id)
                    .sizes(size, size)
                    .reason(reason!("{tool} results are never persisted")),
            );
            continue;
        };
        if size <= limit {
            world.record(
                Event::new("arrival", "keep")
                    .id(id)
                    .sizes(size, size)
                    .reason(reason!("{size} ≤ {tool} threshold {limit}")),
            );
            if bash {
                show_trimmed_bash(world, message, bi, &id, &content);
            }
            continue;
        }
        persist_with_preview(world, (message, bi), &id, &tool, &content, limit)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{CLAUDE_CODE, COURSE_MAIN};

    fn incoming(id: &str, tool: &str, content: String) -> IncomingResult {
        IncomingResult::measured(id, tool, content)
    }

    #[test]
    fn results_over_their_tools_threshold_are_persisted_as_they_arrive() {
        // C1: Bash persists above 30000 UTF-16 units, Grep above 20000, Read never (its own
        // 25000-token cap refuses a larger file, D5); an empty result is named.
        let mut world = World::for_test(CLAUDE_CODE);
        deliver(
            &mut world,
            vec![
                incoming("b1", "Bash", "x".repeat(30_000)),
                incoming("b2", "Bash", "x".repeat(30_001)),
                incoming("g1", "Grep", "x".repeat(20_001)),
                incoming("r1", "Read", "x".repeat(200_000)),
                incoming("r2", "Read", "x".repeat(99_996)),
                incoming("e1", "Bash", " \n".to_owned()),
            ],
        )
        .unwrap();
        assert_eq!(world.result("b1").unwrap().len(), 30_000);
        let b2 = format!(
            // A Bash file is named by its shell task id: the stand-in of b2 (D1).
            "<persisted-output>\nOutput too large (29.3KB). Full output saved to: /lab/tool-results/b0k1w3suf.txt\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
            "x".repeat(2_000)
        );
        assert_eq!(world.result("b2"), Some(b2.as_str()));
        assert!(world.result("g1").unwrap().contains("(19.5KB)"));
        assert_eq!(
            world.result("r1"),
            Some(
                "File content (50001 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."
            )
        );
        assert_eq!(
            world.result("r2"),
            Some(format!("1\t{}", "x".repeat(99_996)).as_str())
        );
        assert_eq!(world.result("e1"), Some("(Bash completed with no output)"));
        let files: Vec<String> = world
            .store
            .spill_files("/lab/tool-results")
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        assert_eq!(
            files,
            [
                "/lab/tool-results/b0k1w3suf.txt",
                "/lab/tool-results/g1.txt"
            ]
        );
        // A persisted result is the designed path, not an unseen compaction.
        assert!(!world.ledger.results[&CallId::new("b2")].unseen_compacted);
    }

    #[test]
    fn bash_counts_raw_bytes_and_shows_the_trimmed_text() {
        // D2 (probed, p04): 10000 é (2 bytes each) + 10001 x is 30001 bytes in 20001 chars.
        let mut world = World::for_test(CLAUDE_CODE);
        let wide = format!("{}{}", "é".repeat(10_000), "x".repeat(10_001));
        deliver(
            &mut world,
            vec![
                incoming("u1", "Bash", wide),
                incoming("n1", "Bash", format!("\n \n{}\n", "x".repeat(29_996))),
                incoming("n2", "Bash", format!("{}\n", "x".repeat(30_000))),
                incoming("s1", "Bash", "ééé ok".to_owned()),
            ],
        )
        .unwrap();
        // Shown as it is: no replacement, the original with its characters; a trimmed one is
        // replaced and counts its shown characters as the original's.
        assert_eq!(world.result("s1"), Some("ééé ok"));
        let replaced = |id: &str| {
            world
                .trace
                .iter()
                .any(|e| e.kind == "replace" && e.id.as_deref() == Some(id))
        };
        assert!(!replaced("s1") && replaced("n1"));
        let record = &world.ledger.results[&CallId::new("s1")];
        assert!(record.is_original && record.original_chars == 6);
        let record = &world.ledger.results[&CallId::new("n1")];
        assert!(record.is_original && record.original_chars == 29_996);
        let u1 = format!(
            "<persisted-output>\nOutput too large (29.3KB). Full output saved to: /lab/tool-results/b7m3d87m6.txt\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
            "é".repeat(2_000)
        );
        assert_eq!(world.result("u1"), Some(u1.as_str()));
        // 3 + 29996 + 1 = 30000 bytes: inline, without the blank lines and the newline.
        assert_eq!(world.result("n1"), Some("x".repeat(29_996).as_str()));
        assert!(world.result("n2").unwrap().contains("(29.3KB)"));
        assert_eq!(bash_text("  \n\n  a \n b\n\n"), "  a \n b");
    }

    #[test]
    fn course_results_arrive_verbatim() {
        let mut world = World::for_test(COURSE_MAIN);
        deliver(&mut world, vec![incoming("b1", "Bash", "x".repeat(60_000))]).unwrap();
        assert_eq!(world.result("b1").unwrap().len(), 60_000);
    }

    #[test]
    fn file_sizes_print_as_claude_code_does() {
        // formatFileSize in node for each input.
        let cases = [
            (1023, "1023 bytes"),
            (2000, "2KB"),
            (20000, "19.5KB"),
            (25000, "24.4KB"),
            (30000, "29.3KB"),
            (50000, "48.8KB"),
            (150000, "146.5KB"),
            (1280, "1.3KB"),
            (1048575, "1024KB"),
            (1048576, "1MB"),
        ];
        for (size, text) in cases {
            assert_eq!(format_file_size(size), text, "{size}");
        }
    }

    #[test]
    fn preview_cuts_at_a_newline_past_half() {
        // An ASCII text is previewed alike whether it is counted or known to be ASCII.
        for ascii in [false, true] {
            assert_eq!(preview("short", 2000, ascii), ("short", false));
            let lines = format!("{}\n{}", "a".repeat(1500), "b".repeat(1000));
            let (shown, more) = preview(&lines, 2000, ascii);
            assert!(more);
            assert_eq!(shown.len(), 1500);
            let early = format!("{}\n{}", "a".repeat(900), "b".repeat(2000));
            assert_eq!(preview(&early, 2000, ascii).0.len(), 2000);
            // Exactly at half is not past it.
            let half = format!("{}\n{}", "a".repeat(1000), "b".repeat(2000));
            assert_eq!(preview(&half, 2000, ascii).0.len(), 2000);
            let exact = "c".repeat(2000);
            assert_eq!(preview(&exact, 2000, ascii), (exact.as_str(), false));
        }
        // Counted in UTF-16 units: 1000 two-unit characters fill the preview.
        let wide = "😀".repeat(1001);
        assert_eq!(preview(&wide, 2000, false).0.chars().count(), 1000);
    }
}
