//! Google Gemini CLI (`@google/gemini-cli`), its default context management with
//! `contextManagement.enabled` off (google-gemini/gemini-cli @ 5411f113
//! packages/core/src/core/client.ts (processTurn), context/chatCompressionService.ts,
//! context/toolOutputMaskingService.ts): chat compression, then tool-output masking, before each
//! turn. Written in full; the course stage policies hold the course's values only because every
//! profile must name one, and no stage this profile runs reads them. The chat recording
//! (`chats/session-….jsonl`) gets every message as it arrives and keeps them after a compression,
//! modelled as a session file every message is appended to.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::GeminiCompress),
    Pipe::Run(Stage::GeminiMask),
];

/// `formatMaskedSnippet` (`MASKING_INDICATOR_TAG` = `tool_output_masked`).
const MASKED: &str = "<tool_output_masked>\n{preview}\n\nOutput too large. Full output available at: {path}\n</tool_output_masked>";

/// Gemini CLI at its defaults on a 1048576-token model: compression at 50% keeping the last
/// 30% behind a two-call `<state_snapshot>`, older function responses past 50000 tokens spilled
/// to `tool-outputs/`; masking past the newest 50000 tool tokens once 30000 are prunable.
pub const GEMINI_CLI: Profile = Profile {
    name: "gemini-cli",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "Google Gemini CLI 0.61 (google-gemini/gemini-cli 5411f113), contextManagement off, Gemini 2.5/3 token limit 1048576",
        sources: &[
            "google-gemini/gemini-cli packages/core/src/context/chatCompressionService.ts @ 5411f113cafae26161b4969b0237b8e1e024e2c2 (DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5, compared originalTokenCount < threshold × tokenLimit; COMPRESSION_PRESERVE_THRESHOLD = 0.3; COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET = 50_000; findCompressSplitPoint; two generateContent calls; the ack \"Got it. Thanks for the additional context!\"; COMPRESSION_FAILED_INFLATED_TOKEN_COUNT, COMPRESSION_FAILED_EMPTY_SUMMARY)",
            "packages/core/src/utils/fileUtils.ts @ 5411f113 (formatTruncatedToolOutput 20/80 with toLocaleString counts; saveTruncatedToolOutput <projectTempDir>/tool-outputs/<tool>_<id>.txt, no session subdir on this path; sanitizeFilenamePart)",
            "packages/core/src/config/config.ts @ 5411f113 (DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 40_000; getTruncateToolOutputThreshold = min(4 × (tokenLimit − lastPromptTokenCount), it); getNextCompressionTruncationId counts up); core/tokenLimits.ts (1_048_576)",
            "packages/core/src/context/toolOutputMaskingService.ts @ 5411f113 (DEFAULT_TOOL_PROTECTION_THRESHOLD = 50000, DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD = 30000, DEFAULT_PROTECT_LATEST_TURN = true, EXEMPT_TOOLS, formatShellPreview, 250/250 preview, formatMaskedSnippet)",
            "packages/core/src/core/client.ts @ 5411f113 (processTurn: tryCompressChat, then tryMaskToolOutputs; hasFailedCompressionAttempt after an inflated count)",
        ],
        absent: &[
            "the trigger compares the API-reported lastPromptTokenCount of the previous request; the lab compares its own estimate (round(length / 4) per block) of the history including the pending request",
            "Gemini's token heuristic (ASCII chars / 4, non-ASCII 1.5 each, (name + JSON.stringify(response)) / 4 for a function response, floored): budgets and masking use the lab's round(length / 4) of the result text",
            "the split point weighs each message by the lab's JSON of it (Anthropic-style blocks), not JSON.stringify of Gemini's Content",
            "the initial chat history (environment context) in the new token count, the compression prompt, the PreCompress hook, the summariser's input choice (original or truncated history)",
            "the session subdirectory and random suffix of masked files (session-<id>/<tool>_<callId>_<random>.txt): the lab writes <tool>_<callId>.txt in tool-outputs/ itself, so an output every pass leaves in place (its masked form saves nothing) is one file here where the agent writes a new one on every pass (the trace's `rewrite` event counts them)",
            "the compression spill's pointer line `For full output see:` is not read by the observables (only the masking pointer is), so its files count in orphan_files",
            "ingestion truncation of shell and MCP output (tool-executor.ts), ContextWindowWillOverflow, the experimental ContextManager (contextManagement.enabled), model.compressionThreshold and the remote experiment flags, the 1.5-per-char non-ASCII rule, JS UTF-16 lengths for non-BMP text",
            "--resume reloading the uncompressed history (google-gemini/gemini-cli#20803): the session file holds it, no resume is modelled",
        ],
    },
    constants: Constants {
        context_window: 1_048_576,
        compress_threshold_per_mille: 500,
        compress_preserve_per_mille: 300,
        function_response_budget: 50_000,
        truncate_threshold: 40_000,
        mask_protect: 50_000,
        mask_min_prunable: 30_000,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_window",
        "compress_threshold_per_mille",
        "compress_preserve_per_mille",
        "function_response_budget",
        "truncate_threshold",
        "mask_protect",
        "mask_min_prunable",
    ],
    switches: Switches::NONE,
    switch_names: &[],
    strings: Strings {
        persisted: MASKED,
        saved_at: "",
        omitted: "",
        pointer_line: "Output too large. Full output available at: ",
        snip_marker: None,
        summary_message: "{summary}",
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::GeminiCompress, Stage::GeminiMask],
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
        "/home/lab/.gemini/tmp/lab/tool-outputs",
        "/home/lab/.gemini/tmp/lab/chats",
    )),
    session_file: Some("session-lab.jsonl"),
};
