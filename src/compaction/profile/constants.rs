//! A profile's numeric constants (docs/profiles.md): the course's `CONTEXT_LIMIT`, `KEEP_RECENT`
//! and friends, and Claude Code's token thresholds, as one struct whose fields can also be read and
//! overridden by name (`--const`, a scenario's `constants`, sweep and matrix axes).

use serde_json::{Map, Value};

/// Declares [`Constants`] from one list of documented names, so the struct, the by-name access
/// and [`ALL_CONSTANT_NAMES`] cannot drift apart.
macro_rules! constants {
    ($($(#[doc = $doc:expr])+ $name:ident,)+) => {
        /// Numeric constants, in characters unless named otherwise. A profile lists the ones it
        /// uses in [`Profile::constant_names`](super::Profile::constant_names); only those can
        /// be overridden, and its stages read no other.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct Constants {
            $($(#[doc = $doc])+ pub $name: usize,)+
        }

        /// Names of all constants, in declaration order.
        pub const ALL_CONSTANT_NAMES: &[&str] = &[$(stringify!($name),)+];

        impl Constants {
            /// Every constant 0: the base of a profile's own values, so that the constants a
            /// profile does not list stay 0 (and unread).
            pub const ZERO: Constants = Constants { $($name: 0,)+ };

            fn slot(&mut self, name: &str) -> Option<&mut usize> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)+
                    _ => None,
                }
            }
        }
    };
}

constants! {
    /// Proactive compaction fires when the estimate exceeds this.
    context_limit,
    /// Budget persists results while a batch's total exceeds this.
    batch_budget,
    /// A result longer than this may be persisted.
    large,
    /// Characters of preview kept in a `<persisted-output>` block.
    preview,
    /// Characters of serialised history handed to the summariser.
    summary_input,
    /// Micro keeps this many of the most recent seen results (Python slice `[:-k]`).
    keep_results,
    /// Reactive compaction keeps this many tail messages.
    keep_messages,
    /// Micro leaves results of at most this many characters alone.
    micro_min,
    /// Snip acts when the history has more messages than this.
    snip_max,
    /// Snip keeps this many head messages.
    snip_head,
    /// Claude Code: the model's context window, in tokens.
    context_window,
    /// Claude Code: the model's maximum output tokens.
    max_output,
    /// Claude Code: the output reserved for the summary, at most (MAX_OUTPUT_TOKENS_FOR_SUMMARY).
    summary_reserve,
    /// Claude Code: AUTOCOMPACT_BUFFER_TOKENS below the effective window.
    autocompact_buffer,
    /// Claude Code: DEFAULT_MAX_RESULT_SIZE_CHARS, the cap on every tool's persist threshold.
    max_result,
    /// Claude Code: Bash's maxResultSizeChars.
    bash_limit,
    /// Claude Code: Grep's maxResultSizeChars.
    grep_limit,
    /// Claude Code: the idle gap, in minutes, after which time-based microcompact clears.
    idle_gap_minutes,
    /// Claude Code: compactable results time-based microcompact keeps.
    keep_recent,
    /// Claude Code: files restored after a compaction.
    restore_files,
    /// Claude Code: tokens a restored file may have.
    restore_file_tokens,
    /// Claude Code: tokens all restored files may have together.
    restore_budget,
    /// Claude Code: Read's token cap (`maxTokens`; a file over it comes back as an error).
    read_max_tokens,
    /// Claude Code v2.1.332: the tokens the KEEP-RECENT microcompact must save to clear anything.
    keep_recent_min_saved,
    /// Claude Code v2.1.332: the blocking limit's distance below the effective window (3000),
    /// where a compaction with nothing before the last turn summarises everything.
    blocking_buffer,
    /// Anthropic API context editing: the input tokens the prompt must exceed.
    edit_trigger,
    /// Anthropic API context editing: the most recent tool uses whose results are kept.
    keep_tool_uses,
    /// Anthropic API context editing: an edit that would clear fewer tokens is not applied.
    clear_at_least,
    /// Codex: COMPACT_USER_MESSAGE_MAX_TOKENS, the tokens of user messages a compaction keeps.
    compact_user_tokens,
    /// Codex: the model's tool-output `truncation_policy` in tokens (an output longer than
    /// 4 × this many bytes keeps its head and tail).
    tool_output_tokens,
    /// opencode: PRUNE_PROTECT, the newest tool-output tokens prune leaves alone.
    prune_protect,
    /// opencode: PRUNE_MINIMUM, prune acts only when it would clear more tokens than this.
    prune_minimum,
    /// opencode V2: DEFAULT_KEEP_TOKENS, the newest tokens a checkpoint keeps as text.
    keep_tokens,
    /// opencode V2: TOOL_OUTPUT_MAX_CHARS, a tool output's length in the checkpoint's text.
    tool_output_chars,
    /// Gemini CLI: chat compression fires at this share of the token limit, per mille
    /// (DEFAULT_COMPRESSION_TOKEN_THRESHOLD 0.5).
    compress_threshold_per_mille,
    /// Gemini CLI: the share of the history (JSON chars) compression keeps, per mille
    /// (COMPRESSION_PRESERVE_THRESHOLD 0.3).
    compress_preserve_per_mille,
    /// Gemini CLI: COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET, the newest function-response tokens
    /// compression leaves whole.
    function_response_budget,
    /// Gemini CLI: truncateToolOutputThreshold, the chars a spilled output's preview keeps.
    truncate_threshold,
    /// Gemini CLI: tool-output masking protects the newest this many tokens of tool output.
    mask_protect,
    /// Gemini CLI: tool-output masking runs only when the prunable tokens reach this.
    mask_min_prunable,
    /// OpenHands SDK: the LLM-summarizing condenser's `max_size`, in events.
    max_events,
    /// OpenHands SDK: `keep_first`, the events at the start never condensed (the system prompt
    /// is the first).
    keep_first_events,
    /// OpenHands SDK: `minimum_progress`, per mille of the view's events a condensation must
    /// forget.
    min_progress_per_mille,
}

impl Constants {
    /// The value of a constant by name.
    pub fn get(&self, name: &str) -> Option<usize> {
        let mut copy = *self;
        copy.slot(name).map(|slot| *slot)
    }

    /// Sets a constant by name; false if there is no such constant.
    pub fn set(&mut self, name: &str, value: usize) -> bool {
        match self.slot(name) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }

    /// The listed constants as a JSON object, in the given order.
    pub fn to_value(&self, names: &[&str]) -> Value {
        let mut map = Map::new();
        for name in names {
            if let Some(value) = self.get(name) {
                map.insert((*name).to_owned(), Value::from(value));
            }
        }
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_by_name() {
        let mut c = crate::compaction::profile::COURSE_MAIN.constants;
        for name in ALL_CONSTANT_NAMES {
            assert!(c.get(name).is_some(), "{name}");
        }
        assert!(c.set("keep_results", 0));
        assert_eq!(c.get("keep_results"), Some(0));
        assert!(!c.set("nope", 1));
    }
}
