//! `lab audit <session|dir> [--profiles a,b] [--from F]`: import real sessions
//! ([`crate::import`]), replay each under every compaction profile and set what each profile
//! would have lost beside what the real agent did: where its log shows a compaction, and where
//! each profile compacts (the same turn, earlier, later, or never). Worst sessions first.

use std::path::PathBuf;

use serde::Serialize;

use crate::compaction::driver;
use crate::compaction::profile::Profile;
use crate::experiments::compare;
use crate::import::{self, ImportOptions, MemorySink, Problem};
use crate::options::RunOptions;
use crate::render;
use crate::scenario::{Scenario, Step};
use crate::{LabError, Outcome};

/// `lab audit`.
#[derive(Debug, Clone)]
pub struct AuditArgs {
    pub input: PathBuf,
    pub options: ImportOptions,
    /// Profile names (every compaction profile when empty).
    pub profiles: Vec<String>,
    pub format: render::Format,
}

/// One session under one profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileAudit {
    pub profile: String,
    pub dropped_unsaved: usize,
    pub pointer_lost: usize,
    pub unrecoverable: usize,
    /// The final request would be refused by the API (a tool_use without its result, or the
    /// reverse): `api_valid` false.
    pub pairs_broken: bool,
    pub peak_context: usize,
    /// `chars` or `tokens`, the profile's unit.
    pub unit: String,
    /// The final context by the one rule for every profile (`profile::COMMON_RULE`).
    pub common_tokens: usize,
    pub model_calls: usize,
    /// The turns (model requests, from 1) before which the profile compacted or snipped.
    pub compactions: Vec<usize>,
    /// Against the real agent's first compaction: `same turn`, `earlier (turn N)`, `later
    /// (turn N)`, `never`; or `compacts (turn N)` / `never` when the agent did not compact.
    pub versus_agent: String,
    /// Why the profile could not replay the session, if it could not.
    pub error: Option<String>,
    /// The observables of the failure modes users report (`observables.rs`): repeated calls
    /// after their result was cleared, pointers to missing files, compactions that shrank the
    /// context by less than 5%, pairs a stage split.
    pub reread_after_clear: usize,
    pub dangling_pointers: usize,
    pub compaction_churn: usize,
    pub pairs_broken_by_compaction: usize,
    /// Deprecated name of `dropped_unsaved`, kept in the JSON for one release.
    pub lost_forever: usize,
}

/// One imported session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionAudit {
    pub name: String,
    pub file: String,
    pub turns: usize,
    /// The turns before which the real agent compacted (its log's compaction records).
    pub agent_compactions: Vec<usize>,
    pub profiles: Vec<ProfileAudit>,
}

impl SessionAudit {
    /// Results lost by all profiles together: the order of the report (worst first).
    fn losses(&self) -> usize {
        self.profiles
            .iter()
            .map(|p| {
                p.dropped_unsaved + p.pointer_lost + p.unrecoverable + usize::from(p.pairs_broken)
            })
            .sum()
    }
}

/// One profile over all sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileTotal {
    pub profile: String,
    pub sessions: usize,
    pub dropped_unsaved: usize,
    pub pointer_lost: usize,
    pub unrecoverable: usize,
    pub sessions_pairs_broken: usize,
    pub largest_peak: usize,
    pub unit: String,
    pub model_calls: usize,
    pub compactions: usize,
    /// Sessions where the agent compacted and this profile compacted at the same turn.
    pub same_turn: usize,
    /// Sums of the per-session counts of the same name.
    pub reread_after_clear: usize,
    pub dangling_pointers: usize,
    pub compaction_churn: usize,
    pub pairs_broken_by_compaction: usize,
    /// Deprecated name of `dropped_unsaved`, kept in the JSON for one release.
    pub lost_forever: usize,
}

/// Everything `lab audit` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    pub sessions: Vec<SessionAudit>,
    pub totals: Vec<ProfileTotal>,
    pub skipped_lines: usize,
    pub problems: Vec<Problem>,
}

