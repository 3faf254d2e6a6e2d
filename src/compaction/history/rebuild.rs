//! The history's rebuilds: a new list in place of the whole one (a compaction), keeping what
//! it can of the sizes already measured.

use super::{Derived, History, Sizes};
use crate::call_id::CallId;
use crate::compaction::profile::{Estimator, cline_plain_block, cline_plain_prompt};
use crate::hash::FastMap;
use crate::transcript::{Block, Content, Message, Role};

/// One message of the list a Cline fold leaves ([`History::replace_folded`]).
#[derive(Debug, PartialEq)]
pub(crate) enum Folded {
    /// A new message, with Cline's counts of it where they are known from its parts (as
    /// [`History::cline_counts`] gives them).
    New(Message, Option<(usize, Vec<usize>)>),
    /// The list's message `index`, a plain prompt ([`History::cline_plain`]), with `blocks`
    /// appended (none: as it stands), and Cline's counts of the whole.
    Extended {
        index: usize,
        blocks: Vec<Block>,
        counted: (usize, Vec<usize>),
    },
}

/// One message of a list [`History::rebuild`] builds.
#[derive(Debug, PartialEq)]
pub(crate) enum Part {
    /// The list's message at this index, moved into the new list with its sizes.
    Kept(usize),
    /// A new message, measured as it enters.
    New(Message),
}

impl History {
    /// Replaces the whole list (compact).
    pub(crate) fn replace_all(&mut self, messages: Vec<Message>) {
        let before = self.start_rebuild();
        for message in messages {
            self.push(message);
        }
        self.after_rebuild(before);
    }

    /// Cline's unrounded count of message `index` (`JSON.stringify(message).length`) and that of
    /// each of its tool_result contents, as measured when it entered.
    pub(crate) fn cline_counts(&self, index: usize) -> (usize, &[usize]) {
        let sizes = &self.sizes[index];
        (sizes.units, &sizes.content_units)
    }

    /// Whether message `index` is a prompt Cline's fold keeps as it stands
    /// ([`crate::compaction::profile::cline_plain_prompt`]), as noted when it entered.
    pub(crate) fn cline_plain(&self, index: usize) -> bool {
        self.sizes[index].plain
    }

    /// Replaces the whole list by a Cline fold's `parts`, whose last `tail` are new messages equal
    /// to the list's last `tail`: those take the sizes of the messages they equal (the fold keeps
    /// the latest turn as it is). A [`Folded::Extended`] prompt is moved into the new list and
    /// its blocks appended to, not copied, and a message whose Cline counts are known from its
    /// parts is not measured (issue 13: the fold merges every prompt of the session into one
    /// message, and copying, measuring and dropping it at every fold made Cline's work per turn
    /// grow with the session). Debug builds measure every counted message and compare.
    pub(crate) fn replace_folded(&mut self, parts: Vec<Folded>, tail: usize) {
        let (old, new) = (self.messages.len(), parts.len());
        assert!(
            tail <= old.min(new),
            "replace_folded: tail {tail} > {old}, {new}"
        );
        debug_assert!(
            parts[new - tail..]
                .iter()
                .zip(&self.messages[old - tail..])
                .all(|(part, kept)| matches!(part, Folded::New(message, _) if message == kept)),
            "replace_folded: the last {tail} parts are not the list's last {tail}"
        );
        // The prompts extended are taken out first; an empty text takes each one's place in the
        // list the pair watch reads, the same to it (neither holds a tool block).
        let mut bases = Vec::new();
        for part in &parts {
            if let Folded::Extended { index, .. } = *part {
                debug_assert!(
                    self.sizes[index].plain,
                    "message {index} is not a plain prompt"
                );
                let empty = Message::user_text(String::new());
                let message = std::mem::replace(&mut self.messages[index], empty);
                bases.push((message, std::mem::take(&mut self.derived[index])));
            }
        }
        let kept_sizes: Vec<Sizes> = self.sizes.drain(old - tail..).collect();
        let kept_derived: Vec<Derived> = self.derived.drain(old - tail..).collect();
        let before = self.start_rebuild();
        let cline = self.estimator == Estimator::ClineTokens;
        let mut bases = bases.into_iter();
        let mut parts = parts.into_iter();
        for part in parts.by_ref().take(new - tail) {
            match part {
                Folded::New(message, Some((units, content_units))) if cline => {
                    let plain = cline_plain_prompt(&message);
                    let sizes = Sizes::cline(units, content_units, plain);
                    debug_assert_eq!(sizes, self.measure(&message, &[]), "counted from parts");
                    self.push_sized(message, sizes, Derived::default());
                }
                Folded::New(message, _) => self.push(message),
                Folded::Extended {
                    blocks,
                    counted: (units, content_units),
                    ..
                } => {
                    let (mut message, derived) = bases.next().expect("a base for each extension");
                    let plain = blocks.iter().all(cline_plain_block);
                    let derived = if blocks.is_empty() {
                        derived
                    } else {
                        Derived::default()
                    };
                    if let Content::Blocks(own) = &mut message.content {
                        own.extend(blocks);
                    }
                    let sizes = Sizes::cline(units, content_units, plain);
                    debug_assert_eq!(sizes, self.measure(&message, &[]), "counted from parts");
                    self.push_sized(message, sizes, derived);
                }
            }
        }
        for ((part, sizes), derived) in parts.zip(kept_sizes).zip(kept_derived) {
            let Folded::New(message, _) = part else {
                panic!("replace_folded: an extended prompt among the last {tail}");
            };
            self.push_sized(message, sizes, derived);
        }
        self.after_rebuild(before);
    }

