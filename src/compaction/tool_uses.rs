//! What context editing (`clear_tool_uses`) would clear, kept up to date as the history grows so
//! that a request does not scan every tool use and every result in context (issue 13: the scan
//! made an anthropic-api replay quadratic in the turns).
//!
//! The rule it keeps: of the tool_use ids in assistant messages, in order, all but the last
//! `keep` are "to clear" (an id counts once it occurs among them, even if it occurs again later);
//! every tool_result in a user message whose id is to clear and whose content is not the
//! placeholder is a target. The boundary only moves forward as tool uses are appended, so each
//! id enters the clear set once and each result becomes a target once; clearing a target (or
//! setting any result's text) updates it in place. A cut or a rebuild of the list drops the index
//! (the history builds it again on the next request).

use std::collections::BTreeMap;

use crate::call_id::CallId;
use crate::hash::FastMap;

use crate::transcript::{Block, Message, Role};

/// A tool_result's position: message index, block index, and its ordinal among the tool_result
/// blocks of its message (the index of its cached size).
type Position = (usize, usize, usize);

/// The clear set and the targets of context editing, for one `keep` and placeholder.
#[derive(Debug)]
pub(crate) struct ClearIndex {
    keep: usize,
    placeholder: &'static str,
    /// The placeholder's size, by the history's estimator.
    placeholder_size: usize,
    /// Tool_use ids of assistant messages, in order.
    uses: Vec<CallId>,
    /// Index in `uses` of each id's first occurrence: the id is to clear once that index is
    /// below `boundary`.
    first_use: FastMap<CallId, usize>,
    /// Results whose id is not to clear (yet), by id.
    waiting: FastMap<CallId, Vec<Position>>,
    /// `uses[..boundary]` have been taken into the clear set.
    boundary: usize,
    /// The targets, in list order, with the tokens clearing each would save.
    targets: BTreeMap<(usize, usize), usize>,
    /// The sum of `targets`' savings.
    saved: usize,
}

impl ClearIndex {
    /// An empty index for a history measured so that the placeholder's size is
    /// `placeholder_size`.
    pub(crate) fn new(keep: usize, placeholder: &'static str, placeholder_size: usize) -> Self {
        ClearIndex {
            keep,
            placeholder,
            placeholder_size,
            uses: Vec::new(),
            first_use: FastMap::default(),
            waiting: FastMap::default(),
            boundary: 0,
            targets: BTreeMap::new(),
            saved: 0,
        }
    }

    /// Whether the index answers for this `keep` and placeholder.
    pub(crate) fn is_for(&self, keep: usize, placeholder: &str) -> bool {
        self.keep == keep && self.placeholder == placeholder
    }

    fn is_clear(&self, id: &CallId) -> bool {
        self.first_use
            .get(id)
            .is_some_and(|&first| first < self.boundary)
    }

    /// Takes in the message appended at index `at`, whose tool_result contents have the sizes
    /// `sizes` (in block order).
    pub(crate) fn push(&mut self, at: usize, message: &Message, sizes: &[usize]) {
        match message.role {
            Role::Assistant => {
                for id in message.tool_use_ids() {
                    let index = self.uses.len();
                    self.first_use.entry(*id).or_insert(index);
                    self.uses.push(*id);
                }
            }
            Role::User => {
                let results = message
                    .block_list()
                    .iter()
                    .enumerate()
                    .filter_map(|(b, block)| match block {
                        Block::ToolResult {
                            tool_use_id,
                            content,
                        } => Some((b, tool_use_id, content)),
                        _ => None,
                    });
                for (ordinal, (block, id, content)) in results.enumerate() {
                    if self.is_clear(id) {
                        self.target(at, block, content, sizes[ordinal]);
                    } else {
                        let waiting = self.waiting.entry(*id).or_default();
                        waiting.push((at, block, ordinal));
                    }
                }
            }
        }
    }

    /// Takes in a result whose text became `content` (of size `size`).
    pub(crate) fn set(&mut self, at: (usize, usize), id: &CallId, content: &str, size: usize) {
        if !self.is_clear(id) {
            return;
        }
        if let Some(old) = self.targets.remove(&at) {
            self.saved -= old;
        }
        self.target(at.0, at.1, content, size);
    }

    fn target(&mut self, message: usize, block: usize, content: &str, size: usize) {
        if content == self.placeholder {
            return;
        }
        let saved = size.saturating_sub(self.placeholder_size);
        self.targets.insert((message, block), saved);
        self.saved += saved;
    }

