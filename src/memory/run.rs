//! The memory driver: runs a scenario under a memory profile, the s09 agent loop with scripted
//! side calls, as turmoil's `sim.rs` drives its `world.rs`.
//!
//! A `user` step starts an agent turn: recall runs once (the selector, then the system prompt).
//! An `assistant` step without tool calls ends the turn: extraction, then consolidation when it
//! stored at least one record (memory-site: every turn). Memory steps queue the side calls'
//! replies, inject faults, let the agent's generic file tool write into the store, or plant a
//! symlink. This is the one place that picks memory-main's mechanisms or memory-site's.

use serde::Serialize;
use serde_json::Value;

use super::fs::{DirFs, MemFs, MemoryFs, Target};
use super::observables::{self, Observables};
use super::profile::{self, CONSTANT_NAMES, MemoryProfile, Revision};
use super::store::{self, INDEX};
use super::world::World;
use super::{consolidate, extract, recall, site};
use crate::check::{CheckOutcome, evaluate, text_measure};
use crate::compaction::store::StoreKind;
use crate::error::{LabError, RunError, ScenarioError};
use crate::options::RunOptions;
use crate::python::json::char_len;
use crate::scenario::{ExpectKey, Expectation, ResultSpec, Scenario, SeedRecord, Step};
use crate::trace::Event;
use crate::transcript::{Block, Message, Role};

/// One file of the store in a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoreFile {
    /// The file's name in the store (`MEMORY.md` included).
    pub name: String,
    /// Its length in characters.
    pub chars: usize,
}

/// Everything a memory run produced.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryReport {
    pub scenario: String,
    pub profile: String,
    /// The switches and constants the run used, overrides applied.
    pub switches: Value,
    pub constants: Value,
    pub observables: Observables,
    /// Every regular file of the store at the end, sorted.
    pub files: Vec<StoreFile>,
    /// MEMORY.md at the end (empty when there is none).
    pub index: String,
    /// The system prompt of the last agent turn.
    pub system: String,
    pub trace: Vec<Event>,
    /// The `check` steps' and the final `expect`'s outcomes, in order.
    pub expect: Vec<CheckOutcome>,
}

impl MemoryReport {
    /// True when every expectation held.
    pub fn passed(&self) -> bool {
        self.expect.iter().all(|c| c.ok)
    }
}

/// A scenario error at `location` of the scenario's file.
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
    reject_compaction(scenario, base.name)?;
    let mut profile = *base;
    apply_scenario(scenario, &mut profile)?;
    apply_options(options, &mut profile)?;
    Ok(profile)
}

/// Refuses compaction steps and expectations only compaction runs measure, before anything runs.
fn reject_compaction(scenario: &Scenario, profile: &str) -> Result<(), LabError> {
    for (index, step) in scenario.steps.iter().enumerate() {
        if step.is_compaction() {
            return Err(invalid(
                scenario,
                &format!("step {} ({})", index + 1, step.kind()),
                format!("profile {profile} is a memory profile: it has no compaction stages"),
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
                "`{}` is not an observable of memory profile {profile}",
                e.key.label()
            ),
        ));
    }
    Ok(())
}