/// Imports, replays and compares; `progress` is told after each session.
pub fn audit(
    args: &AuditArgs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<AuditReport, LabError> {
    let profiles = compare::profiles(&args.profiles)?;
    let mut sink = MemorySink::default();
    let imported = import::import(&args.input, &args.options, &mut sink)?;
    let count = sink.files.len();
    let mut sessions = Vec::new();
    for (index, ((name, bytes), report)) in sink.files.iter().zip(&imported.sessions).enumerate() {
        let text = String::from_utf8_lossy(bytes);
        let scenario = Scenario::parse(&format!("{name} (imported)"), name, &text)?;
        sessions.push(audit_session(&scenario, &report.file, &profiles)?);
        progress(index + 1, count);
    }
    sessions.sort_by(|a, b| b.losses().cmp(&a.losses()).then(a.name.cmp(&b.name)));
    let totals = profiles
        .iter()
        .map(|profile| total(profile, &sessions))
        .collect();
    Ok(AuditReport {
        sessions,
        totals,
        skipped_lines: imported.skipped_lines,
        problems: imported.problems,
    })
}

/// The turn each step leads into: 1 + the model responses before it.
fn turn_of_steps(scenario: &Scenario) -> Vec<usize> {
    let mut responses = 0;
    scenario
        .steps
        .iter()
        .map(|step| {
            let turn = responses + 1;
            if matches!(step, Step::Turn { .. } | Step::Assistant(_)) {
                responses += 1;
            }
            turn
        })
        .collect()
}

fn audit_session(
    scenario: &Scenario,
    file: &str,
    profiles: &[&Profile],
) -> Result<SessionAudit, LabError> {
    let turns = turn_of_steps(scenario);
    let turn_of = |step: usize| turns.get(step.saturating_sub(1)).copied().unwrap_or(1);
    let agent: Vec<usize> = scenario
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Step::Observed(_)))
        .map(|(i, _)| turn_of(i + 1))
        .collect();
    let mut rows = Vec::new();
    for profile in profiles {
        let options = RunOptions {
            profile: Some(profile.name.to_owned()),
            ..RunOptions::default()
        };
        let report = match driver::run(scenario, &options) {
            Ok(report) => report,
            Err(LabError::Scenario(error)) => {
                rows.push(failed(profile, error.to_string()));
                continue;
            }
            Err(other) => return Err(other),
        };
        let mut compactions: Vec<usize> = report
            .trace
            .iter()
            .filter(|e| e.kind == "compact" || (e.stage == "snip" && e.kind == "snip"))
            .map(|e| turn_of(e.step as usize))
            .collect();
        compactions.dedup();
        let o = &report.observables;
        rows.push(ProfileAudit {
            profile: profile.name.to_owned(),
            dropped_unsaved: o.dropped_unsaved,
            lost_forever: o.dropped_unsaved,
            pointer_lost: o.pointer_lost,
            unrecoverable: o.unrecoverable,
            pairs_broken: !o.api_valid,
            peak_context: o.peak_context_size,
            unit: profile.estimator.unit().to_owned(),
            common_tokens: crate::compaction::profile::common_tokens(&report.messages),
            model_calls: o.model_calls,
            versus_agent: versus(agent.first().copied(), compactions.first().copied()),
            compactions,
            error: None,
            reread_after_clear: o.reread_after_clear,
            dangling_pointers: o.dangling_pointers,
            compaction_churn: o.compaction_churn,
            pairs_broken_by_compaction: o.pairs_broken_by_compaction,
        });
    }
    Ok(SessionAudit {
        name: scenario.name.clone(),
        file: file.to_owned(),
        turns: scenario
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Turn { .. } | Step::Assistant(_)))
            .count(),
        agent_compactions: agent,
        profiles: rows,
    })
}

