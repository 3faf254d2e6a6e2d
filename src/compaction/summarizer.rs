//! The scripted summarisers: the model call compaction makes, answered without a model so runs
//! are deterministic. The scenario's `summary` text is the answer when given.
//!
//! Course s08 `summarize_history` at f9e8b28 (docs/profiles.md): one call over the messages handed
//! to it, answering `summary of {N} messages`; the course cuts an input longer than `summary_input`
//! to its head and tail. Claude Code v2.1.88 (`compact.ts`, docs/profiles.md C3): the 9-section
//! summary as `formatCompactSummary` leaves it.

use crate::compaction::js_str::js_trim;
use crate::compaction::world::World;
use crate::python::json::char_len;
use crate::python::str::py_strip;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, Message, Role, utf16_len};

/// One course summariser call over the first `count` messages: counts the model call and
/// records it; returns the summary text.
pub(crate) fn summarize(world: &mut World, count: usize, stage: &'static str) -> String {
    world.counters.model_calls += 1;
    let input = world.history.estimate_prefix(count);
    let limit = world.profile.constants.summary_input;
    let cut = if input > limit {
        format!(
            ", more than summary_input {limit}: it sees the first {} and the last {} chars",
            limit / 4,
            limit - limit / 4
        )
    } else {
        String::new()
    };
    let summary = world
        .script
        .summary
        .clone()
        .unwrap_or_else(|| format!("summary of {count} messages"));
    // The course: `summary.strip() or "(empty summary)"`, Python's strip (it also removes
    // U+001C..U+001F, which Rust's `trim` keeps).
    let summary = match py_strip(&summary) {
        "" => "(empty summary)".to_owned(),
        text => text.to_owned(),
    };
    world.record(
        Event::new(stage, "summary")
            .after(char_len(&summary))
            .reason(reason!(
                "summariser call over {count} messages ({input} chars{cut})"
            )),
    );
    summary
}

/// [`bounded_summary`]'s text and whether it was cut.
#[cfg(test)]
pub(crate) fn bound_summary(text: String, max_tokens: usize) -> (String, bool) {
    let bounded = bounded_summary(text, max_tokens);
    (bounded.text, bounded.cut)
}

/// A summary bounded by its call's `max_tokens` ([`bounded_summary`]).
pub(crate) struct Bounded {
    pub(crate) text: String,
    /// Its length in UTF-16 units, counted while bounding it.
    pub(crate) units: usize,
    /// Whether it was cut.
    pub(crate) cut: bool,
}

/// A summary as long as a call writing at most `max_tokens` can make it: cut, when longer, to
/// `4 × max_tokens` UTF-16 units (whose rough count, `Math.round(units / 4)`, is `max_tokens`),
/// with the kept text's UTF-16 length (its rough token count needs no count of its own).
pub(crate) fn bounded_summary(text: String, max_tokens: usize) -> Bounded {
    let (end, units) = fitting(&text, max_tokens.saturating_mul(4));
    let cut = end < text.len();
    let mut text = text;
    text.truncate(end);
    Bounded { text, units, cut }
}

