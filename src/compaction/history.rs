//! The history a request sends: the message list with a size estimate kept up to date on every
//! change, and the message pinned before it (Claude Code's CLAUDE.md user context). Checking the
//! limit never re-serialises the whole history, so the replay cost stays linear in the turns; a
//! test holds the incremental estimate equal to the profile's full serialisation
//! (docs/profiles.md). Each string is measured once: a message's size and the size of every
//! tool_result content in it are kept, so replacing a result, cutting the middle out or archiving
//! the list rescans nothing kept.

use std::ops::Range;

mod rebuild;
pub(crate) use rebuild::{Folded, Part};

use crate::call_id::CallId;
use crate::compaction::pairs::{Before, PairCheck};
use crate::compaction::profile::Estimator;
use crate::compaction::profile::{cline_plain_prompt, cline_round, cline_units};
use crate::compaction::result_index::ResultIndex;
use crate::compaction::tool_uses::ClearIndex;
use crate::python::json::{ContentSizes, js_str_units, json_str_chars};
use crate::transcript::{Block, Content, Message, ResultText, Role, TextSizes};
use smallvec::SmallVec;

/// The estimator's sizes of one message: the whole, and each tool_result content string.
#[derive(Debug, Default, PartialEq)]
struct Sizes {
    total: usize,
    contents: ContentSizes,
    /// Cline's estimate rounds per message, so a changed result cannot be added to the rounded
    /// total: its unrounded UTF-16 length of `JSON.stringify`, and that of each tool_result
    /// content (0 and empty under the other estimators).
    units: usize,
    content_units: Vec<usize>,
    /// Whether the message is a prompt Cline's fold keeps as it stands
    /// ([`cline_plain_prompt`]; false under the other estimators).
    plain: bool,
}

impl Sizes {
    /// Cline's sizes of a message of `units` UTF-16 units of JSON whose tool_result contents
    /// count `content_units`: its estimate rounds per message, each content's per content.
    fn cline(units: usize, content_units: Vec<usize>, plain: bool) -> Self {
        Sizes {
            total: cline_round(units),
            contents: content_units.iter().map(|u| u.div_ceil(3)).collect(),
            units,
            content_units,
            plain,
        }
    }
}

/// What is measured of a message only once a stage asks for it.
#[derive(Debug, Default, Clone)]
struct Derived {
    /// Its `json.dumps` length (a profile whose estimate is not that length, for an archive).
    json: Option<usize>,
    /// Its tool_result contents' `json.dumps` lengths, in block order, known when it entered:
    /// its own length is counted from them when first asked for (most profiles never ask).
    content_json: Option<SmallVec<[usize; 4]>>,
    /// Per tool_result content, in block order: whether it holds [`MASKED_MARK`]. Both lists
    /// are kept inline for a message of a few results (issue 13: two allocations a message,
    /// each taking a block long out of the cache).
    masked: Option<SmallVec<[bool; 8]>>,
}

impl Derived {
    /// The message's `json.dumps` length, counted once.
    #[inline]
    fn json(&mut self, message: &Message) -> usize {
        let known = &self.content_json;
        *self.json.get_or_insert_with(|| match known {
            Some(known) => message.json_chars_known(known),
            None => message.json_chars(),
        })
    }
}

/// The tag of Gemini CLI's masked tool output (`<tool_output_masked>`), whose presence in an
/// output makes the masking scan pass it over.
pub(crate) const MASKED_MARK: &str = "<tool_output_masked";

