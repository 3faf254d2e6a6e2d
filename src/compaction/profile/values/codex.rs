//! OpenAI Codex CLI (codex-rs), local (inline) compaction (openai/codex
//! codex-rs/core/src/compact.rs @ e06dd0e5). Not a revision of the course or of Claude Code, so it
//! is written in full; the course stage policies hold the course's values only because every
//! profile must name one, and no stage this profile runs reads them. The rollout JSONL
//! (`~/.codex/sessions/…/rollout-….jsonl`) gets every item as it is recorded and keeps the earlier
//! items after a compaction, modelled as a session file every message is appended to.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::CodexCompact)];

/// `templates/compact/summary_prefix.md` as @openai/codex 0.171.0 ships it (399 chars, one
/// space in "summary to assist"; the stored template @ 50a53333 had two), then `\n` and the
/// summary, as `run_compact_task_inner` formats `summary_text`.
const SUMMARY_MESSAGE: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n{summary}";

/// Codex CLI with local compaction at 90% of a 272000-token window (the last reported usage
/// plus the estimate of what came after it): the history becomes the user messages (newest
/// first, up to 20000 tokens) and the summary; every tool call and output is dropped; the
/// rollout keeps the originals. A tool output over 10000 tokens (40000 bytes) keeps its head
/// and tail.
pub const CODEX: Profile = Profile {
    name: "codex",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "OpenAI Codex CLI (codex-rs) local (inline) compaction, gpt-5 / codex-* window 272000",
        sources: &[
            "openai/codex codex-rs/core/src/compact.rs @ 0100b103625752f6a10c21b79a8c423761dc4c6a (COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000; summary_text = SUMMARY_PREFIX + \"\\n\" + last assistant message; collect_user_messages skips earlier summaries; build_compacted_history_with_limit: initial context, user messages newest-first within the budget, the overflowing one truncate_text(Tokens(remaining)), then the summary message; no tool items)",
            "openai/codex codex-rs/core/templates/compact/summary_prefix.md @ 50a53333786249f03284067b997c41d84365c7cd (the SUMMARY_PREFIX; 400 chars there, 399 in the @openai/codex 0.171.0 binary, which has one space in \"to assist\": measured by lab probe --agent codex, p23)",
            "codex-rs/core/src/truncate.rs, the TruncationPolicy::Tokens version compact.rs calls (library find_string id 13711966124): approx_token_count = ceil(bytes / 4); truncate_with_byte_estimate keeps head and tail of 4 × budget bytes with marker \"[…N tokens truncated…]\" and a newline",
            "openai/codex codex-rs/core/src/context_manager/history.rs get_total_token_usage (library find_string: the last response's reported total_tokens plus estimate_item_token_count of the items after the last model-generated item)",
            "openai/codex codex-rs/utils/output-truncation/src/lib.rs formatted_truncate_text and codex-rs/utils/string/src/truncate.rs truncate_middle_with_token_budget (the warning line, Total output lines, head and tail halves around …N tokens truncated…); the 10000-token truncation_policy of gpt-5.5 in @openai/codex 0.171.0's model list; measured by lab probe --agent codex (conformance/codex-0.171.0/); the rollout of a 0.171.0 run keeps the whole output in its item_completed event (50634 bytes of JSON for a 50000-byte output) beside the capped function_call_output",
            "codex-rs/protocol/src/openai_models.rs ModelInfo::auto_compact_token_limit = min(configured, context_window * 9 / 10) (library find_string id 54586842501); run_turn: total_usage_tokens >= auto_compact_limit (id 58595352496); openai/codex codex-rs/core/src/compact.rs, openai/codex codex-rs/protocol/src/openai_models.rs (auto_compact_token_limit) (272000 window, trigger 244800)",
        ],
        absent: &[
            "the trigger's estimate of the items after the last reported usage: codex counts each item's serialised JSON bytes / 4, the lab its own estimate of the later messages (Claude Code's round(length / 4) per block); without a reported usage the lab's estimate of everything",
            "the exec_command envelope around an output (Chunk ID, Wall time, exit code, Original token count, Output:): the shell tool's, compared without it by lab probe",
            "the initial context (instructions, AGENTS.md, environment context) and its BeforeLastUserMessage injection: the lab's history holds none, so the compacted history starts with the kept user messages",
            "the summariser's prompt (templates/compact/prompt.md has several stored versions) and its reply: the summary is the scenario's scripted text",
            "ContextWindowExceeded during compaction (remove_first_item and retry, \"Trimmed N older … item(s)\")",
            "the second cap when an output is recorded in the history (TruncationPolicy × 1.2 over the whole item): it never cuts more than the tool's own cap already did",
            "the warning \"Heads up: Long … and multiple compactions …\" (its wording differs between versions)",
            "GhostSnapshot items, remote compaction (codex-remote), the token_budget feature (openai/codex#31822), the model_auto_compact_token_limit config key",
        ],
    },
    constants: Constants {
        context_window: 272_000,
        compact_user_tokens: 20_000,
        tool_output_tokens: 10_000,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_window",
        "compact_user_tokens",
        "tool_output_tokens",
    ],
    switches: Switches::NONE,
    switch_names: &[],
    strings: Strings {
        persisted: "",
        saved_at: "",
        omitted: "",
        pointer_line: "",
        snip_marker: None,
        summary_message: SUMMARY_MESSAGE,
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::CodexCompact],
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
    arrival: Arrival::TruncateTokens,
    read_over_cap: ReadOverCap::Refuse,
    compact_form: CompactForm::Whole,
    claude_md: false,
    default_dirs: Some(("/home/lab/.codex/tool-results", "/home/lab/.codex/sessions")),
    session_file: Some("rollout.jsonl"),
};
