//! Profiles: one real system (or one revision of it) as a value (SPEC §5).
//!
//! A profile is data: constants, marker strings, the stage order of `prepare`, default switches
//! and provenance naming the modelled system and commit. The stages in [`crate::compaction::stages`] are
//! shared code that reads it. Adding a revision means adding a value here.

use std::fmt;

use serde_json::{Map, Value};

use crate::compaction::switches::{SwitchName, Switches};
use crate::transcript::Message;

macro_rules! constants {
    ($($(#[doc = $doc:expr])+ $name:ident,)+) => {
        /// Numeric constants, in characters unless named otherwise. A profile lists the ones it
        /// uses in [`Profile::constant_names`]; only those can be overridden.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct Constants {
            $($(#[doc = $doc])+ pub $name: usize,)+
        }

        /// Names of all constants, in declaration order.
        pub const ALL_CONSTANT_NAMES: &[&str] = &[$(stringify!($name),)+];

        impl Constants {
            /// Every constant 0: the base of a profile's own values.
            pub const ZERO: Constants = Constants { $($name: 0,)+ };

            fn slot(&mut self, name: &str) -> Option<&mut usize> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)+
                    _ => None,
                }
            }
        }
    };
}

constants! {
    /// Proactive compaction fires when the estimate exceeds this.
    context_limit,
    /// Budget persists results while a batch's total exceeds this.
    batch_budget,
    /// A result longer than this may be persisted.
    large,
    /// Characters of preview kept in a `<persisted-output>` block.
    preview,
    /// Characters of serialised history handed to the summariser.
    summary_input,
    /// Micro keeps this many of the most recent seen results (Python slice `[:-k]`).
    keep_results,
    /// Reactive compaction keeps this many tail messages.
    keep_messages,
    /// Micro leaves results of at most this many characters alone.
    micro_min,
    /// Snip acts when the history has more messages than this.
    snip_max,
    /// Snip keeps this many head messages.
    snip_head,
    /// Claude Code: the model's context window, in tokens.
    context_window,
    /// Claude Code: the model's maximum output tokens.
    max_output,
    /// Claude Code: the output reserved for the summary, at most (MAX_OUTPUT_TOKENS_FOR_SUMMARY).
    summary_reserve,
    /// Claude Code: AUTOCOMPACT_BUFFER_TOKENS below the effective window.
    autocompact_buffer,
    /// Claude Code: DEFAULT_MAX_RESULT_SIZE_CHARS, the cap on every tool's persist threshold.
    max_result,
    /// Claude Code: Bash's maxResultSizeChars.
    bash_limit,
    /// Claude Code: Grep's maxResultSizeChars.
    grep_limit,
    /// Claude Code: the idle gap, in minutes, after which time-based microcompact clears.
    idle_gap_minutes,
    /// Claude Code: compactable results time-based microcompact keeps.
    keep_recent,
    /// Claude Code: files restored after a compaction.
    restore_files,
    /// Claude Code: tokens a restored file may have.
    restore_file_tokens,
    /// Claude Code: tokens all restored files may have together.
    restore_budget,
}

/// The constants of the course profiles.
pub const CONSTANT_NAMES: [&str; 10] = [
    "context_limit",
    "batch_budget",
    "large",
    "preview",
    "summary_input",
    "keep_results",
    "keep_messages",
    "micro_min",
    "snip_max",
    "snip_head",
];

impl Constants {
    /// The value of a constant by name.
    pub fn get(&self, name: &str) -> Option<usize> {
        let mut copy = *self;
        copy.slot(name).map(|slot| *slot)
    }

    /// Sets a constant by name; false if there is no such constant.
    pub fn set(&mut self, name: &str, value: usize) -> bool {
        match self.slot(name) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }

    /// The listed constants as a JSON object, in the given order.
    pub fn to_value(&self, names: &[&str]) -> Value {
        let mut map = Map::new();
        for name in names {
            if let Some(value) = self.get(name) {
                map.insert((*name).to_owned(), Value::from(value));
            }
        }
        Value::Object(map)
    }
}

