//! OpenAI Codex CLI (codex-rs), remote compaction, the path an OpenAI provider takes (openai/codex
//! codex-rs/core/src/compact_remote.rs @ 683f0a68). Written in full, like `codex`; the course stage
//! policies hold the course's values only because every profile must name one, and no stage this
//! profile runs reads them. The rollout JSONL keeps every item as it is recorded and the
//! replacement history, modelled as a session file every message is appended to.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::CodexRemote)];

/// Codex CLI with remote compaction at 90% of a 272000-token window: newest tool outputs over
/// the whole window are trimmed first, then the history becomes the user messages and one opaque
/// compaction item; every tool call and output is dropped; the rollout keeps the originals.
pub const CODEX_REMOTE: Profile = Profile {
    name: "codex-remote",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "OpenAI Codex CLI (codex-rs) remote compaction (/responses/compact), gpt-5 / codex-* window 272000",
        sources: &[
            "openai/codex codex-rs/core/src/compact_remote.rs @ 683f0a6897c3835f32556f3ddf6542f94689f401 (trim_function_call_history_to_fit_context_window: while the estimate > context_window and the last item is_codex_generated_item, remove_last_item; compact_conversation_history with no tools; process_compacted_history: should_keep_compacted_history_item keeps real user messages, assistant messages and Compaction items, drops developer messages, reasoning, every tool call and output; CompactedItem{message: \"\", replacement_history})",
            "codex-rs/core/src/context_manager (is_codex_generated_item: FunctionCallOutput, CustomToolCallOutput, developer messages; library find_string id 65800209197)",
            "the server's answer: the user messages followed by one opaque `compaction` item standing for everything else (vercel.com/docs/ai-gateway/sdks-and-apis/responses/compaction, citing developers.openai.com/api/docs/guides/compaction); CompactionBody.encrypted_content (OpenAI API schema)",
            "codex-rs/protocol/src/openai_models.rs auto_compact_token_limit = context_window * 9 / 10 (as for codex); openai/codex codex-rs/core/src/compact_remote.rs @ 683f0a68; openai/codex codex-rs/protocol/src/openai_models.rs (auto_compact_token_limit)",
        ],
        absent: &[
            "the trigger compares codex's server-reported total_usage_tokens; the lab compares its own estimate (round(length / 4) per block)",
            "what the server keeps: the lab keeps every real user message (no cap is public) and no assistant message; the compaction item is shown as an assistant text holding the scripted summary, its encrypted size is unknown",
            "the initial-context injection (BeforeLastUserMessage), the model-switch item, GhostSnapshots",
            "a batch of parallel calls is trimmed as one (codex removes one output item and its call at a time)",
            "the failures users report (openai/codex#42393, #31742, #45808: \"expected exactly one compaction output item, got 0\"; #29319 at 258k): the lab's compaction call always succeeds; the newer RemoteCompactionV2 / compaction_trigger path (#17335, #26573)",
        ],
    },
    constants: Constants {
        context_window: 272_000,
        ..Constants::ZERO
    },
    constant_names: &["context_window"],
    switches: Switches::NONE,
    switch_names: &[],
    strings: Strings {
        persisted: "",
        saved_at: "",
        omitted: "",
        pointer_line: "",
        snip_marker: None,
        summary_message: "{summary}",
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::CodexRemote],
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
    default_dirs: Some(("/home/lab/.codex/tool-results", "/home/lab/.codex/sessions")),
    session_file: Some("rollout.jsonl"),
};
