//! Profiles: one real system (or one revision of it) as a value (docs/profiles.md).
//!
//! A profile is data: constants, marker strings, the stage order of `prepare`, default switches
//! and provenance naming the modelled system and commit. The stages in
//! [`crate::compaction::stages`] are shared code that reads it. The types live in this folder
//! (constants, estimator, pipeline, policy, strings); the values in `values/`, one file per
//! profile, each a revision written as its differences from the one it descends from. Adding a
//! revision means adding a value there.

mod constants;
mod estimator;
mod pipeline;
mod policy;
mod strings;
mod values;

pub use constants::{ALL_CONSTANT_NAMES, Constants};
pub use estimator::{CLINE_ATTACHMENT, COMMON_RULE, Estimator, cline_tokens, common_tokens};
pub(crate) use estimator::{
    cline_block_units, cline_blocks_frame, cline_plain_block, cline_plain_prompt, cline_round,
    cline_trimmed, cline_units,
};
pub use pipeline::{Pipe, Stage, describe_pipeline};
pub use policy::{
    Arrival, CompactForm, CompactTool, MicroRule, Persist, ReactiveSmall, ReadOverCap, SafeId,
    SnipHeadBound, SnipTail, TranscriptName,
};
pub use strings::{Strings, fill, fill_into};
pub use values::{
    ANTHROPIC_API, CLAUDE_CODE, CLAUDE_CODE_2_1_332, CLINE, CODEX, CODEX_REMOTE, COURSE_LATEST,
    COURSE_MAIN, COURSE_SITE, GEMINI_CLI, KILO, OPENCODE, OPENCODE_V2, OPENHANDS, PROTOTYPE,
};

use std::borrow::Cow;

use crate::compaction::switches::{SwitchName, Switches};

/// Where a profile comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provenance {
    /// The real system and revision.
    pub system: &'static str,
    /// Where its behaviour was read (seed sections, research notes, source files).
    pub sources: &'static [&'static str],
    /// Layers of the real system that this profile does not model, and why.
    pub absent: &'static [&'static str],
    /// For a later version of a system another profile models: that profile's name and what
    /// the version changed, measured against the real product (`lab profiles` prints them).
    pub changes: Option<(&'static str, &'static [&'static str])>,
}

/// One modelled system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub provenance: Provenance,
    pub estimator: Estimator,
    pub constants: Constants,
    /// The constants the profile has: the only ones its stages read and a run may override.
    pub constant_names: &'static [&'static str],
    pub switches: Switches,
    /// The switches the profile has: the only ones a run may set.
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
    /// Transcript lines are `json.dumps(msg, default=str)` with its default `ensure_ascii=True`
    /// (course site, `write_transcript` at ac822662), not raw UTF-8.
    pub transcript_ascii: bool,
    pub compact_tool: CompactTool,
    pub reactive_small: ReactiveSmall,
    /// What happens to a tool result as it arrives, before it enters the history.
    pub arrival: Arrival,
    /// Claude Code's Read over its token cap (read by the Read tool only).
    pub read_over_cap: ReadOverCap,
    /// What Claude Code's autocompact keeps (read by the autocompact stage only).
    pub compact_form: CompactForm,
    /// The scenario's `claude_md` is re-injected before every request, outside the history.
    pub claude_md: bool,
    /// Spill and transcript directories when the scenario names none (else the lab's defaults).
    pub default_dirs: Option<(&'static str, &'static str)>,
    /// The session transcript's file name in the transcript directory, if the profile keeps
    /// one: then every message is appended to it as it enters the history.
    pub session_file: Option<&'static str>,
}

impl Profile {
    /// True if the profile has the switch (whatever its value).
    pub fn has_switch(&self, name: SwitchName) -> bool {
        self.switch_names.contains(&name)
    }

    /// True if `stage` can run: in either order of `prepare`, or as a `stage` step.
    pub fn runs(&self, stage: Stage) -> bool {
        fn within(pipes: &[Pipe], stage: Stage) -> bool {
            pipes.iter().any(|pipe| match pipe {
                Pipe::Run(s) | Pipe::RunToTarget(s) => *s == stage,
                Pipe::IfOverLimit(group) => within(group, stage),
            })
        }
        self.stages.contains(&stage)
            || within(self.pipeline, stage)
            || self
                .swapped_pipeline
                .is_some_and(|pipes| within(pipes, stage))
    }

    /// Claude Code's autocompact threshold: window − min(max_output, summary reserve) − buffer.
    pub fn autocompact_threshold(&self) -> usize {
        let c = self.constants;
        let effective = c.context_window.saturating_sub(self.summary_max_tokens());
        effective.saturating_sub(c.autocompact_buffer)
    }

