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

/// Anthropic API context editing (A1-A3); Codex (X1-X3); Cline (L1-L3), opencode (N1-N3), Kilo (K1-K3), opencode V2 (V1-V3); Gemini
/// CLI (G1-G3), OpenHands (H1-H3), Codex remote compaction (XR1-XR3).
pub const FIELD: &[Finding] = &[
    Finding {
        id: "A1",
        source: "platform.claude.com/docs/en/build-with-claude/context-editing (clear_tool_uses_20250919: trigger 100000 input tokens, 'once the prompt exceeds')",
        shows: "Anthropic API context editing clears nothing at exactly 100000 input tokens and clears all but the last 3 tool results to `[cleared]` one token above.",
        check: scenario!(
            "scenarios/a1-anthropic-api-edit-trigger.json",
            &["result:t1 (step 6)", "result:t1", "placeholders"]
        ),
    },
    Finding {
        id: "A2",
        source: "platform.claude.com/docs/en/build-with-claude/context-editing ('Your client application maintains the full, unmodified conversation history')",
        shows: "A cleared result leaves the model no pointer (dropped_unsaved 3) but the client keeps the unedited history, so nothing is unrecoverable; pairs stay valid.",
        check: scenario!(
            "scenarios/a2-anthropic-api-no-pointer-but-client-keeps.json",
            &["dropped_unsaved", "unrecoverable", "api_valid"]
        ),
    },
    Finding {
        id: "A3",
        source: "platform.claude.com/docs/en/build-with-claude/context-editing (clear_at_least: the strategy is not applied when it cannot clear that many tokens)",
        shows: "With clear_at_least 50000 an edit that would save 24998 tokens is not applied: the prompt stays over the trigger with nothing cleared.",
        check: scenario!(
            "scenarios/a3-anthropic-api-clear-at-least.json",
            &["result:t1", "placeholders", "context_size"]
        ),
    },
    Finding {
        id: "X1",
        source: "openai/codex codex-rs/core/src/compact.rs @ 0100b103, codex-rs/protocol/src/openai_models.rs, context_manager/history.rs get_total_token_usage",
        shows: "Codex compacts at 244800 tokens (272000 × 9 / 10, >=; the last reported usage plus the estimate of later messages) and not at 244799; every tool call and output leaves the history with no placeholder, the rollout keeps them.",
        check: scenario!(
            "scenarios/x1-codex-trigger.json",
            &["model_calls (step 3)", "context_size", "unrecoverable"]
        ),
    },
    Finding {
        id: "X2",
        source: "openai/codex codex-rs/core/src/compact.rs @ e06dd0e5 (build_compacted_history_with_limit), truncate.rs",
        shows: "User messages are kept newest first within the token budget; an older request that overflows a small remainder is cut to the first bytes of the truncation marker, nothing of it left.",
        check: scenario!(
            "scenarios/x2-codex-user-cap.json",
            &["message:0", "message:1"]
        ),
    },
    Finding {
        id: "X3",
        source: "openai/codex codex-rs/core/src/compact.rs @ e06dd0e5 (collect_user_messages skips the summary; the rollout keeps the items)",
        shows: "A second compaction drops the first summary (only the user messages and the new summary remain); tool outputs are gone from the history but recoverable from the rollout.",
        check: scenario!(
            "scenarios/x3-codex-second-compaction.json",
            &["context_size", "model_calls", "unrecoverable"]
        ),
    },
    Finding {
        id: "L1",
        source: "cline/cline sdk/packages/core/src/extensions/context/basic-compaction.ts, compaction-shared.ts, compaction.ts @ 21cb8d25",
        shows: "Cline's basic compaction does not fire at 899 tokens (0.9 × 1000 = 900, ceil(JSON length / 3) per message): every message stays.",
        check: scenario!(
            "scenarios/l1-cline-below.json",
            &["context_size", "messages"]
        ),
    },
    Finding {
        id: "L1",
        source: "cline/cline basic-compaction.ts @ 21cb8d25 (runBasicCompaction, summarizeToolActivity)",
        shows: "At 900 it folds without a model: the new result does not fit the 630 target and is dropped before the model saw it; a SYSTEM_NOTICE names the file and line range read, no archive keeps the output.",
        check: scenario!(
            "scenarios/l1-cline-trigger.json",
            &["context_size", "unseen_compacted", "unrecoverable"]
        ),
    },
    Finding {
        id: "L2",
        source: "cline/cline compaction-shared.ts @ 21cb8d25 (findCutIndex/isSafeCutBoundary, PRESERVED_ASSISTANT_TEXT_COUNT, extractDiffLineRange)",
        shows: "A fold keeps the prompts, older turns' final answers and the latest turn's tail from an assistant message: an output that fit goes with its call, so pairs stay intact; the notices carry paths, edit ranges, commands and the last 3 assistant texts only.",
        check: scenario!(
            "scenarios/l2-cline-what-survives.json",
            &["context_size", "result:t3", "result:t4", "pairs_intact"]
        ),
    },
    Finding {
        id: "L3",
        source: "cline/cline#5668, #5616, #9510; basic-compaction.ts @ 21cb8d25: typed prompts mandatory",
        shows: "A first prompt over the trigger is never folded, so every request folds again: each tool output is dropped before the model sees it, the model reads the same file again, and notices stack on the prompt.",
        check: scenario!(
            "scenarios/l3-cline-prompt-loop.json",
            &["unseen_compacted", "reread_after_clear", "context_size"]
        ),
    },
    Finding {
        id: "N1",
        source: "anomalyco/opencode packages/opencode/src/session/overflow.ts @ 08f74b9b, compaction.ts @ 001aa6cc, message-v2.ts @ 007a9409",
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
        source: "anomalyco/opencode packages/opencode/src/session/compaction.ts @ 001aa6cc (SessionCompaction.prune, PRUNE_PROTECT/PRUNE_MINIMUM)",
        shows: "Prune skips the last two user turns, keeps the newest 40000 (scaled 400) output tokens and clears older outputs to `[Old tool result content cleared]`, no pointer; opencode's database keeps the original.",
        check: scenario!(
            "scenarios/n2-opencode-prune.json",
            &["result:t1", "result:t2", "unrecoverable"]
        ),
    },
    Finding {
        id: "N3",
        source: "anomalyco/opencode#30807",
        shows: "A read cleared by prune is read again: the placeholder carries no pointer to the database copy.",
        check: scenario!(
            "scenarios/n3-opencode-prune-reread.json",
            &["reread_after_clear", "unrecoverable"]
        ),
    },
    Finding {
        id: "K1",
        source: "Kilo-Org/kilocode packages/opencode/src/session/compaction.ts @ 3e5384d4 (kilocode_change)",
        shows: "Kilo prunes as opencode does but erases the output from its database: the pruned result is unrecoverable (opencode: recoverable).",
        check: scenario!(
            "scenarios/k1-kilo-destructive-prune.json",
            &["result:t1", "unrecoverable"]
        ),
    },
    Finding {
        id: "K2",
        source: "Kilo-Org/kilocode packages/opencode/src/session/compaction.ts @ 3e5384d4 (prune acts only if pruned > PRUNE_MINIMUM)",
        shows: "At exactly PRUNE_MINIMUM prunable tokens (scaled 200) Kilo prunes nothing; one token more and the output is erased.",
        check: scenario!(
            "scenarios/k2-kilo-prune-minimum.json",
            &["result:t1", "placeholders"]
        ),
    },
    Finding {
        id: "K3",
        source: "Kilo-Org/kilocode packages/opencode/src/session/compaction.ts @ 3e5384d4 (process, the continue message)",
        shows: "After a compaction Kilo's database still holds every message behind the summary, except the output its prune erased: one result of five is unrecoverable.",
        check: scenario!(
            "scenarios/k3-kilo-compaction-after-prune.json",
            &["model_calls", "unrecoverable"]
        ),
    },
    Finding {
        id: "V1",
        source: "anomalyco/opencode packages/core/src/session/compaction.ts @ 031a4a9c, to-llm-message.ts (PR anomalyco/opencode#30986)",
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
        source: "anomalyco/opencode packages/core/src/session/compaction.ts @ 031a4a9c (serializeRecentMessage, TOOL_OUTPUT_MAX_CHARS = 2_000)",
        shows: "The newest messages survive only as text in the checkpoint: a kept tool output is cut to 2000 chars (scaled 200) and `[truncated]`, no tool result block remains; the originals are in the durable record.",
        check: scenario!(
            "scenarios/v2-opencode-v2-what-survives.json",
            &["result:t2", "context_size", "unrecoverable"]
        ),
    },
    Finding {
        id: "V3",
        source: "anomalyco/opencode packages/core/src/session/compaction.ts @ 031a4a9c (findTailStart: the newest entry always, then back to a user boundary)",
        shows: "The kept tail starts at a user message, so it can far exceed keep_tokens (76 tokens kept for 10) to keep a turn's calls and results together.",
        check: scenario!(
            "scenarios/v3-opencode-v2-user-boundary.json",
            &["message:0", "context_size"]
        ),
    },
    Finding {
        id: "G1",
        source: "google-gemini/gemini-cli packages/core/src/context/chatCompressionService.ts @ 5411f113",
        shows: "Gemini CLI compresses at 524288 tokens (0.5 × 1048576, >=) and not at 524287, with two model calls; older outputs past the 50000-token budget are written to tool-outputs/ even when compressed away (orphans).",
        check: scenario!(
            "scenarios/g1-gemini-cli-trigger.json",
            &[
                "model_calls (step 8)",
                "model_calls",
                "orphan_files",
                "unrecoverable"
            ]
        ),
    },
    Finding {
        id: "G2",
        source: "google-gemini/gemini-cli packages/core/src/context/toolOutputMaskingService.ts @ 5411f113",
        shows: "Tool-output masking at 30000 prunable tokens past the newest 50000: the output becomes a head/tail preview and a path to a file holding it, so nothing is lost and the pair stays.",
        check: scenario!(
            "scenarios/g2-gemini-cli-mask.json",
            &["result:t1", "orphan_files", "unrecoverable"]
        ),
    },
    Finding {
        id: "G3",
        source: "google-gemini/gemini-cli chatCompressionService.ts @ 5411f113; google-gemini/gemini-cli#8586, #15225, #6300",
        shows: "With a tool loop after the last user message, compression can only cut before it: it shrinks by 2.4%, then by nothing, and fires at every request, two model calls each.",
        check: scenario!(
            "scenarios/g3-gemini-cli-churn.json",
            &["compaction_churn", "model_calls"]
        ),
    },
    Finding {
        id: "H1",
        source: "OpenHands/software-agent-sdk openhands-sdk/openhands/sdk/context/condenser/llm_summarizing_condenser.py @ 611629e6",
        shows: "The OpenHands condenser fires at 241 events (max_size 240, >) and not at 240: it keeps the first 2 events and the newest 117, and one summary stands for the 122 between.",
        check: scenario!(
            "scenarios/h1-openhands-trigger.json",
            &["model_calls (step 121)", "model_calls", "messages"]
        ),
    },
    Finding {
        id: "H2",
        source: "OpenHands/software-agent-sdk @ 611629e6 (tool_call_matching.py manipulation indices)",
        shows: "A forgotten range that would end between an action and its observation is extended past the observation: the pair goes whole, no call is left without its result; the event store keeps it.",
        check: scenario!(
            "scenarios/h2-openhands-pairs.json",
            &["messages", "api_valid", "unrecoverable"]
        ),
    },
    Finding {
        id: "H3",
        source: "OpenHands/software-agent-sdk llm_summarizing_condenser.py @ 611629e6 (Reason.TOKENS, get_suffix_length_for_token_reduction)",
        shows: "With the model's input limit set, more tokens than it (1001 > 1000, not 1000) is a hard condensation down to half the limit: both tool outputs leave the view whole, summarised.",
        check: scenario!(
            "scenarios/h3-openhands-token-limit.json",
            &["model_calls (step 4)", "context_size", "model_calls"]
        ),
    },
    Finding {
        id: "XR1",
        source: "openai/codex codex-rs/core/src/compact_remote.rs @ 683f0a68",
        shows: "Codex's remote compaction fires at 244800 tokens and not at 244799; only the user messages and one opaque compaction item come back, every call and output is gone (the rollout keeps them).",
        check: scenario!(
            "scenarios/r1-codex-remote-trigger.json",
            &["model_calls (step 5)", "context_size", "unrecoverable"]
        ),
    },
    Finding {
        id: "XR2",
        source: "openai/codex codex-rs/core/src/compact_remote.rs @ 683f0a68 (trim_function_call_history_to_fit_context_window)",
        shows: "Over the whole window, the newest tool output and its call are removed before the compaction call: the summariser never sees the output the model asked for last.",
        check: scenario!(
            "scenarios/r2-codex-remote-trim.json",
            &["message:1", "result:t2"]
        ),
    },
    Finding {
        id: "XR3",
        source: "openai/codex codex-rs/core/src/compact_remote.rs @ 683f0a68 (process_compacted_history)",
        shows: "A second remote compaction replaces the first item and drops the model's own text: the user messages and one new opaque item are all that remain.",
        check: scenario!(
            "scenarios/r3-codex-remote-second-compaction.json",
            &["messages", "context_size", "model_calls"]
        ),
    },
];
