//! Claude Code's TodoWrite reminder (v2.1.88 `utils/attachments.ts` getTodoReminderAttachments
//! and TODO_REMINDER_CONFIG; D3 of docs/probe.md, probed: p09). Before a request the agent counts,
//! from the end of the history, its assistant records (one per content block: a response of ten
//! tool_use blocks is ten records) since the last TodoWrite call and since the last reminder;
//! when both are at least 10 (and TodoWrite is among its tools) it attaches a reminder, which
//! reaches the API appended after `\n\n` to the last tool_result of the last user message. The
//! reminder is vendor prompt text, so the profile appends it in the form a conformance record
//! keeps it, its length and sha256 (`<hashed chars=481 sha256=…>`); switch `todo_reminder`.

use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::python::json::{char_len, json_str_chars};
use crate::trace::{Event, reason};
use crate::transcript::{Block, Content, ResultText, Role};

/// The reminder as a record keeps it: 2.1.88's `<system-reminder>` of the TodoWrite nudge with
/// an empty todo list, 481 chars, hashed (measured in p09).
pub(crate) const REMINDER: &str =
    "<hashed chars=481 sha256=e772a4c2d4dca32caa6225bb2069468ec912a450c3e5b2f9219d4d7e5b1d9b24>";

/// TURNS_SINCE_WRITE and TURNS_BETWEEN_REMINDERS.
const TURNS: usize = 10;

/// Assistant records since the last TodoWrite call and since the last reminder, counted from
/// the end as `getTodoReminderTurnCounts` counts them (the TodoWrite record itself not counted),
/// when both are at least [`TURNS`] (a reminder is due); `None` otherwise, as soon as the walk
/// shows that one of them stays below (the rest of the history need not be read).
fn turn_counts(world: &World) -> Option<(usize, usize)> {
    let (mut since_write, mut since_reminder) = (0, 0);
    let (mut write_found, mut reminder_found) = (false, false);
    for message in world.history.messages().iter().rev() {
        match message.role {
            Role::Assistant => {
                let mut count = |todo_write: bool| {
                    write_found |= todo_write;
                    since_write += usize::from(!write_found);
                    since_reminder += usize::from(!reminder_found);
                };
                match &message.content {
                    Content::Text(_) => count(false),
                    Content::Blocks(blocks) => {
                        for block in blocks.iter().rev() {
                            count(
                                matches!(block, Block::ToolUse { name, .. } if name == "TodoWrite"),
                            );
                        }
                    }
                }
            }
            _ => {
                reminder_found |= message.block_list().iter().any(|b| {
                    matches!(b, Block::ToolResult { content, .. } if content.ends_with(REMINDER))
                });
            }
        }
        if (write_found && since_write < TURNS) || (reminder_found && since_reminder < TURNS) {
            return None;
        }
        if write_found && reminder_found {
            break;
        }
    }
    (since_write >= TURNS && since_reminder >= TURNS).then_some((since_write, since_reminder))
}

/// Appends the reminder to the last tool_result of the newest message (a batch of results)
/// when it is due.
pub(crate) fn run(world: &mut World) {
    if !world.profile.on(SwitchName::TodoReminder) {
        return;
    }
    let message = world.history.len() - 1;
    let Some(block) = world.history.messages()[message]
        .block_list()
        .iter()
        .rposition(|b| matches!(b, Block::ToolResult { .. }))
    else {
        return;
    };
    let Some((since_write, since_reminder)) = turn_counts(world) else {
        return;
    };
    let (id, content) = world.history.result_at(message, block);
    let tail = format!("\n\n{REMINDER}");
    let mut appended = String::with_capacity(content.len() + tail.len());
    appended.push_str(content);
    appended.push_str(&tail);
    // What is appended is known: the text's characters and `json.dumps` length grow by its
    // own (less the quotes), and the text is not read again to count them.
    let chars = world.history.result_chars(message, block) + char_len(&tail);
    let grown = json_str_chars(&tail) - 2;
    let id = id.to_owned();
    let appended = ResultText::counted(appended, chars);
    world
        .history
        .set_result_grown(message, block, appended, Some(grown));
    world.record(
        Event::new("todo_reminder", "append")
            .id(id)
            .reason(reason!(
                "{since_write} assistant records since TodoWrite, {since_reminder} since the last reminder (≥ {TURNS})"
            )),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CLAUDE_CODE;
    use crate::compaction::stages::arrival::deliver;
    use crate::compaction::world::IncomingResult;
    use crate::transcript::Message;

    fn turn(world: &mut World, ids: &[&str], tool: &str) {
        let calls: Vec<(&str, &str)> = ids.iter().map(|id| (*id, tool)).collect();
        world.history.push(Message::tool_uses(&calls));
        let batch = ids
            .iter()
            // Sizes known on entry, as a replay knows them: the history keeps the results'
            // `json.dumps` lengths from there on.
            .map(|id| IncomingResult::measured(*id, tool, format!("out {id}")))
            .collect();
        deliver(world, batch).unwrap();
    }

    #[test]
    fn appended_after_ten_records_and_again_ten_later() {
        let mut world = World::for_test(CLAUDE_CODE);
        let ten: Vec<String> = (0..10).map(|i| format!("a{i}")).collect();
        let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
        turn(&mut world, &ten, "Bash");
        // p09: ten tool_use blocks are ten records; the last result of the batch carries it.
        assert_eq!(
            world.result("a9"),
            Some(format!("out a9\n\n{REMINDER}").as_str())
        );
        assert_eq!(world.result("a8"), Some("out a8"));
        // The appended text's characters and `json.dumps` length are counted, not measured:
        // they are the text's.
        let message = world.history.len() - 1;
        let (_, text) = world.history.result_at(message, 9);
        let (chars, json) = (text.chars().count(), json_str_chars(text));
        assert_eq!(world.history.result_chars(message, 9), chars);
        assert_eq!(world.history.result_json(message, 9), Some(json));
        for i in 0..9 {
            turn(&mut world, &[&format!("b{i}")], "Bash");
            assert_eq!(
                world.result(&format!("b{i}")),
                Some(format!("out b{i}").as_str())
            );
        }
        turn(&mut world, &["c"], "Bash");
        assert_eq!(
            world.result("c"),
            Some(format!("out c\n\n{REMINDER}").as_str())
        );
        // Nine records after the reminder on c the walk stops at it: none is due.
        assert_eq!(turn_counts(&world), None);
        for i in 0..9 {
            turn(&mut world, &[&format!("d{i}")], "Bash");
        }
        assert_eq!(turn_counts(&world), None);
        // The tenth: both counts reach 10 (no TodoWrite: every record since the start counts).
        world.history.push(Message::tool_uses(&[("d9", "Bash")]));
        assert_eq!(turn_counts(&world), Some((30, 10)));
        // A TodoWrite call restarts the count (its own record not counted); switched off,
        // nothing is appended.
        turn(&mut world, &["w"], "TodoWrite");
        assert_eq!(turn_counts(&world), None);
        let mut off = CLAUDE_CODE;
        off.switches.todo_reminder = false;
        let mut world = World::for_test(off);
        turn(&mut world, &ten, "Bash");
        assert_eq!(world.result("a9"), Some("out a9"));
    }
}
