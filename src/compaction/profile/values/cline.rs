//! Cline (SDK core, `cline/cline` @ 21cb8d25), its `basic` compaction strategy: the one that needs
//! no model (cline/cline @ 21cb8d25 sdk/packages/core/src/extensions/context/). Written in full;
//! the course stage policies hold the course's values only because every profile must name one, and
//! no stage this profile runs reads them. Cline rewrites the session's messages file with the
//! folded history, so no session file is kept.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::ClineCompact)];

/// Cline with `compaction: {enabled: true, strategy: "basic"}` on a model that reports no
/// input limit (DEFAULT_MAX_INPUT_TOKENS 128000): at 0.9 of it the history is folded, no model
/// call, to the typed prompts, the latest turn's newest messages, older turns' final answers and
/// a `<SYSTEM_NOTICE>` per dropped span.
pub const CLINE: Profile = Profile {
    name: "cline",
    estimator: Estimator::ClineTokens,
    provenance: Provenance {
        changes: None,
        system: "Cline SDK core, basic compaction (no model), DEFAULT_MAX_INPUT_TOKENS 128000",
        sources: &[
            "cline/cline sdk/packages/core/src/extensions/context/basic-compaction.ts @ 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4 (runBasicCompaction: typed prompts mandatory, latest turn's newest messages within the target snapped forward to an assistant message, older turns' concluding answer newest first, mergeAdjacentUserTurns, PRESERVED_ASSISTANT_TEXT_COUNT = 3, the SYSTEM_NOTICE text, attachments only on the latest prompt)",
            "cline/cline sdk/packages/core/src/extensions/context/compaction-shared.ts @ 21cb8d25 (DEFAULT_MAX_INPUT_TOKENS = 128_000, COMPACTION_TRIGGER_RATIO = 0.9, DEFAULT_TARGET_RATIO = 0.7, summarizeToolActivity, formatToolActivitySummary, COMMAND_SUMMARY_CHAR_LIMIT = 100, extractDiffLineRange, createTokenEstimator)",
            "cline/cline sdk/packages/core/src/extensions/context/compaction.ts @ 21cb8d25 (shouldCompact = requestInputTokens >= maxInputTokens × 0.9; auto target floor(trigger × 0.7) capped at trigger − 1; manual target floor(min(trigger, messages × 0.5)))",
            "cline/cline sdk/packages/shared/src/llms/tokens.ts @ 21cb8d25 (CHARS_PER_TOKEN = 3, estimateTokens = max(1, ceil(chars / 3)))",
            "cline/cline sdk/packages/core/fixtures/session/{session.messages.json,basic.compaction.json} @ 21cb8d25: the lab's fold reproduces the fixture's messages (tests/cli/cline.rs)",
        ],
        absent: &[
            "the trigger estimates the whole request (system prompt, messages and tool schemas, JSON.stringify / 3); the lab has no system prompt or tools and sums its per-message estimates, over role and content only (Cline's messages also carry id, ts, metrics and modelInfo)",
            "the `agentic` strategy (the default: a model summary over the serialised conversation), plugin and hook compactions, overflow recovery (a provider error forces basic compaction)",
            "LONG_CONVERSATION_TARGET_RATIO 0.5 (used with 5 or more pairs when the model's max output is below its input limit: the lab knows no max output)",
            "messages frozen by an earlier compaction (metadata.compaction = \"preserved\"): the lab's messages carry no metadata, so a second fold re-folds them",
            "buildBudgetProjection, the best-effort trim when the kept messages still exceed the target",
            "the compaction metadata (kind, reason, messagesRemoved, usageBefore), stripped metrics, thinking blocks, images (attachments are the importer's `[file PATH]` text blocks)",
            "checkpoints (a git shadow workspace; the docs say they restore task state from before a compaction): the lab counts what the fold drops as unrecoverable",
        ],
    },
    constants: Constants {
        context_window: 128_000,
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
        summary_message: "",
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::ClineCompact],
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
        "/home/lab/.cline/tool-results",
        "/home/lab/.cline/data/sessions",
    )),
    session_file: None,
};
