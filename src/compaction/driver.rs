//! Running a scenario (turmoil's `sim.rs`): resolve the profile and its overrides, check
//! everything that could stop the run, then replay the steps against a `World` and measure it.
//! The driver decides what runs when: it appends messages (and logs them to the session
//! transcript), hands result batches to the arrival stage, runs stages and checks.

use serde::Serialize;
use serde_json::Value;

use crate::check::{CheckOutcome, evaluate, text_measure};
use crate::compaction::archive;
use crate::compaction::observables::{self, Fate, Observables};
use crate::compaction::profile::{self, Profile, ReactiveSmall, SnipTail, Stage};
use crate::compaction::sandbox::Sandbox;
use crate::compaction::stages::{self, arrival, compact_tool, user_context};
use crate::compaction::store::{self, DirStore, MemoryStore, SpillFile, Store, StoreKind};
use crate::compaction::switches::SwitchName;
use crate::compaction::world::{IncomingResult, TranscriptRecord, World};
use crate::error::{LabError, RunError, ScenarioError};
use crate::hash::FastMap;
use crate::options::RunOptions;
use crate::scenario::{
    AssistantSpec, ExpectKey, Expectation, Observed, Renderer, ResultSpec, Scenario, Step,
};
use crate::trace::{Event, reason};
use crate::transcript::{Message, ResultText};

/// Everything a run produced. Serialises as the documented JSON schema.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub scenario: String,
    pub profile: String,
    /// The unit of `context_size` and `peak_context_size`: `chars` or `tokens`, by the
    /// profile's own estimate (the names stay for compatibility).
    pub context_unit: &'static str,
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
        st.serialize_field("path", &*self.path)?;
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
        let memory: Vec<&str> = crate::memory::profile::MEMORY_PROFILES
            .iter()
            .map(|p| p.name)
            .collect();
        let message = if memory.contains(&name) {
            format!(
                "`{name}` is a memory-lab profile; this runs compaction profiles ({})",
                profile::names()
            )
        } else {
            format!(
                "unknown profile `{name}` (known: {}; memory lab: {})",
                profile::names(),
                memory.join(", ")
            )
        };
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
    if let Some(message) = crashing_constants(&profile) {
        return Err(invalid(scenario, "constants", message));
    }
    Ok(profile)
}

/// Constants with which the real code raises instead of compacting: the run is refused before
/// it starts, naming the exception and the line that would raise it.
fn crashing_constants(profile: &Profile) -> Option<String> {
    let c = profile.constants;
    if profile.stages.contains(&Stage::Snip) && c.snip_head >= c.snip_max {
        return Some(format!(
            "snip_head ({}) must be smaller than snip_max ({}): the course would index past the list",
            c.snip_head, c.snip_max
        ));
    }
    // Course latest's tail is `max_messages - head_end - 1`: with one message more than the
    // head it is empty, tail_start is len(messages) and `messages[tail_start]` is out of range.
    if profile.stages.contains(&Stage::Snip)
        && profile.snip_tail == SnipTail::MaxMinusHeadMinusOne
        && c.snip_max == c.snip_head + 1
    {
        return Some(format!(
            "snip_max ({}) must be larger than snip_head + 1 ({}): the course's snip_compact would raise IndexError at `self.is_tool_result(messages[tail_start])` (tail_start = len(messages))",
            c.snip_max,
            c.snip_head + 1
        ));
    }
    // f9e8b28 and latest's reactive_compact guard only `tail_start > 0`: keeping no message makes
    // tail_start len(messages), and `messages[tail_start]` is out of range (the site also checks
    // `tail_start < len(messages)`).
    if profile.stages.contains(&Stage::Reactive)
        && profile.reactive_small == ReactiveSmall::KeepNothing
        && c.keep_messages == 0
    {
        return Some(
            "keep_messages (0) must be at least 1: the course's reactive_compact would raise IndexError at `self.is_tool_result(messages[tail_start])` (tail_start = len(messages))".to_owned(),
        );
    }
    None
}

