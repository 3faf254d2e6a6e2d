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

/// Codex (X1-X3), Gemini CLI (G1-G3), OpenHands (H1-H3), Codex remote compaction (XR1-XR3).
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
    // Gemini CLI (G1-G3; issue 16, branch fieldb).
    Finding {
        id: "G1",
        source: "peers_2026 §4.2 (gemini-cli chatCompressionService.ts @ 5411f113)",
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
        source: "peers_2026 §4.3 (gemini-cli toolOutputMaskingService.ts @ 5411f113)",
        shows: "Tool-output masking at 30000 prunable tokens past the newest 50000: the output becomes a head/tail preview and a path to a file holding it, so nothing is lost and the pair stays.",
        check: scenario!(
            "scenarios/g2-gemini-cli-mask.json",
            &["result:t1", "orphan_files", "unrecoverable"]
        ),
    },
    Finding {
        id: "G3",
        source: "peers_2026 §4.2, §12 (google-gemini/gemini-cli#8586, #15225, #6300)",
        shows: "With a tool loop after the last user message, compression can only cut before it: it shrinks by 2.4%, then by nothing, and fires at every request, two model calls each.",
        check: scenario!(
            "scenarios/g3-gemini-cli-churn.json",
            &["compaction_churn", "model_calls"]
        ),
    },
    // OpenHands SDK (H1-H3; issue 16, branch fieldb).
    Finding {
        id: "H1",
        source: "peers_2026 §9 (software-agent-sdk llm_summarizing_condenser.py @ 611629e6)",
        shows: "The OpenHands condenser fires at 241 events (max_size 240, >) and not at 240: it keeps the first 2 events and the newest 117, and one summary stands for the 122 between.",
        check: scenario!(
            "scenarios/h1-openhands-trigger.json",
            &["model_calls (step 121)", "model_calls", "messages"]
        ),
    },
    Finding {
        id: "H2",
        source: "peers_2026 §9 (tool_call_matching.py manipulation indices)",
        shows: "A forgotten range that would end between an action and its observation is extended past the observation: the pair goes whole, no call is left without its result; the event store keeps it.",
        check: scenario!(
            "scenarios/h2-openhands-pairs.json",
            &["messages", "api_valid", "unrecoverable"]
        ),
    },
    Finding {
        id: "H3",
        source: "peers_2026 §9 (Reason.TOKENS, get_suffix_length_for_token_reduction)",
        shows: "With the model's input limit set, more tokens than it (1001 > 1000, not 1000) is a hard condensation down to half the limit: both tool outputs leave the view whole, summarised.",
        check: scenario!(
            "scenarios/h3-openhands-token-limit.json",
            &["model_calls (step 4)", "context_chars", "model_calls"]
        ),
    },
    // Codex remote compaction (XR1-XR3; issue 16, branch fieldb).
    Finding {
        id: "XR1",
        source: "peers_2026 §3.2 (codex-rs compact_remote.rs @ 683f0a68)",
        shows: "Codex's remote compaction fires at 244800 tokens and not at 244799; only the user messages and one opaque compaction item come back, every call and output is gone (the rollout keeps them).",
        check: scenario!(
            "scenarios/r1-codex-remote-trigger.json",
            &["model_calls (step 5)", "context_chars", "unrecoverable"]
        ),
    },
    Finding {
        id: "XR2",
        source: "peers_2026 §3.2 (trim_function_call_history_to_fit_context_window)",
        shows: "Over the whole window, the newest tool output and its call are removed before the compaction call: the summariser never sees the output the model asked for last.",
        check: scenario!(
            "scenarios/r2-codex-remote-trim.json",
            &["message:1", "result:t2"]
        ),
    },
    Finding {
        id: "XR3",
        source: "peers_2026 §3.2 (process_compacted_history)",
        shows: "A second remote compaction replaces the first item and drops the model's own text: the user messages and one new opaque item are all that remain.",
        check: scenario!(
            "scenarios/r3-codex-remote-second-compaction.json",
            &["messages", "context_chars", "model_calls"]
        ),
    },
];