/// The message list with a size estimate kept up to date on every change.
#[derive(Debug)]
pub(crate) struct History {
    estimator: Estimator,
    messages: Vec<Message>,
    /// Per message, its size and the sizes of its tool_result contents (in block order).
    sizes: Vec<Sizes>,
    sum: usize,
    /// Per message, what a stage has needed to know of it beyond its sizes (measured once,
    /// forgotten when the message changes).
    derived: Vec<Derived>,
    /// A message sent before the history on every request and never compacted (Claude Code's
    /// CLAUDE.md context), with its size.
    pinned: Option<(Message, usize)>,
    /// How many messages at the head of the list a request sends before the pinned one (Claude
    /// Code's post-compact file attachments, which the API normalisation moves above the user
    /// context, D9 of docs/probe.md); 0 again once the list is cut or rebuilt.
    lead: usize,
    /// While a stage runs: what it takes to tell which intact pairs of the list as it was
    /// before the stage first cut or rebuilt it the stage splits (`Some(None)`: not cut yet).
    /// See [`Self::watch_pairs`].
    watch: Option<Option<Before>>,
    /// How much of the list pair repair has found intact; restarted when the list is cut or
    /// rebuilt (appending and replacing a result's text change no pair).
    pair_check: PairCheck,
    /// How many messages the session may append: room for them all is made once the list
    /// holds [`ROOM_AFTER`].
    expected: usize,
    /// The tool_result ids the list holds.
    result_ids: ResultIndex,
    /// `(message, block)` of every tool_result block of a user message among the first
    /// `positions_read` messages, in order: [`Self::result_positions`] reads only the messages
    /// appended since it last did, and a cut or rebuild takes back what it changed (micro and
    /// most other stages ask every turn, and walking the whole list cost 3% of course-main).
    positions: Vec<(usize, usize)>,
    /// How many messages, from the head, `positions` covers.
    positions_read: usize,
    /// Context editing's clear set and targets, once a `clear_tool_uses` stage has asked;
    /// dropped when the list is cut or rebuilt.
    clear: Option<ClearIndex>,
    /// Counts the changes other than appending (a cut, a rebuild, a result's new text): what a
    /// stage read of the list still holds, apart from what was appended, while it is the same.
    revision: u64,
}

/// How many messages the list holds before it is given room for every message the session
/// may append ([`History::expect_messages`]).
const ROOM_AFTER: usize = 256;

impl History {
    /// An empty history measured by `estimator`.
    pub(crate) fn new(estimator: Estimator) -> Self {
        History {
            estimator,
            messages: Vec::new(),
            sizes: Vec::new(),
            sum: 0,
            derived: Vec::new(),
            pinned: None,
            lead: 0,
            watch: None,
            pair_check: PairCheck::default(),
            expected: 0,
            result_ids: ResultIndex::default(),
            positions: Vec::new(),
            positions_read: 0,
            clear: None,
            revision: 0,
        }
    }

    /// Makes room for the ids of a session's `results` tool results.
    pub(crate) fn expect_results(&mut self, results: usize) {
        self.result_ids.expect_results(results);
    }

    /// Expects a session that appends at most `messages` messages: a list that grows past
    /// [`ROOM_AFTER`] is given room for them all at once (issue 13: gemini-cli's list reaches
    /// 3 300 messages, and its three per-message lists were each copied a dozen times as they
    /// grew). A list kept shorter allocates nothing more.
    pub(crate) fn expect_messages(&mut self, messages: usize) {
        self.expected = messages;
    }

    /// Sets the pinned message sent before the history.
    pub(crate) fn pin(&mut self, message: Message) {
        let size = self.estimator.message(&message);
        self.pinned = Some((message, size));
    }

    /// The pinned message, if any.
    pub(crate) fn pinned(&self) -> Option<&Message> {
        self.pinned.as_ref().map(|(m, _)| m)
    }

    /// Sends the first `lead` messages of the list before the pinned message (until the list
    /// is next cut or rebuilt).
    pub(crate) fn lead_before_pin(&mut self, lead: usize) {
        self.lead = lead.min(self.messages.len());
    }

    /// What a request sends: the pinned message, then the history (the lead messages first).
    pub(crate) fn context(&self) -> Vec<Message> {
        let (lead, rest) = self.messages.split_at(self.lead);
        lead.iter()
            .chain(self.pinned())
            .chain(rest.iter())
            .cloned()
            .collect()
    }

    /// What a request sends, as [`Self::context`], taking the messages instead of copying them.
    pub(crate) fn into_context(mut self) -> Vec<Message> {
        let Some((pinned, _)) = self.pinned else {
            return self.messages;
        };
        let rest = self.messages.split_off(self.lead);
        self.messages.push(pinned);
        self.messages.extend(rest);
        self.messages
    }

    /// [`crate::compaction::profile::common_tokens`] of what a request sends: under Claude
    /// Code's estimate, the kept sizes are those tokens already.
    pub(crate) fn common_tokens(&self) -> usize {
        if self.estimator == Estimator::ClaudeTokens {
            return self.estimate();
        }
        let pinned = self.pinned().map_or(0, Message::rough_tokens);
        pinned + crate::compaction::profile::common_tokens(&self.messages)
    }

