//! All simulation state of one compaction run in one place (turmoil's `world.rs`): the profile,
//! the history, the spill store and transcript archive, the per-result ledger, the scripted
//! inputs, the clock, the counters and the trace. The world holds state and keeps its own
//! bookkeeping consistent; it runs no mechanism. Persistence (`persist.rs`), pointers
//! (`pointer.rs`), the archive (`archive.rs`), the summariser (`summarizer.rs`) and the stages
//! take it explicitly, and the driver decides when each runs. There are no globals, no clock and
//! no ambient randomness.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::rc::Rc;

use serde::Serialize;
use smallvec::SmallVec;

use crate::call_id::{CallId, IdMap};
use crate::compaction::history::History;
use crate::compaction::holds::{Holds, Tally};
use crate::compaction::paths::Roots;
use crate::compaction::pointer;
use crate::compaction::profile::{Profile, SafeId, Stage};
use crate::compaction::read_files::ReadFiles;
use crate::compaction::rereads::SameCalls;
use crate::compaction::store::{self, SpillText, Store};
use crate::error::RunError;
use crate::hash::OrderedFastMap;
use crate::result_text::DerivedBuffers;
use crate::scenario::StoreDir;
use crate::scenario::Usage;
use crate::trace::{Event, Reason, reason};
use crate::transcript::{Block, Input, Message, ResultText, Role, TextSizes};
use smol_str::SmolStr;

/// What the lab knows about one tool result over the whole run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResultRecord {
    /// Tool name of the call.
    pub(crate) name: SmolStr,
    /// Length of the original content.
    pub(crate) original_chars: usize,
    /// Step at which the result arrived.
    pub(crate) step: usize,
    /// The block in context still holds the original text.
    pub(crate) is_original: bool,
    /// An assistant message has followed the result.
    pub(crate) seen: bool,
    /// The result was replaced before it was seen.
    pub(crate) unseen_compacted: bool,
    /// The original text was written to (or already was in) the spill store.
    pub(crate) spilled_verbatim: bool,
    /// The original text is held by a transcript archive.
    pub(crate) archived_verbatim: bool,
}

/// One transcript written to the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptRecord {
    /// Where the transcript is (shared with the trace's reasons and the stage that wrote it).
    pub path: Rc<str>,
    /// The stage that wrote it.
    pub stage: &'static str,
    /// Step at which it was written.
    pub step: usize,
    /// Messages it holds.
    pub messages: usize,
    /// Characters of the JSONL file.
    pub chars: usize,
    /// Tool results it holds verbatim.
    pub originals: usize,
    /// Tool results it holds as placeholders or persisted previews.
    pub placeholders: usize,
}

/// One tool result as it arrives, before the profile's arrival rule applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IncomingResult {
    /// The tool_use_id it answers.
    pub(crate) id: CallId,
    /// The tool's name (empty when the scenario names no call).
    pub(crate) tool: SmolStr,
    /// The result's text.
    pub(crate) content: ResultText,
    /// Its sizes for every estimate: a scenario's result is measured once for every replay
    /// (a generated one from its shape), one the lab makes where it is made.
    pub(crate) sizes: TextSizes,
}

impl IncomingResult {
    /// A result the lab makes itself (the compact tool's answer, a test's), measured here.
    pub(crate) fn measured(
        id: impl Into<CallId>,
        tool: impl Into<SmolStr>,
        content: impl Into<ResultText>,
    ) -> Self {
        let content = content.into();
        IncomingResult {
            id: id.into(),
            tool: tool.into(),
            sizes: TextSizes::of(&content),
            content,
        }
    }
}

/// The per-result bookkeeping: what arrived, in which order, what the model has seen, and what
/// Claude Code's readFileState remembers.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    /// Every result of the run by tool_use_id.
    pub(crate) results: IdMap<ResultRecord>,
    /// Result ids in order of arrival.
    pub(crate) arrivals: Vec<CallId>,
    /// Results that arrived since the last assistant message (what the unseen guard protects).
    unseen: Vec<CallId>,
    /// `file_path` of each `Read` call whose result arrived, newest last, with the result's
    /// original text (Claude Code's readFileState); kept only by a profile that can run
    /// autocompact, the one stage that reads it back.
    pub(crate) read_files: ReadFiles,
    /// Every tool call by [`CallKey`] (name and input): what `reread_after_clear` compares a
    /// new call with.
    calls: OrderedFastMap<CallKey, SameCalls>,
    /// How many results came with an id an earlier result had (its record, tool name included,
    /// is the newer one's): what a stage read of the records by id still holds while it is the
    /// same.
    pub(crate) reused_ids: u64,
}

