//! The transcript archive: whole histories written as JSONL before snip, compact and reactive cut
//! them (course s08 `write_transcript` at f9e8b28, negentropy 173-claude-code-memory-management.md
//! §3; docs/profiles.md), and the session transcript Claude Code appends every message to as it
//! enters the history (v2.1.88 `sessionStorage.ts`; docs/profiles.md). What an archive holds
//! decides whether a result that left the context is still recoverable (finding F9, C5).

use std::rc::Rc;

use smallvec::SmallVec;

use crate::call_id::CallId;
use crate::compaction::profile::TranscriptName;
use crate::compaction::store::{Store, join_normal_into};
use crate::compaction::world::{Archive, Ledger, TranscriptRecord, World};
use crate::error::RunError;
use crate::python::json::Dialect;
use crate::scenario::StoreDir;
use crate::trace::{Event, Reason, reason};
use crate::transcript::{Block, Content, Message, Role};

/// Writes the whole history to the transcript archive as `transcript_{n:032x}.jsonl` (or the
/// profile's name), marks the results it holds verbatim, and returns its path. The path is
/// written into the world's path buffer and shared from there by the record, the trace and the
/// caller (issue 13: course-latest archives at almost every turn, and its name, its path, the
/// record's copy and the cut's copy were a string each).
pub(crate) fn write_transcript(
    world: &mut World,
    stage: &'static str,
) -> Result<Rc<str>, RunError> {
    let (naming, count, step) = (
        world.profile.transcript_name,
        world.archive.transcripts.len(),
        world.clock.step,
    );
    let shared = transcript_path(world, |path| match naming {
        TranscriptName::Counter => push_counter_name(path, count),
        TranscriptName::EpochSeconds(epoch) => {
            let seconds = epoch + step as u64;
            // Writing into a string cannot fail.
            let _ = std::fmt::Write::write_fmt(path, format_args!("transcript_{seconds}.jsonl"));
        }
    });
    let (dialect, expected) = if world.profile.transcript_ascii {
        (Dialect::JsonAscii, world.history.jsonl_ascii_chars())
    } else {
        (Dialect::Json, world.history.jsonl_chars())
    };
    let chars = world
        .store
        .write_transcript(&shared, world.history.messages(), dialect, expected)
        .map_err(RunError::store(&shared))?;
    let Held {
        originals,
        placeholders,
        first_copies,
    } = held(world, &shared);
    for id in first_copies {
        let reason = Reason::naming(shared.clone(), |f, path| {
            write!(f, "{path} holds its original text")
        });
        world.record(Event::new(stage, "archive").id(id).reason(reason));
    }
    world.archive.transcripts.push(TranscriptRecord {
        path: shared.clone(),
        stage,
        step: world.clock.step,
        messages: world.history.len(),
        chars,
        originals,
        placeholders,
    });
    let messages = world.history.len();
    let written = shared.clone();
    world.record(Event::new(stage, "archive").after(chars).reason(reason!(
        "wrote {written}: {messages} messages, {originals} results verbatim, {placeholders} replaced"
    )));
    Ok(shared)
}

/// The path of the transcript named by `write_name`, written into the world's path buffer
/// and shared from there.
fn transcript_path(world: &mut World, write_name: impl FnOnce(&mut String)) -> Rc<str> {
    let mut path = std::mem::take(&mut world.path_buffer);
    join_normal_into(&mut path, &world.transcript_dir, NAME_ROOM, write_name);
    let shared = Rc::from(path.as_str());
    world.path_buffer = path;
    shared
}

/// What the history's user messages hold for a transcript: how many tool_result blocks hold
/// their result's original text and how many do not, and the results whose original no
/// transcript held before, in the order they first appear (now marked archived).
#[derive(Debug, PartialEq)]
struct Held {
    originals: usize,
    placeholders: usize,
    first_copies: FirstCopies,
}

