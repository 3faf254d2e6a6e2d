//! All simulation state of one run in one place: the history with its incremental size
//! estimate, the spill store and transcript archive, the per-result bookkeeping, the trace and the
//! counters. Stages take it explicitly; there are no globals, no clock and no ambient randomness.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compaction::profile::{Estimator, Persist, Profile, TranscriptName, fill};
use crate::compaction::store::{self, Store};
use crate::compaction::switches::SwitchName;
use crate::error::RunError;
use crate::python::json::{self, char_len};
use crate::scenario::Usage;
use crate::trace::Event;
use crate::transcript::{Block, Content, Message, Role};

/// The message list with a size estimate kept up to date on every change, so that checking the
/// limit never re-serialises the whole history (the replay cost stays linear in the turns).
#[derive(Debug)]
pub struct History {
    estimator: Estimator,
    messages: Vec<Message>,
    sizes: Vec<usize>,
    sum: usize,
    /// A message sent before the history on every request and never compacted (Claude Code's
    /// CLAUDE.md context), with its size.
    pinned: Option<(Message, usize)>,
}

impl History {
    pub fn new(estimator: Estimator) -> Self {
        History {
            estimator,
            messages: Vec::new(),
            sizes: Vec::new(),
            sum: 0,
            pinned: None,
        }
    }

    /// Sets the pinned message sent before the history.
    pub fn pin(&mut self, message: Message) {
        let size = self.estimator.message(&message);
        self.pinned = Some((message, size));
    }

    /// The pinned message, if any.
    pub fn pinned(&self) -> Option<&Message> {
        self.pinned.as_ref().map(|(m, _)| m)
    }

    /// What a request sends: the pinned message, then the history.
    pub fn context(&self) -> Vec<Message> {
        self.pinned()
            .into_iter()
            .chain(self.messages.iter())
            .cloned()
            .collect()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The profile's estimate of what a request sends (the pinned message included).
    pub fn estimate(&self) -> usize {
        match &self.pinned {
            Some((_, size)) => self
                .estimator
                .list(self.messages.len() + 1, self.sum + size),
            None => self.estimator.list(self.messages.len(), self.sum),
        }
    }

    pub fn push(&mut self, message: Message) {
        let size = self.estimator.message(&message);
        self.sum += size;
        self.sizes.push(size);
        self.messages.push(message);
    }

    /// Replaces the whole list (snip, compact, reactive).
    pub fn replace_all(&mut self, messages: Vec<Message>) {
        self.messages.clear();
        self.sizes.clear();
        self.sum = 0;
        for message in messages {
            self.push(message);
        }
    }

    /// Replaces the content of the tool_result block at `(message, block)`; returns the old one.
    pub fn set_result(&mut self, message: usize, block: usize, content: String) -> String {
        let Content::Blocks(blocks) = &mut self.messages[message].content else {
            unreachable!("set_result on a message without blocks");
        };
        let Block::ToolResult { content: slot, .. } = &mut blocks[block] else {
            unreachable!("set_result on a block that is not a tool_result");
        };
        let old = std::mem::replace(slot, content);
        let new_size =
            self.sizes[message] - self.estimator.string(&old) + self.estimator.string(slot);
        self.sum = self.sum - self.sizes[message] + new_size;
        self.sizes[message] = new_size;
        old
    }

    /// Characters of the history as JSONL (one `json.dumps` line per message).
    pub fn jsonl_chars(&self) -> usize {
        match self.estimator {
            Estimator::PythonJson => self.sum + self.messages.len(),
            Estimator::PythonRepr | Estimator::ClaudeTokens => {
                self.messages.iter().map(|m| m.json_chars() + 1).sum()
            }
        }
    }

    /// The estimate of `messages[..end]` alone (what a summariser is handed).
    pub fn estimate_prefix(&self, end: usize) -> usize {
        self.estimator.list(end, self.sizes[..end].iter().sum())
    }

    /// `(message index, block index)` of every tool_result block in user
    /// messages with list content, in order.
    pub fn result_positions(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (mi, message) in self.messages.iter().enumerate() {
            if message.role != Role::User {
                continue;
            }
            for (bi, block) in message.block_list().iter().enumerate() {
                if matches!(block, Block::ToolResult { .. }) {
                    out.push((mi, bi));
                }
            }
        }
        out
    }

    /// `(tool_use_id, content)` of the tool_result block at a position.
    pub fn result_at(&self, message: usize, block: usize) -> (&str, &str) {
        match &self.messages[message].block_list()[block] {
            Block::ToolResult {
                tool_use_id,
                content,
            } => (tool_use_id, content),
            _ => unreachable!("result_at on a block that is not a tool_result"),
        }
    }
}

/// What the lab knows about one tool result over the whole run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRecord {
    /// Tool name of the call.
    pub name: String,
    /// Length of the original content.
    pub original_chars: usize,
    /// Step at which the result arrived.
    pub step: usize,
    /// The block in context still holds the original text.
    pub is_original: bool,
    /// An assistant message has followed the result.
    pub seen: bool,
    /// The result was replaced before it was seen.
    pub unseen_compacted: bool,
    /// The original text was written to (or already was in) the spill store.
    pub spilled_verbatim: bool,
    /// The original text is held by a transcript archive.
    pub archived_verbatim: bool,
}