/// A tool call's identity for `reread_after_clear`: its name and its input with object keys
/// sorted (two calls are the same call when both are equal). The input is the call's own,
/// shared, and its sorted text is computed once for every replay that appends it: a key copies
/// no text (issue 13: a key built as one string was an allocation and a copy per call).
#[derive(Clone, Debug)]
pub(crate) struct CallKey {
    name: SmolStr,
    input: Input,
}

impl CallKey {
    pub(crate) fn new(name: &SmolStr, input: &Input) -> Self {
        CallKey {
            name: name.clone(),
            input: input.clone(),
        }
    }

    /// The name and the sorted input, which the key is equal and hashed by.
    fn parts(&self) -> (&str, &str) {
        (&self.name, self.input.sorted_json())
    }
}

impl PartialEq for CallKey {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for CallKey {}

impl std::hash::Hash for CallKey {
    /// The name and the input's hash: equal keys have equal sorted inputs, so equal hashes.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        state.write_u64(self.input.sorted_hash());
    }
}

impl Ledger {
    /// Marks a result as kept verbatim in the spill store when the file holds its original.
    pub(crate) fn mark_spilled(&mut self, id: &CallId, same_text: bool) {
        if let Some(record) = self.results.get_mut(id) {
            if same_text && record.is_original {
                record.spilled_verbatim = true;
            }
        }
    }
}

/// The transcript archive: every transcript written, and which of them is the session transcript
/// of profiles that keep one.
#[derive(Debug, Default)]
pub(crate) struct Archive {
    /// Transcripts in the order they were started.
    pub(crate) transcripts: Vec<TranscriptRecord>,
    /// Index in `transcripts` of the session transcript.
    pub(crate) session: Option<usize>,
    /// Which results each transcript holds verbatim.
    pub(crate) holds: Holds,
    /// What the history held at the last transcript, kept for the next one.
    pub(crate) tally: Tally,
}

/// What the scenario scripts: the request compaction repeats and the summariser's answer.
#[derive(Debug, Default)]
pub(crate) struct Script {
    /// The active user request (the text compaction repeats).
    pub(crate) active_request: String,
    /// Scripted summary text; `summary of {N} messages` when absent.
    pub(crate) summary: Option<String>,
    /// The scenario's CLAUDE.md text.
    pub(crate) claude_md: Option<String>,
    /// The last usage an API reported (imported logs): the index of its assistant message in
    /// the history when it arrived, and the counts. Carried for the profiles that read it.
    pub(crate) reported_usage: Option<(usize, Usage)>,
}

/// Virtual time: the step and the idle gap (no wall clock).
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Current 1-based step (0 for the scenario's `request`).
    pub(crate) step: usize,
    /// Minutes since the last assistant message (idle steps).
    pub(crate) idle_minutes: u64,
}

/// Costs and sizes counted over the run.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Model calls made by the context layer (summaries).
    pub(crate) model_calls: usize,
    /// Largest estimate seen after any step.
    pub(crate) peak_chars: usize,
    /// The trace events the observables count, counted as they are recorded.
    pub(crate) events: EventCounts,
}

/// The trace events the observables count, counted as [`World::record`] records them (issue 13:
/// counting them at the end read the whole trace again, tens of thousands of events that no
/// longer sat in any cache: 15% of a course-latest replay's reads that missed the second-level
/// cache).
#[derive(Debug, Default)]
pub(crate) struct EventCounts {
    /// `reread` events.
    pub(crate) rereads: usize,
    /// Compactions that churned ([`is_churn`]).
    pub(crate) churn: usize,
    /// `split` events.
    pub(crate) splits: usize,
    /// `escape` events.
    pub(crate) escapes: usize,
}