    /// The messages, oldest first (the pinned message is not among them).
    pub(crate) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Number of messages (the pinned message is not counted).
    pub(crate) fn len(&self) -> usize {
        self.messages.len()
    }

    /// The profile's estimate of what a request sends (the pinned message included).
    pub(crate) fn estimate(&self) -> usize {
        match &self.pinned {
            Some((_, size)) => self
                .estimator
                .list(self.messages.len() + 1, self.sum + size),
            None => self.estimator.list(self.messages.len(), self.sum),
        }
    }

    /// Whether a tool_result block for `id` is in the list.
    pub(crate) fn holds_result(&self, id: &CallId) -> bool {
        self.result_ids.holds_result(id)
    }

    /// How many distinct tool_result ids the list holds.
    pub(crate) fn result_ids_held(&self) -> usize {
        self.result_ids.counts.len()
    }

    /// How many tool_result blocks for `id` the list holds.
    pub(crate) fn result_count(&self, id: &CallId) -> usize {
        self.result_ids.result_count(id)
    }

    /// Every tool_result id the list holds, with its count of blocks, in no set order.
    pub(crate) fn result_counts(&self) -> impl Iterator<Item = (&CallId, usize)> {
        self.result_ids
            .counts
            .iter()
            .map(|(id, count)| (id, *count))
    }

    /// Starts keeping the tool_result ids whose count changes ([`ResultIndex::watch_changes`]):
    /// `clean`, no message other than the user's holds a tool_result block.
    pub(crate) fn watch_result_changes(&mut self, clean: bool) {
        self.result_ids.watch_changes(clean);
    }

    /// [`ResultIndex::take_changes_into`].
    pub(crate) fn take_result_changes_into(&mut self, into: &mut Vec<CallId>) -> bool {
        self.result_ids.take_changes_into(into)
    }

    /// Marks a result as changed for whoever keeps the changes: its ledger record changed.
    pub(crate) fn note_result_change(&mut self, id: &CallId) {
        self.result_ids.note_change(id);
    }

    /// Appends a message and adds its size to the estimate.
    pub(crate) fn push(&mut self, message: Message) {
        let sizes = self.measure(&message, &[]);
        self.push_sized(message, sizes, Derived::default());
    }

    /// Appends a message whose `json.dumps` length is `json`: the course's estimate of a message
    /// without tool_result, and the length of an archive's line under the other estimates.
    pub(crate) fn push_json(&mut self, message: Message, json: usize) {
        let estimated = self.estimator == Estimator::PythonJson;
        let sizes = if estimated && message.tool_results().next().is_none() {
            Sizes {
                total: json,
                contents: ContentSizes::new(),
                units: 0,
                content_units: Vec::new(),
                plain: false,
            }
        } else {
            self.measure(&message, &[])
        };
        let derived = Derived {
            json: (!estimated).then_some(json),
            ..Derived::default()
        };
        self.push_sized(message, sizes, derived);
    }

    /// Appends a message whose tool_result contents, in order, have the `known` sizes (measured
    /// once for all the cells of a Monte Carlo session): no content is scanned again, for the
    /// estimate or for the message's `json.dumps` length.
    pub(crate) fn push_measured(&mut self, message: Message, known: &[TextSizes]) {
        let sizes = self.measure(&message, known);
        let derived = Derived {
            content_json: (self.estimator != Estimator::PythonJson)
                .then(|| known.iter().map(|sizes| sizes.json).collect()),
            ..Derived::default()
        };
        self.push_sized(message, sizes, derived);
    }

    fn push_sized(&mut self, message: Message, sizes: Sizes, derived: Derived) {
        // A plain prompt holds no tool_use or tool_result id (Cline's merged prompt holds every
        // prompt of the session: its blocks are not read at each fold).
        if !sizes.plain {
            self.result_ids.count(&message, true);
        }
        if let Some(clear) = &mut self.clear {
            clear.push(self.messages.len(), &message, &sizes.contents);
        }
        if self.messages.len() == ROOM_AFTER {
            let more = self.expected.saturating_sub(ROOM_AFTER);
            self.messages.reserve(more);
            self.sizes.reserve(more);
            self.derived.reserve(more);
        }
        self.sum += sizes.total;
        self.sizes.push(sizes);
        self.derived.push(derived);
        self.messages.push(message);
    }

