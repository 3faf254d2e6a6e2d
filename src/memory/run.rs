//! Running a scenario under a memory profile: the s09 agent loop with scripted side calls.
//!
//! A `user` step starts an agent turn: recall runs once (the selector, then the system prompt).
//! An `assistant` step without tool calls ends the turn: extraction, then consolidation when it
//! stored at least one record. Memory steps queue the side calls' replies, inject faults, let the
//! agent's generic file tool write into the store, or plant a symlink.

use serde::Serialize;
use serde_json::Value;

use super::fs::{DirFs, MemFs};
use super::observables::{self, MemoryObservables};
use super::profile::{self, MEMORY_CONSTANT_NAMES, MemoryProfile, Revision};
use super::world::MemoryWorld;
use crate::check::{CheckOutcome, text_measure};
use crate::compaction::store::StoreKind;
use crate::error::{LabError, RunError, ScenarioError};
use crate::options::RunOptions;
use crate::python::json::char_len;
use crate::scenario::{ExpectKey, Expectation, Scenario, Step};
use crate::trace::Event;
use crate::transcript::{Block, Message, Role};

/// One file of the store in a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoreFile {
    pub name: String,
    pub chars: usize,
}

/// Everything a memory run produced.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryReport {
    pub scenario: String,
    pub profile: String,
    pub switches: Value,
    pub constants: Value,
    pub observables: MemoryObservables,
    pub files: Vec<StoreFile>,
    pub index: String,
    pub system: String,
    pub trace: Vec<Event>,
    pub expect: Vec<CheckOutcome>,
}

impl MemoryReport {
    pub fn passed(&self) -> bool {
        self.expect.iter().all(|c| c.ok)
    }
}

fn invalid(scenario: &Scenario, location: &str, message: String) -> LabError {
    LabError::Scenario(ScenarioError::Invalid {
        file: scenario.file.clone(),
        location: location.to_owned(),
        message,
    })
}

/// The memory profile of a run, if the run is a memory run.
pub fn memory_profile(scenario: &Scenario, options: &RunOptions) -> Option<&'static MemoryProfile> {
    let name = options.profile.as_deref().or(scenario.profile.as_deref())?;
    profile::by_name(name)
}

/// The profile with the scenario's and the options' overrides, checked.
fn resolve(
    scenario: &Scenario,
    options: &RunOptions,
    base: &MemoryProfile,
) -> Result<MemoryProfile, LabError> {
    let mut profile = *base;
    for (index, step) in scenario.steps.iter().enumerate() {
        if step.is_compaction() {
            return Err(invalid(
                scenario,
                &format!("step {} ({})", index + 1, step.kind()),
                format!(
                    "profile {} is a memory profile: it has no compaction stages",
                    profile.name
                ),
            ));
        }
    }
    let compaction_only = |e: &Expectation| match &e.key {
        ExpectKey::Observable(name) => {
            !observables::MEMORY_OBSERVABLE_NAMES.contains(&name.as_str())
        }
        ExpectKey::Result(_) | ExpectKey::Message(_) => true,
        _ => false,
    };
    let checks = scenario.steps.iter().flat_map(|s| match s {
        Step::Check(list) => list.as_slice(),
        _ => &[],
    });
    if let Some(e) = scenario
        .expect
        .iter()
        .chain(checks)
        .find(|e| compaction_only(e))
    {
        return Err(invalid(
            scenario,
            "expect",
            format!(
                "`{}` is not an observable of memory profile {}",
                e.key.label(),
                profile.name
            ),
        ));
    }
    for (name, value) in &scenario.constants {
        if !profile.constants.set(name, *value) {
            return Err(invalid(
                scenario,
                &format!("constants.{name}"),
                format!(
                    "memory profile {} has no constant `{name}` (it has: {})",
                    profile.name,
                    MEMORY_CONSTANT_NAMES.join(", ")
                ),
            ));
        }
    }
    for (name, value) in &scenario.switches {
        if !profile.switch_names.contains(&name.as_str()) {
            return Err(invalid(
                scenario,
                &format!("switches.{name}"),
                format!("memory profile {} has no switch `{name}`", profile.name),
            ));
        }
        profile
            .switches
            .set(name, value)
            .map_err(|e| invalid(scenario, &format!("switches.{name}"), e))?;
    }
    for (name, value) in &options.constants {
        let value: usize = value.parse().map_err(|_| {
            LabError::Usage(format!(
                "--const {name}={value}: expected a non-negative integer"
            ))
        })?;
        if !profile.constants.set(name, value) {
            return Err(LabError::Usage(format!(
                "--const {name}: memory profile {} has no such constant",
                profile.name
            )));
        }
    }
    for (name, value) in &options.switches {
        if !profile.switch_names.contains(&name.as_str()) {
            return Err(LabError::Usage(format!(
                "--set {name}: memory profile {} has no such switch",
                profile.name
            )));
        }
        profile
            .switches
            .set(name, value)
            .map_err(|e| LabError::Usage(format!("--set {name}={value}: {e}")))?;
    }
    Ok(profile)
}

