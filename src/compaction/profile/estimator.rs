//! How a profile measures the size of the context (docs/profiles.md): the course's
//! `len(json.dumps(messages))`, the course site's `len(str(messages))`, or Claude Code's rough
//! token count. Stages compare these sizes with the profile's limits.

use crate::python::json::{ContentCounter, ContentSizes, Dialect, js_str_units};
use crate::transcript::{
    Block, Content, Message, ResultText, Role, TextSizes, result_utf16, rough_units_by, utf16_len,
};

/// How a profile measures the size of the context (docs/profiles.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    /// `len(json.dumps(messages, default=str, ensure_ascii=False))`, the course's estimate.
    PythonJson,
    /// `len(str(messages))`, Python's repr (the course site's older revision).
    PythonRepr,
    /// Claude Code's `roughTokenCountEstimationForMessages`: per block
    /// `Math.round(length / 4)` in UTF-16 units (text, tool_result content, tool_use
    /// `name + JSON.stringify(input)`), summed; in tokens, not characters.
    ClaudeTokens,
    /// Claude Code v2.1.332's estimate for models outside its list of older ones (the default
    /// claude-opus-5-5): the same per block, `Math.round(length / 3)`.
    ClaudeTokens3,
    /// Cline's `createTokenEstimator`: per message `ceil(JSON.stringify(message).length / 3)`,
    /// at least 1, summed; in tokens (the lab's message holds `role` and `content` only).
    ClineTokens,
}

/// Cline's estimate of one message (`estimateTokens` with `CHARS_PER_TOKEN` 3).
pub fn cline_tokens(message: &Message) -> usize {
    cline_round(cline_units(message, &[], &mut |_| {}))
}

/// The text a converted Cline `file` block starts with (`[file PATH]\n` and the content, as
/// the Cline importer writes it): an attachment, which Cline's fold drops from every prompt but
/// the latest.
pub const CLINE_ATTACHMENT: &str = "[file ";

/// Whether Cline's fold keeps `message` as it stands wherever it keeps it: a user message of
/// text blocks only, each non-empty and trimmed already, none an attachment, which
/// `sanitizeTypedUserMessage` and `userContentBlocks` leave as they find it. The history notes
/// it as a message enters (issue 13: every prompt a fold keeps is merged into one such message,
/// which grows with the session and which each fold read block by block).
pub(crate) fn cline_plain_prompt(message: &Message) -> bool {
    let Content::Blocks(blocks) = &message.content else {
        return false;
    };
    message.role == Role::User && !blocks.is_empty() && blocks.iter().all(cline_plain_block)
}

/// Whether a block may stand in a plain prompt ([`cline_plain_prompt`]).
pub(crate) fn cline_plain_block(block: &Block) -> bool {
    match block {
        Block::Text { text } => cline_trimmed(text) && !text.starts_with(CLINE_ATTACHMENT),
        _ => false,
    }
}

/// Whether `sanitizeTypedUserMessage` leaves `text` as it is: not empty, and trimmed already.
pub(crate) fn cline_trimmed(text: &str) -> bool {
    !text.is_empty() && text.trim().len() == text.len()
}

/// Cline's tokens for a message of `units` UTF-16 units of JSON.
pub(crate) fn cline_round(units: usize) -> usize {
    units.div_ceil(3).max(1)
}

/// `JSON.stringify(message).length` of [`crate::transcript::JsMessage`], counted from the
/// message's parts without running a serialiser: each string is scanned once by
/// [`js_str_units`] (quotes and escapes included), which `found` is handed for every
/// tool_result content, in block order (the first ones' lengths are `known`'s where given). A
/// tool_use input is serialised as before (it is small).
pub(crate) fn cline_units(
    message: &Message,
    known: &[TextSizes],
    found: &mut dyn FnMut(usize),
) -> usize {
    match &message.content {
        Content::Text(text) => message_frame_units(message.role) + js_str_units(text),
        Content::Blocks(blocks) => cline_blocks_units(message.role, blocks.iter(), known, found),
    }
}