/// A scenario's results rendered once, for replays of the same scenario under several profiles
/// (the cells of a Monte Carlo session): each replay shares the text instead of rendering it
/// again (the scenario keeps each result's sizes).
#[derive(Debug, Default)]
pub struct Rendered {
    /// By (step, position in the step's results).
    results: FastMap<(usize, usize), ResultText>,
    /// By step: the assistant message and its `json.dumps` length.
    assistants: FastMap<usize, (Message, usize)>,
    /// The buffers the generated results are prefixes of.
    renderer: Renderer,
}

/// Where a replay's results come from: the scenario, rendered at each step or once for all
/// replays that share a [`Rendered`].
struct Feed<'a> {
    scenario: &'a Scenario,
    rendered: Option<&'a mut Rendered>,
    /// The buffers of generated results without a cache.
    renderer: Renderer,
}

impl Feed<'_> {
    /// The assistant message of step `step` and its `json.dumps` length: built and measured
    /// once for all replays that share the cache; without one, built, and its length the
    /// scenario's (measured once for every replay).
    fn assistant(&mut self, step: usize, spec: &AssistantSpec) -> (Message, usize) {
        let Some(cache) = self.rendered.as_deref_mut() else {
            return (spec.message(), spec.json_chars());
        };
        let (message, json) = cache.assistants.entry(step).or_insert_with(|| {
            let message = spec.message();
            let json = message.json_chars();
            (message, json)
        });
        (message.clone(), *json)
    }

    /// The results of step `step` as they arrive: each with the tool name of its call.
    fn incoming(&mut self, step: usize, results: &[ResultSpec]) -> Vec<IncomingResult> {
        let scenario = self.scenario;
        results
            .iter()
            .enumerate()
            .map(|(at, r)| {
                // A generated body's sizes come from its shape; literal text is the
                // scenario's, measured once for every replay.
                let content = match self.rendered.as_deref_mut() {
                    None => r.body.text(&mut self.renderer),
                    Some(cache) => {
                        let renderer = &mut cache.renderer;
                        let text = cache.results.entry((step, at));
                        text.or_insert_with(|| r.body.text(renderer)).clone()
                    }
                };
                IncomingResult {
                    id: r.id,
                    tool: scenario.calls.get(&r.id).cloned().unwrap_or_default(),
                    content,
                    sizes: r.body.sizes(),
                }
            })
            .collect()
    }
}

/// Appends a message to the history and to the session transcript.
fn append(world: &mut World, message: Message) -> Result<(), RunError> {
    append_with_json(world, message, None)
}

/// [`append`] of a message whose `json.dumps` length is known where given; the length is
/// measured once here when the session transcript needs it, and the history keeps it.
fn append_with_json(
    world: &mut World,
    message: Message,
    json: Option<usize>,
) -> Result<(), RunError> {
    let json = json.or_else(|| {
        world
            .archive
            .session
            .is_some()
            .then(|| message.json_chars())
    });
    if let Some(json) = json {
        archive::log_sized(world, &message, json + 1)?;
    }
    world.push_with_json(message, json);
    Ok(())
}

/// Checks expectations against the current state.
fn check(world: &World, expectations: &[Expectation], step: Option<usize>) -> Vec<CheckOutcome> {
    if expectations.is_empty() {
        return Vec::new();
    }
    evaluate(
        expectations,
        step,
        observables::measure(world),
        |key, expected| match key {
            ExpectKey::Result(id) => {
                let content = world
                    .history
                    .messages()
                    .iter()
                    .flat_map(|m| m.tool_results())
                    .filter(|(rid, _)| *rid == id)
                    .map(|(_, content)| content.to_owned())
                    .last();
                text_measure(content, expected)
            }
            ExpectKey::Message(index) => {
                let text = world
                    .history
                    .context()
                    .get(*index)
                    .and_then(|m| match &m.content {
                        crate::transcript::Content::Text(text) => Some(text.clone()),
                        // Text blocks reach the model concatenated, without a separator.
                        crate::transcript::Content::Blocks(blocks) => blocks
                            .iter()
                            .map(|b| match b {
                                crate::transcript::Block::Text { text } => Some(text.as_str()),
                                _ => None,
                            })
                            .collect::<Option<String>>(),
                    });
                text_measure(text, expected)
            }
            ExpectKey::Observable(_) => unreachable!("evaluate reads observables itself"),
            ExpectKey::Guard(_)
            | ExpectKey::File(_)
            | ExpectKey::Index
            | ExpectKey::System
            | ExpectKey::Recall => {
                unreachable!("memory expectations are rejected before a compaction run")
            }
        },
    )
}