/// How a profile measures the size of the context (SPEC §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    /// `len(json.dumps(messages, default=str, ensure_ascii=False))`, the course's estimate.
    PythonJson,
    /// `len(str(messages))`, Python's repr (the course site's older revision).
    PythonRepr,
    /// Claude Code's `roughTokenCountEstimationForMessages`: per block
    /// `Math.round(length / 4)` in UTF-16 units (text, tool_result content, tool_use
    /// `name + JSON.stringify(input)`), summed; in tokens, not characters.
    ClaudeTokens,
}

impl Estimator {
    /// Size of one message.
    pub fn message(self, message: &Message) -> usize {
        match self {
            Estimator::PythonJson => message.json_chars(),
            Estimator::PythonRepr => message.repr_chars(),
            Estimator::ClaudeTokens => message.rough_tokens(),
        }
    }

    /// Size of one string value inside a message (quotes and escapes included).
    pub fn string(self, text: &str) -> usize {
        match self {
            Estimator::PythonJson => crate::python::json::json_str_chars(text),
            Estimator::PythonRepr => crate::python::json::repr_str_chars(text),
            Estimator::ClaudeTokens => crate::transcript::rough_tokens(text),
        }
    }

    /// Size of a list of `count` messages whose sizes add up to `sum`.
    pub fn list(self, count: usize, sum: usize) -> usize {
        match self {
            // A Python list prints the same brackets and ", " in both views.
            Estimator::PythonJson | Estimator::PythonRepr => {
                crate::transcript::list_chars(count, sum)
            }
            Estimator::ClaudeTokens => sum,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Estimator::PythonJson => "len(json.dumps(messages, ensure_ascii=False))",
            Estimator::PythonRepr => "len(str(messages))",
            Estimator::ClaudeTokens => "tokens: per block Math.round(UTF-16 length / 4), summed",
        }
    }

    /// The estimate of a whole list, serialising everything (the slow reference for the
    /// incremental estimate).
    pub fn full(self, messages: &[Message]) -> usize {
        self.list(
            messages.len(),
            messages.iter().map(|m| self.message(m)).sum(),
        )
    }

    /// The unit of the estimate.
    pub fn unit(self) -> &'static str {
        match self {
            Estimator::PythonJson | Estimator::PythonRepr => "chars",
            Estimator::ClaudeTokens => "tokens",
        }
    }
}

/// One stage of a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Budget,
    Snip,
    Micro,
    Fit,
    Compact,
    Reactive,
    /// Claude Code's time-based microcompact.
    TimeMc,
    /// Claude Code's autocompact.
    Autocompact,
    /// Claude Code's `ensureToolResultPairing`.
    PairRepair,
}

impl Stage {
    pub const ALL: [Stage; 9] = [
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Fit,
        Stage::Compact,
        Stage::Reactive,
        Stage::TimeMc,
        Stage::Autocompact,
        Stage::PairRepair,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Budget => "budget",
            Stage::Snip => "snip",
            Stage::Micro => "micro",
            Stage::Fit => "fit",
            Stage::Compact => "compact",
            Stage::Reactive => "reactive",
            Stage::TimeMc => "time_mc",
            Stage::Autocompact => "autocompact",
            Stage::PairRepair => "pair_repair",
        }
    }

    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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

/// How budget persists a large result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persist {
    /// f9e8b28 `persist_large_output`: write the file only if absent, preview the output.
    WriteIfAbsent,
    /// Later `persisted_preview`: a result that already is a recognised pointer keeps its file
    /// and previews it; anything else is written (overwriting) by `save_output`.
    SaveOutput,
}

