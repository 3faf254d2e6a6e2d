//! The stage order of `prepare` as data (docs/observables.md): which stages a profile runs, in
//! which order, and which of them only run while the estimate is over `context_limit`. The stages
//! themselves are code in [`crate::compaction::stages`].

use crate::compaction::switches::name_table;

name_table! {
    /// One stage of a pipeline, by the name a scenario's `stage` step uses.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Stage {
        Budget => "budget",
        Snip => "snip",
        Micro => "micro",
        Fit => "fit",
        Compact => "compact",
        Reactive => "reactive",
        /// Claude Code's time-based microcompact.
        TimeMc => "time_mc",
        /// Claude Code's autocompact.
        Autocompact => "autocompact",
        /// Claude Code v2.1.332's KEEP-RECENT microcompact, run when the API rejects a request
        /// under the `context_hint` beta (a scenario's `context_hint` step).
        KeepRecentMc => "keep_recent_mc",
        /// Claude Code's `ensureToolResultPairing`.
        PairRepair => "pair_repair",
        /// The Anthropic API's context editing `clear_tool_uses_20250919`.
        ClearToolUses => "clear_tool_uses",
        /// Codex's local (inline) auto-compaction (codex-rs `compact.rs`).
        CodexCompact => "codex_compact",
        /// Cline's `basic` compaction (SDK core `basic-compaction.ts`).
        ClineCompact => "cline_compact",
        /// opencode V1's prune of old tool outputs (non-destructive: the DB keeps them).
        OpencodePrune => "opencode_prune",
        /// Kilo CLI's prune: opencode's, with the output erased from the DB.
        KiloPrune => "kilo_prune",
        /// opencode V1's summary compaction (the `compaction` agent).
        OpencodeCompact => "opencode_compact",
        /// opencode V2's checkpoint compaction (`packages/core`).
        OpencodeCheckpoint => "opencode_checkpoint",
        /// Gemini CLI's chat compression (`chatCompressionService.ts`).
        GeminiCompress => "gemini_compress",
        /// Gemini CLI's tool-output masking (`toolOutputMaskingService.ts`).
        GeminiMask => "gemini_mask",
        /// OpenHands SDK's LLM-summarizing condenser (`llm_summarizing_condenser.py`).
        OpenhandsCondense => "openhands_condense",
        /// Codex's remote compaction (codex-rs `compact_remote.rs`).
        CodexRemote => "codex_remote",
    }
}

/// One element of `prepare`: a stage, a stage that stops as soon as the estimate is within
/// `target_per_mille` of `context_limit` (course latest's micro and fit), or a group that runs
/// only while the estimate is over `context_limit` (checked once, before the group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    Run(Stage),
    RunToTarget(Stage),
    IfOverLimit(&'static [Pipe]),
}

/// `budget → snip → micro → if over limit: [compact]`.
pub fn describe_pipeline(pipes: &[Pipe]) -> String {
    pipes
        .iter()
        .map(|pipe| match pipe {
            Pipe::Run(stage) => stage.as_str().to_owned(),
            Pipe::RunToTarget(stage) => format!("{stage} (to target)"),
            Pipe::IfOverLimit(group) => format!("if over limit: [{}]", describe_pipeline(group)),
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_round_trips_by_name() {
        for stage in Stage::ALL {
            assert_eq!(Stage::parse(stage.as_str()), Some(stage));
            assert_eq!(stage.to_string(), stage.as_str());
        }
        assert_eq!(Stage::parse("time-mc"), None);
    }
}