/// Where a run writes: the store backend and its two directories, with the temporary directory
/// that holds them when `--store dir` names none (removed when dropped, after the report).
struct Place {
    store: Box<dyn Store>,
    spill_dir: String,
    transcript_dir: String,
    temp: Option<tempfile::TempDir>,
}

/// The store and directories of a run: the options' if given, else the profile's defaults
/// (unless the scenario names its own), or a fresh temporary directory for `--store dir`.
fn place(scenario: &Scenario, profile: &Profile, options: &RunOptions) -> Result<Place, LabError> {
    let (default_spill, default_transcripts) = match (scenario.dirs_given, profile.default_dirs) {
        (false, Some((spill, transcripts))) => (spill.to_owned(), transcripts.to_owned()),
        _ => (scenario.spill_dir.clone(), scenario.transcript_dir.clone()),
    };
    let mut place = match options.store {
        StoreKind::Memory => {
            let spill_dir = options.spill_dir.clone().unwrap_or(default_spill);
            let transcript_dir = options
                .transcript_dir
                .clone()
                .unwrap_or(default_transcripts);
            Place {
                store: Box::new(MemoryStore::within(&[&spill_dir, &transcript_dir])),
                spill_dir,
                transcript_dir,
                temp: None,
            }
        }
        StoreKind::Dir => dir_place(options, default_spill, default_transcripts)?,
    };
    for (flag, dir, given) in [
        ("--spill-dir", &place.spill_dir, &options.spill_dir),
        (
            "--transcript-dir",
            &place.transcript_dir,
            &options.transcript_dir,
        ),
    ] {
        if !dir.starts_with('/') {
            return Err(LabError::Usage(format!(
                "{flag} must be an absolute path, got `{dir}`"
            )));
        }
        let holds_files = options.store == StoreKind::Dir
            && given.is_some()
            && !store::dir_entries(dir).is_empty();
        if holds_files && !options.reuse_dir {
            return Err(LabError::Usage(format!(
                "{flag} {dir} already holds files; the run would count them as spill files or \
                 overwrite them: give an empty or new directory, or --reuse-dir to leave them \
                 untouched and uncounted"
            )));
        }
    }
    // Below the sandbox both stores see only the run's directories (issue 11, item 1).
    let inner = std::mem::replace(&mut place.store, Box::new(MemoryStore::default()));
    place.store = Box::new(Sandbox::new(
        inner,
        &[&place.spill_dir, &place.transcript_dir],
    ));
    Ok(place)
}

/// The real-directory store of a run: a directory the user did not give keeps its modelled name
/// and lives at that path below a private temporary directory, so that nothing shows the
/// temporary path.
fn dir_place(
    options: &RunOptions,
    default_spill: String,
    default_transcripts: String,
) -> Result<Place, LabError> {
    let spill_dir = options.spill_dir.clone().unwrap_or(default_spill);
    let transcript_dir = options
        .transcript_dir
        .clone()
        .unwrap_or(default_transcripts);
    let hidden: Vec<&str> = [
        (&spill_dir, &options.spill_dir),
        (&transcript_dir, &options.transcript_dir),
    ]
    .into_iter()
    .filter(|(_, given)| given.is_none())
    .map(|(dir, _)| dir.as_str())
    .collect();
    let temp = if hidden.is_empty() {
        None
    } else {
        Some(store::private_temp_dir().map_err(RunError::TempDir)?)
    };
    let store = DirStore::with_hidden(
        &[&spill_dir, &transcript_dir],
        temp.as_ref().map(tempfile::TempDir::path),
        &hidden,
    );
    Ok(Place {
        store: Box::new(store),
        spill_dir,
        transcript_dir,
        temp,
    })
}