/// The results a transcript holds first, inline for up to four (issue 13: course-latest's
/// transcripts, one at almost every turn, most hold one new result each).
type FirstCopies = SmallVec<[CallId; 4]>;

/// [`Held`] for a transcript at `path`, noting in [`crate::compaction::holds::Holds`] what it
/// holds when a step reads that. When nothing reads it, the counts are kept between transcripts
/// ([`crate::compaction::holds::Tally`]) and only the results whose count or ledger record
/// changed since the last one are looked up (issue 13: course-latest archives at almost every
/// turn, and looked up every result each time). A record's original or archived flag changes
/// only where the history's index is told (`World::replace_result_grown`, a removed file,
/// Kilo's erase) or where its block arrives; debug builds check every kept count against a
/// full count.
fn held(world: &mut World, path: &str) -> Held {
    if world.archive.holds.unread && world.archive.tally.kept {
        let mut changed = std::mem::take(&mut world.archive.tally.changed);
        if world.history.take_result_changes_into(&mut changed) {
            #[cfg(debug_assertions)]
            let counted = count_held(world, None);
            let held = tallied(world, &changed);
            #[cfg(debug_assertions)]
            assert_eq!(held, counted, "the kept tally differs from a full count");
            mark_archived(world, &held.first_copies);
            world.archive.tally.used = true;
            world.archive.tally.changed = changed;
            return held;
        }
        world.archive.tally.changed = changed;
        // Counts kept for nothing (the history was rebuilt before any transcript used them)
        // are not kept again: keeping them costs every change of the history.
        let tally = &mut world.archive.tally;
        tally.refused |= !tally.used;
    }
    let held = count_held(world, Some(path));
    if !world.archive.holds.unread {
        return held;
    }
    if world.archive.tally.refused {
        world.archive.tally.clear();
        world.history.watch_result_changes(false);
    } else {
        keep_tally(world);
    }
    held
}

/// [`Held`] counted over every tool_result block of the history's user messages. With the
/// transcript's path (`archived_at`), each first copy is marked archived where it is met, so
/// that a second block of its id is not one, and each original is noted as held there when a
/// step reads that; without, nothing changes (debug builds' check of a kept tally) and the
/// first copies found are searched instead.
fn count_held(world: &mut World, archived_at: Option<&str>) -> Held {
    let mark = archived_at.is_some();
    let noted = archived_at.filter(|_| !world.archive.holds.unread);
    let (mut originals, mut placeholders) = (0, 0);
    let mut first_copies = FirstCopies::new();
    let users = world
        .history
        .messages()
        .iter()
        .filter(|m| m.role == Role::User);
    for block in users.flat_map(Message::block_list) {
        let Block::ToolResult {
            tool_use_id: id, ..
        } = block
        else {
            continue;
        };
        match world.ledger.results.get_mut(id) {
            Some(record) if record.is_original => {
                if !record.archived_verbatim && (mark || !first_copies.contains(id)) {
                    record.archived_verbatim = mark;
                    first_copies.push(*id);
                }
                if let Some(path) = noted {
                    world.archive.holds.note(path, id);
                }
                originals += 1;
            }
            _ => placeholders += 1,
        }
    }
    Held {
        originals,
        placeholders,
        first_copies,
    }
}

/// [`Held`] from the tally of the last transcript and the results that changed since: each
/// changed id's count and record are read again.
fn tallied(world: &mut World, changed: &[CallId]) -> Held {
    let mut fresh = FirstCopies::new();
    for &id in changed {
        let count = world.history.result_count(&id);
        let record = world.ledger.results.get(&id);
        let original = record.is_some_and(|r| r.is_original);
        world.archive.tally.set(&id, count, original);
        let unarchived = record.is_some_and(|r| !r.archived_verbatim);
        if count > 0 && original && unarchived && !fresh.contains(&id) {
            fresh.push(id);
        }
    }
    let tally = &world.archive.tally;
    Held {
        originals: tally.originals,
        placeholders: tally.blocks - tally.originals,
        first_copies: in_history_order(world, fresh),
    }
}