/// One transcript written to the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptRecord {
    pub path: String,
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

/// The whole state of one run.
pub struct World {
    pub profile: Profile,
    pub history: History,
    pub store: Box<dyn Store>,
    pub spill_dir: String,
    pub transcript_dir: String,
    pub trace: Vec<Event>,
    pub results: BTreeMap<String, ResultRecord>,
    /// Result ids in order of arrival.
    pub arrivals: Vec<String>,
    pub transcripts: Vec<TranscriptRecord>,
    /// Results that arrived since the last assistant message.
    unseen: Vec<String>,
    /// The active user request (the text compaction repeats).
    pub active_request: String,
    /// Scripted summary text; `summary of {N} messages` when absent.
    pub summary: Option<String>,
    /// The scenario's CLAUDE.md text.
    pub claude_md: Option<String>,
    /// Current 1-based step.
    pub step: usize,
    /// Model calls made by the context layer (summaries).
    pub model_calls: usize,
    /// Largest estimate seen after any step.
    pub peak_chars: usize,
    /// Minutes since the last assistant message (idle steps).
    pub idle_minutes: u64,
    /// The last usage an API reported (imported logs): the index of its assistant message in
    /// `history` when it arrived, and the counts. Carried for the profiles that read it.
    pub reported_usage: Option<(usize, Usage)>,
    /// Index in `transcripts` of the session transcript, for profiles that keep one.
    session: Option<usize>,
    /// `file_path` of each `Read` call whose result arrived, newest last, with the result's
    /// original text (Claude Code's readFileState).
    pub read_files: Vec<(String, String)>,
}

impl World {
    pub fn new(
        profile: Profile,
        store: Box<dyn Store>,
        spill_dir: String,
        transcript_dir: String,
    ) -> Self {
        World {
            history: History::new(profile.estimator),
            profile,
            store,
            spill_dir: store::normalize(&spill_dir),
            transcript_dir: store::normalize(&transcript_dir),
            trace: Vec::new(),
            results: BTreeMap::new(),
            arrivals: Vec::new(),
            transcripts: Vec::new(),
            unseen: Vec::new(),
            active_request: String::new(),
            summary: None,
            claude_md: None,
            step: 0,
            model_calls: 0,
            peak_chars: 0,
            idle_minutes: 0,
            reported_usage: None,
            session: None,
            read_files: Vec::new(),
        }
    }

    /// Starts the session transcript (`transcript_dir/session.jsonl`) of profiles that keep one.
    pub fn open_session(&mut self) {
        let path = store::join(&self.transcript_dir, self.profile.session_file);
        self.transcripts.push(TranscriptRecord {
            path,
            stage: "session",
            step: self.step,
            messages: 0,
            chars: 0,
            originals: 0,
            placeholders: 0,
        });
        self.session = Some(self.transcripts.len() - 1);
    }

    /// The session transcript's path, if the profile keeps one.
    pub fn session_path(&self) -> Option<String> {
        self.session.map(|i| self.transcripts[i].path.clone())
    }

    /// Appends messages to the session transcript, if the profile keeps one.
    pub fn log_session(&mut self, messages: &[Message]) -> Result<(), RunError> {
        let Some(index) = self.session else {
            return Ok(());
        };
        let path = self.transcripts[index].path.clone();
        for message in messages {
            let chars = message.json_chars() + 1;
            self.store
                .append_transcript(&path, message, chars)
                .map_err(|source| RunError::Store {
                    path: path.clone(),
                    source,
                })?;
            let mut originals = 0;
            let mut placeholders = 0;
            for (id, _) in message.tool_results() {
                match self.results.get_mut(id) {
                    Some(record) if record.is_original => {
                        record.archived_verbatim = true;
                        originals += 1;
                    }
                    _ => placeholders += 1,
                }
            }
            let record = &mut self.transcripts[index];
            record.messages += 1;
            record.chars += chars;
            record.originals += originals;
            record.placeholders += placeholders;
        }
        Ok(())
    }