impl EventCounts {
    /// Counts `event`.
    fn note(&mut self, event: &Event) {
        match event.kind {
            "reread" => self.rereads += 1,
            "split" => self.splits += 1,
            "escape" => self.escapes += 1,
            _ => self.churn += usize::from(is_churn(event)),
        }
    }
}

/// A compaction that shrinks the estimate by less than `1 / CHURN_SHARE` of what it was
/// (5%) counts as churn.
const CHURN_SHARE: usize = 20;

/// A compaction (what `lab audit` counts: a `compact` event, or snip's `snip`) whose estimate
/// shrank by less than 5%, or grew.
pub(crate) fn is_churn(event: &Event) -> bool {
    let compaction = event.kind == "compact" || (event.stage == "snip" && event.kind == "snip");
    match (compaction, event.before.get(), event.after.get()) {
        (true, Some(before), Some(after)) => CHURN_SHARE * before.saturating_sub(after) < before,
        _ => false,
    }
}

/// The whole state of one run.
pub(crate) struct World {
    pub(crate) profile: Profile,
    pub(crate) history: History,
    pub(crate) store: Box<dyn Store>,
    /// Normalised spill directory.
    pub(crate) spill_dir: String,
    /// Normalised transcript directory.
    pub(crate) transcript_dir: String,
    /// The store's resolution of the spill directory, where it cannot change during the run
    /// ([`Self::names_spill_file`]).
    spill_root: OnceCell<String>,
    /// Both directories resolved lexically, once: the roots [`Self::owns`] checks every spill
    /// path against (issue 13: they were resolved again for each).
    roots: Roots,
    pub(crate) trace: Vec<Event>,
    pub(crate) ledger: Ledger,
    pub(crate) archive: Archive,
    pub(crate) script: Script,
    pub(crate) clock: Clock,
    pub(crate) counters: Counters,
    /// Gemini masking's outputs whose masked form saves nothing, by id (see `gemini_mask`; a
    /// reused id can name several). Looked up at every output a pass meets, never listed: by
    /// the id's number (issue 13: an ordered map compared strings at each level of its tree);
    /// one kept inline (a list allocated for each output left).
    pub(crate) mask_skips: IdMap<SmallVec<[MaskSkip; 1]>>,
    /// Where Gemini masking's last pass left the history (see `gemini_mask`).
    pub(crate) mask_scan: MaskScan,
    /// Gemini's chat compression: how many function responses it wrote to files, which numbers
    /// the next file, and whether a summary inflated the history, after which it only truncates
    /// (see `gemini_compress`). Kept as its `spill` and `inflated` events are recorded (issue 13:
    /// each compression counted them over the whole trace).
    pub(crate) compress_spills: usize,
    pub(crate) compress_inflated: bool,
    /// The buffer [`World::put_spill_named`] and the transcript archive write each path into.
    pub(crate) path_buffer: String,
    /// Whether a `Read` result's file is kept as read ([`Ledger::read_files`]): only Claude
    /// Code's autocompact reads that list back (its restore, its summary's list, keep-last-turn's).
    keeps_reads: bool,
    /// Read's numbered texts of generated results, as prefixes of their buffers' (issue 13).
    pub(crate) numbered: DerivedBuffers,
    /// The profile's `omitted` placeholder as one text that every result it replaces shares
    /// (issue 13: a copy each, course micro's thousands).
    pub(crate) omitted: ResultText,
}

/// What Gemini masking's passes have read of the history, so that each reads only the messages
/// appended since. Valid for one history revision and one count of reused ids.
#[derive(Debug, Default)]
pub(crate) struct MaskScan {
    /// `(history revision, reused ids)` it was read at; `None`: read the whole list again.
    pub(crate) at: Option<(u64, u64)>,
    /// The messages before this one have been read.
    pub(crate) read: usize,
    /// Every output read that is neither masked nor exempt, in list order: `(message, block,
    /// id, tokens)`.
    pub(crate) outputs: Vec<(usize, usize, CallId, usize)>,
    /// The sum of their tokens.
    pub(crate) tokens: usize,
    /// How many outputs at the head of `outputs` a pass has left in place.
    pub(crate) left: usize,
    /// The first output of the protected tail: the longest tail of `outputs` whose tokens stay
    /// within `mask_protect` starts here (the outputs before it are prunable).
    pub(crate) start: usize,
    /// The tokens of that tail.
    pub(crate) protected: usize,
}