/// `ids` (each held by the history) ordered by where each first appears. The history is read
/// from its end, where new results are, until every id was met; an id held more than once is
/// placed by a read from the start.
fn in_history_order(world: &World, ids: FirstCopies) -> FirstCopies {
    if ids.len() < 2 {
        return ids;
    }
    let once = ids.iter().all(|id| world.history.result_count(id) == 1);
    let mut at: Vec<Option<(usize, usize)>> = vec![None; ids.len()];
    let mut missing = ids.len();
    let messages = world.history.messages();
    let users = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User);
    let users: Box<dyn Iterator<Item = (usize, &Message)>> = if once {
        Box::new(users.rev())
    } else {
        Box::new(users)
    };
    'messages: for (mi, message) in users {
        for (bi, block) in message.block_list().iter().enumerate() {
            let Block::ToolResult { tool_use_id, .. } = block else {
                continue;
            };
            let Some(i) = ids.iter().position(|id| id == tool_use_id) else {
                continue;
            };
            if at[i].is_none() {
                at[i] = Some((mi, bi));
                missing -= 1;
                if once && missing == 0 {
                    break 'messages;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| at[i]);
    order.into_iter().map(|i| ids[i]).collect()
}

/// Marks each result as held verbatim by a transcript.
fn mark_archived(world: &mut World, ids: &[CallId]) {
    for id in ids {
        if let Some(record) = world.ledger.results.get_mut(id) {
            record.archived_verbatim = true;
        }
    }
}

/// Counts what the history holds into the tally and has the history keep the changes from
/// here on, when no message other than the user's holds a tool_result block (else the next
/// transcript counts in full again).
fn keep_tally(world: &mut World) {
    let messages = world.history.messages();
    let clean = messages
        .iter()
        .filter(|m| m.role != Role::User)
        .all(|m| m.tool_results().next().is_none());
    let tally = &mut world.archive.tally;
    tally.clear();
    if clean {
        for (id, count) in world.history.result_counts() {
            let original = world.ledger.results.get(id).is_some_and(|r| r.is_original);
            tally.set(id, count, original);
        }
        tally.kept = true;
    }
    world.history.watch_result_changes(clean);
}

/// The room a transcript's name takes: `transcript_`, 32 hex digits and `.jsonl`.
const NAME_ROOM: usize = 49;

/// Appends `transcript_{n:032x}.jsonl` to `out`, its 32 hex digits written by hand:
/// course-latest archives at almost every turn, and `format!`'s padded hex cost more than the
/// rest of the name (issue 13).
fn push_counter_name(out: &mut String, n: usize) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Zeros, then the number's digits from the right: a char pushed at a time cost an
    // encoding each (course-latest names about 3 000).
    let mut digits = [b'0'; 32];
    let (mut n, mut at) = (n, digits.len());
    while n > 0 {
        at -= 1;
        digits[at] = DIGITS[n & 0xf];
        n >>= 4;
    }
    out.push_str("transcript_");
    out.push_str(std::str::from_utf8(&digits).expect("hex digits are ASCII"));
    out.push_str(".jsonl");
}

/// Starts the session transcript (`transcript_dir/session.jsonl`) of profiles that keep one.
pub(crate) fn open_session(world: &mut World) {
    let name = world
        .profile
        .session_file
        .expect("only a profile with a session file opens one");
    let path = world.path_in(StoreDir::Transcript, name);
    world.archive.transcripts.push(TranscriptRecord {
        path: path.into(),
        stage: "session",
        step: world.clock.step,
        messages: 0,
        chars: 0,
        originals: 0,
        placeholders: 0,
    });
    world.archive.session = Some(world.archive.transcripts.len() - 1);
}

/// The session transcript's path, if the profile keeps one (shared with its record).
pub(crate) fn session_path(world: &World) -> Option<Rc<str>> {
    world
        .archive
        .session
        .map(|i| world.archive.transcripts[i].path.clone())
}

/// Appends messages to the session transcript, if the profile keeps one, and marks the results
/// they hold verbatim as archived.
pub(crate) fn log_session(world: &mut World, messages: &[Message]) -> Result<(), RunError> {
    if world.archive.session.is_none() {
        return Ok(());
    }
    let chars = messages.iter().map(|m| m.json_chars() + 1).sum();
    match SessionLog::of(&mut world.store, &mut world.ledger, &mut world.archive) {
        Some(mut log) => log.append(messages, chars),
        None => Ok(()),
    }
}

/// Appends the whole history to the session transcript, if the profile keeps one (a compacted
/// history, as Codex's rollout records it), in one write: each line's length is the history's,
/// known for every message it kept from before (issue 13).
pub(crate) fn log_history(world: &mut World) -> Result<(), RunError> {
    if world.archive.session.is_none() {
        return Ok(());
    }
    let chars = world.history.jsonl_chars();
    match SessionLog::of(&mut world.store, &mut world.ledger, &mut world.archive) {
        Some(mut log) => log.append(world.history.messages(), chars),
        None => Ok(()),
    }
}

/// The parts of the world a session-log entry changes, borrowed beside the history.
struct SessionLog<'a> {
    store: &'a mut dyn Store,
    ledger: &'a mut Ledger,
    archive: &'a mut Archive,
    /// The session transcript's record.
    index: usize,
}

