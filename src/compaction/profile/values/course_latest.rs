//! learn-claude-code s08 after f9e8b28 (the ce8f9f18 era, 2026-09-28; code read at 182c6582;
//! docs/profiles.md), written as its differences from its parent [`COURSE_MAIN`]: micro runs only
//! over the limit and down to 80% of it, saves before it replaces and recognises (and validates)
//! both pointer forms; the new fit stage; a snip tail one message shorter; persisting through
//! `save_output`; no second archive of an archive marker; no `order` switch.

use super::COURSE_MAIN;
use crate::compaction::profile::{Persist, Pipe, Profile, Provenance, SnipTail, Stage};
use crate::compaction::switches::{SwitchName, Switches};

const PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::IfOverLimit(&[
        Pipe::RunToTarget(Stage::Micro),
        Pipe::IfOverLimit(&[Pipe::RunToTarget(Stage::Fit)]),
        Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
    ]),
];

/// learn-claude-code s08 after f9e8b28 (the ce8f9f18 era, docs/profiles.md): micro only over the
/// limit and down to 80%, save before replace, pointer-aware and validated pointers, the fit
/// stage, a tail one shorter and no second archive of an archive marker.
pub const COURSE_LATEST: Profile = Profile {
    name: "course-latest",
    provenance: Provenance {
        changes: None,
        system: "learn-claude-code s08_context_compact/code.py after f9e8b28 (ce8f9f18 era; code read at 182c6582)",
        sources: &[
            "Bill-Billion/learn-claude-code s08_context_compact/code.py history (7e2f2fd, b5bd0dd, b6b5f33); ThreeFish-AI/negentropy docs/research/agent-harness/assets/lcc_memory_lab.py @ 19efdbb0 (learn-claude-code ce8f9f18 pipeline)",
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ 182c6582 (ContextCompactor)",
        ],
        absent: &["MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step"],
    },
    switches: Switches {
        pointer_aware: true,
        save_before_replace: true,
        validate_pointer: true,
        snip_marker_guard: true,
        ..COURSE_MAIN.switches
    },
    switch_names: &[
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
        SwitchName::PointerAware,
        SwitchName::SaveBeforeReplace,
        SwitchName::ValidatePointer,
        SwitchName::SnipMarkerGuard,
    ],
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Fit,
        Stage::Compact,
        Stage::Reactive,
    ],
    persist: Persist::SaveOutput,
    target_per_mille: 800,
    snip_tail: SnipTail::MaxMinusHeadMinusOne,
    ..COURSE_MAIN
};