/// A tool output Gemini's masking wrote to its file but left in place, since its masked form is
/// no smaller; kept so that a pass after the list changed does not rebuild it.
pub(crate) struct MaskSkip {
    /// The output as it stood (a changed output is masked afresh).
    pub(crate) output: ResultText,
    /// The tool name the file was named after.
    pub(crate) tool: SmolStr,
}

impl World {
    /// A world at step 0 with an empty history, writing to `store` under the two directories.
    pub(crate) fn new(
        profile: Profile,
        store: Box<dyn Store>,
        spill_dir: &str,
        transcript_dir: &str,
    ) -> Self {
        World {
            history: History::new(profile.estimator),
            profile,
            store,
            spill_dir: store::normalize(spill_dir),
            transcript_dir: store::normalize(transcript_dir),
            spill_root: OnceCell::new(),
            roots: Roots::new(&[spill_dir, transcript_dir]),
            trace: Vec::new(),
            ledger: Ledger::default(),
            archive: Archive::default(),
            script: Script::default(),
            clock: Clock::default(),
            counters: Counters::default(),
            mask_skips: IdMap::default(),
            mask_scan: MaskScan::default(),
            compress_spills: 0,
            compress_inflated: false,
            path_buffer: String::new(),
            keeps_reads: profile.runs(Stage::Autocompact),
            numbered: DerivedBuffers::default(),
            omitted: ResultText::from(profile.strings.omitted),
        }
    }

    /// Room for a run of `results` tool results answering `calls` calls, so that the ledger's
    /// maps and lists, the trace (an `append` and a `seen` event per result at least), the
    /// history's set of results gone from it and the store's files do not grow by copying and
    /// rehashing as they fill.
    pub(crate) fn reserve(&mut self, calls: usize, results: usize, messages: usize) {
        self.ledger.results.reserve(results);
        self.ledger.arrivals.reserve(results);
        self.ledger.calls.reserve(calls);
        self.trace.reserve(8 * results);
        self.history.expect_results(results);
        self.history.expect_messages(messages);
        // A result is written to at most two spill files (gemini-cli's truncation, then its
        // mask; the other profiles', one); course-latest writes a transcript at about every
        // turn, fewer than its results.
        self.store.expect_files(2 * results, results);
    }

    /// Records one event at the current step.
    pub(crate) fn record(&mut self, event: Event) {
        self.counters.events.note(&event);
        self.trace.push(event.at(self.clock.step));
    }

    /// [`Self::push_with_json`] with no length known (the tests' way to append).
    #[cfg(test)]
    pub(crate) fn push(&mut self, message: Message) {
        self.push_with_json(message, None);
    }

    /// Appends a message to the history, with its `json.dumps` length `json` where known; an
    /// assistant message marks every earlier result as seen and traces its re-reads
    /// ([`World::note_calls`]). (The driver logs the message to the session transcript.)
    pub(crate) fn push_with_json(&mut self, message: Message, json: Option<usize>) {
        if message.role == Role::Assistant {
            self.note_calls(&message);
            // The list is emptied in place: taking it left an empty one to be allocated again
            // at the next result.
            let mut unseen = std::mem::take(&mut self.ledger.unseen);
            for &id in &unseen {
                if let Some(record) = self.ledger.results.get_mut(&id) {
                    record.seen = true;
                }
                self.record(
                    Event::new("scenario", "seen")
                        .id(id)
                        .reason("an assistant message followed: the model has seen it"),
                );
            }
            unseen.clear();
            self.ledger.unseen = unseen;
        }
        match json {
            Some(json) => self.history.push_json(message, json),
            None => self.history.push(message),
        }
    }

