//! The companion prototype `cc_harness_lab.py` of negentropy's memory-management note
//! (ThreeFish-AI/negentropy, pinned to learn-claude-code f9e8b280; docs/profiles.md), written as
//! its differences from [`COURSE_MAIN`], the revision it copies: budget, snip and micro only (no
//! summary stage, no compact tool), toy constants, a snip marker that names no archive, 60-char
//! safe ids, and the switches of its three non-memory layers (D1, D4, D5).

use super::COURSE_MAIN;
use crate::compaction::profile::{
    CompactTool, Constants, Pipe, Profile, Provenance, SafeId, Stage, Strings,
};
use crate::compaction::switches::SwitchName;

const PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Micro),
];

/// D2: micro → snip → budget.
const SWAPPED: &[Pipe] = &[
    Pipe::Run(Stage::Micro),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Budget),
];

/// The companion prototype `cc_harness_lab.py` (docs/profiles.md): course f9e8b28's budget, snip
/// and micro with constants scaled down, no summary stage, plus three tiny non-memory layers.
pub const PROTOTYPE: Profile = Profile {
    name: "prototype",
    provenance: Provenance {
        changes: None,
        system: "cc_harness_lab.py, the companion prototype of negentropy's memory-management note (ThreeFish-AI/negentropy docs/research/agent-harness/assets, pinned to learn-claude-code f9e8b280)",
        sources: &[
            "ThreeFish-AI/negentropy docs/research/agent-harness/173-claude-code-memory-management.md §4-§5 (2×2 experiment, D2/D3/D6 output)",
            "ThreeFish-AI/negentropy docs/research/agent-harness/assets/cc_harness_lab.py @ 88b6188f (switches, constants, results)",
        ],
        absent: &[
            "compact and reactive: the prototype has no summary stage",
            "the transcript archive: its snip marker names no file",
        ],
    },
    // Its own toy constants; with no limit-gated or summary stage it has no context_limit,
    // summary_input or keep_messages (they stay 0, unread).
    constants: Constants {
        batch_budget: 400,
        large: 300,
        preview: 40,
        keep_results: 2,
        micro_min: 120,
        snip_max: 6,
        snip_head: 2,
        ..Constants::ZERO
    },
    constant_names: &[
        "batch_budget",
        "large",
        "preview",
        "keep_results",
        "micro_min",
        "snip_max",
        "snip_head",
    ],
    switch_names: &[
        SwitchName::Order,
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
        SwitchName::TrustStopReason,
        SwitchName::GateOrderCorrect,
        SwitchName::PipelineHasBarrier,
    ],
    strings: Strings {
        snip_marker: Some("[{n} messages archived]"),
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
        ..COURSE_MAIN.strings
    },
    pipeline: PIPELINE,
    swapped_pipeline: Some(SWAPPED),
    stages: &[Stage::Budget, Stage::Snip, Stage::Micro],
    safe_id: SafeId::Sanitised(60),
    snip_archives: false,
    compact_tool: CompactTool::Absent,
    ..COURSE_MAIN
};