/// Which results micro replaces, and with what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicroRule {
    /// Course main and later: seen results but the last `keep_results`, longer than `micro_min`,
    /// become a `saved at` pointer or (no pointer, no save) the omitted placeholder.
    Course,
    /// The site revision: with more than `keep_results` results, every one but the last
    /// `keep_results` longer than `micro_min` becomes the compacted placeholder, seen or not,
    /// pointer or not.
    Site,
}

/// Which messages snip keeps at the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnipTail {
    /// `tail_start = len - (snip_max - snip_head)` (course main at f9e8b28, the prototype).
    MaxMinusHead,
    /// `tail_start = len - (snip_max - snip_head - 1)` (course latest).
    MaxMinusHeadMinusOne,
}

/// How a persisted result's file name is derived from its tool_use_id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SafeId {
    /// Every char outside `[A-Za-z0-9._-]` becomes `_`, cut to this many chars, `unknown` if empty.
    Sanitised(usize),
    /// The raw id (the site revision): `a/b` nests a directory.
    Raw,
}

/// How transcript files are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptName {
    /// `transcript_{n:032x}.jsonl`: the length of the course's `uuid4().hex`, counted from 0.
    Counter,
    /// `transcript_{int(time.time())}.jsonl` (the site revision), on a virtual clock that starts
    /// at this epoch second and ticks one second per scenario step.
    EpochSeconds(u64),
}

/// What happens when the model calls the `compact` tool in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTool {
    /// The profile has no compact tool.
    Absent,
    /// Course main and later: every tool of the batch runs, the compact call answers
    /// `Compaction requested after this tool batch.`, then the history is compacted.
    AfterBatch,
    /// The site revision: compact at once inside the loop, append the results so far and
    /// `[Compacted. Conversation history has been summarized.]`, drop the rest of the batch.
    Immediate,
}

/// What happens to a tool result as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Nothing: it enters the history as the tool returned it.
    Verbatim,
    /// Claude Code's `maybePersistLargeToolResult`: an empty result becomes
    /// `(<tool> completed with no output)`; a result longer than its tool's threshold is written
    /// once to `tool-results/<id>.txt` and replaced by a 2KB preview.
    PersistPerTool,
}

/// How snip bounds the head guard's loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnipHeadBound {
    /// `while head_end < tail_start` (course main and later).
    TailStart,
    /// `while head_end < len(messages)` (the site revision).
    Len,
}

/// What reactive compaction keeps when the history has at most `keep_messages` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReactiveSmall {
    /// Course main: summarise everything, keep nothing.
    KeepNothing,
    /// The site revision: summarise an empty head, keep everything.
    KeepAll,
}

/// Marker strings and templates. `{name}` fields are filled by [`fill`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strings {
    /// What budget writes in place of a persisted result: `{path}`, `{preview}`.
    pub persisted: &'static str,
    /// The pointer placeholder micro writes: `{path}`.
    pub saved_at: &'static str,
    /// The placeholder micro writes when it finds no pointer.
    pub omitted: &'static str,
    /// The line prefix micro takes a path from.
    pub pointer_line: &'static str,
    /// Snip's marker message: `{n}`, `{path}`.
    pub snip_marker: &'static str,
    /// The summary message of compact and reactive: `{label}`, `{request}`, `{summary}` (raw),
    /// `{summary_json}` (a JSON string), `{path}`.
    pub summary_message: &'static str,
    /// The compact tool's tool_result text.
    pub compact_tool_result: &'static str,
    /// Label of proactive compaction.
    pub compact_label: &'static str,
    /// Label of reactive compaction.
    pub reactive_label: &'static str,
}

/// Where a profile comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provenance {
    /// The real system and revision.
    pub system: &'static str,
    /// Where its behaviour was read (seed sections, research notes, source files).
    pub sources: &'static [&'static str],
    /// Layers of the real system that this profile does not model, and why.
    pub absent: &'static [&'static str],
}