    /// Records one event at the current step.
    pub fn event(
        &mut self,
        stage: &'static str,
        kind: &'static str,
        id: Option<&str>,
        before: Option<usize>,
        after: Option<usize>,
        reason: impl Into<String>,
    ) {
        self.trace.push(Event {
            step: self.step,
            stage,
            kind,
            id: id.map(str::to_owned),
            before,
            after,
            reason: reason.into(),
        });
    }

    /// Appends a message (and logs it to the session transcript); an assistant message marks
    /// every earlier result as seen.
    pub fn append(&mut self, message: Message) -> Result<(), RunError> {
        self.log_session(std::slice::from_ref(&message))?;
        self.push(message);
        Ok(())
    }

    fn push(&mut self, message: Message) {
        if message.role == Role::Assistant {
            for id in std::mem::take(&mut self.unseen) {
                if let Some(record) = self.results.get_mut(&id) {
                    record.seen = true;
                }
                self.event(
                    "scenario",
                    "seen",
                    Some(&id),
                    None,
                    None,
                    "an assistant message followed: the model has seen it",
                );
            }
        }
        self.history.push(message);
    }

    /// Appends a batch of results and registers them; the profile's arrival rule (Claude Code's
    /// persistence) applies before the message reaches the session transcript.
    pub fn append_results(
        &mut self,
        results: Vec<(String, String, String)>,
    ) -> Result<(), RunError> {
        let mut blocks = Vec::with_capacity(results.len());
        for (id, name, content) in results {
            let chars = char_len(&content);
            let name_for_read = name.clone();
            self.results.insert(
                id.clone(),
                ResultRecord {
                    name,
                    original_chars: chars,
                    step: self.step,
                    is_original: true,
                    seen: false,
                    unseen_compacted: false,
                    spilled_verbatim: false,
                    archived_verbatim: false,
                },
            );
            self.event(
                "scenario",
                "append",
                Some(&id),
                None,
                Some(chars),
                "result arrived",
            );
            self.unseen.push(id.clone());
            self.arrivals.push(id.clone());
            if name_for_read == "Read" {
                if let Some(path) = self.read_path(&id) {
                    self.read_files.retain(|(p, _)| *p != path);
                    self.read_files.push((path, content.clone()));
                }
            }
            blocks.push(Block::ToolResult {
                tool_use_id: id,
                content,
            });
        }
        self.push(Message::blocks(Role::User, blocks));
        crate::compaction::stages::arrive(self)?;
        let last = self.history.messages().last().cloned();
        if let Some(message) = last {
            self.log_session(&[message])?;
        }
        Ok(())
    }

