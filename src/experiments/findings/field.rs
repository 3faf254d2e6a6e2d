//! Findings on the field's profiles (issue 16): systems beyond the course and Claude Code, one
//! block of rows per profile, evaluated after [`super::registry::FINDINGS`].

use super::registry::{Check, Finding};

macro_rules! scenario {
    ($file:literal, $headline:expr) => {
        Check::Scenario {
            file: $file,
            text: include_str!(concat!("../../../", $file)),
            headline: $headline,
        }
    };
}

/// Codex (X1-X3); Cline (L1-L3), opencode (N1-N3), Kilo (K1-K3), opencode V2 (V1-V3).
pub const FIELD: &[Finding] = &[
    Finding {
        id: "X1",
        source: "peers_2026 §3.1, §3.3 (codex-rs compact.rs @ 0100b103, openai_models.rs)",
        shows: "Codex compacts at 244800 tokens (272000 × 9 / 10, >=) and not at 244799; every tool call and output leaves the history with no placeholder, the rollout keeps them.",
        check: scenario!(
            "scenarios/x1-codex-trigger.json",
            &["model_calls (step 5)", "context_chars", "unrecoverable"]
        ),
    },
    Finding {
        id: "X2",
        source: "peers_2026 §3.1 (codex-rs compact.rs build_compacted_history_with_limit, truncate.rs)",
        shows: "User messages are kept newest first within the token budget; an older request that overflows a small remainder is cut to the first bytes of the truncation marker, nothing of it left.",
        check: scenario!(
            "scenarios/x2-codex-user-cap.json",
            &["message:0", "message:1"]
        ),
    },
    Finding {
        id: "X3",
        source: "peers_2026 §3.1, §3.6 (collect_user_messages skips the summary; the rollout)",
        shows: "A second compaction drops the first summary (only the user messages and the new summary remain); tool outputs are gone from the history but recoverable from the rollout.",
        check: scenario!(
            "scenarios/x3-codex-second-compaction.json",
            &["context_chars", "model_calls", "unrecoverable"]
        ),
    },
    // Cline (L1-L3): issue 16, helper `fielda`.
    Finding {
        id: "L1",
        source: "peers_2026 §7 (cline/cline basic-compaction.ts, compaction-shared.ts, compaction.ts @ 21cb8d25)",
        shows: "Cline's basic compaction does not fire at 899 tokens (0.9 × 1000 = 900, ceil(JSON length / 3) per message): every message stays.",
        check: scenario!(
            "scenarios/l1-cline-below.json",
            &["context_chars", "messages"]
        ),
    },
    Finding {
        id: "L1",
        source: "peers_2026 §7 (runBasicCompaction, summarizeToolActivity @ 21cb8d25)",
        shows: "At 900 it folds without a model: the new result does not fit the 630 target and is dropped before the model saw it; a SYSTEM_NOTICE names the file and line range read, no archive keeps the output.",
        check: scenario!(
            "scenarios/l1-cline-trigger.json",
            &["context_chars", "unseen_compacted", "unrecoverable"]
        ),
    },
    Finding {
        id: "L2",
        source: "peers_2026 §7 (findCutIndex/isSafeCutBoundary, PRESERVED_ASSISTANT_TEXT_COUNT, extractDiffLineRange @ 21cb8d25)",
        shows: "A fold keeps the prompts, older turns' final answers and the latest turn's tail from an assistant message: an output that fit goes with its call, so pairs stay intact; the notices carry paths, edit ranges, commands and the last 3 assistant texts only.",
        check: scenario!(
            "scenarios/l2-cline-what-survives.json",
            &["context_chars", "result:t3", "result:t4", "pairs_intact"]
        ),
    },
    Finding {
        id: "L3",
        source: "cline/cline#5668, #5616, #9510 (peers_2026 §12 row 20); basic-compaction.ts typed prompts mandatory",
        shows: "A first prompt over the trigger is never folded, so every request folds again: each tool output is dropped before the model sees it, the model reads the same file again, and notices stack on the prompt.",
        check: scenario!(
            "scenarios/l3-cline-prompt-loop.json",
            &["unseen_compacted", "reread_after_clear", "context_chars"]
        ),
    },
    // opencode (N1-N3) and Kilo (K1-K3): issue 16, helper `fielda`.
    Finding {
        id: "N1",
        source: "peers_2026 §5.1 (opencode overflow.ts @ 08f74b9b, compaction.ts @ 001aa6cc, message-v2.ts @ 007a9409)",
        shows: "opencode compacts at usable = input − min(20000, max output) (scaled: 800) and not one token below; the model then sees only `What did we do so far?`, the summary and `Continue …`, the new prompt included behind it; the database keeps everything.",
        check: scenario!(
            "scenarios/n1-opencode-trigger.json",
            &[
                "model_calls (step 3)",
                "model_calls",
                "message:0",
                "unrecoverable"
            ]
        ),
    },
    Finding {
        id: "N2",
        source: "peers_2026 §5.1 (SessionCompaction.prune @ 001aa6cc, PRUNE_PROTECT/PRUNE_MINIMUM)",
        shows: "Prune skips the last two user turns, keeps the newest 40000 (scaled 400) output tokens and clears older outputs to `[Old tool result content cleared]`, no pointer; opencode's database keeps the original.",
        check: scenario!(
            "scenarios/n2-opencode-prune.json",
            &["result:t1", "result:t2", "unrecoverable"]
        ),
    },
    Finding {
        id: "N3",
        source: "anomalyco/opencode#30807 (peers_2026 §12 row 18)",
        shows: "A read cleared by prune is read again: the placeholder carries no pointer to the database copy.",
        check: scenario!(
            "scenarios/n3-opencode-prune-reread.json",
            &["reread_after_clear", "unrecoverable"]
        ),
    },
    Finding {
        id: "K1",
        source: "peers_2026 §6 (Kilo-Org/kilocode compaction.ts @ 3e5384d4, kilocode_change)",
        shows: "Kilo prunes as opencode does but erases the output from its database: the pruned result is unrecoverable (opencode: recoverable).",
        check: scenario!(
            "scenarios/k1-kilo-destructive-prune.json",
            &["result:t1", "unrecoverable"]
        ),
    },
    Finding {
        id: "K2",
        source: "peers_2026 §5.1, §6 (prune acts only if pruned > PRUNE_MINIMUM)",
        shows: "At exactly PRUNE_MINIMUM prunable tokens (scaled 200) Kilo prunes nothing; one token more and the output is erased.",
        check: scenario!(
            "scenarios/k2-kilo-prune-minimum.json",
            &["result:t1", "placeholders"]
        ),
    },
    Finding {
        id: "K3",
        source: "peers_2026 §6 (Kilo compaction.ts @ 3e5384d4: process, the continue message)",
        shows: "After a compaction Kilo's database still holds every message behind the summary, except the output its prune erased: one result of five is unrecoverable.",
        check: scenario!(
            "scenarios/k3-kilo-compaction-after-prune.json",
            &["model_calls", "unrecoverable"]
        ),
    },
    // opencode V2 (V1-V3): issue 16, helper `fielda`.
    Finding {
        id: "V1",
        source: "peers_2026 §5.2 (opencode packages/core compaction.ts @ 031a4a9c, to-llm-message.ts)",
        shows: "opencode V2 compacts at context − max(min(output, 32000), buffer) (scaled: 700) and not one token below; the model then sees one checkpoint message, the summary and the latest exchange as text; the record keeps everything.",
        check: scenario!(
            "scenarios/v1-opencode-v2-trigger.json",
            &[
                "model_calls (step 3)",
                "model_calls",
                "messages",
                "unrecoverable"
            ]
        ),
    },
    Finding {
        id: "V2",
        source: "peers_2026 §5.2 (serializeRecentMessage, TOOL_OUTPUT_MAX_CHARS = 2_000)",
        shows: "The newest messages survive only as text in the checkpoint: a kept tool output is cut to 2000 chars (scaled 200) and `[truncated]`, no tool result block remains; the originals are in the durable record.",
        check: scenario!(
            "scenarios/v2-opencode-v2-what-survives.json",
            &["result:t2", "context_chars", "unrecoverable"]
        ),
    },
    Finding {
        id: "V3",
        source: "peers_2026 §5.2 (findTailStart: the newest entry always, then back to a user boundary)",
        shows: "The kept tail starts at a user message, so it can far exceed keep_tokens (76 tokens kept for 10) to keep a turn's calls and results together.",
        check: scenario!(
            "scenarios/v3-opencode-v2-user-boundary.json",
            &["message:0", "context_chars"]
        ),
    },
];