/// One modelled system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub provenance: Provenance,
    pub estimator: Estimator,
    pub constants: Constants,
    pub constant_names: &'static [&'static str],
    pub switches: Switches,
    pub switch_names: &'static [SwitchName],
    pub strings: Strings,
    /// `prepare` in the intact order.
    pub pipeline: &'static [Pipe],
    /// `prepare` with `order = swapped`, if the profile has that switch.
    pub swapped_pipeline: Option<&'static [Pipe]>,
    /// Stages a `stage` step may name.
    pub stages: &'static [Stage],
    pub safe_id: SafeId,
    pub persist: Persist,
    pub micro: MicroRule,
    /// Micro's and fit's target in `prepare`, per mille of `context_limit` (course latest: 800).
    pub target_per_mille: u32,
    pub snip_tail: SnipTail,
    pub snip_head_bound: SnipHeadBound,
    /// Snip writes the whole history to the transcript archive before cutting.
    pub snip_archives: bool,
    pub transcript_name: TranscriptName,
    pub compact_tool: CompactTool,
    pub reactive_small: ReactiveSmall,
    /// What happens to a tool result as it arrives, before it enters the history.
    pub arrival: Arrival,
    /// Every message is appended to one session transcript as it enters the history.
    pub session_transcript: bool,
    /// The scenario's `claude_md` is re-injected before every request, outside the history.
    pub claude_md: bool,
    /// Spill and transcript directories when the scenario names none (else the lab's defaults).
    pub default_dirs: Option<(&'static str, &'static str)>,
    /// File name of the session transcript in the transcript directory.
    pub session_file: &'static str,
    /// Placeholders that carry no pointer (for `lost_forever` and `pointer_lost`).
    pub no_pointer_placeholders: &'static [&'static str],
}

impl Profile {
    pub fn has_switch(&self, name: SwitchName) -> bool {
        self.switch_names.contains(&name)
    }

    /// Claude Code's autocompact threshold: window − min(max_output, summary reserve) − buffer.
    pub fn autocompact_threshold(&self) -> usize {
        let c = self.constants;
        let effective = c
            .context_window
            .saturating_sub(c.max_output.min(c.summary_reserve));
        effective.saturating_sub(c.autocompact_buffer)
    }

    /// `int(context_limit * 0.8)` as Python computes it (for 800 per mille).
    pub fn target(&self) -> usize {
        let factor = f64::from(self.target_per_mille) / 1000.0;
        (self.constants.context_limit as f64 * factor) as usize
    }

    /// True if the profile has the switch and it is on.
    pub fn on(&self, name: SwitchName) -> bool {
        self.has_switch(name) && self.switches.is_on(name)
    }

    pub fn has_constant(&self, name: &str) -> bool {
        self.constant_names.contains(&name)
    }

    /// The profile's switch names, comma-separated (for messages).
    pub fn switch_list(&self) -> String {
        self.switch_names
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The safe file name (without `.txt`) for a tool_use_id.
    pub fn safe_id(&self, id: &str) -> String {
        match self.safe_id {
            SafeId::Sanitised(max) => {
                let safe: String = id
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                            c
                        } else {
                            '_'
                        }
                    })
                    .take(max)
                    .collect();
                if safe.is_empty() {
                    "unknown".to_owned()
                } else {
                    safe
                }
            }
            SafeId::Raw => id.to_owned(),
        }
    }
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

