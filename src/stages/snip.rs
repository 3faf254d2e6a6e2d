//! Snip: cut the middle of a long history, keeping a head and a tail.
//!
//! Course s08 `snip_compact` at f9e8b28 (seed 000 §5, M3): nothing while the history has at most
//! `snip_max` messages; keep `snip_head` messages and the last `snip_max - snip_head`; with pair
//! protection, widen the head over the tool results answering its last tool_use and step the tail
//! back over a tool_use whose results it starts with. The middle becomes one user message naming
//! how many messages went and (course main) the transcript that holds them all.

use crate::error::RunError;
use crate::profile::{SnipTail, fill};
use crate::transcript::Message;
use crate::world::World;

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let len = world.history.len();
    let constants = world.profile.constants;
    if len <= constants.snip_max {
        return Ok(());
    }
    let mut head_end = constants.snip_head;
    let keep_tail = match world.profile.snip_tail {
        SnipTail::MaxMinusHead => constants.snip_max - constants.snip_head,
    };
    let mut tail_start = len - keep_tail;
    if world.profile.switches.pair_protection {
        let messages = world.history.messages();
        // Python's messages[head_end - 1] reads the last message when head_end is 0.
        let head_last = head_end.checked_sub(1).unwrap_or(len - 1);
        if messages[head_last].has_tool_use() {
            while head_end < tail_start && messages[head_end].is_tool_result() {
                head_end += 1;
            }
        }
        tail_start = super::step_back_tail(world, tail_start);
    }
    if head_end >= tail_start {
        world.event(
            "snip",
            "keep",
            None,
            Some(len),
            Some(len),
            format!("head {head_end} reaches tail {tail_start}: nothing to cut"),
        );
        return Ok(());
    }
    let cut = tail_start - head_end;
    let path = if world.profile.snip_archives {
        Some(world.archive("snip")?)
    } else {
        None
    };
    super::note_removed(
        world,
        head_end..tail_start,
        "snip",
        &format!("snipped: messages {head_end}..{tail_start} cut"),
        path.as_deref(),
    );
    let marker = fill(
        world.profile.strings.snip_marker,
        &[
            ("n", &cut.to_string()),
            ("path", path.as_deref().unwrap_or("")),
        ],
    );
    let messages = world.history.messages();
    let mut kept: Vec<Message> = Vec::with_capacity(head_end + 1 + len - tail_start);
    kept.extend_from_slice(&messages[..head_end]);
    kept.push(Message::user_text(marker));
    kept.extend_from_slice(&messages[tail_start..]);
    let before = world.history.estimate();
    world.history.replace_all(kept);
    world.event(
        "snip",
        "snip",
        None,
        Some(before),
        Some(world.history.estimate()),
        format!(
            "{len} messages > snip_max {}: cut {cut} from the middle",
            constants.snip_max
        ),
    );
    Ok(())
}
