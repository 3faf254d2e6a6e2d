//! Claude Code v2.1.88 as the public source shows it (the source map of 2026-03-31;
//! docs/profiles.md). Not a revision of the course, so it is written in full rather than
//! as differences from [`COURSE_MAIN`](super::COURSE_MAIN): it shares none of the course's stages.
//! The course stage policies (`persist`, `micro`, `target_per_mille`, `snip_*`, `transcript_name`,
//! `reactive_small`) hold the course's values only because every profile must name one; no stage
//! Claude Code runs reads them.

use crate::compaction::profile::{
    Arrival, CompactForm, CompactTool, Constants, Estimator, MicroRule, Persist, Pipe, Profile,
    Provenance, ReactiveSmall, ReadOverCap, SafeId, SnipHeadBound, SnipTail, Stage, Strings,
    TranscriptName,
};
use crate::compaction::switches::{Order, SwitchName, Switches};

const PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::TimeMc),
    Pipe::Run(Stage::Autocompact),
    Pipe::Run(Stage::PairRepair),
];

/// Claude Code v2.1.88 as the public source shows it (docs/profiles.md): per-tool
/// persistence as results arrive, time-based microcompact after an idle hour (off by default, as
/// shipped), autocompact at window − min(max_output, 20000) − 13000 tokens with a 9-section
/// summary, restored files and CLAUDE.md, every message in the session transcript, and pair repair
/// before each request.
pub const CLAUDE_CODE: Profile = Profile {
    name: "claude-code",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        changes: None,
        system: "Claude Code v2.1.88 (the public source map of 2026-03-31), external build, default 200K-token model",
        sources: &[
            "claude-code-best/claude-code @ f90eee85d src/query.ts (the five stages in order: tool-result budget, snip, microcompact, context collapse, autocompact)",
            "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map: query.ts order, toolResultStorage.ts, microCompact.ts, autoCompact.ts, compact.ts)",
            "src/utils/toolResultStorage.ts, src/services/compact/*.ts, src/utils/messages.ts as mirrored in Iam-Shoaib/claude-code @ 71b18827",
        ],
        absent: &[
            "snip (HISTORY_SNIP): ant-only, internals not public",
            "context collapse (CONTEXT_COLLAPSE): ant-only, internals not public",
            "cached microcompact (CACHED_MICROCOMPACT): ant-only, thresholds not public",
            "reactive compact on a 413: ant-only",
            "the per-message 200000-char budget: behind tengu_hawthorn_steeple, off by default",
            "session-memory compaction: experimental flags, off by default",
            "API usage: a scenario without `usage` steps has the rough estimate of all messages as its token count (with one, the last usage + the estimate of the later messages, as the real agent counts)",
            "API usage after pair repair: a repair that rewrites the history forgets the usage until the next response reports one",
            "the file-attachment JSON shape and the text of Read's cyber-risk reminder inside a restored Read result (vendor text: kept as its length and sha256, so the estimate counts its 91-char hashed form, not 340 chars); the agent sends the first restored block as a message of its own, the lab all restored blocks as one (docs/probe.md D8-D10)",
            "the TodoWrite reminder's text (vendor prompt text): the profile appends it in the conformance record's form, `<hashed chars=481 sha256=…>` (91 chars where the agent sends 481; its estimate is that much smaller), to the last tool_result of the batch as it stands in the lab, where the agent appends it to the last to complete (D4); the reminder's list of current todos (always empty: no scenario calls TodoWrite with todos) and the task-management variant",
            "Read's cyber-risk reminder after every Read result (the agent appends it, 340 chars of vendor text; the comparison leaves it out as a reminder), so the estimate of each Read result is that much smaller; and the order of restored files when one batch of Reads completes out of call order (the agent restores them in completion order, the profile in call order)",
            "Read's 256 KB file-size check and the `is_error` flag of a refused Read; the API's token count behind Read's 25000-token cap is stood for by ⌈(4 + chars)/4⌉, the count of the probe's scripted server (docs/probe.md D5)",
            "the per-file header of CLAUDE.md contents: the scenario's text follows MEMORY_INSTRUCTION_PROMPT directly",
            "the summariser model: the summary is the scenario's `summary`, else the nine section headings holding the active request, the files read and every user text message in the history (earlier summaries and restored files included), cut at the call's max_tokens min(max_output, summary_reserve) = 20000 tokens as the real output would stop; what compact.ts does with a summary that stopped at max_tokens is not modelled (the cut text is kept)",
        ],
    },
    constants: Constants {
        preview: 2_000,
        context_window: 200_000,
        max_output: 32_000,
        summary_reserve: 20_000,
        autocompact_buffer: 13_000,
        max_result: 50_000,
        bash_limit: 30_000,
        grep_limit: 20_000,
        idle_gap_minutes: 60,
        keep_recent: 5,
        restore_files: 5,
        restore_file_tokens: 5_000,
        restore_budget: 50_000,
        read_max_tokens: 25_000,
        ..Constants::ZERO
    },
    constant_names: &[
        "context_window",
        "max_output",
        "summary_reserve",
        "autocompact_buffer",
        "max_result",
        "bash_limit",
        "grep_limit",
        "preview",
        "idle_gap_minutes",
        "keep_recent",
        "restore_files",
        "restore_file_tokens",
        "restore_budget",
        "read_max_tokens",
    ],
    // Only time_based_mc, pair_repair and todo_reminder are Claude Code's; the rest are off (or,
    // for the prototype's gate, correct) because it has no such mechanism. time_based_mc is off as a
    // stock external user gets it (D11 in docs/probe.md: GrowthBook
    // `tengu_slate_heron` defaults to disabled, and even when on it runs only for the REPL's
    // main thread, never in `-p`/SDK use); switched on it matches the real agent exactly.
    // todo_reminder is on as a stock 2.1.88 user gets it (TodoWrite is among the default tools;
    // measured in p09, D3 of docs/probe.md).
    switches: Switches {
        order: Order::Intact,
        unseen_guard: false,
        pair_protection: false,
        pointer_aware: false,
        save_before_replace: false,
        validate_pointer: false,
        snip_marker_guard: false,
        time_based_mc: false,
        pair_repair: true,
        trust_stop_reason: false,
        gate_order_correct: true,
        pipeline_has_barrier: false,
        todo_reminder: true,
        search_tools: true,
    },
    switch_names: &[
        SwitchName::TimeBasedMc,
        SwitchName::PairRepair,
        SwitchName::TodoReminder,
    ],
    strings: Strings {
        persisted: "<persisted-output>\nOutput too large ({size}). Full output saved to: {path}\n\nPreview (first {preview_size}):\n{preview}{more}</persisted-output>",
        saved_at: "[Earlier tool result saved at {path}]",
        omitted: "[Old tool result content cleared]",
        pointer_line: "Full output saved to: ",
        snip_marker: None,
        summary_message: "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n{summary}\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: {path}\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened.",
        compact_tool_result: None,
        compact_label: None,
        reactive_label: None,
    },
    pipeline: PIPELINE,
    swapped_pipeline: None,
    stages: &[Stage::TimeMc, Stage::Autocompact, Stage::PairRepair],
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
    arrival: Arrival::PersistPerTool,
    read_over_cap: ReadOverCap::Refuse,
    compact_form: CompactForm::Whole,
    claude_md: true,
    // <projectDir>/<sessionId>/tool-results and <projectDir>/<sessionId>.jsonl.
    default_dirs: Some((
        "/home/lab/.claude/projects/-home-lab-repo/5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de/tool-results",
        "/home/lab/.claude/projects/-home-lab-repo",
    )),
    session_file: Some("5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de.jsonl"),
};