    /// The sizes of a message, its first tool_result contents' from `known`.
    fn measure(&self, message: &Message, known: &[TextSizes]) -> Sizes {
        if self.estimator == Estimator::ClineTokens {
            let mut content_units = Vec::new();
            let units = cline_units(message, known, &mut |size| content_units.push(size));
            return Sizes::cline(units, content_units, cline_plain_prompt(message));
        }
        let (total, contents) = self.estimator.measure(message, known);
        Sizes {
            total,
            contents,
            units: 0,
            content_units: Vec::new(),
            plain: false,
        }
    }

    /// Starts watching for a cut: the intact pairs are taken (only) when the list is first cut
    /// or rebuilt. Appending a message or replacing a result's text changes no pair that was
    /// intact, so a stage that does neither keeps every pair without a scan of the history.
    pub(crate) fn watch_pairs(&mut self) {
        self.watch = Some(None);
    }

    /// Stops watching; the pairs intact before the first cut or rebuild that are no longer
    /// intact although one half is still in the list, in id order ([`pairs::split`]).
    pub(crate) fn pairs_split(&mut self) -> Vec<CallId> {
        match self.watch.take().flatten() {
            Some(before) => before.split(&self.messages, &self.result_ids),
            None => Vec::new(),
        }
    }

    /// Whether pair repair would leave the list unchanged, reading only what was appended
    /// since the last check when nothing was cut (issue 13, audit D8).
    pub(crate) fn pairs_intact(&mut self) -> bool {
        self.pair_check.intact(&self.messages)
    }

    /// How many times a tool_result id left the list and came back: while it is the same, a
    /// result that is not in the list never was since it left.
    pub(crate) fn returned_results(&self) -> u64 {
        self.result_ids.returned
    }

    /// How many times the list has changed other than by appending: a cut, a rebuild, a result's
    /// new text. A stage's reading of the list, apart from what was appended, holds while it is
    /// the same.
    pub(crate) fn revision(&self) -> u64 {
        self.revision
    }

    /// Forgets what the list's change invalidates: the change replaces `head..tail` with
    /// `inserted` messages (`(head, tail, inserted)`). [`Self::before_rebuild`] is its twin for a
    /// change of the whole list.
    fn before_cut(&mut self, (head, tail, inserted): (usize, usize, usize)) {
        self.forget();
        if let Some(slot) = &mut self.watch {
            let messages = &self.messages;
            *slot = Some(match slot.take() {
                None => Before::splice(messages, head, tail, inserted),
                Some(before) => Before::All(before.into_all(messages)),
            });
        }
    }

    /// Forgets what a rebuild invalidates and empties the list for it. The pair watch keeps the
    /// list it replaces if this is the stage's first change (its intact pairs are read once the
    /// stage is done, and only those the new list still holds a half of: a compaction keeps
    /// few).
    fn before_rebuild(&mut self) {
        let old = if self.watch.is_some() {
            let room = Vec::with_capacity(self.messages.capacity());
            std::mem::replace(&mut self.messages, room)
        } else {
            self.messages.clear();
            Vec::new()
        };
        self.rebuilding(old);
    }

    /// [`Self::before_rebuild`] of a list already emptied, or cut down in place to what the
    /// rebuild keeps: `old` is the list it replaces for the pair watch, or one with the same
    /// intact pairs.
    fn rebuilding(&mut self, old: Vec<Message>) {
        self.forget();
        self.positions.clear();
        self.positions_read = 0;
        if let Some(slot) = &mut self.watch {
            *slot = Some(match slot.take() {
                None => Before::Rebuilt(old),
                Some(before) => Before::All(before.into_all(&old)),
            });
        }
    }

    /// What every change other than an append invalidates.
    fn forget(&mut self) {
        self.revision += 1;
        self.lead = 0;
        self.pair_check = PairCheck::default();
        self.clear = None;
    }

