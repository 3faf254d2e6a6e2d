//! Running a scenario: resolve the profile and its overrides, check everything that could stop
//! the run, then replay the steps against a [`World`] and measure it.

use serde::Serialize;
use serde_json::Value;

use crate::check::{CheckOutcome, text_measure};
use crate::compaction::observables::{self, Fate, Observables};
use crate::compaction::profile::{self, CompactTool, Profile, Stage};
use crate::compaction::stages;
use crate::compaction::store::{DirStore, MemoryStore, SpillFile, Store, StoreKind};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::{TranscriptRecord, World};
use crate::error::{LabError, RunError, ScenarioError};
use crate::options::RunOptions;
use crate::scenario::{
    AssistantSpec, ExpectKey, Expectation, Observed, ResultSpec, Scenario, Step,
};
use crate::trace::Event;
use crate::transcript::Message;

/// Everything a run produced. Serialises as the documented JSON schema.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub scenario: String,
    pub profile: String,
    pub switches: Value,
    pub constants: Value,
    pub observables: Observables,
    #[serde(serialize_with = "serialize_messages")]
    pub messages: Vec<Message>,
    pub spill: Vec<SpillFile>,
    pub transcripts: Vec<TranscriptRecord>,
    pub trace: Vec<Event>,
    pub expect: Vec<CheckOutcome>,
    #[serde(skip)]
    pub fates: Vec<Fate>,
    #[serde(skip)]
    pub file: String,
    #[serde(skip)]
    pub spill_dir: String,
}

impl RunReport {
    /// True when every expectation held.
    pub fn passed(&self) -> bool {
        self.expect.iter().all(|c| c.ok)
    }
}

fn serialize_messages<S: serde::Serializer>(messages: &[Message], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(messages.len()))?;
    for message in messages {
        seq.serialize_element(&message.to_value())?;
    }
    seq.end()
}

impl Serialize for SpillFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("SpillFile", 2)?;
        st.serialize_field("path", &self.path)?;
        st.serialize_field("chars", &self.chars)?;
        st.end()
    }
}

fn invalid(scenario: &Scenario, location: &str, message: String) -> LabError {
    LabError::Scenario(ScenarioError::Invalid {
        file: scenario.file.clone(),
        location: location.to_owned(),
        message,
    })
}

/// The profile a run uses, with the scenario's and the options' overrides applied and checked.
pub fn resolve_profile(scenario: &Scenario, options: &RunOptions) -> Result<Profile, LabError> {
    let name = options
        .profile
        .as_deref()
        .or(scenario.profile.as_deref())
        .unwrap_or(profile::DEFAULT_PROFILE);
    let mut profile = *profile::by_name(name).ok_or_else(|| {
        let message = format!("unknown profile `{name}` (known: {})", profile::names());
        if options.profile.is_some() {
            LabError::Usage(message)
        } else {
            invalid(scenario, "top level", message)
        }
    })?;
    scenario.validate_for(&profile)?;
    for (name, value) in &scenario.constants {
        profile.constants.set(name, *value);
    }
    for (name, value) in &scenario.switches {
        let switch = SwitchName::parse(name).expect("validated by validate_for");
        profile
            .switches
            .set(switch, value)
            .map_err(|e| invalid(scenario, &format!("switches.{name}"), e.to_string()))?;
    }
    for (name, value) in &options.constants {
        if !profile.has_constant(name) {
            return Err(LabError::Usage(format!(
                "--const {name}: profile {} has no such constant (it has: {})",
                profile.name,
                profile.constant_names.join(", ")
            )));
        }
        let value: usize = value.parse().map_err(|_| {
            LabError::Usage(format!(
                "--const {name}={value}: expected a non-negative integer"
            ))
        })?;
        profile.constants.set(name, value);
    }
    for (name, value) in &options.switches {
        let switch = SwitchName::parse(name)
            .filter(|s| profile.has_switch(*s))
            .ok_or_else(|| {
                LabError::Usage(format!(
                    "--set {name}: profile {} has no such switch (it has: {})",
                    profile.name,
                    profile.switch_list()
                ))
            })?;
        profile
            .switches
            .set(switch, value)
            .map_err(|e| LabError::Usage(format!("--set {name}={value}: {e}")))?;
    }
    let c = profile.constants;
    if profile.stages.contains(&Stage::Snip) && c.snip_head >= c.snip_max {
        return Err(invalid(
            scenario,
            "constants",
            format!(
                "snip_head ({}) must be smaller than snip_max ({}): the course would index past the list",
                c.snip_head, c.snip_max
            ),
        ));
    }
    Ok(profile)
}

fn append_results(
    world: &mut World,
    scenario: &Scenario,
    results: &[ResultSpec],
) -> Result<(), RunError> {
    let batch = results
        .iter()
        .map(|r| {
            let name = scenario.calls.get(&r.id).cloned().unwrap_or_default();
            (r.id.clone(), name, r.body.render())
        })
        .collect();
    world.append_results(batch)
}