    /// Registers the tool calls of an assistant message and traces a `reread` event for each call
    /// that repeats an earlier one (same name, same input) whose result the model can no longer
    /// see: every earlier identical call that got a result has it replaced in context or out of
    /// context (observable `reread_after_clear`, the re-read loop of anthropics/claude-code#68709).
    fn note_calls(&mut self, message: &Message) {
        let stamp = (self.ledger.reused_ids, self.history.returned_results());
        for block in message.block_list() {
            let Block::ToolUse { id, name, input } = block else {
                continue;
            };
            let Ledger { calls, results, .. } = &mut self.ledger;
            let history = &self.history;
            let same = calls.entry(CallKey::new(name, input)).or_default();
            let last = same.settle(stamp, |id| {
                let in_context = in_context(history, results, id);
                results.contains_key(id).then_some(in_context != Some(true))
            });
            same.push(id);
            if let Some(last) = last {
                let how = match self.result_in_context(&last) {
                    Some(_) => "replaced in context",
                    None => "no longer in context",
                };
                let name = name.clone();
                let reason = reason!(
                    "the same {name} call as {last}, whose result is {how}: the model asks again"
                );
                self.record(Event::new("scenario", "reread").id(id).reason(reason));
            }
        }
    }

    /// Whether a result is in context (`None` if not), and if so whether it still holds the
    /// original text. The history keeps an index of its result ids, so this costs a lookup, not
    /// a scan of the history (issue 13: the re-read check rebuilt a map of every result in
    /// context at each repeated call, quadratic for anthropic-api, whose history is never cut).
    pub(crate) fn result_in_context(&self, id: &CallId) -> Option<bool> {
        in_context(&self.history, &self.ledger.results, id)
    }

    /// Registers a batch of results in the ledger and appends it as one user message, as it
    /// came. The profile's arrival rule is the arrival stage's to apply.
    pub(crate) fn push_results(&mut self, results: Vec<IncomingResult>) {
        let mut blocks = Vec::with_capacity(results.len());
        let mut known = Vec::with_capacity(results.len());
        for IncomingResult {
            id,
            tool,
            content,
            sizes,
        } in results
        {
            let chars = sizes.chars;
            known.push(sizes);
            // Without autocompact the list is never read (issue 13: every other profile kept
            // it; not keeping it, with the unseen list's reuse, took 8% off a course-main
            // replay).
            if self.keeps_reads && tool == "Read" {
                if let Some(path) = self.read_path(&id) {
                    self.ledger.read_files.read(path, content.clone());
                }
            }
            let earlier = self.ledger.results.insert(
                id,
                ResultRecord {
                    name: tool,
                    original_chars: chars,
                    step: self.clock.step,
                    is_original: true,
                    seen: false,
                    unseen_compacted: false,
                    spilled_verbatim: false,
                    archived_verbatim: false,
                },
            );
            if earlier.is_some() {
                self.ledger.reused_ids += 1;
            }
            self.record(
                Event::new("scenario", "append")
                    .id(id)
                    .after(chars)
                    .reason("result arrived"),
            );
            self.ledger.unseen.push(id);
            self.ledger.arrivals.push(id);
            blocks.push(Block::tool_result(id, content));
        }
        let message = Message::blocks(Role::User, blocks);
        self.history.push_measured(message, &known);
    }

    /// The `file_path` input of the `Read` call with this id.
    pub(crate) fn read_path(&self, id: &str) -> Option<String> {
        self.history.messages().iter().rev().find_map(|m| {
            m.block_list().iter().find_map(|b| match b {
                Block::ToolUse {
                    id: call, input, ..
                } if call == id => input
                    .get("file_path")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
                _ => None,
            })
        })
    }

    /// Replaces a result's content in context, keeping the ledger and the trace.
    pub(crate) fn replace_result(
        &mut self,
        message: usize,
        block: usize,
        content: impl Into<ResultText>,
        stage: &'static str,
        reason: impl Into<Reason>,
    ) {
        self.replace_result_grown(message, block, content.into(), None, stage, reason);
    }

    /// [`Self::replace_result`] by a content that is the old one with `grown` more `json.dumps`
    /// characters, where known ([`History::set_result_grown`]).
    pub(crate) fn replace_result_grown(
        &mut self,
        message: usize,
        block: usize,
        content: ResultText,
        grown: Option<usize>,
        stage: &'static str,
        reason: impl Into<Reason>,
    ) {
        let (id, current) = self.history.result_at(message, block);
        if current == content.as_str() {
            return;
        }
        let id = *id;
        let after = content.chars();
        let placeholder = pointer::is_placeholder(&self.profile, &content);
        let old = self
            .history
            .set_result_grown(message, block, content, grown);
        if let Some(record) = self.ledger.results.get_mut(&id) {
            record.is_original = false;
            // A persisted preview is the designed path for new results; a placeholder is not.
            if !record.seen && placeholder {
                record.unseen_compacted = true;
            }
            self.history.note_result_change(&id);
        }
        self.record(
            Event::new(stage, "replace")
                .id(id)
                .sizes(old.chars(), after)
                .reason(reason),
        );
    }