/// Fills `{name}` fields of a template in one pass, so that field values containing braces are
/// never expanded again.
pub fn fill(template: &str, fields: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let field = after.find('}').and_then(|close| {
            let name = &after[..close];
            fields
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (close, *value))
        });
        match field {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

const COURSE_STRINGS: Strings = Strings {
    persisted: "<persisted-output>\nFull output: {path}\nPreview:\n{preview}\n</persisted-output>",
    saved_at: "[Earlier tool result saved at {path}]",
    omitted: "[Earlier tool result omitted.]",
    pointer_line: "Full output: ",
    snip_marker: "[{n} messages archived at {path}]",
    summary_message: "[{label}]\n\nCurrent user request:\n{request}\n\nConversation summary (reference only):\n{summary_json}\n\nFull transcript: {path}",
    compact_tool_result: "Compaction requested after this tool batch.",
    compact_label: "Compacted",
    reactive_label: "Reactive compact",
};

/// Default switches of the f9e8b28 pipeline and its prototype: the guard and pair protection
/// on, the intact order, none of the later revisions' mechanisms, the prototype's defects off.
const F9E8B28_SWITCHES: Switches = Switches {
    order: crate::compaction::switches::Order::Intact,
    unseen_guard: true,
    pair_protection: true,
    pointer_aware: false,
    save_before_replace: false,
    validate_pointer: false,
    snip_marker_guard: false,
    time_based_mc: false,
    pair_repair: false,
    trust_stop_reason: false,
    gate_order_correct: true,
    pipeline_has_barrier: false,
};

const COURSE_MAIN_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Micro),
    Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
];

const COURSE_MAIN_SWAPPED: &[Pipe] = &[
    Pipe::Run(Stage::Micro),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Budget),
    Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
];

/// learn-claude-code s08 `ContextCompactor` at f9e8b28 (SPEC §5.1).
pub const COURSE_MAIN: Profile = Profile {
    name: "course-main",
    estimator: Estimator::PythonJson,
    provenance: Provenance {
        system: "learn-claude-code s08_context_compact/code.py, ContextCompactor at f9e8b28 (2026-08-18)",
        sources: &[
            "seeds/000_52a05e0d3b77db11.txt §3-§5",
            "research/lcc_revisions.md §1 (revision chain, b6b5f33 = the f9e8b28 form)",
        ],
        absent: &["MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step"],
    },
    constants: Constants {
        context_limit: 50_000,
        batch_budget: 200_000,
        large: 30_000,
        preview: 2_000,
        summary_input: 80_000,
        keep_results: 3,
        keep_messages: 5,
        micro_min: 120,
        snip_max: 50,
        snip_head: 3,
        ..Constants::ZERO
    },
    constant_names: &CONSTANT_NAMES,
    switches: F9E8B28_SWITCHES,
    switch_names: &[
        SwitchName::Order,
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
    ],
    strings: COURSE_STRINGS,
    pipeline: COURSE_MAIN_PIPELINE,
    swapped_pipeline: Some(COURSE_MAIN_SWAPPED),
    stages: &[
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Compact,
        Stage::Reactive,
    ],
    safe_id: SafeId::Sanitised(120),
    persist: Persist::WriteIfAbsent,
    micro: MicroRule::Course,
    target_per_mille: 1000,
    snip_tail: SnipTail::MaxMinusHead,
    snip_head_bound: SnipHeadBound::TailStart,
    snip_archives: true,
    transcript_name: TranscriptName::Counter,
    compact_tool: CompactTool::AfterBatch,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::Verbatim,
    session_transcript: false,
    claude_md: false,
    default_dirs: None,
    session_file: "",
    no_pointer_placeholders: &["[Earlier tool result omitted.]"],
};

const PROTOTYPE_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Micro),
];

const PROTOTYPE_SWAPPED: &[Pipe] = &[
    Pipe::Run(Stage::Micro),
    Pipe::Run(Stage::Snip),
    Pipe::Run(Stage::Budget),
];

