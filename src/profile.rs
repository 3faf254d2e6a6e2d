//! Profiles: one real system (or one revision of it) as a value (SPEC §5).
//!
//! A profile is data: constants, marker strings, the stage order of `prepare`, default switches
//! and provenance naming the modelled system and commit. The stages in [`crate::stages`] are
//! shared code that reads it. Adding a revision means adding a value here.

use std::fmt;

use serde_json::{Map, Value};

use crate::switches::{SwitchName, Switches};
use crate::transcript::Message;

/// Numeric constants, in characters unless named otherwise. A profile lists the ones it uses in
/// [`Profile::constant_names`]; only those can be overridden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// Proactive compaction fires when the estimate exceeds this.
    pub context_limit: usize,
    /// Budget persists results while a batch's total exceeds this.
    pub batch_budget: usize,
    /// A result longer than this may be persisted.
    pub large: usize,
    /// Characters of preview kept in a `<persisted-output>` block.
    pub preview: usize,
    /// Characters of serialised history handed to the summariser.
    pub summary_input: usize,
    /// Micro keeps this many of the most recent seen results (Python slice `[:-k]`).
    pub keep_results: usize,
    /// Reactive compaction keeps this many tail messages.
    pub keep_messages: usize,
    /// Micro leaves results of at most this many characters alone.
    pub micro_min: usize,
    /// Snip acts when the history has more messages than this.
    pub snip_max: usize,
    /// Snip keeps this many head messages.
    pub snip_head: usize,
}

/// Names of all constants, in declaration order.
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
    fn slot(&mut self, name: &str) -> Option<&mut usize> {
        Some(match name {
            "context_limit" => &mut self.context_limit,
            "batch_budget" => &mut self.batch_budget,
            "large" => &mut self.large,
            "preview" => &mut self.preview,
            "summary_input" => &mut self.summary_input,
            "keep_results" => &mut self.keep_results,
            "keep_messages" => &mut self.keep_messages,
            "micro_min" => &mut self.micro_min,
            "snip_max" => &mut self.snip_max,
            "snip_head" => &mut self.snip_head,
            _ => return None,
        })
    }

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
}

impl Estimator {
    /// Size of one message.
    pub fn message(self, message: &Message) -> usize {
        match self {
            Estimator::PythonJson => message.json_chars(),
            Estimator::PythonRepr => message.repr_chars(),
        }
    }

    /// Size of one string value inside a message (quotes and escapes included).
    pub fn string(self, text: &str) -> usize {
        match self {
            Estimator::PythonJson => crate::pyjson::json_str_chars(text),
            Estimator::PythonRepr => crate::pyjson::repr_str_chars(text),
        }
    }

    /// Size of a list of `count` messages whose sizes add up to `sum`.
    pub fn list(self, count: usize, sum: usize) -> usize {
        match self {
            // A Python list prints the same brackets and ", " in both views.
            Estimator::PythonJson | Estimator::PythonRepr => {
                crate::transcript::list_chars(count, sum)
            }
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Estimator::PythonJson => "len(json.dumps(messages, ensure_ascii=False))",
            Estimator::PythonRepr => "len(str(messages))",
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
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Budget,
        Stage::Snip,
        Stage::Micro,
        Stage::Fit,
        Stage::Compact,
        Stage::Reactive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Budget => "budget",
            Stage::Snip => "snip",
            Stage::Micro => "micro",
            Stage::Fit => "fit",
            Stage::Compact => "compact",
            Stage::Reactive => "reactive",
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
    /// Placeholders that carry no pointer (for `lost_forever` and `pointer_lost`).
    pub no_pointer_placeholders: &'static [&'static str],
}

impl Profile {
    pub fn has_switch(&self, name: SwitchName) -> bool {
        self.switch_names.contains(&name)
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
    order: crate::switches::Order::Intact,
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
        absent: &[
            "the compact tool entry (a model-requested compact after the tool batch): run a `compact` stage step instead",
            "MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step",
        ],
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
        absent: &[
            "the compact tool entry: run a `compact` stage step instead",
            "MAX_REACTIVE_RETRIES: reactive runs when a scenario names it, once per step",
        ],
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
    stages: &Stage::ALL,
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
    no_pointer_placeholders: &["[Earlier tool result compacted. Re-run if needed.]"],
};

/// Every profile the lab knows, in the order `lab profiles` lists them.
pub const PROFILES: &[Profile] = &[COURSE_SITE, COURSE_MAIN, COURSE_LATEST, PROTOTYPE];

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