/// `{"role":…,"content":}` of a message of `role`, without its content.
fn message_frame_units(role: Role) -> usize {
    r#"{"role":,"content":}"#.len() + js_str_units(role.as_str())
}

/// [`cline_units`] of a message of `role` whose content is `blocks`.
fn cline_blocks_units<'a>(
    role: Role,
    blocks: impl ExactSizeIterator<Item = &'a Block>,
    known: &[TextSizes],
    found: &mut dyn FnMut(usize),
) -> usize {
    let mut known = known.iter();
    let frame = cline_blocks_frame(role, blocks.len());
    blocks.fold(frame, |units, block| {
        units + cline_block_units(block, &mut known, found)
    })
}

/// What a message of `role` with `count` blocks counts besides its blocks: the message's frame,
/// `[`, the blocks joined by `,`, `]`.
pub(crate) fn cline_blocks_frame(role: Role, count: usize) -> usize {
    message_frame_units(role) + 2 + count.saturating_sub(1)
}

/// One block's `JSON.stringify` length, an object with its keys in `Block::to_value`'s order; a
/// tool_result content's length is the next of `known`'s where there is one, and handed to
/// `found`.
pub(crate) fn cline_block_units(
    block: &Block,
    known: &mut std::slice::Iter<'_, TextSizes>,
    found: &mut dyn FnMut(usize),
) -> usize {
    match block {
        Block::Text { text } => r#"{"type":"text","text":}"#.len() + js_str_units(text),
        Block::ToolUse { id, name, input } => {
            r#"{"type":"tool_use","id":,"name":,"input":}"#.len()
                + js_str_units(id)
                + js_str_units(name)
                + input.js_len()
        }
        Block::ToolResult {
            tool_use_id,
            content,
        } => {
            let size = known.next().map_or_else(|| js_str_units(content), |k| k.js);
            found(size);
            r#"{"type":"tool_result","tool_use_id":,"content":}"#.len()
                + js_str_units(tool_use_id)
                + size
        }
    }
}

impl Estimator {
    /// The UTF-16 units a token of Claude Code's rough estimates (asked of those two only): 3
    /// for v2.1.332's default model, 4 otherwise.
    fn units_per_token(self) -> usize {
        if self == Estimator::ClaudeTokens3 {
            3
        } else {
            4
        }
    }