/// Claude Code's meta user message of user context (`prependUserContext`): CLAUDE.md, if any, and
/// the date (fixed, so that runs are deterministic).
fn claude_md_message(claude_md: Option<&str>) -> Message {
    const MEMORY_INSTRUCTION_PROMPT: &str = "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.";
    let mut entries = Vec::new();
    if let Some(text) = claude_md {
        entries.push(format!("# claudeMd\n{MEMORY_INSTRUCTION_PROMPT}\n\n{text}"));
    }
    entries.push("# currentDate\nToday's date is 2026-03-31.".to_owned());
    Message::user_text(format!(
        "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n{}\n\n      IMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this context unless it is highly relevant to your task.\n</system-reminder>\n",
        entries.join("\n")
    ))
}

/// The model's `compact` tool call, as the profile's agent loop handles it.
fn compact_tool(
    world: &mut World,
    scenario: &Scenario,
    compact_id: &str,
    calls: &[String],
    results: &[ResultSpec],
) -> Result<(), LabError> {
    let compact_result = (
        compact_id.to_owned(),
        "compact".to_owned(),
        world.profile.strings.compact_tool_result.to_owned(),
    );
    let result_of = |id: &String| {
        results.iter().find(|r| &r.id == id).map(|r| {
            let name = scenario.calls.get(id).cloned().unwrap_or_default();
            (id.clone(), name, r.body.render())
        })
    };
    match world.profile.compact_tool {
        CompactTool::Absent => unreachable!("rejected before running"),
        CompactTool::AfterBatch => {
            let batch = calls
                .iter()
                .map(|id| {
                    if id == compact_id {
                        compact_result.clone()
                    } else {
                        result_of(id).expect("validated: every other call has a result")
                    }
                })
                .collect();
            world.append_results(batch)?;
            stages::run(world, Stage::Compact)?;
        }
        CompactTool::Immediate => {
            let position = calls
                .iter()
                .position(|id| id == compact_id)
                .expect("the compact call is one of the calls");
            let mut batch: Vec<(String, String, String)> =
                calls[..position].iter().filter_map(result_of).collect();
            stages::run(world, Stage::Compact)?;
            batch.push(compact_result);
            for id in &calls[position + 1..] {
                world.event(
                    "compact_tool",
                    "drop",
                    Some(id),
                    None,
                    None,
                    "never ran: the compact tool breaks out of the batch",
                );
            }
            world.append_results(batch)?;
        }
    }
    Ok(())
}

/// Keeps the usage the API reported for the assistant message just appended (imported logs),
/// with the message's index, and traces it.
fn note_usage(world: &mut World, spec: &AssistantSpec) {
    let Some(usage) = spec.usage else {
        return;
    };
    let message = world.history.len().saturating_sub(1);
    world.reported_usage = Some((message, usage));
    world.event(
        "scenario",
        "usage",
        None,
        None,
        None,
        format!(
            "the API reported {} tokens for message {message} (input {}, cache creation {}, \
             cache read {}, output {})",
            usage.total(),
            usage.input_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
            usage.output_tokens
        ),
    );
}

/// A real agent's event (imported logs): traced, nothing else changes.
fn note_observed(world: &mut World, observed: &Observed) {
    match observed {
        Observed::Compaction {
            trigger,
            pre_tokens,
            post_tokens,
            summary_chars,
        } => {
            let mut reason = format!("the real agent compacted here ({trigger}");
            if let Some(pre) = pre_tokens {
                reason.push_str(&format!("; {pre} tokens before"));
            }
            if let Some(post) = post_tokens {
                reason.push_str(&format!("; {post} after"));
            }
            if let Some(chars) = summary_chars {
                reason.push_str(&format!("; a {chars}-char summary"));
            }
            reason.push(')');
            world.event("observed", "compaction", None, None, None, reason);
        }
    }
}

/// Checks expectations against the current state.
pub fn check(
    world: &World,
    expectations: &[Expectation],
    step: Option<usize>,
) -> Vec<CheckOutcome> {
    if expectations.is_empty() {
        return Vec::new();
    }
    let observed =
        serde_json::to_value(observables::measure(world)).expect("observables serialise to JSON");
    expectations
        .iter()
        .map(|expectation| {
            let measured = match &expectation.key {
                ExpectKey::Observable(name) => observed.get(name).cloned().unwrap_or(Value::Null),
                ExpectKey::Result(id) => {
                    let content = world
                        .history
                        .messages()
                        .iter()
                        .flat_map(|m| m.tool_results())
                        .filter(|(rid, _)| rid == id)
                        .map(|(_, content)| content.to_owned())
                        .last();
                    text_measure(content, &expectation.expected)
                }
                ExpectKey::Guard(_)
                | ExpectKey::File(_)
                | ExpectKey::Index
                | ExpectKey::System
                | ExpectKey::Recall => {
                    unreachable!("memory expectations are rejected before a compaction run")
                }
                ExpectKey::Message(index) => {
                    let text = world
                        .history
                        .context()
                        .get(*index)
                        .and_then(|m| match &m.content {
                            crate::transcript::Content::Text(text) => Some(text.clone()),
                            _ => None,
                        });
                    text_measure(text, &expectation.expected)
                }
            };
            CheckOutcome {
                step,
                key: expectation.key.label(),
                ok: measured == expectation.expected,
                expected: expectation.expected.clone(),
                measured,
            }
        })
        .collect()
}