    /// Claude Code v2.1.332's blocking limit: window − min(max_output, summary reserve) −
    /// blocking buffer (977000 for the default model's 1M window).
    pub fn blocking_limit(&self) -> usize {
        let c = self.constants;
        let effective = c.context_window.saturating_sub(self.summary_max_tokens());
        effective.saturating_sub(c.blocking_buffer)
    }

    /// The most tokens Claude Code's summariser call may write: its `max_tokens`,
    /// min(max_output, COMPACT_MAX_OUTPUT_TOKENS), the latter being the summary reserve (20000
    /// in v2.1.88 `utils/context.ts`; `compact.ts` passes the min as `maxOutputTokensOverride`).
    pub fn summary_max_tokens(&self) -> usize {
        self.constants
            .max_output
            .min(self.constants.summary_reserve)
    }

    /// `int(context_limit * 0.8)` as Python computes it (for 800 per mille).
    pub fn target(&self) -> usize {
        let factor = f64::from(self.target_per_mille) / 1000.0;
        (self.constants.context_limit as f64 * factor) as usize
    }

    /// True if the profile has the switch and it is on (for `order`: swapped). The one way
    /// stages read a switch.
    pub fn on(&self, name: SwitchName) -> bool {
        self.has_switch(name) && self.switches.is_on(name)
    }

    /// True if the profile has the constant.
    pub fn has_constant(&self, name: &str) -> bool {
        self.constant_names.contains(&name)
    }

    /// True if `text` is a placeholder that carries no pointer (for `dropped_unsaved` and
    /// `pointer_lost`): the profile's `omitted` placeholder (none if it is empty: Codex).
    pub fn is_no_pointer_placeholder(&self, text: &str) -> bool {
        !self.strings.omitted.is_empty() && text == self.strings.omitted
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
        self.safe_stem(id).into_owned()
    }

    /// [`Self::safe_id`], borrowing `id` where it is kept whole (most ids: issue 13, a spill
    /// path built for each result saved, 4 000 in a course-latest replay, copied the id first).
    pub(crate) fn safe_stem<'a>(&self, id: &'a str) -> Cow<'a, str> {
        match self.safe_id {
            SafeId::Sanitised(max) => {
                let kept = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
                // Most ids are kept as they are: checked as bytes (a byte of 0x80 and up is no
                // kept character).
                let whole = id.bytes().all(|b| kept(char::from(b)));
                if !id.is_empty() && id.len() <= max && whole {
                    return Cow::Borrowed(id);
                }
                let safe: String = id
                    .chars()
                    .map(|c| if kept(c) { c } else { '_' })
                    .take(max)
                    .collect();
                if safe.is_empty() {
                    Cow::Borrowed("unknown")
                } else {
                    Cow::Owned(safe)
                }
            }
            SafeId::Raw | SafeId::RawPathlib => Cow::Borrowed(id),
        }
    }
}

/// Every profile the lab knows, in the order `lab profiles` lists them.
pub const PROFILES: &[Profile] = &[
    COURSE_SITE,
    COURSE_MAIN,
    COURSE_LATEST,
    PROTOTYPE,
    CLAUDE_CODE,
    CLAUDE_CODE_2_1_332,
    ANTHROPIC_API,
    CODEX,
    CLINE,
    OPENCODE,
    KILO,
    OPENCODE_V2,
    GEMINI_CLI,
    OPENHANDS,
    CODEX_REMOTE,
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
        // The byte check that keeps an id whole agrees with the rule character by character.
        let by_chars = |id: &str| {
            let safe: String = id
                .chars()
                .map(|c| match c {
                    'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' => c,
                    _ => '_',
                })
                .take(120)
                .collect();
            if safe.is_empty() {
                "unknown".to_owned()
            } else {
                safe
            }
        };
        for id in [
            "toolu_01.A-b",
            "call_9",
            "..",
            "a/b",
            "ü",
            "x y",
            &"y".repeat(119),
            &"y".repeat(120),
            &"y".repeat(121),
            &format!("{}é", "y".repeat(119)),
        ] {
            assert_eq!(p.safe_id(id), by_chars(id), "{id}");
            // An id kept whole is borrowed, not copied; any other is the rule's new name.
            let stem = p.safe_stem(id);
            assert_eq!(matches!(stem, Cow::Borrowed(_)), stem == id, "{id}");
        }
        assert!(matches!(
            COURSE_MAIN.safe_stem("toolu_0"),
            Cow::Borrowed("toolu_0")
        ));
    }
}