/// The companion prototype `cc_harness_lab.py` (SPEC §5.4): course f9e8b28's budget, snip and
/// micro with constants scaled down, no summary stage, plus three tiny non-memory layers.
pub const PROTOTYPE: Profile = Profile {
    name: "prototype",
    estimator: Estimator::PythonJson,
    provenance: Provenance {
        system: "cc_harness_lab.py, the companion prototype of seed 000 (ThreeFish-AI/negentropy docs/research/agent-harness/assets, pinned to learn-claude-code f9e8b280)",
        sources: &[
            "seeds/000_52a05e0d3b77db11.txt §4-§5 (2×2 experiment, D2/D3/D6 output)",
            "research/lcc_revisions.md §3 (cc_harness_lab.py: switches, constants, results)",
        ],
        absent: &[
            "compact and reactive: the prototype has no summary stage",
            "the transcript archive: its snip marker names no file",
        ],
    },
    constants: Constants {
        context_limit: 0,
        batch_budget: 400,
        large: 300,
        preview: 40,
        summary_input: 0,
        keep_results: 2,
        keep_messages: 0,
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
    switches: F9E8B28_SWITCHES,
    switch_names: &[
        SwitchName::Order,
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
        SwitchName::TrustStopReason,
        SwitchName::GateOrderCorrect,
        SwitchName::PipelineHasBarrier,
    ],
    strings: Strings {
        snip_marker: "[{n} messages archived]",
        ..COURSE_STRINGS
    },
    pipeline: PROTOTYPE_PIPELINE,
    swapped_pipeline: Some(PROTOTYPE_SWAPPED),
    stages: &[Stage::Budget, Stage::Snip, Stage::Micro],
    safe_id: SafeId::Sanitised(60),
    persist: Persist::WriteIfAbsent,
    micro: MicroRule::Course,
    target_per_mille: 1000,
    snip_tail: SnipTail::MaxMinusHead,
    snip_head_bound: SnipHeadBound::TailStart,
    snip_archives: false,
    transcript_name: TranscriptName::Counter,
    compact_tool: CompactTool::Absent,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::Verbatim,
    session_transcript: false,
    claude_md: false,
    default_dirs: None,
    session_file: "",
    no_pointer_placeholders: &["[Earlier tool result omitted.]"],
};

const COURSE_LATEST_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::Budget),
    Pipe::Run(Stage::Snip),
    Pipe::IfOverLimit(&[
        Pipe::RunToTarget(Stage::Micro),
        Pipe::IfOverLimit(&[Pipe::RunToTarget(Stage::Fit)]),
        Pipe::IfOverLimit(&[Pipe::Run(Stage::Compact)]),
    ]),
];

/// learn-claude-code s08 after f9e8b28 (the ce8f9f18 era, SPEC §5.2): micro only over the
/// limit and down to 80%, save before replace, pointer-aware and validated pointers, the fit
/// stage, a tail one shorter and no second archive of an archive marker.
pub const COURSE_LATEST: Profile = Profile {
    name: "course-latest",
    estimator: Estimator::PythonJson,
    provenance: Provenance {
        system: "learn-claude-code s08_context_compact/code.py after f9e8b28 (ce8f9f18 era; code read at 182c6582)",
        sources: &[
            "research/lcc_revisions.md §1 (revision chain) and §3 (lcc_memory_lab: the ce8f9f18 pipeline)",
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ 182c6582 (ContextCompactor)",
        ],
        absent: &["MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step"],
    },
    constants: COURSE_MAIN.constants,
    constant_names: &CONSTANT_NAMES,
    switches: Switches {
        pointer_aware: true,
        save_before_replace: true,
        validate_pointer: true,
        snip_marker_guard: true,
        ..F9E8B28_SWITCHES
    },
    switch_names: &[
        SwitchName::UnseenGuard,
        SwitchName::PairProtection,
        SwitchName::PointerAware,
        SwitchName::SaveBeforeReplace,
        SwitchName::ValidatePointer,
        SwitchName::SnipMarkerGuard,
    ],
    strings: COURSE_STRINGS,
    pipeline: COURSE_LATEST_PIPELINE,
    swapped_pipeline: None,
    stages: &[
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Fit,
        Stage::Compact,
        Stage::Reactive,
    ],
    safe_id: SafeId::Sanitised(120),
    persist: Persist::SaveOutput,
    micro: MicroRule::Course,
    target_per_mille: 800,
    snip_tail: SnipTail::MaxMinusHeadMinusOne,
    snip_head_bound: SnipHeadBound::TailStart,
    snip_archives: true,
    transcript_name: TranscriptName::Counter,
    compact_tool: CompactTool::AfterBatch,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::Verbatim,
    session_transcript: false,
    claude_md: false,
    default_dirs: None,
    session_file: "",
    no_pointer_placeholders: &["[Earlier tool result omitted.]"],
};