/// Runs a scenario to the end and measures it.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Result<RunReport, LabError> {
    let profile = resolve_profile(scenario, options)?;
    let (default_spill, default_transcripts) = match (scenario.dirs_given, profile.default_dirs) {
        (false, Some((spill, transcripts))) => (spill.to_owned(), transcripts.to_owned()),
        _ => (scenario.spill_dir.clone(), scenario.transcript_dir.clone()),
    };
    let mut temp = None;
    let (store, spill_dir, transcript_dir): (Box<dyn Store>, String, String) = match options.store {
        StoreKind::Memory => (
            Box::new(MemoryStore::new()),
            options.spill_dir.clone().unwrap_or(default_spill),
            options
                .transcript_dir
                .clone()
                .unwrap_or(default_transcripts),
        ),
        StoreKind::Dir => {
            let needs_temp = options.spill_dir.is_none() || options.transcript_dir.is_none();
            if needs_temp {
                temp = Some(tempfile::tempdir().map_err(RunError::TempDir)?);
            }
            let root = temp
                .as_ref()
                .map(|t| t.path().to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                Box::new(DirStore::new()),
                options
                    .spill_dir
                    .clone()
                    .unwrap_or_else(|| format!("{root}/tool-results")),
                options
                    .transcript_dir
                    .clone()
                    .unwrap_or_else(|| format!("{root}/.transcripts")),
            )
        }
    };
    for (flag, dir) in [
        ("--spill-dir", &spill_dir),
        ("--transcript-dir", &transcript_dir),
    ] {
        if !dir.starts_with('/') {
            return Err(LabError::Usage(format!(
                "{flag} must be an absolute path, got `{dir}`"
            )));
        }
    }
    let mut world = World::new(profile, store, spill_dir, transcript_dir);
    world.summary = scenario.summary.clone();
    world.claude_md = scenario.claude_md.clone();
    if world.profile.session_transcript {
        world.open_session();
    }
    if world.profile.claude_md {
        world
            .history
            .pin(claude_md_message(scenario.claude_md.as_deref()));
    }
    let mut checks = Vec::new();
    if let Some(request) = &scenario.request {
        world.active_request = request.clone();
        world.append(Message::user_text(request.clone()))?;
        world.note_peak();
    }
    for (index, step) in scenario.steps.iter().enumerate() {
        world.step = index + 1;
        match step {
            Step::User(text) => {
                world.active_request = text.clone();
                world.append(Message::user_text(text.clone()))?;
            }
            Step::Assistant(spec) => {
                world.append(spec.message())?;
                note_usage(&mut world, spec);
            }
            Step::Results(results) => append_results(&mut world, scenario, results)?,
            Step::Stage(stage) => stages::run(&mut world, *stage)?,
            Step::Prepare => stages::prepare(&mut world)?,
            Step::Turn { assistant, results } => {
                stages::prepare(&mut world)?;
                world.note_peak();
                world.append(assistant.message())?;
                note_usage(&mut world, assistant);
                if !results.is_empty() {
                    append_results(&mut world, scenario, results)?;
                }
            }
            Step::Idle(minutes) => {
                world.idle_minutes += minutes;
                let total = world.idle_minutes;
                world.event(
                    "scenario",
                    "idle",
                    None,
                    None,
                    None,
                    format!("{minutes} idle minutes ({total} since the last assistant message)"),
                );
            }
            Step::Check(list) => checks.extend(check(&world, list, Some(index + 1))),
            Step::CompactTool { id, calls, results } => {
                compact_tool(&mut world, scenario, id, calls, results)?
            }
            Step::Observed(observed) => note_observed(&mut world, observed),
            Step::SelectReply(_)
            | Step::ExtractReply(_)
            | Step::ConsolidateReply(_)
            | Step::Fault { .. }
            | Step::WriteFile { .. }
            | Step::Symlink { .. }
            | Step::Seed(_) => unreachable!("memory steps are rejected before a compaction run"),
        }
        if matches!(step, Step::Assistant(_) | Step::Turn { .. }) {
            world.idle_minutes = 0;
        }
        world.note_peak();
    }
    checks.extend(check(&world, &scenario.expect, None));
    let observables = observables::measure(&world);
    let fates = observables::fates(&world);
    let spill = world.store.spill_files(&world.spill_dir);
    drop(temp);
    Ok(RunReport {
        scenario: scenario.name.clone(),
        profile: world.profile.name.to_owned(),
        switches: world.profile.switches.to_value(world.profile.switch_names),
        constants: world
            .profile
            .constants
            .to_value(world.profile.constant_names),
        observables,
        messages: world.history.context(),
        spill,
        transcripts: world.transcripts,
        trace: world.trace,
        expect: checks,
        fates,
        file: scenario.file.clone(),
        spill_dir: world.spill_dir,
    })
}
