//! Claude Code v2.1.332, the current release when it was probed (docs/probe.md), written as its
//! differences from [`CLAUDE_CODE`] (v2.1.88). Every difference was measured with `lab probe`
//! against the real agent (records under `conformance/claude-code-2.1.332/`) or read in the
//! JavaScript its native binary embeds; what neither showed is listed under "not modelled".

use super::CLAUDE_CODE;
use crate::compaction::profile::{
    CompactForm, Constants, Estimator, Pipe, Profile, Provenance, ReadOverCap, Stage, Strings,
};
use crate::compaction::switches::{SwitchName, Switches};

const PIPELINE: &[Pipe] = &[Pipe::Run(Stage::Autocompact), Pipe::Run(Stage::PairRepair)];

/// Claude Code v2.1.332 as a stock user gets it (`claude -p`, no settings): the default model
/// (claude-opus-5-5: a 1M-token window, 128000 output tokens, so autocompact at 967000), no
/// Grep, Glob or TodoWrite among the tools, Read cutting a file over its token cap instead of
/// refusing it, and an autocompact that keeps the last turn verbatim, skips while the fixed
/// prefix alone is over the threshold, and appends the restored files to the kept results.
pub const CLAUDE_CODE_2_1_332: Profile = Profile {
    name: "claude-code-2.1.332",
    provenance: Provenance {
        system: "Claude Code v2.1.332 (npm @anthropic-ai/claude-code 2.1.332, native build), external build, default model claude-opus-5-5",
        sources: &[
            "docs/probe.md and conformance/claude-code-2.1.332/ (the real agent driven by `lab probe`, 18 scenarios exact: thresholds, previews, Read's cut, Grep and Glob refused, the compaction that keeps the last turn at 966999/967000, the whole-history one at the blocking limit 976999/977000)",
            "the JavaScript embedded in the 2.1.332 native binary (@anthropic-ai/claude-code-linux-x64): the token count and its 3 characters a token, the threshold and the blocking limit, the compaction's rounds, Read's cut, the summary message",
        ],
        changes: Some((
            "claude-code",
            &[
                "the default model is claude-opus-5-5: a 1M-token window and 128000 output tokens, so autocompact fires at 1000000 − min(128000, 20000) − 13000 = 967000 tokens (probed: p14, p15)",
                "the estimate counts 3 characters a token (Math.round(length / 3) per block) for every model outside a list of older ones (p14, p15)",
                "autocompact keeps the last assistant turn and its results verbatim after the summary, summarising only what precedes it; the summary message opens with `<tools-used-before-summary>` (the tools of the whole history, sorted) and closes with a paragraph saying the next messages were kept (p14)",
                "with nothing but the request before the last turn there is nothing to summarise: no compaction until the blocking limit, window − min(max_output, 20000) − 3000 = 977000, where the whole history is summarised, the restored files and the attribution reminder before the summary (p17, p18)",
                "the restored files are text blocks appended to the kept results, without Read's cyber-risk reminder, followed by the attribution reminder; a file a kept Read reads is left out, and a file a Bash `cat` read is restored too (after the Read files, newest call first) (p14)",
                "Read cuts a file over its 25000-token cap to 85% of the cap (by lines, or by characters for long lines) instead of refusing it (p11, p13)",
                "Grep, Glob and TodoWrite are not among a stock user's tools: a call to Grep or Glob is refused (switch `search_tools`, off), and no TodoWrite reminder is appended (p16, p09)",
                "time-based microcompact is gone (its flag and code were removed); the KEEP-RECENT microcompact takes its place, run when the API rejects a request under the `context_hint` beta (a `context_hint` step): every compactable result but the last 5 is saved to a file and replaced by a `<persisted-output>` pointer, only when that saves at least 20000 tokens (read in the code)",
            ],
        )),
        absent: &[
            "what v2.1.88's profile lists as not modelled, where it still holds (snip, context collapse, cached and reactive compaction, the per-message budget, session memory, the tokenizer, the 256 KB Read size check, `is_error`)",
            "when the API rejects a request under the `context_hint` beta (the KEEP-RECENT microcompact runs on a scenario's `context_hint` step instead): read in the code only, never probed (the scripted server does not reject), so the estimate behind its 20000-token minimum (the profile's), the spill file's name (`<id>.txt`) and the `(truncated to …)` note for a large result are not confirmed",
            "a request over the blocking limit is refused without an API call: unreachable in the lab, whose compaction always succeeds; the `fixed prefix … compaction cannot help` guard only logs (it never skips a compaction)",
            "the system-role messages 2.1.332 adds to the history (the user context with CLAUDE.md and the date, the environment and skills listing after a compaction, the note for a restored file over 5000 tokens, Read's truncation notice, the permission-mode note) and the first request's attribution reminder: the comparison leaves them out, the estimate does not count them (system messages count 0 in the agent's own estimate too), and a scenario's CLAUDE.md is not sent",
            "the attribution reminder's text after a compaction (vendor prompt text): appended in its hashed form, `<hashed chars=579 sha256=…>`, so the estimate counts 91 chars where the agent sends 579",
            "which Bash commands count as reading a file: only `cat` of one path is modelled; the order of the restored files when one batch of Reads completes out of call order (D4), and between Read and Bash files beyond what p14 shows",
            "a file Read cut over the cap is restored as cut; whether the agent restores such a partial view was not probed",
            "another model (`--model`): the window, output limit and 3 characters a token are the default model's; `--const context_window=200000 --const max_output=32000` gives Sonnet's 167000 threshold but not its 4 characters a token",
            "the new persisted-output forms, read in the code and not reached at the probed sizes: `Preview (start and end):` (500 chars, `[… N omitted …]`, 1500 chars) when Bash's own output was cut in the shell, `Output exceeded the … persist limit; only the first … were saved to:` for Bash output of 64 MiB or more, `<truncated-output>` when saving fails",
        ],
    },
    // Claude Code estimates 3 characters a token for every model outside its list of older
    // ones (claude-sonnet-4-6, claude-opus-4-6 and earlier take 4).
    estimator: Estimator::ClaudeTokens3,
    constants: Constants {
        context_window: 1_000_000,
        max_output: 128_000,
        idle_gap_minutes: 0,
        keep_recent_min_saved: 20_000,
        blocking_buffer: 3_000,
        ..CLAUDE_CODE.constants
    },
    constant_names: &[
        "context_window",
        "max_output",
        "summary_reserve",
        "autocompact_buffer",
        "blocking_buffer",
        "max_result",
        "bash_limit",
        "grep_limit",
        "preview",
        "keep_recent",
        "keep_recent_min_saved",
        "restore_files",
        "restore_file_tokens",
        "restore_budget",
        "read_max_tokens",
    ],
    // time_based_mc is gone (its GrowthBook flag and code were removed); todo_reminder is off
    // because TodoWrite is not among a stock user's tools.
    switches: Switches {
        time_based_mc: false,
        todo_reminder: false,
        search_tools: false,
        ..CLAUDE_CODE.switches
    },
    switch_names: &[
        SwitchName::PairRepair,
        SwitchName::TodoReminder,
        SwitchName::SearchTools,
    ],
    strings: Strings {
        summary_message: "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n{tools}{summary}\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: {path}\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened.{kept}",
        ..CLAUDE_CODE.strings
    },
    pipeline: PIPELINE,
    stages: &[Stage::KeepRecentMc, Stage::Autocompact, Stage::PairRepair],
    read_over_cap: ReadOverCap::Cut,
    // The user context (CLAUDE.md, the date) goes in system-role messages: not modelled.
    claude_md: false,
    compact_form: CompactForm::KeepLastTurn,
    ..CLAUDE_CODE
};
