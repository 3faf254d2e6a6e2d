//! The history's rebuilds: a new list in place of the whole one (a compaction), keeping what
//! it can of the sizes already measured.

use super::{Derived, History, Sizes};
use crate::call_id::CallId;
use crate::compaction::profile::Estimator;
use crate::hash::FastMap;
use crate::transcript::{Content, Message, Role};

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
        self.replace_all_counted(messages, Vec::new(), 0);
    }

    /// Cline's unrounded count of message `index` (`JSON.stringify(message).length`) and that of
    /// each of its tool_result contents, as measured when it entered.
    pub(crate) fn cline_counts(&self, index: usize) -> (usize, &[usize]) {
        let sizes = &self.sizes[index];
        (sizes.units, &sizes.content_units)
    }

    /// [`Self::replace_all`] by a list whose last `tail` messages are the history's last `tail`,
    /// unchanged (Cline's fold keeps the latest turn): those keep their sizes, not measured again.
    /// Cline's counts of some new messages (`counted[i]`, as [`Self::cline_counts`] gives them)
    /// are known from their parts: those are not measured either (issue 13: Cline's fold merges
    /// every prompt into one message that grows with the session). Debug builds measure them and
    /// compare.
    pub(crate) fn replace_all_counted(
        &mut self,
        messages: Vec<Message>,
        counted: Vec<Option<(usize, Vec<usize>)>>,
        tail: usize,
    ) {
        let (old, new) = (self.messages.len(), messages.len());
        assert!(
            tail <= old.min(new),
            "replace_all_counted: {tail} > {old}, {new}"
        );
        debug_assert!(self.messages[old - tail..] == messages[new - tail..]);
        let kept_sizes: Vec<Sizes> = self.sizes.drain(old - tail..).collect();
        let kept_derived: Vec<Derived> = self.derived.drain(old - tail..).collect();
        let before = self.start_rebuild();
        let cline = self.estimator == Estimator::ClineTokens;
        let mut counted = counted.into_iter().chain(std::iter::repeat_with(|| None));
        let mut messages = messages.into_iter();
        for message in messages.by_ref().take(new - tail) {
            match counted.next().flatten().filter(|_| cline) {
                Some((units, content_units)) => {
                    let sizes = Sizes::cline(units, content_units);
                    debug_assert_eq!(sizes, self.measure(&message, &[]), "counted from parts");
                    self.push_sized(message, sizes, Derived::default());
                }
                None => self.push(message),
            }
        }
        for ((message, sizes), derived) in messages.zip(kept_sizes).zip(kept_derived) {
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