    /// Replaces the whole list by `parts`, in order: a [`Part::Kept`] message stays, with its
    /// sizes, and is neither copied nor measured again (issue 13: Codex's compaction keeps every
    /// real user message within its budget, a thousand of them late in a long session, and
    /// copying and measuring each at every compaction made its work per turn grow with the
    /// session). Kept indices must rise, and each must be a user message of text only (which
    /// takes no part in a tool_use/tool_result pair, so the pair watch needs only the messages
    /// that leave). When the new messages all come before or after the kept ones, the list is
    /// cut down in place to the kept messages; otherwise they are moved into a new one.
    pub(crate) fn rebuild(&mut self, parts: Vec<Part>) {
        let mut keep = vec![false; self.messages.len()];
        let mut next = 0;
        for part in &parts {
            if let Part::Kept(index) = *part {
                assert!(index >= next, "rebuild: kept index {index} after {next}");
                let message = &self.messages[index];
                debug_assert!(
                    message.role == Role::User && matches!(message.content, Content::Text(_)),
                    "rebuild: message {index} is not a user text"
                );
                keep[index] = true;
                next = index + 1;
            }
        }
        let is_new = |part: &Part| matches!(part, Part::New(_));
        let lead = parts.iter().take_while(|p| is_new(p)).count();
        let kept = parts[lead..].iter().take_while(|p| !is_new(p)).count();
        let at_edges = parts[lead + kept..].iter().all(is_new);
        // After an earlier cut in the same stage, the pair watch reads positions in the whole
        // list it replaces.
        let cut_before = matches!(self.watch, Some(Some(_)));
        if at_edges && !cut_before {
            self.rebuild_in_place(parts, &keep, lead);
        } else {
            self.rebuild_moving(parts);
        }
    }