    /// Size of one message.
    pub fn message(self, message: &Message) -> usize {
        match self {
            Estimator::PythonJson => message.json_chars(),
            Estimator::PythonRepr => message.repr_chars(),
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                message.rough_tokens_by(self.units_per_token())
            }
            Estimator::ClineTokens => cline_tokens(message),
        }
    }

    /// [`Self::string`] of a text whose sizes are known.
    pub(crate) fn known(self, sizes: &TextSizes) -> usize {
        match self {
            Estimator::PythonJson => sizes.json,
            Estimator::PythonRepr => sizes.repr,
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                rough_units_by(sizes.utf16, self.units_per_token())
            }
            Estimator::ClineTokens => sizes.js.div_ceil(3),
        }
    }

    /// Size of one message and, in block order, the size ([`Self::string`]) of the content of
    /// each tool_result block in it: one pass over the text, or none over the first contents
    /// whose sizes are `known`.
    pub(crate) fn measure(self, message: &Message, known: &[TextSizes]) -> (usize, ContentSizes) {
        let dialect = match self {
            Estimator::PythonJson => Dialect::Json,
            Estimator::PythonRepr => Dialect::Repr,
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                let per = self.units_per_token();
                let Content::Blocks(blocks) = &message.content else {
                    return (message.rough_tokens_by(per), ContentSizes::new());
                };
                let mut contents = ContentSizes::new();
                let mut total = 0;
                let mut known = known.iter();
                for block in blocks {
                    let tokens = match block {
                        Block::ToolResult { .. } => {
                            let tokens = known.next().map_or_else(
                                || block.rough_tokens_by(per),
                                |k| rough_units_by(k.utf16, per),
                            );
                            contents.push(tokens);
                            tokens
                        }
                        _ => block.rough_tokens_by(per),
                    };
                    total += tokens;
                }
                return (total, contents);
            }
            Estimator::ClineTokens => {
                // Rounded per message: the total is not a sum of its strings' sizes.
                let mut contents = ContentSizes::new();
                let units =
                    cline_units(message, known, &mut |size| contents.push(size.div_ceil(3)));
                return (cline_round(units), contents);
            }
        };
        let mut counter = ContentCounter {
            total: 0,
            // A message with known sizes holds that many tool_results, most often.
            contents: ContentSizes::with_capacity(known.len()),
            known: known.iter().map(|k| self.known(k)),
        };
        message.write_py(&mut counter, dialect);
        (counter.total, counter.contents)
    }

    /// [`Self::string`] of a result's text; Claude Code's estimate of an ASCII text is
    /// counted from its length.
    pub(crate) fn result(self, text: &ResultText) -> usize {
        match self {
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                rough_units_by(result_utf16(text), self.units_per_token())
            }
            _ => self.string(text),
        }
    }

    /// [`Self::result`] of a text of `units` UTF-16 units, for an estimate that counts those
    /// alone (`None` for the others, which read the text).
    pub(crate) fn of_utf16(self, units: usize) -> Option<usize> {
        match self {
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                Some(rough_units_by(units, self.units_per_token()))
            }
            _ => None,
        }
    }

    /// Size of one string value inside a message (quotes and escapes included).
    pub fn string(self, text: &str) -> usize {
        match self {
            Estimator::PythonJson => crate::python::json::json_str_chars(text),
            Estimator::PythonRepr => crate::python::json::repr_str_chars(text),
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 => {
                rough_units_by(utf16_len(text), self.units_per_token())
            }
            Estimator::ClineTokens => js_str_units(text).div_ceil(3),
        }
    }

    /// Size of a list of `count` messages whose sizes add up to `sum`.
    pub fn list(self, count: usize, sum: usize) -> usize {
        match self {
            // A Python list prints the same brackets and ", " in both views.
            Estimator::PythonJson | Estimator::PythonRepr => {
                crate::transcript::list_chars(count, sum)
            }
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 | Estimator::ClineTokens => sum,
        }
    }

    /// The estimate as `lab profiles` describes it.
    pub fn describe(self) -> &'static str {
        match self {
            Estimator::PythonJson => "len(json.dumps(messages, ensure_ascii=False))",
            Estimator::PythonRepr => "len(str(messages))",
            Estimator::ClaudeTokens => "tokens: per block Math.round(UTF-16 length / 4), summed",
            Estimator::ClaudeTokens3 => "tokens: per block Math.round(UTF-16 length / 3), summed",
            Estimator::ClineTokens => {
                "tokens: per message ceil(UTF-16 length of JSON.stringify(message) / 3), summed"
            }
        }
    }

    /// The estimate of a whole list, serialising everything (the slow reference for the
    /// incremental estimate).
    pub fn full(self, messages: &[Message]) -> usize {
        self.list(
            messages.len(),
            messages.iter().map(|m| self.message(m)).sum(),
        )
    }

    /// The unit of the estimate.
    pub fn unit(self) -> &'static str {
        match self {
            Estimator::PythonJson | Estimator::PythonRepr => "chars",
            Estimator::ClaudeTokens | Estimator::ClaudeTokens3 | Estimator::ClineTokens => "tokens",
        }
    }
}