/// The longest start of `text` within `limit` UTF-16 units: its length in bytes and in units.
fn fitting(text: &str, limit: usize) -> (usize, usize) {
    // Pieces of about 4 KiB, then of 64 bytes, are counted in bulk while they fit, the rest by
    // character: a text that fits is read once, and one that does not is read once up to its
    // cut (issue 13: it was counted whole first, then again up to the cut).
    let (mut units, mut start) = (0, 0);
    for size in [4096, 64] {
        while start < text.len() {
            let mut end = (start + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let piece = utf16_len(&text[start..end]);
            if units + piece > limit {
                break;
            }
            units += piece;
            start = end;
        }
    }
    if start == text.len() {
        return (start, units);
    }
    let end = text[start..]
        .char_indices()
        .find(|(_, c)| {
            let next = units + c.len_utf16();
            let over = next > limit;
            if !over {
                units = next;
            }
            over
        })
        .map_or(text.len(), |(index, _)| start + index);
    (end, units)
}

/// A summary written piece by piece and bounded as it is written ([`bounded_summary`] of the
/// pieces joined): no piece is copied or counted past the cut.
struct Bounding {
    summary: Bounded,
    /// The units it may hold.
    limit: usize,
}

impl Bounding {
    /// Appends what fits of `piece`; false once the summary is cut.
    fn push(&mut self, piece: &str) -> bool {
        let summary = &mut self.summary;
        if summary.cut {
            return false;
        }
        let (end, units) = fitting(piece, self.limit - summary.units);
        summary.text.push_str(&piece[..end]);
        summary.units += units;
        summary.cut = end < piece.len();
        !summary.cut
    }
}

/// Claude Code's scripted 9-section summary of `count` messages, as `formatCompactSummary`
/// leaves it (the caller counts the call), bounded by its call's `max_tokens`.
pub(crate) fn nine_sections(world: &World, count: usize, max_tokens: usize) -> Bounded {
    if let Some(text) = &world.script.summary {
        return bounded_summary(format!("Summary:\n{}", js_trim(text)), max_tokens);
    }
    let files: Vec<&str> = world
        .ledger
        .read_files
        .iter()
        .map(|(p, _)| p.as_str())
        .collect();
    let users: Vec<Vec<&str>> = world
        .history
        .messages()
        .iter()
        .filter_map(user_pieces)
        .collect();
    let none = "(none recorded by the scripted summariser)";
    let files = if files.is_empty() {
        "(none)".to_owned()
    } else {
        files.join(", ")
    };
    let count = count.to_string();
    let users_len: usize = users
        .iter()
        .map(|pieces| pieces.iter().map(|p| p.len()).sum::<usize>() + 3)
        .sum();
    let pieces = [
        "Summary:\n1. Primary Request and Intent:\n   ",
        &world.script.active_request,
        "\n\n2. Key Technical Concepts:\n   ",
        none,
        "\n\n3. Files and Code Sections:\n   ",
        &files,
        "\n\n4. Errors and fixes:\n   ",
        none,
        "\n\n5. Problem Solving:\n   ",
        none,
        "\n\n6. All user messages:\n   ",
    ];
    let rest = [
        "\n\n7. Pending Tasks:\n   ",
        none,
        "\n\n8. Current Work:\n   summary of ",
        &count,
        " messages\n\n9. Optional Next Step:\n   ",
        none,
    ];
    // Written into one buffer, the user messages joined in place and no further than the cut
    // (issue 13: `format!` copied them at every doubling of its buffer; then every user message
    // of the history, the files restored at the last compaction among them, was copied and the
    // whole cut to its first 80 000 units). A kept character takes at most three bytes a unit.
    let limit = max_tokens.saturating_mul(4);
    let fixed: usize = pieces.iter().chain(&rest).map(|piece| piece.len()).sum();
    let size = (fixed + users_len.max(6)).min(limit.saturating_mul(3));
    let mut bounding = Bounding {
        summary: Bounded {
            text: String::with_capacity(size),
            units: 0,
            cut: false,
        },
        limit,
    };
    let mut room = pieces.iter().all(|piece| bounding.push(piece));
    if users.is_empty() {
        room = room && bounding.push("(none)");
    }
    for (i, user) in users.iter().enumerate() {
        room = room && (i == 0 || bounding.push(" | "));
        room = room && user.iter().all(|piece| bounding.push(piece));
    }
    if room {
        rest.iter().all(|piece| bounding.push(piece));
    }
    bounding.summary
}

/// The text of a user message as the summary quotes it: its text, or its blocks' texts when
/// all are text (Claude Code's restored files); none for another message.
fn user_pieces(message: &Message) -> Option<Vec<&str>> {
    if message.role != Role::User {
        return None;
    }
    match &message.content {
        Content::Text(text) => Some(vec![text.as_str()]),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{CLAUDE_CODE, COURSE_MAIN};

    #[test]
    fn a_summary_is_cut_at_the_calls_max_tokens() {
        // 80010 ASCII chars, 20000 tokens at most: cut to 80000 chars, Math.round(80000/4) = 20000.
        let (text, cut) = bound_summary("a".repeat(80_010), 20_000);
        assert!(cut);
        assert_eq!(text.len(), 80_000);
        assert_eq!(crate::transcript::rough_tokens(&text), 20_000);
        // Exactly at the limit: kept whole.
        assert_eq!(bound_summary("b".repeat(8), 2), ("b".repeat(8), false));
        // An emoji takes two UTF-16 units: 1 token allows 4 units, so two of three stay; "é" is
        // one unit, so "é😀😀" (5 units) keeps "é😀" (3; the next emoji would make 5).
        assert_eq!(bound_summary("😀😀😀".into(), 1), ("😀😀".into(), true));
        assert_eq!(bound_summary("é😀😀".into(), 1), ("é😀".into(), true));
        // Counted in 4 KiB and 64-byte pieces, the cut is where the count by character puts
        // it: texts whose pieces end inside a character, with the limit in every piece.
        let by_char = |text: &str, max_tokens: usize| {
            let mut units = 0;
            let end = text.char_indices().find(|(_, c)| {
                units += c.len_utf16();
                units > 4 * max_tokens
            });
            end.map_or(text.len(), |(at, _)| at)
        };
        for unit in ["a", "é", "中", "😀", "ab😀é"] {
            let text = unit.repeat(20_000);
            for max_tokens in [
                0, 1, 15, 17, 700, 1024, 1025, 1041, 3000, 9_999, 10_000, 30_000,
            ] {
                let bounded = bounded_summary(text.clone(), max_tokens);
                let cut = &bounded.text;
                assert_eq!(cut.len(), by_char(&text, max_tokens), "{unit} {max_tokens}");
                assert_eq!(bounded.cut, cut.len() < text.len(), "{unit} {max_tokens}");
                assert_eq!(bounded.units, utf16_len(cut), "{unit} {max_tokens}");
            }
        }
    }

    /// The sections bounded as they are written are the whole sections bounded, for limits
    /// that cut inside a text, inside a block, between user messages and not at all, with
    /// characters of one to four bytes.
    #[test]
    fn the_sections_stop_where_the_summary_is_cut_and_keep_what_it_keeps() {
        let mut world = World::for_test(CLAUDE_CODE);
        world.ledger.read_files.read("/a.txt".into(), "x");
        let mut users = Vec::new();
        for (i, unit) in ["a", "é", "中", "😀", "ab😀é中"].iter().enumerate() {
            users.push(unit.repeat(200 * (i + 1)));
            users.push(unit.repeat(20) + &format!("{i}").repeat(30));
            world.push(Message::user_text(unit.repeat(200 * (i + 1))));
            let blocks = vec![
                Block::Text {
                    text: unit.repeat(20),
                },
                Block::Text {
                    text: format!("{i}").repeat(30),
                },
            ];
            world.push(Message::blocks(Role::User, blocks));
            let ok = Block::Text { text: "ok".into() };
            world.push(Message::blocks(Role::Assistant, vec![ok]));
        }
        let whole = nine_sections(&world, 15, usize::MAX).text;
        let quoted = format!("messages:\n   {}\n\n7. Pending", users.join(" | "));
        assert!(whole.contains(&quoted));
        assert!(
            whole
                .ends_with("9. Optional Next Step:\n   (none recorded by the scripted summariser)")
        );
        for max_tokens in (0..=utf16_len(&whole) / 4 + 2).step_by(3) {
            let capped = nine_sections(&world, 15, max_tokens);
            let bounded = bounded_summary(whole.clone(), max_tokens);
            assert_eq!(capped.text, bounded.text, "{max_tokens}");
            assert_eq!((capped.units, capped.cut), (bounded.units, bounded.cut));
        }
    }

    #[test]
    fn the_course_summary_names_its_input_or_the_scripted_text() {
        let mut world = World::for_test(COURSE_MAIN);
        for _ in 0..3 {
            world.push(Message::user_text("x"));
        }
        assert_eq!(summarize(&mut world, 2, "compact"), "summary of 2 messages");
        world.script.summary = Some("  \n".to_owned());
        assert_eq!(summarize(&mut world, 3, "compact"), "(empty summary)");
        assert_eq!(world.counters.model_calls, 2);
    }

    #[test]
    fn an_input_over_summary_input_is_noted_as_cut() {
        let mut world = World::for_test(COURSE_MAIN);
        world.push(Message::user_text("x".repeat(90_000)));
        summarize(&mut world, 1, "compact");
        let reason = world.trace[0].reason.to_string();
        assert!(
            reason.ends_with(
                "more than summary_input 80000: it sees the first 20000 and the last 60000 chars)"
            ),
            "{reason}"
        );
    }
}