    /// The spill path of a tool_use_id: `spill_dir/<safe_id>.txt`; under Claude Code's
    /// per-tool arrival a Bash result's file is named by its shell task id instead
    /// ([`bash_task_id`], D1).
    pub(crate) fn spill_path(&self, id: &CallId) -> String {
        let bash = self.profile.arrival == crate::compaction::profile::Arrival::PersistPerTool
            && self
                .ledger
                .results
                .get(id)
                .is_some_and(|r| r.name == "Bash");
        let stem = if bash {
            Cow::Owned(bash_task_id(id))
        } else {
            self.profile.safe_stem(id)
        };
        if self.profile.safe_id == SafeId::RawPathlib && stem.starts_with('/') {
            // pathlib: `Path(dir) / "/x.txt"` is `/x.txt`.
            return store::normalize(&format!("{stem}.txt"));
        }
        store::join_normal_ext(&self.spill_dir, &stem, ".txt")
    }

    /// Whether `path` lies inside the run's spill or transcript directory (lexically; the
    /// sandbox's rule).
    pub(crate) fn owns(&self, path: &str) -> bool {
        self.roots.hold(path)
    }

    /// The path a result's content points to, as this run's profile recognises pointers
    /// ([`pointer::recognised_pointer`]).
    pub(crate) fn recognised_pointer(&self, content: &ResultText) -> Option<String> {
        pointer::recognised_pointer_by(&self.profile, content, |path| self.names_spill_file(path))
    }

    /// [`pointer::is_valid`] of `path` in the spill directory. A store that resolves paths
    /// lexically resolves the directory the same way all run long: its resolution is kept once
    /// read (issue 13: course-latest resolved it again for every pointer it checked).
    fn names_spill_file(&self, path: &str) -> bool {
        let store = self.store.as_ref();
        if !store.lists_resolved() {
            return pointer::is_valid(store, &self.spill_dir, path);
        }
        let root = self
            .spill_root
            .get_or_init(|| store.resolve(&self.spill_dir));
        pointer::is_valid_below(store, root, path)
    }

    /// `dir/name` for the run's spill or transcript directory, which were normalised when the
    /// run started.
    pub(crate) fn path_in(&self, dir: StoreDir, name: &str) -> String {
        let dir = match dir {
            StoreDir::Spill => &self.spill_dir,
            StoreDir::Transcript => &self.transcript_dir,
        };
        store::join_normal(dir, name)
    }

    /// Writes `content` to the file of the spill directory named by `write_name` (about
    /// `name_room` bytes: [`store::join_normal_into`]), and returns its path, shared with the
    /// store's own key where it keeps one ([`Store::shared_path`]). The path is written into a
    /// buffer the world keeps (issue 13: gemini-cli writes 8 000 files, and each path was a
    /// string of its own, then copied for the store, then held by a trace reason).
    pub(crate) fn put_spill_named(
        &mut self,
        name_room: usize,
        write_name: impl FnOnce(&mut String),
        content: SpillText,
    ) -> Result<Rc<str>, RunError> {
        let mut path = std::mem::take(&mut self.path_buffer);
        store::join_normal_into(&mut path, &self.spill_dir, name_room, write_name);
        let written = self.store.put_spill(&path, content);
        let shared = written.map(|()| self.store.shared_path(&path));
        self.path_buffer = path;
        shared
    }

