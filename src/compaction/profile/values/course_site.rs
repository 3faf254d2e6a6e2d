//! The course web site's older s08 (learn.shareai.run/zh/s08 = 67a9126c, compaction code as at
//! ac822662, 2026-07; docs/profiles.md; 13dc539 differs: its compaction takes an `active_request`).
//! It predates [`COURSE_MAIN`] (the chain 7e2f2fd → b5bd0dd → b6b5f33 = f9e8b28 rewrote it as
//! `ContextCompactor`), but is written as its differences from it, the lab's base, so that each
//! field below is something that chain changed: a repr-based estimate, raw-id spill paths, a snip
//! marker without archive and a head guard bounded by the length, micro without unseen guard or
//! save that blanks every old result, a summary message without request separation, epoch-second
//! transcript names, a compact tool that compacts in the middle of its batch, and a reactive
//! compaction that keeps a short history whole. No `order` switch.

use super::COURSE_MAIN;
use crate::compaction::profile::{
    CompactTool, Estimator, MicroRule, Profile, Provenance, ReactiveSmall, SafeId, SnipHeadBound,
    Strings, TranscriptName,
};
use crate::compaction::switches::{SwitchName, Switches};

/// The course web site's older s08 (docs/profiles.md): a repr-based estimate, raw-id spill paths, a
/// snip marker without archive, micro without unseen guard or save, a summary message without
/// request separation, and a compact tool that compacts in the middle of its batch.
pub const COURSE_SITE: Profile = Profile {
    name: "course-site",
    estimator: Estimator::PythonRepr,
    provenance: Provenance {
        changes: None,
        system: "learn-claude-code s08_context_compact/code.py, site revision (learn.shareai.run/zh/s08 = 67a9126c; compaction code as at ac822662, not 13dc539)",
        sources: &[
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ ac822662 (the site's 67a9126c; read in the fork Bill-Billion/learn-claude-code)",
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ fa228eed; Bill-Billion/learn-claude-code @ d6ccd657 and b1cac56f (same compaction code)",
        ],
        absent: &[
            "MAX_REACTIVE_RETRIES and the README's 3-failure breaker (the code has none)",
            "SDK block reprs: assistant blocks are sized as plain dicts (type, id, name, input; docs/profiles.md)",
        ],
    },
    switches: Switches {
        unseen_guard: false,
        ..COURSE_MAIN.switches
    },
    switch_names: &[SwitchName::PairProtection],
    strings: Strings {
        omitted: "[Earlier tool result compacted. Re-run if needed.]",
        snip_marker: Some("[snipped {n} messages]"),
        summary_message: "[{label}]\n\n{summary}",
        compact_tool_result: Some("[Compacted. Conversation history has been summarized.]"),
        ..COURSE_MAIN.strings
    },
    swapped_pipeline: None,
    safe_id: SafeId::RawPathlib,
    micro: MicroRule::Site,
    snip_head_bound: SnipHeadBound::Len,
    snip_archives: false,
    // 2026-07-29T00:00:00Z, the day of 67a9126c.
    transcript_name: TranscriptName::EpochSeconds(1_785_283_200),
    // `json.dumps(msg, default=str)`: ensure_ascii stays True (case E).
    transcript_ascii: true,
    compact_tool: CompactTool::Immediate,
    reactive_small: ReactiveSmall::KeepAll,
    ..COURSE_MAIN
};
