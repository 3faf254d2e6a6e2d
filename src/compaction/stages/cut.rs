//! What the stages that cut messages out of the history share: snip's and reactive's pair
//! step-back at the tail (course s08 at f9e8b28, docs/profiles.md "pair protection"), and the trace
//! of every result that leaves the context, naming the archive that still holds it.

use std::rc::Rc;

use smallvec::SmallVec;

use crate::compaction::switches::SwitchName;
use crate::compaction::world::World;
use crate::trace::{Event, Reason};
use crate::transcript::{Message, Role};

/// Snip's and reactive's pair step-back at the tail: if the first kept message is a tool_result
/// message answering the tool_use just before it, keep that tool_use too.
pub(super) fn step_back_tail(world: &World, tail_start: usize) -> usize {
    let messages = world.history.messages();
    if world.profile.on(SwitchName::PairProtection)
        && tail_start > 0
        && tail_start < messages.len()
        && messages[tail_start].is_tool_result()
        && messages[tail_start - 1].has_tool_use()
    {
        tail_start - 1
    } else {
        tail_start
    }
}

/// Records, for every result in `messages[range]`, that it left the context and which
/// transcript (if any) holds it.
pub(super) fn note_removed(
    world: &mut World,
    range: std::ops::Range<usize>,
    stage: &'static str,
    how: impl Into<Reason>,
    transcript: Option<Rc<str>>,
) {
    // One copy of the words and the path for all the events; each reason is written only
    // when it is read.
    let how = Rc::new(how.into());
    // Inline for a few (a snip cuts a message or two, at almost every turn: issue 13).
    let mut removed: SmallVec<[_; 4]> = SmallVec::new();
    // The results of the range's user messages, in order, read from those messages only.
    let messages = &world.history.messages()[range];
    let users = messages
        .iter()
        .filter(|message| message.role == Role::User && !message.block_list().is_empty());
    for (id, content) in users.flat_map(Message::result_texts) {
        let kept = match world.ledger.results.get(id) {
            Some(record) if record.is_original => "verbatim",
            _ => "as replaced",
        };
        removed.push((*id, content.chars(), kept));
    }
    for (id, chars, kept) in removed {
        let (how, transcript) = (how.clone(), transcript.clone());
        let reason = Reason::lazy(move |f| match &transcript {
            Some(path) => write!(f, "{how}; the transcript {path} holds it {kept}"),
            None => write!(f, "{how}; no archive holds it"),
        });
        world.record(Event::new(stage, "cut").id(id).before(chars).reason(reason));
    }
}
