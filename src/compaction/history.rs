//! The history a request sends: the message list with a size estimate kept up to date on every
//! change, and the message pinned before it (Claude Code's CLAUDE.md user context). Checking the
//! limit never re-serialises the whole history, so the replay cost stays linear in the turns; a
//! test holds the incremental estimate equal to the profile's full serialisation (SPEC §2).

use crate::compaction::profile::Estimator;
use crate::transcript::{Block, Content, Message, Role};

/// The message list with a size estimate kept up to date on every change.
#[derive(Debug)]
pub(crate) struct History {
    estimator: Estimator,
    messages: Vec<Message>,
    sizes: Vec<usize>,
    sum: usize,
    /// A message sent before the history on every request and never compacted (Claude Code's
    /// CLAUDE.md context), with its size.
    pinned: Option<(Message, usize)>,
}

impl History {
    /// An empty history measured by `estimator`.
    pub(crate) fn new(estimator: Estimator) -> Self {
        History {
            estimator,
            messages: Vec::new(),
            sizes: Vec::new(),
            sum: 0,
            pinned: None,
        }
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

    /// What a request sends: the pinned message, then the history.
    pub(crate) fn context(&self) -> Vec<Message> {
        self.pinned()
            .into_iter()
            .chain(self.messages.iter())
            .cloned()
            .collect()
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

    /// Appends a message and adds its size to the estimate.
    pub(crate) fn push(&mut self, message: Message) {
        let size = self.estimator.message(&message);
        self.sum += size;
        self.sizes.push(size);
        self.messages.push(message);
    }

    /// Replaces the whole list (snip, compact, reactive).
    pub(crate) fn replace_all(&mut self, messages: Vec<Message>) {
        self.messages.clear();
        self.sizes.clear();
        self.sum = 0;
        for message in messages {
            self.push(message);
        }
    }

    /// Replaces the content of the tool_result block at `(message, block)`; returns the old one.
    pub(crate) fn set_result(&mut self, message: usize, block: usize, content: String) -> String {
        let Content::Blocks(blocks) = &mut self.messages[message].content else {
            unreachable!("set_result on a message without blocks");
        };
        let Block::ToolResult { content: slot, .. } = &mut blocks[block] else {
            unreachable!("set_result on a block that is not a tool_result");
        };
        let old = std::mem::replace(slot, content);
        // Cline's estimate rounds per message, so it is not a sum over strings: recount.
        let new_size = if self.estimator == Estimator::ClineTokens {
            self.estimator.message(&self.messages[message])
        } else {
            self.sizes[message] - self.estimator.string(&old) + self.estimator.string(slot)
        };
        self.sum = self.sum - self.sizes[message] + new_size;
        self.sizes[message] = new_size;
        old
    }

    /// Characters of the history as JSONL (one `json.dumps` line per message).
    pub(crate) fn jsonl_chars(&self) -> usize {
        match self.estimator {
            Estimator::PythonJson => self.sum + self.messages.len(),
            Estimator::PythonRepr | Estimator::ClaudeTokens | Estimator::ClineTokens => {
                self.messages.iter().map(|m| m.json_chars() + 1).sum()
            }
        }
    }

    /// The estimate of `messages[..end]` alone (what a summariser is handed).
    pub(crate) fn estimate_prefix(&self, end: usize) -> usize {
        self.estimator.list(end, self.sizes[..end].iter().sum())
    }

    /// The estimate of `messages[start..]` alone (the messages after a reported usage); 0 when
    /// `start` is past the end.
    pub(crate) fn estimate_suffix(&self, start: usize) -> usize {
        let sizes = self.sizes.get(start..).unwrap_or(&[]);
        self.estimator.list(sizes.len(), sizes.iter().sum())
    }

    /// `(message index, block index)` of every tool_result block in user
    /// messages with list content, in order.
    pub(crate) fn result_positions(&self) -> Vec<(usize, usize)> {
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
    pub(crate) fn result_at(&self, message: usize, block: usize) -> (&str, &str) {
        match &self.messages[message].block_list()[block] {
            Block::ToolResult {
                tool_use_id,
                content,
            } => (tool_use_id, content),
            _ => unreachable!("result_at on a block that is not a tool_result"),
        }
    }

    /// [`Self::result_at`] as owned strings, for a stage that changes the history afterwards.
    pub(crate) fn owned_result_at(&self, message: usize, block: usize) -> (String, String) {
        let (id, content) = self.result_at(message, block);
        (id.to_owned(), content.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::estimate_chars;

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
        history.push(Message::tool_result("t1", &"x".repeat(500)));
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
        let old = history.set_result(2, 0, "line\n\u{1}tab\t\\".into());
        assert_eq!(old.len(), 500);
        assert_eq!(history.estimate(), estimate_chars(history.messages()));
        assert_eq!(
            history.estimate_prefix(2),
            estimate_chars(&history.messages()[..2])
        );
        assert_eq!(
            history.estimate_suffix(1),
            estimate_chars(&history.messages()[1..])
        );
        assert_eq!(history.estimate_suffix(9), estimate_chars(&[]));
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