/// The course web site's older s08 (SPEC §5.3): a repr-based estimate, raw-id spill paths, a
/// snip marker without archive, micro without unseen guard or save, a summary message without
/// request separation, and a compact tool that compacts in the middle of its batch.
pub const COURSE_SITE: Profile = Profile {
    name: "course-site",
    estimator: Estimator::PythonRepr,
    provenance: Provenance {
        system: "learn-claude-code s08_context_compact/code.py, site revision (learn.shareai.run/zh/s08 = 67a9126c; compaction code as at ac822662/13dc539)",
        sources: &[
            "research/lcc_revisions.md §1 (old site-track s08)",
            "shareAI-lab/learn-claude-code s08_context_compact/code.py @ fa228eed; Bill-Billion/learn-claude-code @ d6ccd657 and b1cac56f (same compaction code)",
        ],
        absent: &[
            "MAX_REACTIVE_RETRIES and the README's 3-failure breaker (the code has none)",
            "SDK block reprs: assistant blocks are sized as the dicts of SPEC §1",
        ],
    },
    constants: COURSE_MAIN.constants,
    constant_names: &CONSTANT_NAMES,
    switches: Switches {
        unseen_guard: false,
        ..F9E8B28_SWITCHES
    },
    switch_names: &[SwitchName::PairProtection],
    strings: Strings {
        omitted: "[Earlier tool result compacted. Re-run if needed.]",
        snip_marker: "[snipped {n} messages]",
        summary_message: "[{label}]\n\n{summary}",
        compact_tool_result: "[Compacted. Conversation history has been summarized.]",
        ..COURSE_STRINGS
    },
    pipeline: COURSE_MAIN_PIPELINE,
    swapped_pipeline: None,
    stages: &[
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Compact,
        Stage::Reactive,
    ],
    safe_id: SafeId::Raw,
    persist: Persist::WriteIfAbsent,
    micro: MicroRule::Site,
    target_per_mille: 1000,
    snip_tail: SnipTail::MaxMinusHead,
    snip_head_bound: SnipHeadBound::Len,
    snip_archives: false,
    // 2026-07-29T00:00:00Z, the day of 67a9126c.
    transcript_name: TranscriptName::EpochSeconds(1_785_283_200),
    compact_tool: CompactTool::Immediate,
    reactive_small: ReactiveSmall::KeepAll,
    arrival: Arrival::Verbatim,
    session_transcript: false,
    claude_md: false,
    default_dirs: None,
    session_file: "",
    no_pointer_placeholders: &["[Earlier tool result compacted. Re-run if needed.]"],
};

const CLAUDE_CODE_PIPELINE: &[Pipe] = &[
    Pipe::Run(Stage::TimeMc),
    Pipe::Run(Stage::Autocompact),
    Pipe::Run(Stage::PairRepair),
];