fn failed(profile: &Profile, error: String) -> ProfileAudit {
    ProfileAudit {
        profile: profile.name.to_owned(),
        dropped_unsaved: 0,
        lost_forever: 0,
        pointer_lost: 0,
        unrecoverable: 0,
        pairs_broken: false,
        peak_context: 0,
        unit: profile.estimator.unit().to_owned(),
        common_tokens: 0,
        model_calls: 0,
        compactions: Vec::new(),
        versus_agent: "cannot replay".to_owned(),
        error: Some(error),
        reread_after_clear: 0,
        dangling_pointers: 0,
        compaction_churn: 0,
        pairs_broken_by_compaction: 0,
    }
}

/// A profile's first compaction against the agent's.
fn versus(agent: Option<usize>, profile: Option<usize>) -> String {
    match (agent, profile) {
        (Some(a), Some(p)) if a == p => "same turn".to_owned(),
        (Some(a), Some(p)) if p < a => format!("earlier (turn {p})"),
        (Some(_), Some(p)) => format!("later (turn {p})"),
        (Some(_), None) | (None, None) => "never".to_owned(),
        (None, Some(p)) => format!("compacts (turn {p})"),
    }
}

fn total(profile: &Profile, sessions: &[SessionAudit]) -> ProfileTotal {
    let rows: Vec<(&SessionAudit, &ProfileAudit)> = sessions
        .iter()
        .filter_map(|s| {
            s.profiles
                .iter()
                .find(|p| p.profile == profile.name && p.error.is_none())
                .map(|p| (s, p))
        })
        .collect();
    ProfileTotal {
        profile: profile.name.to_owned(),
        sessions: rows.len(),
        dropped_unsaved: rows.iter().map(|(_, p)| p.dropped_unsaved).sum(),
        lost_forever: rows.iter().map(|(_, p)| p.dropped_unsaved).sum(),
        pointer_lost: rows.iter().map(|(_, p)| p.pointer_lost).sum(),
        unrecoverable: rows.iter().map(|(_, p)| p.unrecoverable).sum(),
        sessions_pairs_broken: rows.iter().filter(|(_, p)| p.pairs_broken).count(),
        largest_peak: rows.iter().map(|(_, p)| p.peak_context).max().unwrap_or(0),
        unit: profile.estimator.unit().to_owned(),
        model_calls: rows.iter().map(|(_, p)| p.model_calls).sum(),
        compactions: rows.iter().map(|(_, p)| p.compactions.len()).sum(),
        same_turn: rows
            .iter()
            .filter(|(s, p)| !s.agent_compactions.is_empty() && p.versus_agent == "same turn")
            .count(),
        reread_after_clear: rows.iter().map(|(_, p)| p.reread_after_clear).sum(),
        dangling_pointers: rows.iter().map(|(_, p)| p.dangling_pointers).sum(),
        compaction_churn: rows.iter().map(|(_, p)| p.compaction_churn).sum(),
        pairs_broken_by_compaction: rows.iter().map(|(_, p)| p.pairs_broken_by_compaction).sum(),
    }
}

/// `lab audit` as a command.
pub fn execute(
    args: &AuditArgs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    let report = audit(args, progress)?;
    Ok(Outcome {
        text: render::audit(&report, args.format),
        note: None,
        code: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versus_the_agent() {
        assert_eq!(versus(Some(3), Some(3)), "same turn");
        assert_eq!(versus(Some(3), Some(2)), "earlier (turn 2)");
        assert_eq!(versus(Some(3), Some(5)), "later (turn 5)");
        assert_eq!(versus(Some(3), None), "never");
        assert_eq!(versus(None, Some(4)), "compacts (turn 4)");
        assert_eq!(versus(None, None), "never");
    }

    #[test]
    fn steps_lead_into_turns() {
        let scenario = Scenario::parse(
            "s.json",
            "s",
            r#"{"steps": [{"user": "a"}, {"turn": {"text": "1"}}, {"idle": 5},
                {"observed": {"compaction": "auto"}}, {"prepare": true},
                {"assistant": {"text": "2"}}, {"turn": {"text": "3"}}]}"#,
        )
        .unwrap();
        assert_eq!(turn_of_steps(&scenario), [1, 1, 2, 2, 2, 2, 3]);
    }
}