    /// Deletes a file of the spill or transcript directory (a `remove_file` step, as retention
    /// cleanup does) and forgets what it held: a result whose only copy it was becomes
    /// unrecoverable, and the pointers naming it dangle.
    pub(crate) fn remove_file(&mut self, dir: StoreDir, name: &str) -> Result<(), RunError> {
        let path = self.path_in(dir, name);
        let removed = self
            .store
            .remove(&path)
            .map_err(|source| RunError::Remove {
                path: path.clone(),
                source,
            })?;
        if !removed {
            self.record(
                Event::new("scenario", "remove").reason(reason!("no file {path}: nothing removed")),
            );
            return Ok(());
        }
        let resolved = self.store.resolve(&path);
        let spilled: Vec<CallId> = self
            .ledger
            .results
            .iter()
            .filter(|(id, r)| {
                r.spilled_verbatim && self.store.resolve(&self.spill_path(id)) == resolved
            })
            .map(|(id, _)| *id)
            .collect();
        for id in &spilled {
            if let Some(record) = self.ledger.results.get_mut(id) {
                record.spilled_verbatim = false;
            }
        }
        let held = self.archive.holds.by_path.remove(&path).unwrap_or_default();
        for id in &held {
            let elsewhere = self
                .archive
                .holds
                .by_path
                .values()
                .any(|ids| ids.contains(id));
            if let Some(record) = self.ledger.results.get_mut(id) {
                record.archived_verbatim = elsewhere;
                self.history.note_result_change(id);
            }
        }
        self.record(Event::new("scenario", "remove").reason(reason!(
            "removed {path} (retention cleanup): it held {} result(s)",
            spilled.len() + held.len()
        )));
        Ok(())
    }

    /// Records the estimate after a step for the peak.
    pub(crate) fn note_peak(&mut self) {
        self.counters.peak_chars = self.counters.peak_chars.max(self.history.estimate());
    }
}

/// [`World::result_in_context`] from the history and the ledger's records, for a caller that
/// holds part of the ledger mutably.
fn in_context(history: &History, results: &IdMap<ResultRecord>, id: &CallId) -> Option<bool> {
    history
        .holds_result(id)
        .then(|| results.get(id).is_some_and(|r| r.is_original))
}

/// Claude Code names a Bash spill file by the shell task that ran the command, not by the
/// tool_use id (`BashTool.tsx` links the task's output file to
/// `getToolResultPath(result.outputTaskId)`; D1 in docs/probe.md). A task id is
/// `b` and 8 characters of `0-9a-z`, each a random byte modulo 36 (`Task.ts` generateTaskId);
/// the lab's deterministic stand-in takes those 8 bytes from the sha256 of the tool_use id, so
/// a file keeps its real shape and `lab probe` maps a real task id onto the same name.
pub fn bash_task_id(tool_use_id: &str) -> String {
    use sha2::{Digest, Sha256};
    const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let hash = Sha256::digest(tool_use_id.as_bytes());
    let mut id = String::from("b");
    for byte in hash.iter().take(8) {
        id.push(char::from(ALPHABET[usize::from(*byte) % ALPHABET.len()]));
    }
    id
}

#[cfg(test)]
impl World {
    /// A world for unit tests: `profile` as given, an in-memory store with the spill store at
    /// `/lab/tool-results` and transcripts in `/lab/.transcripts`, at step 1.
    pub(crate) fn for_test(profile: Profile) -> Self {
        let mut world = World::new(
            profile,
            Box::new(store::MemoryStore::new()),
            "/lab/tool-results",
            "/lab/.transcripts",
        );
        world.clock.step = 1;
        world
    }

    /// Appends an assistant message calling each `(id, tool)` (an id borrowed or owned), then
    /// their results as one batch as they came (no arrival rule): one turn of the model.
    pub(crate) fn turn<Id: AsRef<str>>(&mut self, calls: &[(Id, &str, String)]) {
        let uses: Vec<(&str, &str)> = calls
            .iter()
            .map(|(id, tool, _)| (id.as_ref(), *tool))
            .collect();
        self.push(Message::tool_uses(&uses));
        self.push_results(
            calls
                .iter()
                .map(|(id, tool, content)| {
                    IncomingResult::measured(id.as_ref(), *tool, content.clone())
                })
                .collect(),
        );
    }

    /// The current content of the result with this id, if it is in context.
    pub(crate) fn result(&self, id: &str) -> Option<&str> {
        self.history
            .messages()
            .iter()
            .flat_map(Message::tool_results)
            .find(|(rid, _)| *rid == id)
            .map(|(_, content)| content)
    }
}

#[cfg(test)]
#[path = "world_tests.rs"]
mod tests;
