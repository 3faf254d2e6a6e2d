//! opencode's V1 engine (`packages/opencode`, the engine of the 1.x TUI;
//! anomalyco/opencode `packages/opencode/src/session/compaction.ts` @ 001aa6cc) and Kilo CLI, its
//! fork with a destructive prune (Kilo-Org/kilocode `packages/opencode/src/session/compaction.ts`
//! @ 3e5384d4). Written in full; the course
//! stage policies hold the course's values only because every profile must name one, and no
//! stage these profiles run reads them. Every message is kept in the session database
//! (modelled as a session file every message is appended to).

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::Switches;

const OPENCODE_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::OpencodePrune),
    Pipe::Run(Stage::OpencodeCompact),
];
const KILO_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::KiloPrune),
    Pipe::Run(Stage::OpencodeCompact),
];

const STRINGS: Strings = Strings {
    persisted: "",
    saved_at: "",
    omitted: "[Old tool result content cleared]",
    pointer_line: "",
    snip_marker: None,
    summary_message: "{summary}",
    compact_tool_result: None,
    compact_label: None,
    reactive_label: None,
};

/// A model with a 200000-token input limit and 32000 output: usable 180000.
const CONSTANTS: Constants = Constants {
    context_window: 200_000,
    max_output: 32_000,
    autocompact_buffer: 20_000,
    prune_protect: 40_000,
    prune_minimum: 20_000,
    ..Constants::ZERO
};

const CONSTANT_NAMES: &[&str] = &[
    "context_window",
    "max_output",
    "autocompact_buffer",
    "prune_protect",
    "prune_minimum",
];

const ABSENT: &[&str] = &[
    "the overflow check reads the last assistant message's reported usage (tokens.total, or input + output + cache read + cache write); the lab compares its own estimate (round(length / 4) per block)",
    "limit.input absent (usable = context − max output), compaction.reserved, compaction.auto / prune = false",
    "the summariser prompt and its reply (the summary is the scenario's scripted text); media stripping and the replay of the last user message on overflow; PTL retries (full, compact-tools, recent-turns) and post-compact attachment restore of some revisions",
    "autoCompactStalled (a compaction that reduces usage by less than 5% stops the loop) and the headless `opencode run` exit after compaction (anomalyco/opencode#13946)",
    "the index also stores a util/token.ts (@ 0327c968, with OPENCODE_TOKEN_FACTOR) that weighs characters by class (1/1.9 digits, 1/1.2 punctuation, 1/2.5 whitespace, 1/3.5 others); the lab uses the round(length / 4) version",
    "tool parts that are pending or running (`[Tool execution was interrupted]`), attachments, AGENTS.md re-injection (anomalyco/opencode#30807)",
];

const fn profile(
    name: &'static str,
    system: &'static str,
    sources: &'static [&'static str],
    pipeline: &'static [Pipe],
    stage: Stage,
    session_file: &'static str,
) -> Profile {
    Profile {
        name,
        estimator: Estimator::ClaudeTokens,
        provenance: Provenance {
            changes: None,
            system,
            sources,
            absent: ABSENT,
        },
        constants: CONSTANTS,
        constant_names: CONSTANT_NAMES,
        switches: Switches::NONE,
        switch_names: &[],
        strings: STRINGS,
        pipeline,
        swapped_pipeline: None,
        stages: match stage {
            Stage::KiloPrune => &[Stage::KiloPrune, Stage::OpencodeCompact],
            _ => &[Stage::OpencodePrune, Stage::OpencodeCompact],
        },
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
            "/home/lab/.local/share/opencode/tool-output",
            "/home/lab/.local/share/opencode",
        )),
        session_file: Some(session_file),
    }
}

/// opencode V1: prune of old tool outputs to a placeholder (the database keeps them), the
/// summary compaction at input − 20000.
pub const OPENCODE: Profile = profile(
    "opencode",
    "opencode V1 engine (packages/opencode), model with a 200000-token input limit and 32000 output",
    &[
        "anomalyco/opencode packages/opencode/src/session/compaction.ts @ 001aa6cc6a2164fe2e836df9f07d11debff1722d (PRUNE_MINIMUM = 20_000, PRUNE_PROTECT = 40_000, PRUNE_PROTECTED_TOOLS = [\"skill\"], prune: skip the last 2 user turns, stop at a summary or a compacted part, mark part.state.time.compacted; the synthetic \"Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.\")",
        "anomalyco/opencode packages/opencode/src/session/overflow.ts @ 08f74b9bb5a7dac12b2624a9b1dba4abf7d5b3f2 (COMPACTION_BUFFER = 20_000; usable = limit.input − min(20000, max output); overflow when the count >= usable)",
        "anomalyco/opencode packages/opencode/src/session/message-v2.ts @ 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803 (toModelMessages: a compacted output is \"[Old tool result content cleared]\", a compaction part \"What did we do so far?\")",
        "anomalyco/opencode packages/opencode/src/util/token.ts @ 0f7d18ade907d7c9bdb619406f9e7fd4145e1304 (Token.estimate = max(0, round(length / 4)), CHARS_PER_TOKEN = 4)",
        "prune runs when the loop goes idle (prompt.ts enterStandby); anomalyco/opencode packages/opencode/src/session/compaction.ts @ 001aa6cc, overflow.ts @ 08f74b9b",
    ],
    OPENCODE_PIPELINE,
    Stage::OpencodePrune,
    "opencode.db",
);