/// Sets the world up before the first step: the scripted inputs, the session transcript and the
/// pinned user context of profiles that have them, and the scenario's request (step 0).
fn start(world: &mut World, scenario: &Scenario) -> Result<(), RunError> {
    world.script.summary = scenario.summary.clone();
    world.script.claude_md = scenario.claude_md.clone();
    if world.profile.session_file.is_some() {
        archive::open_session(world);
    }
    if world.profile.claude_md {
        world.history.pin(user_context::claude_md_message(
            scenario.claude_md.as_deref(),
        ));
    }
    if let Some(request) = &scenario.request {
        world.script.active_request = request.clone();
        append(world, Message::user_text(request.clone()))?;
        world.note_peak();
    }
    Ok(())
}

/// Replays one scenario step at the world's current step; `checks` gathers `check` steps.
fn replay_step(
    world: &mut World,
    feed: &mut Feed,
    step: &Step,
    checks: &mut Vec<CheckOutcome>,
) -> Result<(), RunError> {
    let at = world.clock.step;
    match step {
        Step::User(text) => {
            world.script.active_request = text.clone();
            append(world, Message::user_text(text.clone()))?;
        }
        Step::Assistant(spec) => {
            append(world, spec.message())?;
            note_usage(world, spec);
        }
        Step::Results(results) => arrival::deliver(world, feed.incoming(at, results))?,
        Step::Stage(stage) => stages::run(world, *stage)?,
        Step::Prepare => stages::prepare(world)?,
        Step::Turn { assistant, results } => {
            stages::prepare(world)?;
            world.note_peak();
            let (message, json) = feed.assistant(at, assistant);
            append_with_json(world, message, Some(json))?;
            note_usage(world, assistant);
            if !results.is_empty() {
                arrival::deliver(world, feed.incoming(at, results))?;
            }
        }
        &Step::Idle(minutes) => {
            world.clock.idle_minutes = world.clock.idle_minutes.saturating_add(minutes);
            let total = world.clock.idle_minutes;
            world.record(Event::new("scenario", "idle").reason(reason!(
                "{minutes} idle minutes ({total} since the last assistant message)"
            )));
        }
        Step::ContextHint => {
            world.record(
                Event::new("scenario", "context_hint")
                    .reason("the API rejected the request under the context_hint beta".to_owned()),
            );
            stages::run(world, Stage::KeepRecentMc)?;
        }
        Step::Check(list) => checks.extend(check(world, list, Some(world.clock.step))),
        Step::CompactTool { id, calls, results } => {
            compact_tool::run(world, id, calls, &feed.incoming(at, results))?
        }
        Step::Observed(observed) => note_observed(world, observed),
        Step::RemoveFile { dir, name } => world.remove_file(*dir, name)?,
        Step::SelectReply(_)
        | Step::ExtractReply(_)
        | Step::ConsolidateReply(_)
        | Step::Fault { .. }
        | Step::WriteFile { .. }
        | Step::Symlink { .. }
        | Step::Seed(_) => unreachable!("memory steps are rejected before a compaction run"),
    }
    if matches!(step, Step::Assistant(_) | Step::Turn { .. }) {
        world.clock.idle_minutes = 0;
    }
    world.note_peak();
    Ok(())
}

/// Keeps the usage the API reported for the assistant message just appended (imported logs),
/// with the message's index, and traces it.
fn note_usage(world: &mut World, spec: &AssistantSpec) {
    let Some(usage) = spec.usage else {
        return;
    };
    let message = world.history.len().saturating_sub(1);
    world.script.reported_usage = Some((message, usage));
    world.record(Event::new("scenario", "usage").reason(reason!(
        "the API reported {} tokens for message {message} (input {}, cache creation {}, \
         cache read {}, output {})",
        usage.total(),
        usage.input_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
        usage.output_tokens
    )));
}

/// A real agent's event (imported logs): traced, nothing else changes.
fn note_observed(world: &mut World, observed: &Observed) {
    let Observed::Compaction {
        trigger,
        pre_tokens,
        post_tokens,
        summary_chars,
    } = observed;
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
    world.record(Event::new("observed", "compaction").reason(reason));
}