impl<'a> SessionLog<'a> {
    /// The session transcript, if the profile keeps one, with the parts of the world an entry
    /// changes.
    fn of(
        store: &'a mut Box<dyn Store>,
        ledger: &'a mut Ledger,
        archive: &'a mut Archive,
    ) -> Option<Self> {
        let index = archive.session?;
        Some(SessionLog {
            store: store.as_mut(),
            ledger,
            archive,
            index,
        })
    }

    /// Logs messages whose JSON lines are `chars` long (their newlines included) and marks the
    /// results they hold verbatim as archived.
    fn append(&mut self, messages: &[Message], chars: usize) -> Result<(), RunError> {
        let path = &self.archive.transcripts[self.index].path;
        self.store
            .append_transcript(path, messages, chars)
            .map_err(RunError::store(path))?;
        let mut originals = 0;
        let mut placeholders = 0;
        // A compacted history is mostly texts: only a message of blocks is read for results.
        let blocks = messages
            .iter()
            .filter(|m| matches!(m.content, Content::Blocks(_)));
        for (id, _) in blocks.flat_map(Message::tool_results) {
            match self.ledger.results.get_mut(id) {
                Some(record) if record.is_original => {
                    record.archived_verbatim = true;
                    let Archive {
                        transcripts, holds, ..
                    } = &mut *self.archive;
                    holds.note(&transcripts[self.index].path, id);
                    originals += 1;
                }
                _ => placeholders += 1,
            }
        }
        let record = &mut self.archive.transcripts[self.index];
        record.messages += messages.len();
        record.chars += chars;
        record.originals += originals;
        record.placeholders += placeholders;
        Ok(())
    }
}

/// Logs one message whose JSON line is `chars` long (the newline included) to the session
/// transcript, if the profile keeps one.
pub(crate) fn log_sized(
    world: &mut World,
    message: &Message,
    chars: usize,
) -> Result<(), RunError> {
    match SessionLog::of(&mut world.store, &mut world.ledger, &mut world.archive) {
        Some(mut log) => log.append(std::slice::from_ref(message), chars),
        None => Ok(()),
    }
}