    /// Replaces `messages[head..tail]` by `insert` (snip's marker, reactive's summary), keeping
    /// the messages on either side with their sizes: only the inserted ones are measured.
    pub(crate) fn splice(&mut self, head: usize, insert: Vec<Message>, tail: usize) {
        assert!(
            head <= tail && tail <= self.len(),
            "splice {head}..{tail} out of range"
        );
        self.before_cut((head, tail, insert.len()));
        let sizes: Vec<Sizes> = insert.iter().map(|m| self.measure(m, &[])).collect();
        let added: usize = sizes.iter().map(|s| s.total).sum();
        let removed: usize = self.sizes[head..tail].iter().map(|s| s.total).sum();
        self.sum = self.sum - removed + added;
        for message in &self.messages[head..tail] {
            self.result_ids.count(message, false);
        }
        for message in &insert {
            self.result_ids.count(message, true);
        }
        self.derived
            .splice(head..tail, insert.iter().map(|_| Derived::default()));
        self.sizes.splice(head..tail, sizes);
        self.messages.splice(head..tail, insert);
        // The positions before `head` stand; the rest are read again when next asked for.
        let kept = self.positions.partition_point(|&(mi, _)| mi < head);
        self.positions.truncate(kept);
        self.positions_read = self.positions_read.min(head);
    }

    /// Replaces the content of the tool_result block at `(message, block)`; returns the old one.
    #[cfg(test)]
    pub(crate) fn set_result(
        &mut self,
        message: usize,
        block: usize,
        content: impl Into<ResultText>,
    ) -> ResultText {
        self.set_result_grown(message, block, content.into(), None)
    }

    /// [`Self::set_result`]; with `grown`, the new content is the old one with that many more
    /// `json.dumps` characters (Read's numbering adds a number and an escaped tab to each line),
    /// so its length is not measured again.
    pub(crate) fn set_result_grown(
        &mut self,
        message: usize,
        block: usize,
        content: ResultText,
        grown: Option<usize>,
    ) -> ResultText {
        self.revision += 1;
        let Content::Blocks(blocks) = &mut self.messages[message].content else {
            unreachable!("set_result on a message without blocks");
        };
        let ordinal = blocks[..block]
            .iter()
            .filter(|b| matches!(b, Block::ToolResult { .. }))
            .count();
        let Block::ToolResult {
            content: slot,
            tool_use_id,
        } = &mut blocks[block]
        else {
            unreachable!("set_result on a block that is not a tool_result");
        };
        // The contents' `json.dumps` lengths, where known, stay known: the new content's is
        // measured (it is short, a preview or a placeholder) in place of the old one's, and the
        // message's own length, a sum over its parts, moves by the difference.
        let old_derived = std::mem::take(&mut self.derived[message]);
        if let Some(mut known) = old_derived.content_json {
            let new_json = match grown {
                Some(grown) => known[ordinal] + grown,
                None => json_str_chars(&content),
            };
            let old_json = std::mem::replace(&mut known[ordinal], new_json);
            let derived = &mut self.derived[message];
            derived.json = old_derived.json.map(|json| json - old_json + new_json);
            derived.content_json = Some(known);
        }
        let cline = self.estimator == Estimator::ClineTokens;
        let new_units = if cline { js_str_units(&content) } else { 0 };
        let new_content = if cline {
            new_units.div_ceil(3)
        } else {
            self.estimator.result(&content)
        };
        if let Some(clear) = &mut self.clear {
            clear.set((message, block), tool_use_id, &content, new_content);
        }
        let old = std::mem::replace(slot, content);
        let sizes = &mut self.sizes[message];
        let old_content = std::mem::replace(&mut sizes.contents[ordinal], new_content);
        // Cline's estimate rounds per message, so it is not a sum over strings: the unrounded
        // length takes the new content's in place of the old's, and is rounded again.
        let new_total = if cline {
            let old_units = std::mem::replace(&mut sizes.content_units[ordinal], new_units);
            sizes.units = sizes.units - old_units + new_units;
            cline_round(sizes.units)
        } else {
            sizes.total - old_content + new_content
        };
        self.sum = self.sum - sizes.total + new_total;
        sizes.total = new_total;
        old
    }

    /// The estimate of message `index` alone (Cline's tokens of that message).
    pub(crate) fn message_estimate(&self, index: usize) -> usize {
        self.sizes[index].total
    }

    /// The `json.dumps` length of the result at `(message, block)` when it is known without
    /// reading the text (measured when the result entered, or kept since).
    pub(crate) fn result_json(&self, message: usize, block: usize) -> Option<usize> {
        let before = &self.messages[message].block_list()[..block];
        let ordinal = before
            .iter()
            .filter(|b| matches!(b, Block::ToolResult { .. }))
            .count();
        self.known_content_json(message).get(ordinal).copied()
    }