    /// The `file_path` input of the `Read` call with this id.
    fn read_path(&self, id: &str) -> Option<String> {
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

    /// Replaces a result's content in context, keeping the bookkeeping and the trace.
    pub fn replace_result(
        &mut self,
        message: usize,
        block: usize,
        content: String,
        stage: &'static str,
        reason: String,
    ) {
        let (id, current) = self.history.result_at(message, block);
        if current == content {
            return;
        }
        let id = id.to_owned();
        let after = char_len(&content);
        let placeholder = crate::compaction::observables::is_placeholder(self, &content);
        let old = self.history.set_result(message, block, content);
        if let Some(record) = self.results.get_mut(&id) {
            record.is_original = false;
            // A persisted preview is the designed path for new results; a placeholder is not.
            if !record.seen && placeholder {
                record.unseen_compacted = true;
            }
        }
        self.event(
            stage,
            "replace",
            Some(&id),
            Some(char_len(&old)),
            Some(after),
            reason,
        );
    }

    /// The spill path of a tool_use_id: `spill_dir/<safe_id>.txt`.
    pub fn spill_path(&self, id: &str) -> String {
        store::join(
            &self.spill_dir,
            &format!("{}.txt", self.profile.safe_id(id)),
        )
    }

    /// Budget's persistence of a large result, by the profile's rule: f9e8b28's
    /// `persist_large_output` (write only if absent) or the later `persisted_preview` (keep a
    /// recognised pointer, else `save_output`, which overwrites).
    pub fn persist(
        &mut self,
        message: usize,
        block: usize,
        stage: &'static str,
        why: String,
    ) -> Result<(), RunError> {
        let preview_chars = self.profile.constants.preview;
        let replacement = match self.profile.persist {
            Persist::WriteIfAbsent => self.persist_if_absent(message, block, preview_chars)?,
            Persist::SaveOutput => self.persisted_preview(message, block, preview_chars)?,
        };
        let (text, note) = replacement;
        self.replace_result(message, block, text, stage, format!("{note}: {why}"));
        Ok(())
    }

    fn persisted_block(&self, path: &str, preview: &str) -> String {
        fill(
            self.profile.strings.persisted,
            &[("path", path), ("preview", preview)],
        )
    }

    /// f9e8b28 `persist_large_output`: returns the replacement and what happened.
    fn persist_if_absent(
        &mut self,
        message: usize,
        block: usize,
        preview_chars: usize,
    ) -> Result<(String, String), RunError> {
        let (id, content) = self.history.result_at(message, block);
        let (id, content) = (id.to_owned(), content.to_owned());
        let path = self.spill_path(&id);
        let note = if self.store.is_file(&path) {
            let same = self.store.read_spill(&path).as_deref() == Some(content.as_str());
            self.mark_spilled(&id, same);
            if same {
                "file existed with the same text, not rewritten"
            } else {
                "file existed with other text, not rewritten (write only if absent)"
            }
        } else {
            self.write_spill_file(&id, &path, &content)?;
            "written"
        };
        let preview = json::char_prefix(&content, preview_chars);
        Ok((
            self.persisted_block(&path, preview),
            format!("persisted to {path} ({note})"),
        ))
    }

    /// Later `persisted_preview(tool_use_id, output, preview_chars)`: returns the replacement
    /// and what happened. It writes the file even when the caller then keeps the original.
    pub fn persisted_preview(
        &mut self,
        message: usize,
        block: usize,
        preview_chars: usize,
    ) -> Result<(String, String), RunError> {
        let (id, content) = self.history.result_at(message, block);
        let (id, content) = (id.to_owned(), content.to_owned());
        if let Some(path) = self.recognised_pointer(&content) {
            let preview = match self.store.read_spill(&path) {
                Some(saved) => json::char_prefix(&saved, preview_chars).to_owned(),
                None => json::char_prefix(&content, preview_chars).to_owned(),
            };
            return Ok((
                self.persisted_block(&path, &preview),
                format!("already a pointer to {path}, previewed from that file"),
            ));
        }
        let path = self.save_output(&id, &content)?;
        let preview = json::char_prefix(&content, preview_chars);
        Ok((
            self.persisted_block(&path, preview),
            format!("saved to {path}"),
        ))
    }

    /// Later `save_output`: always writes (overwrites) `spill_dir/<safe_id>.txt`.
    pub fn save_output(&mut self, id: &str, content: &str) -> Result<String, RunError> {
        let path = self.spill_path(id);
        self.write_spill_file(id, &path, content)?;
        Ok(path)
    }

    /// Writes a spill file and marks the result as kept verbatim.
    pub fn write_spill_file(
        &mut self,
        id: &str,
        path: &str,
        content: &str,
    ) -> Result<(), RunError> {
        self.store
            .write_spill(path, content)
            .map_err(|source| RunError::Store {
                path: path.to_owned(),
                source,
            })?;
        self.mark_spilled(id, true);
        Ok(())
    }

    /// The path a result's content points to, as the profile recognises pointers. f9e8b28: any
    /// line starting `Full output: `, unchecked. With `pointer_aware`: a persisted-output block's
    /// `Full output:` line or a whole `saved at` placeholder. With `validate_pointer`: only a path
    /// inside the spill store that names an existing file.
    pub fn recognised_pointer(&self, content: &str) -> Option<String> {
        let strings = self.profile.strings;
        let candidate = if self.profile.on(SwitchName::PointerAware) {
            let (persisted_prefix, _) = strings
                .persisted
                .split_once(strings.pointer_line)
                .expect("the persisted template has the pointer line");
            let mut candidate = None;
            if content.starts_with(persisted_prefix) {
                candidate = json::splitlines(content)
                    .into_iter()
                    .find_map(|line| line.strip_prefix(strings.pointer_line));
            }
            if let Some(crate::compaction::observables::Pointer::SavedAt(path)) =
                crate::compaction::observables::pointer_in(&strings, content)
            {
                candidate = Some(path);
            }
            candidate.map(store::normalize)
        } else {
            json::splitlines(content)
                .into_iter()
                .find_map(|line| line.strip_prefix(strings.pointer_line))
                .map(str::to_owned)
        };
        let path = candidate.filter(|p| !p.is_empty() && p != ".")?;
        if self.profile.on(SwitchName::ValidatePointer)
            && !crate::compaction::observables::pointer_is_valid(self, &path)
        {
            return None;
        }
        Some(path)
    }

    fn mark_spilled(&mut self, id: &str, same_text: bool) {
        if let Some(record) = self.results.get_mut(id) {
            if same_text && record.is_original {
                record.spilled_verbatim = true;
            }
        }
    }

    /// Writes the whole history to the transcript archive as `transcript_{n:032x}.jsonl`.
    pub fn archive(&mut self, stage: &'static str) -> Result<String, RunError> {
        let name = match self.profile.transcript_name {
            TranscriptName::Counter => format!("transcript_{:032x}.jsonl", self.transcripts.len()),
            TranscriptName::EpochSeconds(epoch) => {
                format!("transcript_{}.jsonl", epoch + self.step as u64)
            }
        };
        let path = store::join(&self.transcript_dir, &name);
        let chars = self
            .store
            .write_transcript(&path, self.history.messages(), self.history.jsonl_chars())
            .map_err(|source| RunError::Store {
                path: path.clone(),
                source,
            })?;
        let (mut originals, mut placeholders) = (0, 0);
        let mut first_copies = Vec::new();
        for (mi, bi) in self.history.result_positions() {
            let id = self.history.result_at(mi, bi).0;
            match self.results.get_mut(id) {
                Some(record) if record.is_original => {
                    if !record.archived_verbatim {
                        first_copies.push(id.to_owned());
                    }
                    record.archived_verbatim = true;
                    originals += 1;
                }
                _ => placeholders += 1,
            }
        }
        for id in first_copies {
            self.event(
                stage,
                "archive",
                Some(&id),
                None,
                None,
                format!("{path} holds its original text"),
            );
        }
        self.transcripts.push(TranscriptRecord {
            path: path.clone(),
            stage,
            step: self.step,
            messages: self.history.len(),
            chars,
            originals,
            placeholders,
        });
        self.event(
            stage,
            "archive",
            None,
            None,
            Some(chars),
            format!(
                "wrote {path}: {} messages, {originals} results verbatim, {placeholders} replaced",
                self.history.len()
            ),
        );
        Ok(path)
    }

    /// One scripted summariser call over the first `count` messages.
    pub fn summarize(&mut self, count: usize, stage: &'static str) -> String {
        self.model_calls += 1;
        let input = self.history.estimate_prefix(count);
        let limit = self.profile.constants.summary_input;
        let cut = if input > limit {
            format!(
                ", more than summary_input {limit}: it sees the first {} and the last {} chars",
                limit / 4,
                limit - limit / 4
            )
        } else {
            String::new()
        };
        let summary = self
            .summary
            .clone()
            .unwrap_or_else(|| format!("summary of {count} messages"));
        // The course: `summary.strip() or "(empty summary)"`.
        let summary = match summary.trim() {
            "" => "(empty summary)".to_owned(),
            text => text.to_owned(),
        };
        self.event(
            stage,
            "summary",
            None,
            None,
            Some(char_len(&summary)),
            format!("summariser call over {count} messages ({input} chars{cut})"),
        );
        summary
    }

    /// Records the estimate after a step for the peak.
    pub fn note_peak(&mut self) {
        self.peak_chars = self.peak_chars.max(self.history.estimate());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::estimate_chars;

    fn result(id: &str, content: &str) -> Message {
        Message::blocks(
            Role::User,
            vec![Block::ToolResult {
                tool_use_id: id.into(),
                content: content.into(),
            }],
        )
    }

    #[test]
    fn incremental_estimate_equals_full_serialisation() {
        let mut history = History::new(Estimator::PythonJson);
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
        history.push(Message::user_text("请检查日志 \"now\""));
        history.push(Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: "t1".into(),
                name: "bash".into(),
                input: serde_json::Map::new(),
            }],
        ));
        history.push(result("t1", &"x".repeat(500)));
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
        let old = history.set_result(2, 0, "line\n\u{1}tab\t\\".into());
        assert_eq!(old.len(), 500);
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
        assert_eq!(
            history.estimate_prefix(2),
            estimate_chars(&history.messages()[..2])
        );
        let kept = history.messages()[1..].to_vec();
        history.replace_all(kept);
        assert_eq!(history.len(), 2);
        let lines: usize = history
            .messages()
            .iter()
            .map(|m| m.json_line().chars().count() + 1)
            .sum();
        assert_eq!(history.jsonl_chars(), lines);
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
    }
}
