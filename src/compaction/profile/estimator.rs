//! How a profile measures the size of the context (docs/profiles.md): the course's
//! `len(json.dumps(messages))`, the course site's `len(str(messages))`, or Claude Code's rough
//! token count. Stages compare these sizes with the profile's limits.

use crate::python::json::{ContentCounter, Dialect};
use crate::transcript::{Block, Content, Message};

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
    /// Cline's `createTokenEstimator`: per message `ceil(JSON.stringify(message).length / 3)`,
    /// at least 1, summed; in tokens (the lab's message holds `role` and `content` only).
    ClineTokens,
}

/// Cline's estimate of one message (`estimateTokens` with `CHARS_PER_TOKEN` 3).
pub fn cline_tokens(message: &Message) -> usize {
    crate::transcript::js_stringify_len(&crate::transcript::JsMessage(message))
        .div_ceil(3)
        .max(1)
}

impl Estimator {
    /// Size of one message.
    pub fn message(self, message: &Message) -> usize {
        match self {
            Estimator::PythonJson => message.json_chars(),
            Estimator::PythonRepr => message.repr_chars(),
            Estimator::ClaudeTokens => message.rough_tokens(),
            Estimator::ClineTokens => cline_tokens(message),
        }
    }

    /// Size of one message and, in block order, the size ([`Self::string`]) of the content of
    /// each tool_result block in it: one pass over the text.
    pub(crate) fn measure(self, message: &Message) -> (usize, Vec<usize>) {
        let dialect = match self {
            Estimator::PythonJson => Dialect::Json,
            Estimator::PythonRepr => Dialect::Repr,
            Estimator::ClaudeTokens => {
                let Content::Blocks(blocks) = &message.content else {
                    return (message.rough_tokens(), Vec::new());
                };
                let mut contents = Vec::new();
                let mut total = 0;
                for block in blocks {
                    let tokens = block.rough_tokens();
                    if matches!(block, Block::ToolResult { .. }) {
                        contents.push(tokens);
                    }
                    total += tokens;
                }
                return (total, contents);
            }
            Estimator::ClineTokens => {
                // Rounded per message: the total is not a sum of its strings' sizes.
                let contents = match &message.content {
                    Content::Blocks(blocks) => blocks
                        .iter()
                        .filter_map(|block| match block {
                            Block::ToolResult { content, .. } => Some(self.string(content)),
                            _ => None,
                        })
                        .collect(),
                    Content::Text(_) => Vec::new(),
                };
                return (cline_tokens(message), contents);
            }
        };
        let mut counter = ContentCounter::default();
        message.write_py(&mut counter, dialect);
        (counter.total, counter.contents)
    }

    /// Size of one string value inside a message (quotes and escapes included).
    pub fn string(self, text: &str) -> usize {
        match self {
            Estimator::PythonJson => crate::python::json::json_str_chars(text),
            Estimator::PythonRepr => crate::python::json::repr_str_chars(text),
            Estimator::ClaudeTokens => crate::transcript::rough_tokens(text),
            Estimator::ClineTokens => crate::python::json::js_str_units(text).div_ceil(3),
        }
    }

    /// Size of a list of `count` messages whose sizes add up to `sum`.
    pub fn list(self, count: usize, sum: usize) -> usize {
        match self {
            // A Python list prints the same brackets and ", " in both views.
            Estimator::PythonJson | Estimator::PythonRepr => {
                crate::transcript::list_chars(count, sum)
            }
            Estimator::ClaudeTokens | Estimator::ClineTokens => sum,
        }
    }

    /// The estimate as `lab profiles` describes it.
    pub fn describe(self) -> &'static str {
        match self {
            Estimator::PythonJson => "len(json.dumps(messages, ensure_ascii=False))",
            Estimator::PythonRepr => "len(str(messages))",
            Estimator::ClaudeTokens => "tokens: per block Math.round(UTF-16 length / 4), summed",
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
            Estimator::ClaudeTokens | Estimator::ClineTokens => "tokens",
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
