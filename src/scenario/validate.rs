//! Checks of a loaded scenario against the compaction profile it will run under: the constants,
//! switches and stages it names must exist in that profile, and memory-only steps and
//! expectation keys are refused. They run before anything runs, so a typo never yields a
//! half-run report. (Memory profiles make the mirror checks in the memory driver.)

use super::fields::Ctx;
use super::{ExpectKey, Expectation, Scenario, Step};
use crate::compaction::observables::OBSERVABLE_NAMES;
use crate::compaction::profile::{CompactTool, Profile};
use crate::compaction::switches::SwitchName;
use crate::error::ScenarioError;

impl Scenario {
    /// Checks what depends on the profile: stages it has, its switches and constants.
    pub fn validate_for(&self, profile: &Profile) -> Result<(), ScenarioError> {
        let ctx = Ctx { file: &self.file };
        self.check_constants(&ctx, profile)?;
        self.check_switches(&ctx, profile)?;
        self.check_expect_keys(&ctx, profile)?;
        for (index, step) in self.steps.iter().enumerate() {
            check_step(&ctx, profile, index, step)?;
        }
        Ok(())
    }

    fn check_constants(&self, ctx: &Ctx, profile: &Profile) -> Result<(), ScenarioError> {
        for (name, _) in &self.constants {
            if !profile.has_constant(name) {
                return Err(ctx.err(
                    format!("constants.{name}"),
                    format!(
                        "profile {} has no constant `{name}` (it has: {})",
                        profile.name,
                        profile.constant_names.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_switches(&self, ctx: &Ctx, profile: &Profile) -> Result<(), ScenarioError> {
        for (name, _) in &self.switches {
            let known = SwitchName::parse(name).is_some_and(|s| profile.has_switch(s));
            if !known {
                return Err(ctx.err(
                    format!("switches.{name}"),
                    format!(
                        "profile {} has no switch `{name}` (it has: {})",
                        profile.name,
                        profile.switch_list()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses the first memory key of `expect`, then of the `check` steps.
    fn check_expect_keys(&self, ctx: &Ctx, profile: &Profile) -> Result<(), ScenarioError> {
        let checks = self.steps.iter().flat_map(|s| match s {
            Step::Check(list) => list.as_slice(),
            _ => &[],
        });
        if let Some(e) = self.expect.iter().chain(checks).find(|e| is_memory_key(e)) {
            return Err(ctx.err(
                "expect",
                format!(
                    "`{}` belongs to memory profiles; profile {} is a compaction profile",
                    e.key.label(),
                    profile.name
                ),
            ));
        }
        Ok(())
    }
}

/// True for the expectation keys only memory profiles observe.
fn is_memory_key(e: &Expectation) -> bool {
    match &e.key {
        ExpectKey::Guard(_)
        | ExpectKey::File(_)
        | ExpectKey::Index
        | ExpectKey::System
        | ExpectKey::Recall => true,
        ExpectKey::Observable(name) => !OBSERVABLE_NAMES.contains(&name.as_str()),
        ExpectKey::Result(_) | ExpectKey::Message(_) => false,
    }
}

/// Step `index` (from 0) must be one the profile can run.
fn check_step(
    ctx: &Ctx,
    profile: &Profile,
    index: usize,
    step: &Step,
) -> Result<(), ScenarioError> {
    if step.is_memory() {
        return Err(ctx.err(
            format!("step {} ({})", index + 1, step.kind()),
            format!(
                "profile {} is a compaction profile: it has no memory store",
                profile.name
            ),
        ));
    }
    if matches!(step, Step::CompactTool { .. }) && profile.compact_tool == CompactTool::Absent {
        return Err(ctx.err(
            format!("step {} (compact_tool)", index + 1),
            format!("profile {} has no compact tool", profile.name),
        ));
    }
    if matches!(step, Step::ContextHint)
        && !profile
            .stages
            .contains(&crate::compaction::profile::Stage::KeepRecentMc)
    {
        return Err(ctx.err(
            format!("step {} (context_hint)", index + 1),
            format!(
                "profile {} has no KEEP-RECENT microcompact (claude-code-2.1.332 has)",
                profile.name
            ),
        ));
    }
    if let Step::Stage(stage) = step {
        if !profile.stages.contains(stage) {
            let has: Vec<&str> = profile.stages.iter().map(|s| s.as_str()).collect();
            return Err(ctx.err(
                format!("step {} (stage)", index + 1),
                format!(
                    "profile {} has no stage `{stage}` (it has: {})",
                    profile.name,
                    has.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