/// The report of a finished run: the final measurements, the messages a request would send,
/// the stores and the trace.
fn report(world: World, scenario: &Scenario, expect: Vec<CheckOutcome>) -> RunReport {
    let spill = world.store.spill_files(&world.spill_dir);
    let (observables, fates) = observables::measure_with_fates(&world, &spill);
    RunReport {
        scenario: scenario.name.clone(),
        profile: world.profile.name.to_owned(),
        context_unit: world.profile.estimator.unit(),
        switches: world.profile.switches.to_value(world.profile.switch_names),
        constants: world
            .profile
            .constants
            .to_value(world.profile.constant_names),
        observables,
        messages: world.history.into_context(),
        spill,
        transcripts: world.archive.transcripts,
        trace: world.trace,
        expect,
        fates,
        file: scenario.file.clone(),
        spill_dir: world.spill_dir,
    }
}

/// A replayed scenario: the world at its end, the outcomes of its checks, and the temporary
/// directory of a `--store dir` run (to be dropped only once the store has been read).
struct Replayed {
    world: World,
    checks: Vec<CheckOutcome>,
    temp: Option<tempfile::TempDir>,
}

/// How many steps ahead a replay prefetches a step's lists; each deeper level of pointers is
/// prefetched two steps nearer (issue 13).
const PREFETCH_AHEAD: usize = 4;

/// Replays every step of a scenario and checks its expectations.
fn replay(
    scenario: &Scenario,
    options: &RunOptions,
    rendered: Option<&mut Rendered>,
) -> Result<Replayed, LabError> {
    crate::allocator::keep_freed_memory();
    let profile = resolve_profile(scenario, options)?;
    let Place {
        store,
        spill_dir,
        transcript_dir,
        temp,
    } = place(scenario, &profile, options)?;
    let mut world = World::new(profile, store, &spill_dir, &transcript_dir);
    let (calls, results) =
        scenario
            .steps
            .iter()
            .fold((0, 0), |(calls, results), step| match step {
                Step::Turn {
                    assistant,
                    results: r,
                } => (calls + assistant.calls.len(), results + r.len()),
                Step::Assistant(spec) => (calls + spec.calls.len(), results),
                Step::Results(r) => (calls, results + r.len()),
                _ => (calls, results),
            });
    // A step appends at most two messages (a turn's call and its results).
    world.reserve(calls, results, 2 * scenario.steps.len() + 1);
    world.archive.holds.unread = !scenario
        .steps
        .iter()
        .any(|step| matches!(step, Step::RemoveFile { .. }));
    start(&mut world, scenario)?;
    let mut checks = Vec::new();
    let mut feed = Feed {
        scenario,
        rendered,
        renderer: Renderer::default(),
    };
    for (index, step) in scenario.steps.iter().enumerate() {
        // The steps ahead are brought into the cache, a level of pointers deeper two steps
        // nearer ([`Step::prefetch`]).
        if let Some(ahead) = scenario.steps.get(index + PREFETCH_AHEAD) {
            ahead.prefetch(false);
        }
        if let Some(ahead) = scenario.steps.get(index + PREFETCH_AHEAD - 2) {
            ahead.prefetch(true);
        }
        world.clock.step = index + 1;
        replay_step(&mut world, &mut feed, step, &mut checks)?;
    }
    checks.extend(check(&world, &scenario.expect, None));
    Ok(Replayed {
        world,
        checks,
        temp,
    })
}

/// Runs a scenario to the end and measures it.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Result<RunReport, LabError> {
    let Replayed {
        world,
        checks,
        temp,
    } = replay(scenario, options, None)?;
    let report = report(world, scenario, checks);
    // The temporary directory goes only once the report has read the spill store.
    drop(temp);
    Ok(report)
}

/// What a Monte Carlo session reads of a run: its observables and the common tokens of its
/// final context ([`profile::common_tokens`]), as [`run`]'s report holds them, without building
/// the report (fates, trace, spill listing, the context's messages). The results come from
/// `rendered`, shared by the runs of one scenario.
pub fn run_observed(
    scenario: &Scenario,
    options: &RunOptions,
    rendered: &mut Rendered,
) -> Result<(Observables, usize), LabError> {
    let Replayed { world, temp, .. } = replay(scenario, options, Some(rendered))?;
    let observed = (observables::measure(&world), world.history.common_tokens());
    drop(world);
    drop(temp);
    Ok(observed)
}