    /// The `json.dumps` lengths of message `index`'s tool_result contents, in block order, where
    /// they are known without reading the texts (empty when they are not): kept since they
    /// entered, or the contents' sizes under the `json.dumps` estimate.
    fn known_content_json(&self, index: usize) -> &[usize] {
        match &self.derived[index].content_json {
            Some(lengths) => lengths,
            None if self.estimator == Estimator::PythonJson => &self.sizes[index].contents,
            None => &[],
        }
    }

    /// Characters of the history as JSONL with `json.dumps`' default `ensure_ascii=True` (the
    /// course site's archive). A generated result's text is written alike in either form, so
    /// its length is the `json.dumps` length measured when it entered, not read again.
    pub(crate) fn jsonl_ascii_chars(&self) -> usize {
        let mut known = Vec::new();
        let mut total = 0;
        for (index, message) in self.messages.iter().enumerate() {
            let lengths = self.known_content_json(index);
            known.clear();
            let results = message.block_list().iter().filter_map(|block| match block {
                Block::ToolResult { content, .. } => Some(content),
                _ => None,
            });
            for (ordinal, content) in results.enumerate() {
                let length = lengths.get(ordinal).copied();
                known.push(length.filter(|_| content.is_only_x()));
            }
            total += message.json_ascii_chars_known(&known) + 1;
        }
        total
    }

    /// Characters of the history as JSONL (one `json.dumps` line per message).
    pub(crate) fn jsonl_chars(&mut self) -> usize {
        if self.estimator == Estimator::PythonJson {
            return self.sum + self.messages.len();
        }
        let lines = self.messages.iter().zip(self.derived.iter_mut());
        lines
            .map(|(message, derived)| derived.json(message) + 1)
            .sum()
    }

    /// `len(json.dumps(messages[index], ensure_ascii=False))`, measured at most once while the
    /// message is unchanged.
    pub(crate) fn json_chars_at(&mut self, index: usize) -> usize {
        if self.estimator == Estimator::PythonJson {
            return self.sizes[index].total;
        }
        self.derived[index].json(&self.messages[index])
    }

    /// Each tool_result of the user messages `messages[range]`, in list order: `(message, block,
    /// size)`, the size by the estimator ([`Estimator::string`] of its content), and whether its
    /// content holds [`MASKED_MARK`] (searched once while the message is unchanged).
    pub(crate) fn results_in(&mut self, range: Range<usize>) -> Vec<(usize, usize, usize, bool)> {
        let mut out = Vec::new();
        let lists = self.messages.iter().zip(&self.sizes).zip(&mut self.derived);
        let lists = lists.enumerate().skip(range.start).take(range.len());
        for (mi, ((message, sizes), derived)) in lists {
            if message.role != Role::User {
                continue;
            }
            let results = message
                .block_list()
                .iter()
                .enumerate()
                .filter_map(|(bi, b)| match b {
                    Block::ToolResult { content, .. } => Some((bi, content)),
                    _ => None,
                });
            // `ResultText::contains`: a generated text holds no `<`, so it is not read.
            let masked = derived.masked.get_or_insert_with(|| {
                let marked = |(_, content): (usize, &ResultText)| content.contains(MASKED_MARK);
                results.clone().map(marked).collect()
            });
            out.extend(
                results
                    .zip(&sizes.contents)
                    .zip(masked.iter())
                    .map(|(((bi, _), size), marked)| (mi, bi, *size, *marked)),
            );
        }
        out
    }

    /// The estimate of `messages[..end]` alone (what a summariser is handed).
    pub(crate) fn estimate_prefix(&self, end: usize) -> usize {
        let sum = self.sizes[..end].iter().map(|s| s.total).sum();
        self.estimator.list(end, sum)
    }

    /// The estimate of `messages[start..]` alone (the messages after a reported usage); 0 when
    /// `start` is past the end.
    pub(crate) fn estimate_suffix(&self, start: usize) -> usize {
        let sizes = self.sizes.get(start..).unwrap_or(&[]);
        self.estimator
            .list(sizes.len(), sizes.iter().map(|s| s.total).sum())
    }

