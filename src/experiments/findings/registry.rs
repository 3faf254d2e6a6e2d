//! The findings registry: every finding of docs/findings.md (course profiles, the prototype, Claude
//! Code and the memory store), each with its seed section, what it shows, its expected values and
//! the experiment that measures them. Data only; `evaluate` runs it.

use crate::experiments::spill::SHORT_SPILL_DIR;

/// How a finding is measured.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// A scenario file's expectations; `headline` names the ones shown in the table.
    Scenario {
        file: &'static str,
        text: &'static str,
        headline: &'static [&'static str],
    },
    /// One break on the prototype replay (with its layers): each `(observable, from, to)` must
    /// be listed as changed, each of `unchanged` must not; `nothing` means no difference at all.
    Break {
        name: &'static str,
        spill_dir: Option<&'static str>,
        changed: &'static [(&'static str, &'static str, &'static str)],
        unchanged: &'static [&'static str],
        nothing: bool,
    },
    /// One memory break on its probe: exactly these observables change, nothing else.
    MemoryBreak {
        name: &'static str,
        changed: &'static [(&'static str, &'static str, &'static str)],
    },
    /// The prototype's 2×2, order × unseen_guard, as `dropped_unsaved/pointer_lost` per cell.
    Matrix {
        spill_dir: Option<&'static str>,
        cells: [[&'static str; 2]; 2],
    },
    /// A spill-path sweep with exactly these `pointer_lost` cliffs.
    Sweep {
        file: Option<(&'static str, &'static str)>,
        switches: &'static [(&'static str, &'static str)],
        from: usize,
        to: usize,
        cliffs: &'static [&'static str],
    },
}

/// One finding.
#[derive(Debug, Clone, Copy)]
pub struct Finding {
    pub id: &'static str,
    /// Seed file and section.
    pub source: &'static str,
    /// What it shows, in one sentence.
    pub shows: &'static str,
    pub check: Check,
}

const SHORT: Option<&str> = Some(SHORT_SPILL_DIR);

macro_rules! scenario {
    ($file:literal, $headline:expr) => {
        Check::Scenario {
            file: $file,
            text: include_str!(concat!("../../../", $file)),
            headline: $headline,
        }
    };
}