    /// [`Self::rebuild`] by cutting the list down to the `keep` messages, then adding the new
    /// parts, the first `lead` before them and the rest after.
    fn rebuild_in_place(&mut self, parts: Vec<Part>, keep: &[bool], lead: usize) {
        // The messages before the first that leaves stay where they are, untouched (a
        // compaction's kept messages are mostly those the last one kept).
        let first = keep.iter().position(|k| !k).unwrap_or(keep.len());
        let keep = &keep[first..];
        // The messages that leave, in order, with one empty text for each run of kept ones
        // between them: the same intact pairs as the whole list, for the pair watch (a pair is
        // a call and the message right after it).
        let mut old = Vec::new();
        if self.watch.is_some() {
            old.reserve(keep.len());
            let mut in_run = false;
            for (message, &kept) in self.messages[first..].iter_mut().zip(keep) {
                if !kept {
                    old.push(std::mem::replace(
                        message,
                        Message::user_text(String::new()),
                    ));
                } else if !in_run {
                    old.push(Message::user_text(String::new()));
                }
                in_run = kept;
            }
        }
        let leaving = self.sizes[first..]
            .iter()
            .zip(keep)
            .filter(|(_, kept)| !**kept);
        self.sum -= leaving.map(|(sizes, _)| sizes.total).sum::<usize>();
        retain_from(&mut self.messages, first, keep);
        retain_from(&mut self.sizes, first, keep);
        retain_from(&mut self.derived, first, keep);
        self.rebuilding(old);
        // A kept user text holds no id: the index starts again from the new messages.
        let before = self.result_ids.take_all();
        let mut new = parts.into_iter().filter_map(|part| match part {
            Part::New(message) => Some(message),
            Part::Kept(_) => None,
        });
        let first: Vec<Message> = new.by_ref().take(lead).collect();
        if !first.is_empty() {
            let sizes: Vec<Sizes> = first.iter().map(|m| self.measure(m, &[])).collect();
            self.sum += sizes.iter().map(|s| s.total).sum::<usize>();
            for message in &first {
                self.result_ids.count(message, true);
            }
            let derived = first.iter().map(|_| Derived::default());
            self.derived.splice(0..0, derived.collect::<Vec<_>>());
            self.sizes.splice(0..0, sizes);
            self.messages.splice(0..0, first);
        }
        for message in new {
            self.push(message);
        }
        self.after_rebuild(before);
    }

    /// [`Self::rebuild`] into a new list: each kept message is moved there with its sizes, an
    /// empty text left in its place.
    fn rebuild_moving(&mut self, parts: Vec<Part>) {
        let parts: Vec<(Message, Option<(Sizes, Derived)>)> = parts
            .into_iter()
            .map(|part| match part {
                Part::Kept(index) => {
                    let slot = &mut self.messages[index];
                    let message = std::mem::replace(slot, Message::user_text(String::new()));
                    let sizes = std::mem::take(&mut self.sizes[index]);
                    let derived = std::mem::take(&mut self.derived[index]);
                    (message, Some((sizes, derived)))
                }
                Part::New(message) => (message, None),
            })
            .collect();
        let before = self.start_rebuild();
        for (message, known) in parts {
            match known {
                Some((sizes, derived)) => self.push_sized(message, sizes, derived),
                None => self.push(message),
            }
        }
        self.after_rebuild(before);
    }

    /// Empties the list for a rebuild; returns the result ids it held.
    fn start_rebuild(&mut self) -> FastMap<CallId, usize> {
        self.before_rebuild();
        let before = self.result_ids.take_all();
        self.sizes.clear();
        self.derived.clear();
        self.sum = 0;
        before
    }

    /// Notes the results the rebuilt list no longer holds (`before`: those the old one held).
    fn after_rebuild(&mut self, mut before: FastMap<CallId, usize>) {
        let index = &mut self.result_ids;
        index.gone.extend(
            before
                .drain()
                .map(|(id, _)| id)
                .filter(|id| !index.counts.contains_key(id)),
        );
        index.recycle(before);
    }
}

/// Keeps the items of `items[first..]` that `keep` marks (`keep[i]` for `items[first + i]`), in
/// order, without moving those before `first` or allocating.
fn retain_from<T>(items: &mut Vec<T>, first: usize, keep: &[bool]) {
    let mut kept = first;
    for (index, &stays) in keep.iter().enumerate() {
        if stays {
            items.swap(kept, first + index);
            kept += 1;
        }
    }
    items.truncate(kept);
}