fn results_message(results: &[crate::scenario::ResultSpec]) -> Message {
    Message::blocks(
        Role::User,
        results
            .iter()
            .map(|r| Block::ToolResult {
                tool_use_id: r.id.clone(),
                content: r.body.render(),
            })
            .collect(),
    )
}

/// The end of an agent turn: extraction, then consolidation if anything was stored.
fn end_turn(world: &mut MemoryWorld) {
    let stored = world.extract();
    match world.profile.revision {
        Revision::Main if stored > 0 => {
            world.consolidate();
        }
        Revision::Main => {}
        // The site consolidates at the end of every turn.
        Revision::Site => world.site_consolidate(),
    }
}

/// A tool-result batch: the agent loop sends the next request, and the site rebuilds its system
/// prompt from the index before it.
fn push_results(world: &mut MemoryWorld, results: &[crate::scenario::ResultSpec]) {
    world.messages.push(results_message(results));
    if world.profile.revision == Revision::Site {
        world.site_request();
    }
}

fn check(
    world: &mut MemoryWorld,
    expectations: &[Expectation],
    step: Option<usize>,
) -> Vec<CheckOutcome> {
    if expectations.is_empty() {
        return Vec::new();
    }
    let observed =
        serde_json::to_value(observables::measure(world)).expect("observables serialise");
    expectations
        .iter()
        .map(|e| {
            let measured = match &e.key {
                ExpectKey::Observable(name) => observed.get(name).cloned().unwrap_or(Value::Null),
                ExpectKey::Guard(name) => Value::from(match world.memory_path(name, false) {
                    Ok(()) => "ok".to_owned(),
                    Err(error) => error.0,
                }),
                ExpectKey::File(name) => text_measure(world.fs.read(name).ok(), &e.expected),
                ExpectKey::Index => {
                    text_measure(world.fs.read(super::store::INDEX).ok(), &e.expected)
                }
                ExpectKey::System => text_measure(Some(world.last_system.clone()), &e.expected),
                ExpectKey::Recall => text_measure(Some(world.last_recall.clone()), &e.expected),
                ExpectKey::Result(_) | ExpectKey::Message(_) => Value::Null,
            };
            CheckOutcome {
                step,
                key: e.key.label(),
                ok: measured == e.expected,
                expected: e.expected.clone(),
                measured,
            }
        })
        .collect()
}