/// Kilo CLI: opencode V1 whose prune also erases the output from the database.
pub const KILO: Profile = profile(
    "kilo",
    "Kilo CLI (Kilo-Org/kilocode packages/opencode, a fork of opencode's V1 engine), model with a 200000-token input limit and 32000 output",
    &[
        "Kilo-Org/kilocode packages/opencode/src/session/compaction.ts @ 3e5384d49fb85ad4ce40d46cb30ebba432cd762e (isOverflow with COMPACTION_BUFFER = 20_000; prune as opencode's, then `part.state.output = \"\"` and `attachments = []` marked kilocode_change: the output is cleared from the DB; the synthetic \"Continue if you have next steps, …\")",
        "anomalyco/opencode packages/opencode/src/session/message-v2.ts @ 007a9409 (the placeholder and the compaction prompt, shared with the fork); util/token.ts @ 0f7d18ad",
        "anomalyco/opencode packages/opencode/src/session/compaction.ts @ 001aa6cc, overflow.ts @ 08f74b9b; Kilo-Org/kilocode packages/opencode/src/session/compaction.ts @ 3e5384d4",
    ],
    KILO_PIPELINE,
    Stage::KiloPrune,
    "kilo.db",
);

const V2_PIPELINE: &[Pipe] = &[Pipe::Run(Stage::OpencodeCheckpoint)];

/// opencode V2 (`packages/core`): at `context − max(min(max output, 32000), buffer)` one
/// checkpoint message, the summary and the newest ~15000 tokens serialised as text.
pub const OPENCODE_V2: Profile = Profile {
    name: "opencode-v2",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "opencode V2 engine (packages/core, compact v2 session context), model with a 200000-token context and 32000 output",
        sources: &[
            "anomalyco/opencode packages/core/src/session/compaction.ts @ 031a4a9cf65fb42437571d5aa5962ceb2247ab51 (DEFAULT_BUFFER = 20_000, DEFAULT_KEEP_TOKENS = 15_000, OUTPUT_TOKEN_MAX = 32_000, TOOL_OUTPUT_MAX_CHARS = 2_000; required: estimate >= min(input − buffer, context − max(min(output, 32000), buffer)), not after a completed compaction; findTailStart: keep at least the newest entry, back to a user boundary, else the latest exchange, else everything; serializeRecentMessage; truncateToolOutput \"\\n[truncated]\")",
            "anomalyco/opencode packages/core/src/session/runner/to-llm-message.ts (library find_string id 66668217696): a completed compaction is one user message `<conversation-checkpoint>` … `<summary>` … `<recent-context>` …",
            "anomalyco/opencode packages/core/src/util/token.ts @ 0ae05375 (estimate without a hint: round(length / 4)); anomalyco/opencode packages/core/src/session/compaction.ts @ 031a4a9c (PR anomalyco/opencode#30986)",
        ],
        absent: &[
            "the count is the last assistant's reported usage plus local estimates of newer parts (and system prompt and tools without one); the lab compares its own estimate (round(length / 4) per block)",
            "limit.input (the ceiling's input − buffer term), images and PDFs (1500 and 2000 tokens), skills, shell and synthetic messages, attachments",
            "the summariser prompt, its update mode and the reminder retry when no heading comes back, a summary that ends with `length` (compaction fails): the summary is the scenario's scripted text",
            "provider context-overflow recovery (compact and retry once)",
        ],
    },
    constants: Constants {
        context_window: 200_000,
        max_output: 32_000,
        autocompact_buffer: 20_000,
        keep_tokens: 15_000,
        tool_output_chars: 2_000,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_window",
        "max_output",
        "autocompact_buffer",
        "keep_tokens",
        "tool_output_chars",
    ],
    strings: Strings {
        omitted: "",
        ..STRINGS
    },
    pipeline: V2_PIPELINE,
    stages: &[Stage::OpencodeCheckpoint],
    session_file: Some("opencode.db"),
    ..OPENCODE
};