/// Claude Code v2.1.88 as the public source shows it (SPEC §5.5, seed 003): per-tool persistence
/// as results arrive, time-based microcompact after an idle hour, autocompact at window −
/// min(max_output, 20000) − 13000 tokens with a 9-section summary, restored files and CLAUDE.md,
/// every message in the session transcript, and pair repair before each request.
pub const CLAUDE_CODE: Profile = Profile {
    name: "claude-code",
    estimator: Estimator::ClaudeTokens,
    provenance: Provenance {
        system: "Claude Code v2.1.88 (the public source map of 2026-03-31), external build, default 200K-token model",
        sources: &[
            "seeds/003_8a618625ef9fbc37.txt (five drawers: persist, snip, microcompact, collapse, autocompact)",
            "research/production_pipelines.md §1 (query.ts order, toolResultStorage.ts, microCompact.ts, autoCompact.ts, compact.ts)",
            "src/utils/toolResultStorage.ts, src/services/compact/*.ts, src/utils/messages.ts as mirrored in Iam-Shoaib/claude-code @ 71b18827",
        ],
        absent: &[
            "snip (HISTORY_SNIP): ant-only, internals not public",
            "context collapse (CONTEXT_COLLAPSE): ant-only, internals not public",
            "cached microcompact (CACHED_MICROCOMPACT): ant-only, thresholds not public",
            "reactive compact on a 413: ant-only",
            "the per-message 200000-char budget: behind tengu_hawthorn_steeple, off by default",
            "session-memory compaction: experimental flags, off by default",
            "API usage: with no real API call, the token count is the rough estimate of all messages",
            "the file-attachment JSON shape and the cyber-risk reminder text: restored files are sized by their rendered text",
            "the per-file header of CLAUDE.md contents: the scenario's text follows MEMORY_INSTRUCTION_PROMPT directly",
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
    ],
    switches: Switches {
        unseen_guard: false,
        pair_protection: false,
        time_based_mc: true,
        pair_repair: true,
        ..F9E8B28_SWITCHES
    },
    switch_names: &[SwitchName::TimeBasedMc, SwitchName::PairRepair],
    strings: Strings {
        persisted: "<persisted-output>\nOutput too large ({size}). Full output saved to: {path}\n\nPreview (first {preview_size}):\n{preview}{more}</persisted-output>",
        saved_at: "[Earlier tool result saved at {path}]",
        omitted: "[Old tool result content cleared]",
        pointer_line: "Full output saved to: ",
        snip_marker: "",
        summary_message: "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n{summary}\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: {path}\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened.",
        compact_tool_result: "",
        compact_label: "",
        reactive_label: "",
    },
    pipeline: CLAUDE_CODE_PIPELINE,
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
    compact_tool: CompactTool::Absent,
    reactive_small: ReactiveSmall::KeepNothing,
    arrival: Arrival::PersistPerTool,
    session_transcript: true,
    claude_md: true,
    // <projectDir>/<sessionId>/tool-results and <projectDir>/<sessionId>.jsonl.
    default_dirs: Some((
        "/home/lab/.claude/projects/-home-lab-repo/5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de/tool-results",
        "/home/lab/.claude/projects/-home-lab-repo",
    )),
    session_file: "5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de.jsonl",
    no_pointer_placeholders: &["[Old tool result content cleared]"],
};

/// Every profile the lab knows, in the order `lab profiles` lists them.
pub const PROFILES: &[Profile] = &[
    COURSE_SITE,
    COURSE_MAIN,
    COURSE_LATEST,
    PROTOTYPE,
    CLAUDE_CODE,
];

/// The default profile.
pub const DEFAULT_PROFILE: &str = "course-main";

/// Looks a profile up by name.
pub fn by_name(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Names of all profiles, for error messages.
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_id_follows_the_course_rule() {
        let p = &COURSE_MAIN;
        assert_eq!(p.safe_id("toolu_0"), "toolu_0");
        assert_eq!(p.safe_id("a/b c:ü"), "a_b_c__");
        assert_eq!(p.safe_id(""), "unknown");
        assert_eq!(p.safe_id(&"x".repeat(130)).len(), 120);
    }

    #[test]
    fn fill_is_single_pass() {
        assert_eq!(
            fill("[{n} at {path}]", &[("n", "3"), ("path", "{n}")]),
            "[3 at {n}]"
        );
        assert_eq!(fill("{unknown} {", &[("n", "1")]), "{unknown} {");
    }

    #[test]
    fn constants_by_name() {
        let mut c = COURSE_MAIN.constants;
        for name in CONSTANT_NAMES {
            assert!(c.get(name).is_some(), "{name}");
        }
        assert!(c.set("keep_results", 0));
        assert_eq!(c.get("keep_results"), Some(0));
        assert!(!c.set("nope", 1));
    }
}