/// Runs a scenario under a memory profile.
pub fn run(
    scenario: &Scenario,
    options: &RunOptions,
    base: &MemoryProfile,
) -> Result<MemoryReport, LabError> {
    let profile = resolve(scenario, options, base)?;
    let temp;
    let fs: Box<dyn super::fs::MemoryFs> = match options.store {
        StoreKind::Memory => Box::new(MemFs::new()),
        StoreKind::Dir => {
            temp = tempfile::tempdir().map_err(RunError::TempDir)?;
            Box::new(DirFs::new(temp.path()).map_err(RunError::TempDir)?)
        }
    };
    let mut world = MemoryWorld::new(profile, fs);
    let mut checks = Vec::new();
    let request_step = scenario.request.clone();
    if let Some(request) = request_step {
        world.messages.push(Message::user_text(request));
        world.recall();
    }
    for (index, step) in scenario.steps.iter().enumerate() {
        world.step = index + 1;
        world.clock += 1;
        match step {
            Step::User(text) => {
                world.messages.push(Message::user_text(text.clone()));
                world.recall();
            }
            Step::Assistant(spec) => {
                world.messages.push(spec.message());
                if spec.calls.is_empty() {
                    end_turn(&mut world);
                }
            }
            Step::Results(results) => push_results(&mut world, results),
            Step::Turn { assistant, results } => {
                world.messages.push(assistant.message());
                if assistant.calls.is_empty() {
                    end_turn(&mut world);
                } else {
                    push_results(&mut world, results);
                }
            }
            Step::Check(list) => checks.extend(check(&mut world, list, Some(index + 1))),
            Step::SelectReply(reply) => world.select_replies.push_back(reply.clone()),
            Step::ExtractReply(reply) => world.extract_replies.push_back(reply.clone()),
            Step::ConsolidateReply(reply) => world.consolidate_replies.push_back(reply.clone()),
            Step::Fault {
                write_after,
                delete_after,
            } => {
                if write_after.is_some() {
                    world.faults.write_after = *write_after;
                }
                if delete_after.is_some() {
                    world.faults.delete_after = *delete_after;
                }
            }
            Step::WriteFile { name, text } => {
                // The generic tool: no guard, no gate, no index rebuild.
                if let super::fs::Target::Outside(path) = world.fs.target(name) {
                    world.path_escapes += 1;
                    world.event(
                        "write_file",
                        "escape",
                        Some(name),
                        format!("write reaches {path}"),
                    );
                }
                world.fs.write(name, text).map_err(|e| RunError::Store {
                    path: name.clone(),
                    source: e,
                })?;
                world.event(
                    "write_file",
                    "write",
                    Some(name),
                    "the generic file tool wrote into the store",
                );
            }
            Step::Symlink { name, target, text } => {
                world
                    .fs
                    .symlink(name, target, text)
                    .map_err(|e| RunError::Store {
                        path: name.clone(),
                        source: e,
                    })?;
                world.event(
                    "symlink",
                    "link",
                    Some(name),
                    format!("symlink to {target}"),
                );
            }
            Step::Seed(records) => {
                for record in records {
                    if let Err(error) = world.write_memory_file(
                        &record.name,
                        &record.kind,
                        &record.description,
                        &record.body,
                    ) {
                        world.event(
                            "seed",
                            "refuse",
                            None,
                            format!("seed `{}` refused: {}", record.name, error.0),
                        );
                    }
                }
            }
            Step::Stage(_)
            | Step::Prepare
            | Step::Idle(_)
            | Step::CompactTool { .. }
            | Step::Observed(_) => {
                unreachable!("rejected before running")
            }
        }
    }
    checks.extend(check(&mut world, &scenario.expect, None));
    let observables = observables::measure(&mut world);
    let files = world
        .fs
        .files()
        .into_iter()
        .map(|(name, text)| StoreFile {
            chars: char_len(&text),
            name,
        })
        .collect();
    Ok(MemoryReport {
        scenario: scenario.name.clone(),
        profile: world.profile.name.to_owned(),
        switches: world.profile.switches.to_value(),
        constants: world.profile.constants.to_value(),
        observables,
        files,
        index: world.fs.read(super::store::INDEX).unwrap_or_default(),
        system: world.last_system.clone(),
        trace: world.trace,
        expect: checks,
    })
}