/// The scenario's `constants` and `switches`.
fn apply_scenario(scenario: &Scenario, profile: &mut MemoryProfile) -> Result<(), LabError> {
    for (name, value) in &scenario.constants {
        if !profile.constants.set(name, *value) {
            return Err(invalid(
                scenario,
                &format!("constants.{name}"),
                format!(
                    "memory profile {} has no constant `{name}` (it has: {})",
                    profile.name,
                    CONSTANT_NAMES.join(", ")
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
    Ok(())
}

/// `--const` and `--set`, after the scenario's own.
fn apply_options(options: &RunOptions, profile: &mut MemoryProfile) -> Result<(), LabError> {
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
    Ok(())
}

/// The start of an agent turn: the user's message, then recall as the profile's revision does
/// it (memory-main: into the system prompt; memory-site: prepended to the user turn).
fn user_turn(world: &mut World, text: String) {
    world.messages.push(Message::user_text(text));
    match world.profile.revision {
        Revision::Main => recall::recall(world),
        Revision::Site => site::recall(world),
    }
}

/// The end of an agent turn: extraction, then consolidation (memory-main only when extraction
/// stored a record; the site consolidates at the end of every turn).
fn end_turn(world: &mut World) {
    match world.profile.revision {
        Revision::Main => {
            if extract::extract(world) > 0 {
                consolidate::consolidate(world);
            }
        }
        Revision::Site => {
            site::extract(world);
            site::consolidate(world);
        }
    }
}

/// A tool-result batch: the agent loop sends the next request with the system prompt it built
/// at the start of the user turn (the site's `agent_loop` calls `build_system()` once per user
/// turn since 8aa8adb, so an index change mid-turn is not seen until the next turn).
fn push_results(world: &mut World, results: &[ResultSpec]) {
    let blocks = results
        .iter()
        .map(|r| Block::ToolResult {
            tool_use_id: r.id,
            content: r.body.render().into(),
        })
        .collect();
    world.messages.push(Message::blocks(Role::User, blocks));
}

/// Records an earlier session left, written through the revision's `write_memory_file`; a
/// refused one is traced and skipped.
fn seed(world: &mut World, records: &[SeedRecord]) {
    for record in records {
        let (name, kind, description, body) = (
            &record.name,
            &record.kind,
            &record.description,
            &record.body,
        );
        let written = match world.profile.revision {
            Revision::Main => store::write_memory_file(world, name, kind, description, body),
            Revision::Site => site::write(world, name, kind, description, body),
        };
        if let Err(error) = written {
            world.event(
                "seed",
                "refuse",
                None,
                format!("seed `{name}` refused: {}", error.0),
            );
        }
    }
}

/// The agent's generic file tool: no guard, no gate, no index rebuild.
fn write_file(world: &mut World, name: &str, text: &str) -> Result<(), LabError> {
    if let Target::Outside(path) = world.fs.target(name) {
        world.counters.path_escapes += 1;
        world.event(
            "write_file",
            "escape",
            Some(name),
            format!("write reaches {path}"),
        );
    }
    world.fs.write(name, text).map_err(RunError::store(name))?;
    world.event(
        "write_file",
        "write",
        Some(name),
        "the generic file tool wrote into the store",
    );
    Ok(())
}

/// Plants a symlink in the store to an outside file holding `text`.
fn symlink(world: &mut World, name: &str, target: &str, text: &str) -> Result<(), LabError> {
    world
        .fs
        .symlink(name, target, text)
        .map_err(RunError::store(name))?;
    world.event(
        "symlink",
        "link",
        Some(name),
        format!("symlink to {target}"),
    );
    Ok(())
}

/// The expectations measured now.
fn check(
    world: &mut World,
    expectations: &[Expectation],
    step: Option<usize>,
) -> Vec<CheckOutcome> {
    if expectations.is_empty() {
        return Vec::new();
    }
    let observed = observables::measure(world);
    evaluate(expectations, step, observed, |key, expected| match key {
        ExpectKey::Guard(name) => Value::from(match store::path_guard(world, name, false) {
            Ok(()) => "ok".to_owned(),
            Err(error) => error.0,
        }),
        ExpectKey::File(name) => text_measure(world.fs.read(name).ok(), expected),
        ExpectKey::Index => text_measure(world.fs.read(INDEX).ok(), expected),
        ExpectKey::System => text_measure(Some(world.turn.system.clone()), expected),
        ExpectKey::Recall => text_measure(Some(world.turn.recall.clone()), expected),
        ExpectKey::Observable(_) | ExpectKey::Result(_) | ExpectKey::Message(_) => Value::Null,
    })
}

/// Runs one scenario step.
fn step(
    world: &mut World,
    index: usize,
    step: &Step,
    checks: &mut Vec<CheckOutcome>,
) -> Result<(), LabError> {
    world.step = index + 1;
    world.clock += 1;
    match step {
        Step::User(text) => user_turn(world, text.clone()),
        Step::Assistant(spec) => {
            world.messages.push(spec.message());
            if spec.calls.is_empty() {
                end_turn(world);
            }
        }
        Step::Results(results) => push_results(world, results),
        Step::Turn { assistant, results } => {
            world.messages.push(assistant.message());
            if assistant.calls.is_empty() {
                end_turn(world);
            } else {
                push_results(world, results);
            }
        }
        Step::Check(list) => checks.extend(check(world, list, Some(index + 1))),
        Step::SelectReply(reply) => world.replies.select.push_back(reply.clone()),
        Step::ExtractReply(reply) => world.replies.extract.push_back(reply.clone()),
        Step::ConsolidateReply(reply) => world.replies.consolidate.push_back(reply.clone()),
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
        Step::WriteFile { name, text } => write_file(world, name, text)?,
        Step::Symlink { name, target, text } => symlink(world, name, target, text)?,
        Step::Seed(records) => seed(world, records),
        Step::Stage(_)
        | Step::Prepare
        | Step::Idle(_)
        | Step::ContextHint
        | Step::CompactTool { .. }
        | Step::Observed(_)
        | Step::RemoveFile { .. } => {
            unreachable!("rejected before running")
        }
    }
    Ok(())
}

/// What the run produced, once every step ran.
fn report(scenario: &Scenario, mut world: World, expect: Vec<CheckOutcome>) -> MemoryReport {
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
    MemoryReport {
        scenario: scenario.name.clone(),
        profile: world.profile.name.to_owned(),
        switches: world.profile.switches.to_value(),
        constants: world.profile.constants.to_value(),
        observables,
        files,
        index: world.fs.read(INDEX).unwrap_or_default(),
        system: world.turn.system,
        trace: world.trace,
        expect,
    }
}

/// Runs a scenario under a memory profile.
pub fn run(
    scenario: &Scenario,
    options: &RunOptions,
    base: &MemoryProfile,
) -> Result<MemoryReport, LabError> {
    let profile = resolve(scenario, options, base)?;
    // The temporary directory outlives the world that uses it.
    let temp;
    let fs: Box<dyn MemoryFs> = match options.store {
        StoreKind::Memory => Box::new(MemFs::new()),
        StoreKind::Dir => {
            temp = crate::compaction::store::private_temp_dir().map_err(RunError::TempDir)?;
            Box::new(DirFs::new(temp.path()).map_err(RunError::TempDir)?)
        }
    };
    let mut world = World::new(profile, fs);
    let mut checks = Vec::new();
    if let Some(request) = &scenario.request {
        user_turn(&mut world, request.clone());
    }
    for (index, s) in scenario.steps.iter().enumerate() {
        step(&mut world, index, s, &mut checks)?;
    }
    checks.extend(check(&mut world, &scenario.expect, None));
    Ok(report(scenario, world, checks))
}