    /// Context editing's targets for `keep` and `placeholder` (see [`ClearIndex`]): how many
    /// and the tokens clearing them saves; `None` with no more than `keep` tool uses. Kept up to
    /// date between requests, so a request reads only what changed since the last.
    pub(crate) fn clear_targets(
        &mut self,
        keep: usize,
        placeholder: &'static str,
    ) -> Option<(usize, usize)> {
        if !self
            .clear
            .as_ref()
            .is_some_and(|c| c.is_for(keep, placeholder))
        {
            let size = self.estimator.string(placeholder);
            let mut index = ClearIndex::new(keep, placeholder, size);
            for (at, (message, sizes)) in self.messages.iter().zip(&self.sizes).enumerate() {
                index.push(at, message, &sizes.contents);
            }
            self.clear = Some(index);
        }
        let History {
            messages,
            sizes,
            clear,
            ..
        } = self;
        let index = clear.as_mut()?;
        index.advance(|(message, block, ordinal)| {
            let Block::ToolResult { content, .. } = &messages[message].block_list()[block] else {
                unreachable!("a waiting result is a tool_result");
            };
            (content.as_str(), sizes[message].contents[ordinal])
        })
    }

    /// `(message, block, tokens saved)` of each of context editing's targets, in list order
    /// (after [`Self::clear_targets`]).
    pub(crate) fn clear_target_list(&self) -> Vec<(usize, usize, usize)> {
        self.clear
            .as_ref()
            .map(ClearIndex::targets)
            .unwrap_or_default()
    }

    /// `(message index, block index)` of every tool_result block in user
    /// messages with list content, in order; only the messages appended since the last call (or
    /// from the last cut on) are read.
    pub(crate) fn result_positions(&mut self) -> Vec<(usize, usize)> {
        let unread = self.messages.iter().enumerate().skip(self.positions_read);
        for (index, message) in unread {
            push_positions(&mut self.positions, index, message);
        }
        self.positions_read = self.messages.len();
        self.positions.clone()
    }

    /// The block index and characters ([`ResultText::chars`]) of each tool_result block of one
    /// message, in order: a stage that weighs the newest batch reads neither the rest of the
    /// history nor the texts.
    pub(crate) fn result_chars_in(&self, message: usize) -> Vec<(usize, usize)> {
        let message = &self.messages[message];
        if message.role != Role::User {
            return Vec::new();
        }
        let blocks = message.block_list().iter().enumerate();
        blocks
            .filter_map(|(bi, block)| match block {
                Block::ToolResult { content, .. } => Some((bi, content.chars())),
                _ => None,
            })
            .collect()
    }

    /// `(tool_use_id, content)` of the tool_result block at a position.
    pub(crate) fn result_at(&self, message: usize, block: usize) -> (&CallId, &str) {
        match &self.messages[message].block_list()[block] {
            Block::ToolResult {
                tool_use_id,
                content,
            } => (tool_use_id, content),
            _ => unreachable!("result_at on a block that is not a tool_result"),
        }
    }

    /// The characters of the result at `(message, block)`, known without reading its text
    /// ([`ResultText::chars`]).
    pub(crate) fn result_chars(&self, message: usize, block: usize) -> usize {
        match &self.messages[message].block_list()[block] {
            Block::ToolResult { content, .. } => content.chars(),
            _ => unreachable!("result_chars on a block that is not a tool_result"),
        }
    }

    /// [`Self::result_at`] owned, for a stage that changes the history afterwards (the text is
    /// shared, not copied).
    pub(crate) fn owned_result_at(&self, message: usize, block: usize) -> (CallId, ResultText) {
        match &self.messages[message].block_list()[block] {
            Block::ToolResult {
                tool_use_id,
                content,
            } => (*tool_use_id, content.clone()),
            _ => unreachable!("owned_result_at on a block that is not a tool_result"),
        }
    }
}

/// Appends to `positions` those of the tool_result blocks of `message`, the list's `index`th, if
/// it is a user message.
fn push_positions(positions: &mut Vec<(usize, usize)>, index: usize, message: &Message) {
    if message.role != Role::User {
        return;
    }
    for (block, kind) in message.block_list().iter().enumerate() {
        if matches!(kind, Block::ToolResult { .. }) {
            positions.push((index, block));
        }
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
