//! Snip: cut the middle of a long history, keeping a head and a tail.
//!
//! Course s08 `snip_compact` at f9e8b28 (negentropy 173-claude-code-memory-management.md §5, M3): nothing while the history has at most
//! `snip_max` messages; keep `snip_head` messages and the last `snip_max - snip_head`; with pair
//! protection, widen the head over the tool results answering its last tool_use and step the tail
//! back over a tool_use whose results it starts with. The middle becomes one user message naming
//! how many messages went and (course main) the transcript that holds them all.

use crate::compaction::profile::{SnipHeadBound, SnipTail, fill};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::compaction::{archive, pointer};
use crate::error::RunError;
use crate::trace::{Event, reason};
use crate::transcript::{Content, Message};

/// Course latest's `is_archive_marker`: a user message that is exactly
/// `[{N} messages archived at {path}]` with the path a file of the transcript directory.
fn is_archive_marker(world: &World, message: &Message) -> bool {
    let Content::Text(text) = &message.content else {
        return false;
    };
    let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return false;
    };
    let Some((count, path)) = inner.split_once(" messages archived at ") else {
        return false;
    };
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // Python's `.+` matches no newline.
    if path.is_empty() || path.contains('\n') {
        return false;
    }
    pointer::is_valid(world.store.as_ref(), &world.transcript_dir, path)
}

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let len = world.history.len();
    let constants = world.profile.constants;
    if len <= constants.snip_max {
        return Ok(());
    }
    let mut head_end = constants.snip_head;
    let keep_tail = match world.profile.snip_tail {
        SnipTail::MaxMinusHead => constants.snip_max - constants.snip_head,
        SnipTail::MaxMinusHeadMinusOne => constants.snip_max - constants.snip_head - 1,
    };
    let mut tail_start = len - keep_tail;
    if world.profile.on(SwitchName::PairProtection) {
        let messages = world.history.messages();
        // Python's messages[head_end - 1] reads the last message when head_end is 0.
        let head_last = head_end.checked_sub(1).unwrap_or(len - 1);
        let bound = match world.profile.snip_head_bound {
            SnipHeadBound::TailStart => tail_start,
            SnipHeadBound::Len => len,
        };
        if messages[head_last].has_tool_use() {
            while head_end < bound && messages[head_end].is_tool_result() {
                head_end += 1;
            }
        }
        tail_start = super::cut::step_back_tail(world, tail_start);
    }
    if head_end >= tail_start {
        world.record(Event::new("snip", "keep").sizes(len, len).reason(reason!(
            "head {head_end} reaches tail {tail_start}: nothing to cut"
        )));
        return Ok(());
    }
    let cut = tail_start - head_end;
    if cut == 1
        && world.profile.on(SwitchName::SnipMarkerGuard)
        && is_archive_marker(world, &world.history.messages()[head_end])
    {
        world.record(
            Event::new("snip", "keep")
                .sizes(len, len)
                .reason("the middle is one archive marker already: not archived again"),
        );
        return Ok(());
    }
    let path = if world.profile.snip_archives {
        Some(archive::write_transcript(world, "snip")?)
    } else {
        None
    };
    super::cut::note_removed(
        world,
        head_end..tail_start,
        "snip",
        reason!("snipped: messages {head_end}..{tail_start} cut"),
        path.clone(),
    );
    let marker = fill(
        world.profile.strings.snip_marker(),
        &[
            ("n", &cut.to_string()),
            ("path", path.as_deref().unwrap_or("")),
        ],
    );
    let before = world.history.estimate();
    world
        .history
        .splice(head_end, vec![Message::user_text(marker)], tail_start);
    let snip_max = constants.snip_max;
    world.record(
        Event::new("snip", "snip")
            .sizes(before, world.history.estimate())
            .reason(reason!(
                "{len} messages > snip_max {snip_max}: cut {cut} from the middle"
            )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{COURSE_LATEST, COURSE_MAIN};

    /// `len` user messages `m0`, `m1`, ...; with `pair_at`, messages `pair_at` and `pair_at + 1`
    /// are a tool_use and its result instead.
    fn history(world: &mut World, len: usize, pair_at: Option<usize>) {
        for i in 0..len {
            let message = match pair_at {
                Some(at) if i == at => Message::tool_uses(&[("t1", "bash")]),
                Some(at) if i == at + 1 => Message::tool_result("t1", "out"),
                _ => Message::user_text(format!("m{i}")),
            };
            world.push(message);
        }
    }

    fn text(message: &Message) -> &str {
        match &message.content {
            Content::Text(text) => text,
            Content::Blocks(_) => "(blocks)",
        }
    }

    #[test]
    fn snip_keeps_the_head_and_the_last_snip_max_minus_head_messages() {
        // 60 > snip_max 50: head 3, tail_start = 60 - (50 - 3) = 13, so 10 messages go.
        let mut world = World::for_test(COURSE_MAIN);
        history(&mut world, 60, None);
        run(&mut world).unwrap();
        let messages = world.history.messages();
        assert_eq!(messages.len(), 3 + 1 + 47);
        assert_eq!(text(&messages[2]), "m2");
        let transcript = format!("/lab/.transcripts/transcript_{:032x}.jsonl", 0);
        assert_eq!(
            text(&messages[3]),
            format!("[10 messages archived at {transcript}]")
        );
        assert_eq!(text(&messages[4]), "m13");
        // The archive was written before the cut and holds all 60.
        assert_eq!(world.archive.transcripts[0].messages, 60);
    }

    #[test]
    fn pair_protection_steps_the_tail_back_over_its_tool_use() {
        // The tail would start at the result (13) of the tool_use at 12: keep both.
        let mut world = World::for_test(COURSE_MAIN);
        history(&mut world, 60, Some(12));
        run(&mut world).unwrap();
        let messages = world.history.messages();
        assert_eq!(messages.len(), 3 + 1 + 48);
        assert!(text(&messages[3]).starts_with("[9 messages archived at "));
        assert!(messages[4].has_tool_use());
        // Without it the tail starts at the orphaned result.
        let mut world = World::for_test(COURSE_MAIN);
        world.profile.switches.pair_protection = false;
        history(&mut world, 60, Some(12));
        run(&mut world).unwrap();
        assert!(world.history.messages()[4].is_tool_result());
    }

    #[test]
    fn course_latest_keeps_one_message_less_and_does_not_snip_an_archive_marker_again() {
        // tail = snip_max - snip_head - 1 = 46: 60 messages lose 11, the tail starts at the
        // tool_use at 14 (its result at 15 follows it).
        let mut world = World::for_test(COURSE_LATEST);
        history(&mut world, 60, Some(14));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 3 + 1 + 46);
        assert!(world.history.messages()[4].has_tool_use());
        // One more message: 51 > 50, tail_start = 51 - 46 = 5 is the result, stepped back to 4,
        // so the middle is the marker alone: not archived again.
        world.push(Message::user_text("m60"));
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 51);
        assert_eq!(world.archive.transcripts.len(), 1);
        // course-main has no such guard: it archives the marker and replaces it by another.
        // (Its tail is one longer: the pair sits at 13 and 14 to end up at 4 and 5 again.)
        let mut world = World::for_test(COURSE_MAIN);
        history(&mut world, 60, Some(13));
        run(&mut world).unwrap();
        world.push(Message::user_text("m60"));
        run(&mut world).unwrap();
        assert_eq!(world.archive.transcripts.len(), 2);
        let second = format!("/lab/.transcripts/transcript_{:032x}.jsonl", 1);
        assert_eq!(
            text(&world.history.messages()[3]),
            format!("[1 messages archived at {second}]")
        );
    }
}