/// Every finding the lab reproduces.
pub const FINDINGS: &[Finding] = &[
    Finding {
        id: "F1",
        source: "negentropy note 173 §3",
        shows: "Budget stops spilling once the batch fits under 200000 chars, and micro then replaces the unspilled 120000-char result with a no-pointer placeholder: the coverage gap between the two stages loses it in an intact run.",
        check: scenario!(
            "scenarios/f01-coverage-gap.json",
            &["persisted_files", "result:toolu_1", "dropped_unsaved"]
        ),
    },
    Finding {
        id: "F2",
        source: "negentropy note 173 §3",
        shows: "A single 150000-char result is under the batch budget, so budget leaves it in context untouched.",
        check: scenario!(
            "scenarios/f02-single-large-result-not-spilled.json",
            &["persisted_files", "result:toolu_0"]
        ),
    },
    Finding {
        id: "F3",
        source: "negentropy note 173 §4",
        shows: "The unseen guard keeps micro off results the model has not read: no placeholder before the next assistant message, the oldest three after it.",
        check: scenario!(
            "scenarios/f03-unseen-guard.json",
            &["placeholders (step 4)", "placeholders", "result:toolu_3"]
        ),
    },
    Finding {
        id: "F4",
        source: "negentropy note 173 §4",
        shows: "Placeholders are not idempotent: with a 163-char spill path the 194-char `saved at` placeholder is compacted again, the pointer is lost and the file is orphaned.",
        check: scenario!(
            "scenarios/f04-idempotency-deep-path.json",
            &["result:toolu_0", "pointer_lost", "orphan_files"]
        ),
    },
    Finding {
        id: "F5",
        source: "negentropy note 173 §4",
        shows: "Sweeping the spill file path length, the prototype's guard-off cell loses its pointer from 90 chars on (placeholder 31 + 90 = 121 > 120).",
        check: Check::Sweep {
            file: None,
            switches: &[("unseen_guard", "off")],
            from: 60,
            to: 120,
            cliffs: &["pointer_lost 0 → 1 at spill file path length 90"],
        },
    },
    Finding {
        id: "F5",
        source: "negentropy note 173 §4",
        shows: "The same cliff at 90 in scene A's second micro pass (the F4 scenario).",
        check: Check::Sweep {
            file: Some((
                "scenarios/f04-idempotency-deep-path.json",
                include_str!("../../../scenarios/f04-idempotency-deep-path.json"),
            )),
            switches: &[],
            from: 60,
            to: 120,
            cliffs: &["pointer_lost 0 → 1 at spill file path length 90"],
        },
    },
    Finding {
        id: "F6",
        source: "negentropy note 173 §4",
        shows: "Order and unseen guard are two independent safeguards: with a short spill path only removing both (D6) loses a result.",
        check: Check::Matrix {
            spill_dir: SHORT,
            cells: [["0/0", "0/0"], ["0/0", "1/0"]],
        },
    },
    Finding {
        id: "F6",
        source: "negentropy note 173 §4",
        shows: "With a spill file path of 94 chars the guard-off cell (the one the prototype had no flag for) already loses a pointer, and D6 loses both.",
        check: Check::Matrix {
            spill_dir: None,
            cells: [["0/0", "0/1"], ["0/0", "1/1"]],
        },
    },
    Finding {
        id: "F7",
        source: "negentropy note 173 §5",
        shows: "Without pair protection snip cuts between a tool_use and its result (D3).",
        check: Check::Break {
            name: "D3",
            spill_dir: None,
            changed: &[("pairs_intact", "true", "false")],
            unchanged: &[],
            nothing: false,
        },
    },
    Finding {
        id: "F7",
        source: "negentropy note 173 §4 (prototype)",
        shows: "A loop that trusts stop_reason stops on the distorted turn and never runs its tool (D1).",
        check: Check::Break {
            name: "D1",
            spill_dir: None,
            changed: &[("ran_late_tool", "true", "false")],
            unchanged: &[],
            nothing: false,
        },
    },
    Finding {
        id: "F7",
        source: "negentropy note 173 §4 (prototype)",
        shows: "With human approval asked before the deny list, the unattended yes runs `rm -rf /` (D4).",
        check: Check::Break {
            name: "D4",
            spill_dir: None,
            changed: &[("ran_deny_listed", "false", "true")],
            unchanged: &[],
            nothing: false,
        },
    },
    Finding {
        id: "F7",
        source: "negentropy note 173 §4 (prototype)",
        shows: "A barrier between stages makes every stage wait for its slowest item (D5).",
        check: Check::Break {
            name: "D5",
            spill_dir: None,
            changed: &[("makespan", "4.0", "6.0")],
            unchanged: &[],
            nothing: false,
        },
    },
    Finding {
        id: "D2",
        source: "negentropy note 173 §4",
        shows: "Swapping the order alone changes nothing observable: the unseen guard still protects the new batch.",
        check: Check::Break {
            name: "D2",
            spill_dir: None,
            changed: &[],
            unchanged: &[],
            nothing: true,
        },
    },
    Finding {
        id: "D6",
        source: "negentropy note 173 §4",
        shows: "Removing both safeguards loses b1 forever and, on a 94-char spill path, the pointer to a1.",
        check: Check::Break {
            name: "D6",
            spill_dir: None,
            changed: &[("dropped_unsaved", "0", "1"), ("pointer_lost", "0", "1")],
            unchanged: &[],
            nothing: false,
        },
    },
    Finding {
        id: "D6",
        source: "negentropy note 173 §4",
        shows: "On a short spill path D6 still loses b1 forever but keeps a1's pointer: the row depends on the path.",
        check: Check::Break {
            name: "D6",
            spill_dir: SHORT,
            changed: &[("dropped_unsaved", "0", "1")],
            unchanged: &["pointer_lost"],
            nothing: false,
        },
    },
    Finding {
        id: "F8",
        source: "negentropy note 173 §3",
        shows: "Proactive compaction keeps nothing but one [Compacted] message.",
        check: scenario!(
            "scenarios/f08-proactive-compact-one-message.json",
            &["messages", "model_calls"]
        ),
    },
    Finding {
        id: "F8",
        source: "negentropy note 173 §3",
        shows: "Reactive compaction keeps the last five messages behind its summary.",
        check: scenario!(
            "scenarios/f08-reactive-keeps-five.json",
            &["messages", "result:t3"]
        ),
    },
    Finding {
        id: "F8",
        source: "negentropy note 173 §5",
        shows: "Reactive compaction steps back over a tool_use whose result would open the tail.",
        check: scenario!(
            "scenarios/f08-reactive-pair-step-back.json",
            &["messages", "api_valid"]
        ),
    },
    Finding {
        id: "F9",
        source: "negentropy note 173 §3",
        shows: "The snip archive is written before micro and holds originals; the compact archive written after it holds placeholders.",
        check: scenario!(
            "scenarios/f09-archive-completeness.json",
            &["transcript_originals", "transcript_placeholders"]
        ),
    },
    Finding {
        id: "F10",
        source: "negentropy note 173 §3, §10",
        shows: "In an intact agent loop every result of 121..30000 chars that leaves the last three seen is lost forever: the design assumes replay, not archive.",
        check: scenario!(
            "scenarios/f10-replay-not-archive.json",
            &["dropped_unsaved", "result:t2", "result:t3"]
        ),
    },
    Finding {
        id: "F11",
        source: "negentropy note 173 §4 (site revision)",
        shows: "The course site's older revision has no unseen guard: micro blanks two results of a fresh five-result batch before the model reads them.",
        check: scenario!(
            "scenarios/f11-site-compacts-unseen.json",
            &["unseen_compacted", "dropped_unsaved"]
        ),
    },
    Finding {
        id: "F11",
        source: "negentropy note 173 §3, §8 (later revision)",
        shows: "The later revision saves a result before replacing it, so scene A's second 120000-char result keeps a pointer: 0 lost.",
        check: scenario!(
            "scenarios/f11-latest-closes-the-coverage-gap.json",
            &["dropped_unsaved", "pointer_lost", "result:toolu_1"]
        ),
    },
    Finding {
        id: "F11",
        source: "negentropy note 173 §4 (later revision)",
        shows: "The later revision recognises its own `saved at` placeholder, so the 194-char pointer survives a second pass: 0 pointers lost.",
        check: scenario!(
            "scenarios/f11-latest-idempotent-placeholder.json",
            &["pointer_lost", "orphan_files"]
        ),
    },
    Finding {
        id: "F12",
        source: "negentropy note 173 §3 (course code)",
        shows: "keep_results = 0 replaces nothing, because Python's consumed[:-0] is empty.",
        check: scenario!(
            "scenarios/f12-keep-results-zero.json",
            &["placeholders", "result:toolu_0"]
        ),
    },
    Finding {
        id: "F13",
        source: "negentropy note 173 §3 (course code)",
        shows: "Micro takes a path from any `Full output:` line, so a tool result can forge a pointer to /etc/passwd.",
        check: scenario!(
            "scenarios/f13-forged-pointer.json",
            &["result:toolu_0", "forged_pointers"]
        ),
    },
    Finding {
        id: "F13",
        source: "negentropy note 173 §3 (later revision)",
        shows: "The later revision accepts a pointer only inside the spill store: the forged line is saved and pointed to like any other result.",
        check: scenario!(
            "scenarios/f13-latest-refuses-forged-pointer.json",
            &["result:toolu_0", "forged_pointers"]
        ),
    },
    Finding {
        id: "F14",
        source: "learn-claude-code s08 persist_large_output @ ac822662 (the site)",
        shows: "Course-site names a spill file after the raw tool_use id: an id with `../` makes it write outside its spill directory (/etc/cron.d/job.txt). The lab models the write in memory, writes nothing there and counts it (path_escapes 1).",
        check: scenario!(
            "scenarios/f14-raw-id-path-traversal.json",
            &["path_escapes", "persisted_files", "forged_pointers"]
        ),
    },
    Finding {
        id: "C1",
        source: "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map) src/utils/toolResultStorage.ts",
        shows: "Claude Code persists a result on arrival when it exceeds its tool's threshold (Grep 20000, Bash 30000, others 50000); Read is never persisted.",
        check: scenario!(
            "scenarios/c1-per-tool-thresholds.json",
            &[
                "persisted_files",
                "result:toolu_read",
                "result:toolu_bash_at"
            ]
        ),
    },
    Finding {
        id: "C2",
        source: "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map) src/services/compact/ (timeBasedMCConfig.ts)",
        shows: "Time-based microcompact clears only compactable tools, only after 60 idle minutes, and keeps the last 5.",
        check: scenario!(
            "scenarios/c2-time-based-microcompact.json",
            &[
                "placeholders (step 12)",
                "result:t2",
                "result:t3",
                "result:t4"
            ]
        ),
    },
    Finding {
        id: "C3",
        source: "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map) src/services/compact/ (autoCompact.ts: >= threshold)",
        shows: "Autocompact fires at 167000 tokens (200000 − 20000 − 13000) and not at 166999.",
        check: scenario!(
            "scenarios/c3-autocompact-threshold.json",
            &[
                "context_size (step 16)",
                "model_calls (step 16)",
                "model_calls"
            ]
        ),
    },
    Finding {
        id: "C4",
        source: "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map) src/services/compact/ (post-compact restoration)",
        shows: "After each compaction at most five recent files come back (large ones as references) and CLAUDE.md is still sent.",
        check: scenario!(
            "scenarios/c4-restore-and-claude-md.json",
            &[
                "claude_md_present (step 16)",
                "model_calls",
                "claude_md_present"
            ]
        ),
    },
    Finding {
        id: "C5",
        source: "claude-code-best/claude-code @ f90eee85d (the Claude Code 2.1.88 source map) src/utils/sessionStorage.ts (the session transcript)",
        shows: "Cleared results have no pointer in context (dropped_unsaved 2) but the session transcript holds them (unrecoverable 0).",
        check: scenario!(
            "scenarios/c2-time-based-microcompact.json",
            &["dropped_unsaved", "unrecoverable"]
        ),
    },
    Finding {
        id: "C6",
        source: "Claude Code 2.1.88 ensureToolResultPairing (src/utils/messages.ts)",
        shows: "Pair repair answers an interrupted tool call before the request, keeping it valid where course-main sends an invalid one.",
        check: scenario!("scenarios/c6-pair-repair.json", &["api_valid", "result:t2"]),
    },
    Finding {
        id: "C6",
        source: "Claude Code 2.1.88 ensureToolResultPairing (src/utils/messages.ts)",
        shows: "Course-main has no pair repair: the same interruption leaves the request invalid.",
        check: scenario!(
            "scenarios/c6-course-main-no-repair.json",
            &["api_valid", "pairs_intact"]
        ),
    },
    Finding {
        id: "M1",
        source: "negentropy note 173 §6",
        shows: "MEMORY.md is derived: after seeding and after an extraction the index equals the rebuild from the files.",
        check: scenario!(
            "scenarios/memory/m01-index-derived.json",
            &["index_consistent", "records"]
        ),
    },
    Finding {
        id: "M2",
        source: "negentropy note 173 §6",
        shows: "Each path guard refuses its input with the course's message; with the guard on, recall never reads a planted symlink.",
        check: scenario!(
            "scenarios/memory/m02-path-guards.json",
            &[
                "guard:a/b.md (step 3)",
                "guard:evil.md (step 3)",
                "path_escapes"
            ]
        ),
    },
    Finding {
        id: "M3",
        source: "negentropy note 173 §7",
        shows: "Only an exception falls back to keyword matching (substring words: `the` selects a record); a reply without an array selects nothing.",
        check: scenario!(
            "scenarios/memory/m03-parse-failure-vs-exception.json",
            &["recalled (step 4)", "recalled"]
        ),
    },
    Finding {
        id: "M4",
        source: "negentropy note 173 §7",
        shows: "Tool results never reach the selector's query: a record named only in a tool result is not recalled.",
        check: scenario!(
            "scenarios/memory/m04-tool-results-never-reach-selector.json",
            &["recalled"]
        ),
    },
    Finding {
        id: "M5",
        source: "negentropy note 173 §7",
        shows: "The gates store 2 of 7 candidates: scope, temporary marker, same slug and same-batch duplicate body are refused.",
        check: scenario!(
            "scenarios/memory/m05-storage-gates.json",
            &["records", "temporary_stored", "duplicates_stored"]
        ),
    },
    Finding {
        id: "M6",
        source: "negentropy note 173 §7",
        shows: "Consolidation runs only after a turn that stored a record, with at least 10 records.",
        check: scenario!(
            "scenarios/memory/m06-consolidation-trigger.json",
            &["records", "consolidations", "model_calls"]
        ),
    },
    Finding {
        id: "M7",
        source: "negentropy note 173 §7",
        shows: "A consolidation failing mid-rewrite restores its snapshot: nothing is lost, the pass is skipped.",
        check: scenario!(
            "scenarios/memory/m07-consolidation-rollback.json",
            &["records", "records_lost", "consolidations_skipped"]
        ),
    },
    Finding {
        id: "M8",
        source: "negentropy note 173 §7",
        shows: "Reverse gate: past 20000 catalog chars every pass is skipped before the model call, silently; the store only grows.",
        check: scenario!(
            "scenarios/memory/m08-reverse-gate.json",
            &["records", "consolidations_skipped", "model_calls"]
        ),
    },
    Finding {
        id: "M9",
        source: "negentropy note 173 §7",
        shows: "\"At most 30 records\" is only a prompt line: a consolidation returning 35 writes 35.",
        check: scenario!(
            "scenarios/memory/m09-thirty-not-enforced.json",
            &["records", "consolidations"]
        ),
    },
    Finding {
        id: "M10",
        source: "negentropy note 173 §7",
        shows: "The 20000-char recall cap cuts the last record mid-body.",
        check: scenario!(
            "scenarios/memory/m10-recall-cut.json",
            &["recalled", "recall_cut"]
        ),
    },
    Finding {
        id: "M11",
        source: "negentropy note 173 §7",
        shows: "A generic file write into .memory/ bypasses every gate and appears in the next rebuilt index.",
        check: scenario!(
            "scenarios/memory/m11-generic-write-poisons-index.json",
            &["index_consistent", "records", "temporary_stored"]
        ),
    },
    Finding {
        id: "M1 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site's hand-written frontmatter breaks on a `---` in a description; its index lines use an em dash.",
        check: scenario!(
            "scenarios/memory/site-m01-index-em-dash.json",
            &["records", "index_consistent", "index"]
        ),
    },
    Finding {
        id: "M2 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site has no path guard: a planted symlink is recalled and written through.",
        check: scenario!(
            "scenarios/memory/site-m02-no-path-guard.json",
            &["recalled (step 6)", "path_escapes"]
        ),
    },
    Finding {
        id: "M3 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site falls back on a reply without an array too, and keeps repeated indices.",
        check: scenario!(
            "scenarios/memory/site-m03-fallback-on-missing-array.json",
            &["recalled (step 4)", "recalled"]
        ),
    },
    Finding {
        id: "M5 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site has no storage gates: all 7 candidates are written, one over a seeded record.",
        check: scenario!(
            "scenarios/memory/site-m05-no-gates.json",
            &["records", "temporary_stored", "duplicates_stored"]
        ),
    },
    Finding {
        id: "M6 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site consolidates every turn with 10 files and accepts `[]`: the store is wiped under a stale index.",
        check: scenario!(
            "scenarios/memory/site-m06-every-turn-empty-reply-wipes.json",
            &["records", "records_lost", "index_consistent"]
        ),
    },
    Finding {
        id: "M7 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site has no rollback: the failure memory-main survives leaves 2 of 11 records.",
        check: scenario!(
            "scenarios/memory/site-m07-no-rollback.json",
            &["records", "records_lost"]
        ),
    },
    Finding {
        id: "M8 site",
        source: "learn-claude-code @ 67a9126c, site-track s09",
        shows: "memory-site has no reverse gate: the catalog is cut silently at 16000 chars and the unseen records are deleted.",
        check: scenario!(
            "scenarios/memory/site-m08-silent-catalog-cut.json",
            &["records", "records_lost", "consolidations"]
        ),
    },
    Finding {
        id: "MB1",
        source: "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        shows: "Without the path guard the planted symlink is listed, read twice and recalled; nothing else changes.",
        check: Check::MemoryBreak {
            name: "MB1",
            changed: &[("path_escapes", "0", "2"), ("recalled", "3", "4")],
        },
    },
    Finding {
        id: "MB2",
        source: "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        shows: "An index kept by hand (appended per write) drifts from the files: the derived-index invariant breaks.",
        check: Check::MemoryBreak {
            name: "MB2",
            changed: &[("index_consistent", "true", "false")],
        },
    },
    Finding {
        id: "MB3",
        source: "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        shows: "Without the storage gates the temporary, current-task and duplicate candidates are all stored.",
        check: Check::MemoryBreak {
            name: "MB3",
            changed: &[
                ("records", "3", "6"),
                ("temporary_stored", "0", "1"),
                ("duplicates_stored", "0", "1"),
                ("store_chars", "444", "928"),
            ],
        },
    },
    Finding {
        id: "MB4",
        source: "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        shows: "Without the snapshot restore a failed consolidation leaves 2 of 11 records and a stale index.",
        check: Check::MemoryBreak {
            name: "MB4",
            changed: &[
                ("records", "11", "2"),
                ("index_consistent", "true", "false"),
                ("records_lost", "0", "11"),
                ("store_chars", "2116", "892"),
            ],
        },
    },
    Finding {
        id: "MB5",
        source: "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        shows: "A fallback on parse failures turns an empty selection into a keyword guess of 2 records.",
        check: Check::MemoryBreak {
            name: "MB5",
            changed: &[("recalled", "0", "2")],
        },
    },
    Finding {
        id: "R-A",
        source: "learn-claude-code s08 micro_compact at ac822662",
        shows: "course-site's micro with KEEP_RECENT = 0 replaces nothing, because the real tool_results[:-0] is empty.",
        check: scenario!(
            "scenarios/fidelity/a-site-keep-results-zero.json",
            &["placeholders", "result:toolu_0"]
        ),
    },
    Finding {
        id: "R-B",
        source: "learn-claude-code s08 summarize_history and summary_message at b6b5f33",
        shows: "The summary is stripped with Python's str.strip(), which also removes U+001C..U+001F: U+001C sum U+001F becomes \"sum\".",
        check: scenario!(
            "scenarios/fidelity/b-summary-python-strip.json",
            &["message:0"]
        ),
    },
    Finding {
        id: "R-C",
        source: "learn-claude-code s08 micro_compact at b6b5f33 (`if saved_path`)",
        shows: "course-main takes `Full output: .` as the path `.` (a non-empty string is true): `saved at .`, a forged pointer.",
        check: scenario!(
            "scenarios/fidelity/c-main-pointer-dot.json",
            &["result:toolu_0", "forged_pointers"]
        ),
    },
    Finding {
        id: "R-C",
        source: "learn-claude-code s08 micro_compact at b6b5f33 (`if saved_path`)",
        shows: "The prototype takes `Full output: .` as the path `.` too: `saved at .`, a forged pointer.",
        check: scenario!(
            "scenarios/fidelity/c-prototype-pointer-dot.json",
            &["result:toolu_0", "forged_pointers"]
        ),
    },
    Finding {
        id: "R-D",
        source: "learn-claude-code s08 persisted_preview at 182c6582",
        shows: "course-latest reads a saved file back in text mode: the fit preview of \"a\\r\\nb\" * 1000 has \\n line ends.",
        check: scenario!(
            "scenarios/fidelity/d-latest-crlf-preview.json",
            &["result:t1"]
        ),
    },
    Finding {
        id: "R-E",
        source: "learn-claude-code s08 write_transcript at ac822662",
        shows: "course-site writes transcripts with json.dumps' default ensure_ascii=True: `é😀` takes 18 characters on disk, not 2.",
        check: scenario!(
            "scenarios/fidelity/e-site-transcript-ascii.json",
            &["spill_chars"]
        ),
    },
    Finding {
        id: "R-H",
        source: "learn-claude-code s08 save_output and micro_compact at 182c6582",
        shows: "Ids `a b` and `a_b` share a_b.txt; the second save overwrites the first original, which is then unrecoverable.",
        check: scenario!(
            "scenarios/fidelity/h-latest-collision-unrecoverable.json",
            &["unrecoverable", "persisted_files"]
        ),
    },
    Finding {
        id: "R-I",
        source: "learn-claude-code s09 agent_loop and build_system at ac822662",
        shows: "memory-site builds its system prompt once per user turn: a record seeded mid-turn is not in it.",
        check: scenario!(
            "scenarios/memory/fidelity/i-site-system-once-per-turn.json",
            &["system", "index"]
        ),
    },
    Finding {
        id: "R-J",
        source: "learn-claude-code s09 write_memory_file, read_memory_file and load_memories at 10768e1",
        shows: "memory-main reads records with read_text(): a body's \\r\\n is recalled as \\n.",
        check: scenario!(
            "scenarios/memory/fidelity/j-main-crlf-recall.json",
            &["recall", "file:notes.md"]
        ),
    },
    Finding {
        id: "R-J",
        source: "learn-claude-code s09 write_memory_file, read_memory_file and load_memories at ac822662",
        shows: "memory-site reads records with read_text() too: a body's \\r\\n is recalled as \\n.",
        check: scenario!(
            "scenarios/memory/fidelity/j-site-crlf-recall.json",
            &["recall"]
        ),
    },
    Finding {
        id: "R-J",
        source: "learn-claude-code s09 write_memory_file, rebuild_index, read_memory_index and build_system at ac822662",
        shows: "memory-site reads MEMORY.md with read_text(): the file name `a\\r\\nb.md` shows in the system catalog as `a\\nb.md`.",
        check: scenario!(
            "scenarios/memory/fidelity/j2-site-crlf-index.json",
            &["index", "system"]
        ),
    },
    Finding {
        id: "R-K",
        source: "learn-claude-code s09 write_memory_file and extract_memories at ac822662",
        shows: "A NUL in a memory-site name makes write_text raise `embedded null byte`: no file, and the rest of the batch is dropped.",
        check: scenario!(
            "scenarios/memory/fidelity/k-site-nul-name.json",
            &["records", "index"]
        ),
    },
    Finding {
        id: "O1",
        source: "anthropics/claude-code#68709; shareAI-lab/learn-claude-code#62",
        shows: "The re-read loop: once micro has replaced a read_file result, the model's identical call counts as a re-read (1); repeating it while the newer result is in context does not.",
        check: scenario!(
            "scenarios/o1-reread-after-clear.json",
            &[
                "reread_after_clear (step 7)",
                "result:r1 (step 7)",
                "reread_after_clear"
            ]
        ),
    },
    Finding {
        id: "O2",
        source: "anthropics/claude-code CHANGELOG.md @ 5cfc0a19 (2.1.83, 2.1.181); anthropics/claude-code#31914, #35164",
        shows: "Retention cleanup deletes a spill file and the session transcript: the persisted-output pointer and the summary's transcript path dangle (2) and eight results become unrecoverable.",
        check: scenario!(
            "scenarios/o2-dangling-pointers.json",
            &[
                "dangling_pointers (step 19)",
                "dangling_pointers",
                "unrecoverable"
            ]
        ),
    },
    Finding {
        id: "O3",
        source: "anthropics/claude-code#60600; google-gemini/gemini-cli#8586, #15225; Kilo-Org/kilocode#10888; cline/cline#5616; CHANGELOG.md 2.1.89 (three refills)",
        shows: "A request longer than the context limit makes course-main compact before every turn: the first compaction grows the context and the next ones shrink it by 79 of 1906 chars, under 5% (churn 3).",
        check: scenario!(
            "scenarios/o3-compaction-churn.json",
            &["compaction_churn", "model_calls"]
        ),
    },
    Finding {
        id: "O4",
        source: "anthropics/claude-code#2796; openclaw/openclaw#3243",
        shows: "Reactive without pair protection splits one pair. A later compact makes the end state valid again, but pairs_broken_by_compaction still counts the split (1).",
        check: scenario!(
            "scenarios/o4-pairs-broken-by-compaction.json",
            &[
                "api_valid (step 10)",
                "pairs_broken_by_compaction",
                "api_valid"
            ]
        ),
    },
];
