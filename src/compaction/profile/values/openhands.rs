//! OpenHands software-agent-sdk, its `LLMSummarizingCondenser` at the class defaults
//! (OpenHands/software-agent-sdk @ 611629e6 openhands-sdk/openhands/sdk/context/condenser/,
//! All-Hands-AI/OpenHands @ 156d0686c4 openhands/memory/condenser/impl/). Written in full; the
//! course stage policies hold the course's values only because every profile must name one, and no
//! stage this profile runs reads them. The conversation's event store
//! (`events/event-NNNNN-<id>.json`) gets every event and keeps the forgotten ones, modelled as a
//! session file every message is appended to.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::OpenhandsCondense)];

/// OpenHands SDK with the LLM-summarizing condenser: past 240 events (or the model's input
/// limit, when a scenario sets `context_window`) the events after the first 2 and before the
/// newest 117 become one summary; pairs are never split; the event store keeps everything.
pub const OPENHANDS: Profile = Profile {
    name: "openhands",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "OpenHands software-agent-sdk (611629e6) LLMSummarizingCondenser at its class defaults",
        sources: &[
            "OpenHands/software-agent-sdk openhands-sdk/openhands/sdk/context/condenser/llm_summarizing_condenser.py @ 611629e6999ad398dc49c761721eefe18d5e6bd9 (max_size = 240, keep_first = 2, minimum_progress = 0.1; Reason EVENTS soft, TOKENS and REQUEST hard; tail max_size // 2 − keep_first − 1; tokens_to_reduce = total − max_tokens // 2; forgetting_start/end by manipulation_indices.find_next; one llm.completion; hard_context_reset summarises every event)",
            "openhands-sdk/openhands/sdk/context/condenser/base.py @ 611629e6 (RollingCondenser.condense: soft keeps the view when no condensation is available, hard resets)",
            "openhands-sdk/openhands/sdk/context/condenser/utils.py @ 611629e6 (get_suffix_length_for_token_reduction, get_shortest_prefix_above_token_count)",
            "openhands-sdk/openhands/sdk/context/view/properties/tool_call_matching.py @ 611629e6 (no manipulation index between an action and its observation); event/condenser.py (the summary is a user message at summary_offset); conversation/persistence_const.py (events/event-{idx:05d}-{event_id}.json)",
        ],
        absent: &[
            "the token reason by default: the agent LLM's effective_max_input_tokens depends on the model (context_window 0 here: no token trigger); a scenario may set it; tokens are the lab's round(length / 4) per block, not litellm's count",
            "the system prompt event (view index 0) is counted but not held; an assistant message with parallel calls counts as one action event and its results as one observation (OpenHands: one event per call)",
            "observation masking: the SDK at 611629e6 has no masking condenser (ObservationMaskingCondenser, `<MASKED>`, attention_window, is in the V0 OpenHands app, All-Hands-AI/OpenHands @ 156d0686c4 openhands/memory/condenser/impl/)",
            "the presets (default_condenser: max_size 80, keep_first 4), REQUEST condensations, BatchAtomicity, ToolLoopAtomicity (thinking blocks), ObservationUniqueness, hard-reset retries with shorter event strings",
            "the summarizing prompt and its reply (the summary is the scenario's scripted text), maybe_truncate of observations at 50000 chars",
        ],
    },
    constants: Constants {
        context_window: 0,
        max_events: 240,
        keep_first_events: 2,
        min_progress_per_mille: 100,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_window",
        "max_events",
        "keep_first_events",
        "min_progress_per_mille",
    ],
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
    stages: &[Stage::OpenhandsCondense],
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
    default_dirs: Some((
        "/home/lab/.openhands/conversations/lab/observations",
        "/home/lab/.openhands/conversations/lab/events",
    )),
    session_file: Some("events.jsonl"),
};
