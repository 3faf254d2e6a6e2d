//! learn-claude-code s08 `ContextCompactor` at f9e8b28 (2026-08-18; docs/profiles.md), the lab's
//! default profile and the base every other course revision is written against: budget, snip and
//! micro every turn, compact when over the limit, reactive on demand; micro with the unseen guard
//! (b6b5f33), snip archiving to a transcript, pair protection. Written in full.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::{Order, SwitchName, Switches};

const PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Micro),
    Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
];

/// The prototype's D2 order of the cheap stages: micro → snip → budget.
const SWAPPED: &[Pipe] = &[
    Pipe::Run(Stage::Micro),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Budget),
    Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
];

/// learn-claude-code s08 `ContextCompactor` at f9e8b28 (docs/profiles.md).
pub const COURSE_MAIN: Profile = Profile {
    name: "course-main",
    estimator: Estimator::PythonJson,
    provenance: Provenance {
        changes: None,
        system: "learn-claude-code s08_context_compact/code.py, ContextCompactor at f9e8b28 (2026-08-18)",
        sources: &[
            "ThreeFish-AI/negentropy docs/research/agent-harness/173-claude-code-memory-management.md §3-§5",
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ b6b5f33 (the f9e8b28 form; read in the fork Bill-Billion/learn-claude-code)",
        ],
        absent: &["MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step"],
    },
    constants: Constants {
        context_limit: 50_000,
        batch_budget: 200_000,
        large: 30_000,
        preview: 2_000,
        summary_input: 80_000,
        keep_results: 3,
        keep_messages: 5,
        micro_min: 120,
        snip_max: 50,
        snip_head: 3,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_limit",
        "batch_budget",
        "large",
        "preview",
        "summary_input",
        "keep_results",
        "keep_messages",
        "micro_min",
        "snip_max",
        "snip_head",
    ],
    // The guard and pair protection on, the intact order, none of the later revisions'
    // mechanisms, the prototype's defects off.
    switches: Switches {
        order: Order::Intact,
        unseen_guard: true,
        pair_protection: true,
        pointer_aware: false,
        save_before_replace: false,
        validate_pointer: false,
        snip_marker_guard: false,
        time_based_mc: false,
        pair_repair: false,
        trust_stop_reason: false,
        gate_order_correct: true,
        pipeline_has_barrier: false,
        todo_reminder: false,
        search_tools: false,
    },
    switch_names: &[
        SwitchName::Order,
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
    ],
    strings: Strings {
        persisted: "<persisted-output>\nFull output: {path}\nPreview:\n{preview}\n</persisted-output>",
        saved_at: "[Earlier tool result saved at {path}]",
        omitted: "[Earlier tool result omitted.]",
        pointer_line: "Full output: ",
        snip_marker: Some("[{n} messages archived at {path}]"),
        summary_message: "[{label}]\n\nCurrent user request:\n{request}\n\nConversation summary (reference only):\n{summary_json}\n\nFull transcript: {path}",
        compact_tool_result: Some("Compaction requested after this tool batch."),
        compact_label: Some("Compacted"),
        reactive_label: Some("Reactive compact"),
    },
    pipeline: PIPELINE,
    swapped_pipeline: Some(SWAPPED),
    stages: &[
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Compact,
        Stage::Reactive,
    ],
    safe_id: SafeId::Sanitised(120),
    persist: Persist::WriteIfAbsent,
    micro: MicroRule::Course,
    target_per_mille: 1000,
    snip_tail: SnipTail::MaxMinusHead,
    snip_head_bound: SnipHeadBound::TailStart,
    snip_archives: true,
    transcript_name: TranscriptName::Counter,
    transcript_ascii: false,
    compact_tool: CompactTool::AfterBatch,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::Verbatim,
    read_over_cap: ReadOverCap::Refuse,
    compact_form: CompactForm::Whole,
    claude_md: false,
    default_dirs: None,
    session_file: None,
};
