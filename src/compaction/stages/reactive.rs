//! Reactive: the prompt-too-long path. Archive, keep the last `keep_messages` messages (stepping
//! back over a tool_use whose results the tail starts with), summarise the head.
//!
//! Course s08 `reactive_compact` at f9e8b28 (negentropy 173-claude-code-memory-management.md §3): unlike the proactive path it keeps a
//! tail, so it is the less destructive of the two. With at most `keep_messages` messages the
//! course summarises everything and keeps nothing (its `if tail_start` branches).

use crate::compaction::profile::ReactiveSmall;
use crate::compaction::world::World;
use crate::compaction::{archive, summarizer};
use crate::error::RunError;
use crate::trace::{Event, reason};

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let path = archive::write_transcript(world, "reactive")?;
    let len = world.history.len();
    let tail_start = super::cut::step_back_tail(
        world,
        len.saturating_sub(world.profile.constants.keep_messages),
    );
    // With no tail to keep, the course summarises everything and keeps nothing; the site
    // summarises nothing and keeps everything.
    let keep_all = world.profile.reactive_small == ReactiveSmall::KeepAll;
    let head = if tail_start > 0 || keep_all {
        tail_start
    } else {
        len
    };
    super::cut::note_removed(
        world,
        0..head,
        "reactive",
        "summarised away by reactive compact",
        Some(path.clone()),
    );
    let summary = summarizer::summarize(world, head, "reactive");
    let label = world.profile.strings.reactive_label();
    let summary = super::compact::summary_message(world, label, &summary, &path);
    let before = world.history.estimate();
    let kept = world.history.len() - head;
    world.history.splice(0, vec![summary], head);
    world.record(
        Event::new("reactive", "compact")
            .sizes(before, world.history.estimate())
            .reason(reason!("{head} messages summarised, last {kept} kept")),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::COURSE_MAIN;
    use crate::transcript::{Content, Message};

    fn texts(world: &World) -> Vec<String> {
        world
            .history
            .messages()
            .iter()
            .map(|m| match &m.content {
                Content::Text(text) => text.clone(),
                Content::Blocks(_) => "(blocks)".to_owned(),
            })
            .collect()
    }

    #[test]
    fn reactive_keeps_the_last_five_and_summarises_the_head() {
        let mut world = World::for_test(COURSE_MAIN);
        for i in 0..12 {
            world.push(Message::user_text(format!("m{i}")));
        }
        run(&mut world).unwrap();
        let texts = texts(&world);
        assert_eq!(texts.len(), 6);
        assert!(texts[0].starts_with("[Reactive compact]\n\n"));
        assert!(texts[0].contains("\"summary of 7 messages\""));
        assert_eq!(texts[1..], ["m7", "m8", "m9", "m10", "m11"]);
        assert_eq!(world.counters.model_calls, 1);
    }

    #[test]
    fn reactive_steps_back_over_a_tool_use_whose_result_starts_the_tail() {
        let mut world = World::for_test(COURSE_MAIN);
        for i in 0..6 {
            world.push(Message::user_text(format!("m{i}")));
        }
        world.turn(&[("t1", "bash", "out".to_owned())]);
        for i in 8..12 {
            world.push(Message::user_text(format!("m{i}")));
        }
        // tail_start = 12 - 5 = 7 is the result; the tool_use at 6 stays with it.
        run(&mut world).unwrap();
        assert_eq!(world.history.len(), 1 + 6);
        assert!(world.history.messages()[1].has_tool_use());
        assert!(texts(&world)[0].contains("\"summary of 6 messages\""));
    }
}
