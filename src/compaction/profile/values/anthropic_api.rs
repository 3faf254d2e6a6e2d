//! An agent built on the Anthropic Messages API's own context management: context editing
//! `clear_tool_uses_20250919` with its documented defaults
//! (platform.claude.com/docs/en/build-with-claude/context-editing). Not a revision of the course or
//! of Claude Code, so it is written in full; the course stage policies hold the course's values
//! only because every profile must name one, and no stage this profile runs reads them. The client
//! keeps the unedited history (the edit is server-side), modelled as a session file every message
//! is appended to.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::ClearToolUses)];

/// The Anthropic API with context editing `clear_tool_uses_20250919` at its defaults: over
/// 100000 input tokens, every tool result but those of the last 3 tool uses becomes a
/// placeholder; the client keeps the originals.
pub const ANTHROPIC_API: Profile = Profile {
    name: "anthropic-api",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "Anthropic Messages API context editing clear_tool_uses_20250919 (beta context-management-2025-06-27), defaults",
        sources: &[
            "platform.claude.com/docs/en/build-with-claude/context-editing (trigger 100000 input tokens, keep 3 tool uses, clear_at_least, exclude_tools; \"once the prompt exceeds this threshold\"; an edit that cannot clear clear_at_least is not applied)",
            "langchain-ai/langchain libs/langchain_v1/langchain/agents/middleware/context_editing.py (ClearToolUsesEdit, the documented mirror: edits only when the count is over the trigger; placeholder \"[cleared]\")",
        ],
        absent: &[
            "the server's placeholder text is not public: the lab writes LangChain's mirror's \"[cleared]\"",
            "the server's token count: the lab uses Claude Code's rough estimate (Math.round(length / 4) per block)",
            "exclude_tools and clear_tool_inputs: only their defaults ([] and false)",
            "trigger and keep of type tool_uses: only the input_tokens trigger and the tool_uses keep",
            "server-side compaction compact_20260112 (trigger 150000): not yet modelled",
            "clear_thinking_20251015: the lab's transcripts carry no thinking blocks",
            "prompt-cache invalidation at the clear point",
        ],
    },
    constants: Constants {
        edit_trigger: 100_000,
        keep_tool_uses: 3,
        clear_at_least: 0,
        ..Constants::ZERO
    },
    constant_names: &["edit_trigger", "keep_tool_uses", "clear_at_least"],
    switches: Switches::NONE,
    switch_names: &[],
    strings: Strings {
        persisted: "",
        saved_at: "",
        omitted: "[cleared]",
        pointer_line: "",
        snip_marker: None,
        summary_message: "",
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::ClearToolUses],
    safe_id: SafeId::Raw,
    persist: Persist::WriteIfAbsent,
    micro: MicroRule::Course,
    target_per_mille: 1000,
    snip_tail: SnipTail::MaxMinusHead,
    snip_head_bound: SnipHeadBound::TailStart,
    snip_archives: false,
    transcript_name: TranscriptName::Counter,
    transcript_ascii: false,
    compact_tool: CompactTool::Absent,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::Verbatim,
    read_over_cap: ReadOverCap::Refuse,
    compact_form: CompactForm::Whole,
    claude_md: false,
    default_dirs: Some(("/home/lab/agent/tool-results", "/home/lab/agent/history")),
    session_file: Some("messages.jsonl"),
};