/// Logs the newest message of the history to the session transcript (a result batch, once the
/// profile's arrival rule has run), without copying it: its JSON length is the history's.
pub(crate) fn log_newest(world: &mut World) -> Result<(), RunError> {
    let Some(last) = world.history.len().checked_sub(1) else {
        return Ok(());
    };
    if world.archive.session.is_none() {
        return Ok(());
    }
    let chars = world.history.json_chars_at(last) + 1;
    match SessionLog::of(&mut world.store, &mut world.ledger, &mut world.archive) {
        Some(mut log) => log.append(std::slice::from_ref(&world.history.messages()[last]), chars),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::{CLAUDE_CODE, COURSE_MAIN, COURSE_SITE};

    /// The hand-written counter name is `format!`'s zero-padded lower-case hex.
    #[test]
    fn a_counter_name_is_32_hex_digits() {
        for n in [0, 1, 9, 10, 15, 16, 255, 4096, 0xdead_beef, usize::MAX] {
            let mut name = String::from("kept ");
            push_counter_name(&mut name, n);
            assert_eq!(name, format!("kept transcript_{n:032x}.jsonl"));
        }
    }

    #[test]
    fn the_site_writes_transcripts_ascii_escaped_and_main_raw() {
        // Case E: `json.dumps(msg, default=str)` keeps ensure_ascii=True at the site, so the
        // request "é😀" is written `"\u00e9\ud83d\ude00"`: 6 + 12 chars instead of 2.
        let line = |profile| {
            let mut world = World::for_test(profile);
            world.push(Message::user_text("é😀"));
            write_transcript(&mut world, "compact").unwrap();
            world.archive.transcripts[0].chars
        };
        // {"role": "user", "content": "é😀"} is 33 characters, and the newline.
        assert_eq!(line(COURSE_MAIN), 34);
        assert_eq!(line(COURSE_SITE), 34 - 2 + 18);
    }

    #[test]
    fn a_transcript_counts_originals_and_replaced_results() {
        let mut world = World::for_test(COURSE_MAIN);
        world.turn(&[
            ("t0", "bash", "x".repeat(10)),
            ("t1", "bash", "y".repeat(10)),
        ]);
        world.replace_result(1, 1, "[Earlier tool result omitted.]", "micro", "r");
        let path = write_transcript(&mut world, "snip").unwrap();
        assert_eq!(
            *path,
            format!("/lab/.transcripts/transcript_{:032x}.jsonl", 0)
        );
        // The record and the caller share the path.
        assert!(Rc::ptr_eq(&path, &world.archive.transcripts[0].path));
        let record = &world.archive.transcripts[0];
        assert_eq!(
            (record.messages, record.originals, record.placeholders),
            (2, 1, 1)
        );
        assert_eq!(record.chars, world.history.jsonl_chars());
        assert!(world.ledger.results[&CallId::new("t0")].archived_verbatim);
        assert!(!world.ledger.results[&CallId::new("t1")].archived_verbatim);
        // A second archive names the next counter and notes no first copy again.
        write_transcript(&mut world, "compact").unwrap();
        let first_copies = world
            .trace
            .iter()
            .filter(|e| e.kind == "archive" && e.id.is_some())
            .count();
        assert_eq!(first_copies, 1);
        assert!(
            world.archive.transcripts[1]
                .path
                .ends_with(&format!("{:032x}.jsonl", 1))
        );
    }

    #[test]
    fn the_session_transcript_grows_by_one_line_per_message() {
        let mut world = World::for_test(CLAUDE_CODE);
        assert_eq!(session_path(&world), None);
        open_session(&mut world);
        let message = Message::user_text("hello");
        log_session(&mut world, &[message.clone(), message.clone()]).unwrap();
        let record = &world.archive.transcripts[0];
        assert_eq!(
            *record.path,
            format!("/lab/.transcripts/{}", CLAUDE_CODE.session_file.unwrap())
        );
        assert_eq!(record.messages, 2);
        assert_eq!(record.chars, 2 * (message.json_line().len() + 1));
    }
}