/// How the lab states [`common_tokens`], for tables and `lab profiles`.
pub const COMMON_RULE: &str = "common tokens: the final context measured the same way for every \
profile, by Claude Code's rough estimate (per block round(UTF-16 length / 4), summed), whatever \
the profile's own estimate";

/// The one measure in which profiles can be ranked side by side (issue 16, item 3): Claude
/// Code's rough token estimate of `messages`, whatever estimate the profile itself uses.
pub fn common_tokens(messages: &[Message]) -> usize {
    messages.iter().map(Message::rough_tokens).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{JsMessage, Role, js_stringify, js_stringify_len};

    /// Cline's count from the message's parts equals the length of `JSON.stringify` of the
    /// message as serde_json writes it, over every block kind, escapes, non-ASCII and a
    /// character outside the BMP (two UTF-16 units).
    #[test]
    fn cline_units_count_what_the_serialiser_writes() {
        let mut input = serde_json::Map::new();
        input.insert("file_path".into(), "/a/\"b\".txt".into());
        input.insert("limit".into(), 20.into());
        let messages = [
            Message::user_text("plain"),
            Message::user_text("tab\t \"q\" \\ \u{1} 中 😀 \u{7f}"),
            Message::blocks(
                Role::Assistant,
                vec![
                    Block::Text {
                        text: "on it\n".into(),
                    },
                    Block::ToolUse {
                        id: "toolu_1".into(),
                        name: "Read".into(),
                        input: input.into(),
                    },
                ],
            ),
            Message::blocks(
                Role::User,
                vec![
                    Block::tool_result("toolu_1", "line 1\nline \"2\" 😀"),
                    Block::tool_result("t\"2", ""),
                ],
            ),
            Message::blocks(Role::User, Vec::new()),
        ];
        for message in &messages {
            let mut found = Vec::new();
            let units = cline_units(message, &[], &mut |size| found.push(size));
            assert_eq!(units, js_stringify_len(&JsMessage(message)), "{message:?}");
            let expected: Vec<usize> = message
                .tool_results()
                .map(|(_, content)| js_stringify_len(content))
                .collect();
            assert_eq!(found, expected);
        }
        // The counted length is the string's: `{"role":"user","content":"plain"}` is 33.
        assert_eq!(js_stringify(&messages[0].to_value()).len(), 33);
        assert_eq!(cline_units(&messages[0], &[], &mut |_| {}), 33);
        assert_eq!(cline_tokens(&messages[0]), 11);
    }

    #[test]
    fn claude_code_2_1_332_counts_three_characters_a_token_per_block() {
        // p14's tail after the reported usage: b1's tool_use (`Bash` + 39 chars of JSON = 43:
        // 14.3 → 14), then the results `1\tcharlie one` (13: 4.3 → 4) and `ok` (2: 0.67 → 1),
        // each block rounded on its own.
        let mut input = serde_json::Map::new();
        input.insert("command".into(), "cat fixtures/toolu_b1.out".into());
        let call = Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: "toolu_b1".into(),
                name: "Bash".into(),
                input: input.into(),
            }],
        );
        assert_eq!(Estimator::ClaudeTokens3.message(&call), 14);
        assert_eq!(Estimator::ClaudeTokens.message(&call), 11);
        let results = Message::blocks(
            Role::User,
            vec![
                Block::ToolResult {
                    tool_use_id: "toolu_rc".into(),
                    content: "1\tcharlie one".into(),
                },
                Block::ToolResult {
                    tool_use_id: "toolu_b1".into(),
                    content: "ok".into(),
                },
            ],
        );
        assert_eq!(Estimator::ClaudeTokens3.message(&results), 5);
        let (total, contents) = Estimator::ClaudeTokens3.measure(&results, &[]);
        assert_eq!((total, contents.as_slice()), (5, &[4, 1][..]));
        assert_eq!(Estimator::ClaudeTokens3.string("12345"), 2);
        assert_eq!(Estimator::ClaudeTokens3.string("1234"), 1);
    }
}