    /// How many targets there are and what clearing them all saves; `None` when there are no
    /// more than `keep` tool uses. `content_size` gives a waiting result's text and size when
    /// its id enters the clear set.
    pub(crate) fn advance<'a>(
        &mut self,
        content_size: impl Fn(Position) -> (&'a str, usize),
    ) -> Option<(usize, usize)> {
        let count = self.uses.len();
        if count <= self.keep {
            return None;
        }
        while self.boundary < count - self.keep {
            let index = self.boundary;
            self.boundary += 1;
            let id = &self.uses[index];
            if self.first_use.get(id) != Some(&index) {
                continue;
            }
            for (message, block, ordinal) in self.waiting.remove(id).unwrap_or_default() {
                let (content, size) = content_size((message, block, ordinal));
                self.target(message, block, content, size);
            }
        }
        Some((self.targets.len(), self.saved))
    }

    /// `(message, block, tokens saved)` of every target, in list order.
    pub(crate) fn targets(&self) -> Vec<(usize, usize, usize)> {
        self.targets.iter().map(|(&(m, b), &s)| (m, b, s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::compaction::history::History;
    use crate::compaction::profile::Estimator;
    use crate::transcript::{Block, Message, Role};

    /// The rule recounted from scratch, as the stage applied it before the index (issue 13).
    fn recount(h: &History, keep: usize, placeholder: &str) -> Option<Vec<(usize, usize, usize)>> {
        let ids: Vec<&str> = h
            .messages()
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| m.tool_use_ids().map(crate::call_id::CallId::as_str))
            .collect();
        if ids.len() <= keep {
            return None;
        }
        let clear: HashSet<&str> = ids[..ids.len() - keep].iter().copied().collect();
        let e = Estimator::ClaudeTokens;
        // Every tool_result of a user message, found by walking the list (not the history's
        // kept positions, which are under test too).
        let positions = h.messages().iter().enumerate().flat_map(|(m, message)| {
            let blocks = message.block_list().iter().enumerate();
            blocks
                .filter(move |(_, block)| {
                    message.role == Role::User && matches!(block, Block::ToolResult { .. })
                })
                .map(move |(b, _)| (m, b))
        });
        let targets = positions.filter_map(|(m, b)| {
            let (id, content) = h.result_at(m, b);
            let saved = e.string(content).saturating_sub(e.string(placeholder));
            (clear.contains(id.as_str()) && content != placeholder).then_some((m, b, saved))
        });
        Some(targets.collect())
    }

    /// A random session (repeated and orphan ids, results out of order, placeholders, texts
    /// replaced, cuts): after every change the kept index gives the targets a recount gives.
    #[test]
    fn the_kept_targets_equal_a_recount_after_every_change() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut history = History::new(Estimator::ClaudeTokens);
        let mut checked = 0;
        for step in 0..3_000 {
            let id = |rng: &mut ChaCha8Rng| format!("t{}", rng.next_u64() % 400);
            let text = |rng: &mut ChaCha8Rng| match rng.next_u64() % 4 {
                0 => "[cleared]".to_owned(),
                n => "é".repeat((rng.next_u64() % 500) as usize * n as usize),
            };
            match rng.next_u64() % 10 {
                0..=3 => {
                    let ids: Vec<String> = (0..=rng.next_u64() % 3).map(|_| id(&mut rng)).collect();
                    let calls: Vec<(&str, &str)> =
                        ids.iter().map(|i| (i.as_str(), "Bash")).collect();
                    history.push(Message::tool_uses(&calls));
                }
                4..=6 => {
                    let blocks = (0..=rng.next_u64() % 3)
                        .map(|_| Block::tool_result(id(&mut rng), text(&mut rng)))
                        .collect();
                    history.push(Message::blocks(Role::User, blocks));
                }
                7 => history.push(Message::user_text(text(&mut rng))),
                8 => {
                    let positions = history.result_positions();
                    if !positions.is_empty() {
                        let (m, b) = positions[rng.next_u64() as usize % positions.len()];
                        history.set_result(m, b, text(&mut rng));
                    }
                }
                _ if step % 97 == 0 && history.len() > 4 => {
                    history.splice(1, vec![Message::user_text("cut")], 3);
                }
                _ => {}
            }
            let keep = if step < 2_000 { 3 } else { 5 };
            let kept = history.clear_targets(keep, "[cleared]");
            let expected = recount(&history, keep, "[cleared]");
            let expected_sum = expected
                .as_ref()
                .map(|t| (t.len(), t.iter().map(|x| x.2).sum()));
            assert_eq!(kept, expected_sum, "step {step}");
            if let Some(expected) = expected {
                assert_eq!(history.clear_target_list(), expected, "step {step}");
                checked += expected.len();
                // Now and then the stage clears them all, as an applied edit does.
                if step % 7 == 0 {
                    for (m, b, _) in expected {
                        history.set_result(m, b, "[cleared]");
                    }
                    assert_eq!(history.clear_targets(keep, "[cleared]"), Some((0, 0)));
                }
            }
        }
        assert!(
            checked > 5_000,
            "the session reached the clear set: {checked}"
        );
    }
}
