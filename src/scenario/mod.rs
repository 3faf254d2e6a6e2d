//! Scenario files (SPEC §3): a scripted agent session and, optionally, what it must show.
//!
//! Loading reads the JSON (malformed JSON is reported with line and column), then checks every
//! field by hand so that each error names the file, the step and what was expected. Checks that
//! depend on the profile (stage names, switches, constants) run in [`Scenario::validate_for`],
//! also before anything runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use crate::compaction::observables::OBSERVABLE_NAMES;
use crate::compaction::profile::{Profile, Stage};
use crate::compaction::switches::SwitchName;
use crate::error::ScenarioError;
use crate::memory::world::Reply;
use crate::transcript::{Block, Message, Role};

/// Default virtual spill directory.
pub const DEFAULT_SPILL_DIR: &str = "/lab/.task_outputs/tool-results";
/// Default virtual transcript directory.
pub const DEFAULT_TRANSCRIPT_DIR: &str = "/lab/.transcripts";

/// How a result's text is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Literal text.
    Text(String),
    /// `N` times `x`.
    Chars(usize),
    /// `lines` lines of `width` `x`, joined by `\n`.
    Lines { lines: usize, width: usize },
}

impl Body {
    /// The text of the result.
    pub fn render(&self) -> String {
        match self {
            Body::Text(text) => text.clone(),
            Body::Chars(n) => "x".repeat(*n),
            Body::Lines { lines, width } => {
                let line = "x".repeat(*width);
                vec![line; *lines].join("\n")
            }
        }
    }
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub input: Map<String, Value>,
}

/// One tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultSpec {
    pub id: String,
    pub body: Body,
}

/// A scripted assistant message: optional text, then tool calls.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantSpec {
    pub text: Option<String>,
    pub calls: Vec<Call>,
}

/// What an expectation looks at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExpectKey {
    /// An observable by name.
    Observable(String),
    /// The final content of one result (`result:<id>`).
    Result(String),
    /// The text of one message of what the next request sends, counted from 0 (`message:<n>`).
    Message(usize),
    /// Memory: the path guard's verdict on a filename (`guard:<name>`): `ok` or the message.
    Guard(String),
    /// Memory: the text of a file of the store (`file:<name>`).
    File(String),
    /// Memory: the text of MEMORY.md.
    Index,
    /// Memory: the system prompt of the last agent turn.
    System,
    /// Memory: the recalled text of the last agent turn (`recall`).
    Recall,
}

impl ExpectKey {
    pub fn label(&self) -> String {
        match self {
            ExpectKey::Observable(name) => name.clone(),
            ExpectKey::Result(id) => format!("result:{id}"),
            ExpectKey::Message(index) => format!("message:{index}"),
            ExpectKey::Guard(name) => format!("guard:{name}"),
            ExpectKey::File(name) => format!("file:{name}"),
            ExpectKey::Index => "index".to_owned(),
            ExpectKey::System => "system".to_owned(),
            ExpectKey::Recall => "recall".to_owned(),
        }
    }
}

/// One expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub key: ExpectKey,
    pub expected: Value,
}

/// One scenario step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A new user request.
    User(String),
    /// A scripted assistant message.
    Assistant(AssistantSpec),
    /// One user message of tool results.
    Results(Vec<ResultSpec>),
    /// One stage of the profile.
    Stage(Stage),
    /// The profile's whole pipeline.
    Prepare,
    /// One agent-loop step: prepare, the assistant message, its results.
    Turn {
        assistant: AssistantSpec,
        results: Vec<ResultSpec>,
    },
    /// Minutes pass without an assistant message.
    Idle(u64),
    /// Expectations checked at this point of the run.
    Check(Vec<Expectation>),
    /// The model called the `compact` tool in the assistant message just before: the results of
    /// its other calls, and the profile's compact-tool behaviour.
    CompactTool {
        /// The id of the `compact` call.
        id: String,
        /// The calls of that assistant message, in order (compact included).
        calls: Vec<String>,
        /// Results of the other calls.
        results: Vec<ResultSpec>,
    },
    /// Memory: the selector's next reply.
    SelectReply(Reply),
    /// Memory: the extractor's next reply.
    ExtractReply(Reply),
    /// Memory: the consolidator's next reply.
    ConsolidateReply(Reply),
    /// Memory: a one-shot fault, the operation after `N` successful ones fails.
    Fault {
        write_after: Option<usize>,
        delete_after: Option<usize>,
    },
    /// Memory: the agent's generic file tool writes a file into the store (no gate, no index).
    WriteFile { name: String, text: String },
    /// Memory: a symlink in the store (`.` for the store itself) to an outside file with `text`.
    Symlink {
        name: String,
        target: String,
        text: String,
    },
    /// Memory: records written through `write_memory_file`, as an earlier session left them.
    Seed(Vec<SeedRecord>),
}

/// A record of a `seed` step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRecord {
    pub name: String,
    pub kind: String,
    pub description: String,
    pub body: String,
}

impl Step {
    /// The step's key, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::User(_) => "user",
            Step::Assistant(_) => "assistant",
            Step::Results(_) => "results",
            Step::Stage(_) => "stage",
            Step::Prepare => "prepare",
            Step::Turn { .. } => "turn",
            Step::Idle(_) => "idle",
            Step::Check(_) => "check",
            Step::CompactTool { .. } => "compact_tool",
            Step::SelectReply(_) => "select_reply",
            Step::ExtractReply(_) => "extract_reply",
            Step::ConsolidateReply(_) => "consolidate_reply",
            Step::Fault { .. } => "fault",
            Step::WriteFile { .. } => "write_file",
            Step::Symlink { .. } => "symlink",
            Step::Seed(_) => "seed",
        }
    }

    /// True for the steps of memory profiles.
    pub fn is_memory(&self) -> bool {
        matches!(
            self,
            Step::SelectReply(_)
                | Step::ExtractReply(_)
                | Step::ConsolidateReply(_)
                | Step::Fault { .. }
                | Step::WriteFile { .. }
                | Step::Symlink { .. }
                | Step::Seed(_)
        )
    }

    /// True for the steps only compaction profiles run.
    pub fn is_compaction(&self) -> bool {
        matches!(
            self,
            Step::Stage(_) | Step::Prepare | Step::Idle(_) | Step::CompactTool { .. }
        )
    }
}

/// A loaded, structurally valid scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file it came from (as given), for messages.
    pub file: String,
    pub name: String,
    pub about: Option<String>,
    pub source: Option<String>,
    pub profile: Option<String>,
    pub request: Option<String>,
    pub spill_dir: String,
    pub transcript_dir: String,
    /// The file names its directories (else a profile may use its own defaults).
    pub dirs_given: bool,
    /// Constant overrides, in file order.
    pub constants: Vec<(String, usize)>,
    /// Switch overrides, in file order.
    pub switches: Vec<(String, String)>,
    /// Scripted summary text for every summariser call.
    pub summary: Option<String>,
    /// Project instructions (CLAUDE.md) for profiles that re-inject them on every request.
    pub claude_md: Option<String>,
    pub steps: Vec<Step>,
    pub expect: Vec<Expectation>,
    /// Tool name of every call id.
    pub calls: BTreeMap<String, String>,
}

const TOP_KEYS: &[&str] = &[
    "name",
    "about",
    "source",
    "profile",
    "request",
    "spill_dir",
    "transcript_dir",
    "constants",
    "switches",
    "summary",
    "claude_md",
    "steps",
    "expect",
];
const STEP_KEYS: &[&str] = &[
    "user",
    "assistant",
    "results",
    "stage",
    "prepare",
    "turn",
    "idle",
    "check",
    "compact_tool",
    "select_reply",
    "extract_reply",
    "consolidate_reply",
    "fault",
    "write_file",
    "symlink",
    "seed",
];

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, location: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            file: self.file.to_owned(),
            location: location.into(),
            message: message.into(),
        }
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check_keys(
    ctx: &Ctx,
    at: &str,
    map: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), ScenarioError> {
    for key in map.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(ctx.err(
                at,
                format!(
                    "unknown key `{key}` (expected one of: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn as_str<'v>(ctx: &Ctx, at: &str, what: &str, value: &'v Value) -> Result<&'v str, ScenarioError> {
    value.as_str().ok_or_else(|| {
        ctx.err(
            at,
            format!("`{what}` must be a string, got {}", type_name(value)),
        )
    })
}

fn as_size(ctx: &Ctx, at: &str, what: &str, value: &Value) -> Result<usize, ScenarioError> {
    let bad = || {
        ctx.err(
            at,
            format!("`{what}` must be a non-negative integer, got {value}"),
        )
    };
    let Value::Number(number) = value else {
        return Err(bad());
    };
    let literal = number.to_string();
    if literal.contains(['.', 'e', 'E', '-']) {
        return Err(bad());
    }
    literal.parse::<usize>().map_err(|_| bad())
}

fn as_object<'v>(
    ctx: &Ctx,
    at: &str,
    what: &str,
    value: &'v Value,
) -> Result<&'v Map<String, Value>, ScenarioError> {
    value.as_object().ok_or_else(|| {
        ctx.err(
            at,
            format!("`{what}` must be an object, got {}", type_name(value)),
        )
    })
}

fn as_array<'v>(
    ctx: &Ctx,
    at: &str,
    what: &str,
    value: &'v Value,
) -> Result<&'v Vec<Value>, ScenarioError> {
    value.as_array().ok_or_else(|| {
        ctx.err(
            at,
            format!("`{what}` must be an array, got {}", type_name(value)),
        )
    })
}

/// Calls issued so far and results already given, to check ids while loading.
#[derive(Default)]
struct Ids {
    calls: BTreeMap<String, String>,
    answered: BTreeSet<String>,
    /// The calls of the previous step if it was an `assistant` step.
    last_assistant: Option<Vec<Call>>,
}

impl Ids {
    fn call(&mut self, ctx: &Ctx, at: &str, call: &Call) -> Result<(), ScenarioError> {
        if self.calls.contains_key(&call.id) {
            return Err(ctx.err(
                at,
                format!(
                    "call id `{}` is used twice (tool_use ids must be unique)",
                    call.id
                ),
            ));
        }
        self.calls.insert(call.id.clone(), call.name.clone());
        Ok(())
    }

    fn answer(&mut self, ctx: &Ctx, at: &str, id: &str) -> Result<(), ScenarioError> {
        if !self.calls.contains_key(id) {
            return Err(ctx.err(
                at,
                format!("result for `{id}`, which no earlier assistant message called"),
            ));
        }
        if !self.answered.insert(id.to_owned()) {
            return Err(ctx.err(at, format!("second result for `{id}`")));
        }
        Ok(())
    }
}

fn parse_call(ctx: &Ctx, at: &str, value: &Value) -> Result<Call, ScenarioError> {
    let map = as_object(ctx, at, "calls[]", value)?;
    check_keys(ctx, at, map, &["id", "name", "input"])?;
    let id = map
        .get("id")
        .ok_or_else(|| ctx.err(at, "a call needs an `id`"))?;
    let id = as_str(ctx, at, "id", id)?.to_owned();
    let name = match map.get("name") {
        Some(name) => as_str(ctx, at, "name", name)?.to_owned(),
        None => "bash".to_owned(),
    };
    let input = match map.get("input") {
        Some(input) => as_object(ctx, at, "input", input)?.clone(),
        None => Map::new(),
    };
    Ok(Call { id, name, input })
}

fn parse_assistant(
    ctx: &Ctx,
    at: &str,
    value: &Value,
    ids: &mut Ids,
    extra: &[&str],
) -> Result<AssistantSpec, ScenarioError> {
    let map = as_object(ctx, at, "assistant", value)?;
    let mut allowed = vec!["text", "calls"];
    allowed.extend_from_slice(extra);
    check_keys(ctx, at, map, &allowed)?;
    let text = match map.get("text") {
        Some(text) => Some(as_str(ctx, at, "text", text)?.to_owned()),
        None => None,
    };
    let mut calls = Vec::new();
    if let Some(list) = map.get("calls") {
        for item in as_array(ctx, at, "calls", list)? {
            let call = parse_call(ctx, at, item)?;
            ids.call(ctx, at, &call)?;
            calls.push(call);
        }
    }
    if text.is_none() && calls.is_empty() {
        return Err(ctx.err(at, "an assistant message needs `text` or at least one call"));
    }
    Ok(AssistantSpec { text, calls })
}

fn parse_result(ctx: &Ctx, at: &str, value: &Value) -> Result<ResultSpec, ScenarioError> {
    let map = as_object(ctx, at, "results[]", value)?;
    check_keys(ctx, at, map, &["id", "text", "chars", "lines", "width"])?;
    let id = map
        .get("id")
        .ok_or_else(|| ctx.err(at, "a result needs an `id`"))?;
    let id = as_str(ctx, at, "id", id)?.to_owned();
    let at_id = format!("{at}, result `{id}`");
    let given: Vec<&str> = ["text", "chars", "lines"]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    if given.len() != 1 {
        return Err(ctx.err(
            &at_id,
            "give exactly one of `text`, `chars` or `lines` (with optional `width`)",
        ));
    }
    if map.contains_key("width") && given[0] != "lines" {
        return Err(ctx.err(&at_id, "`width` goes with `lines`"));
    }
    let body = match given[0] {
        "text" => Body::Text(as_str(ctx, &at_id, "text", &map["text"])?.to_owned()),
        "chars" => Body::Chars(as_size(ctx, &at_id, "chars", &map["chars"])?),
        _ => Body::Lines {
            lines: as_size(ctx, &at_id, "lines", &map["lines"])?,
            width: match map.get("width") {
                Some(width) => as_size(ctx, &at_id, "width", width)?,
                None => 80,
            },
        },
    };
    Ok(ResultSpec { id, body })
}

fn parse_results(
    ctx: &Ctx,
    at: &str,
    value: &Value,
    ids: &mut Ids,
) -> Result<Vec<ResultSpec>, ScenarioError> {
    let list = as_array(ctx, at, "results", value)?;
    if list.is_empty() {
        return Err(ctx.err(at, "`results` needs at least one result"));
    }
    let mut results = Vec::new();
    for item in list {
        let result = parse_result(ctx, at, item)?;
        ids.answer(ctx, at, &result.id)?;
        results.push(result);
    }
    Ok(results)
}

fn parse_expect(ctx: &Ctx, at: &str, value: &Value) -> Result<Vec<Expectation>, ScenarioError> {
    let map = as_object(ctx, at, "expect", value)?;
    let mut out = Vec::new();
    for (key, expected) in map {
        let text_like = expected.is_string()
            || expected.is_null()
            || expected
                .as_object()
                .is_some_and(|m| m.len() == 1 && m.get("chars").is_some_and(Value::is_u64));
        let key = if let Some(id) = key.strip_prefix("result:") {
            if !text_like {
                return Err(ctx.err(
                    format!("{at} `{key}`"),
                    "a result expectation is the exact text, {\"chars\": N}, or null (not in context)",
                ));
            }
            ExpectKey::Result(id.to_owned())
        } else if let Some(index) = key.strip_prefix("message:") {
            let index = index.parse().map_err(|_| {
                ctx.err(
                    format!("{at} `{key}`"),
                    "`message:<n>` takes a message index from 0",
                )
            })?;
            if !text_like {
                return Err(ctx.err(
                    format!("{at} `{key}`"),
                    "a message expectation is the exact text, {\"chars\": N}, or null (no such message or not text)",
                ));
            }
            ExpectKey::Message(index)
        } else if let Some(name) = key.strip_prefix("guard:") {
            if !expected.is_string() {
                return Err(ctx.err(
                    format!("{at} `{key}`"),
                    "a guard expectation is `ok` or the exact error message",
                ));
            }
            ExpectKey::Guard(name.to_owned())
        } else if let Some(name) = key.strip_prefix("file:") {
            if !text_like {
                return Err(ctx.err(
                    format!("{at} `{key}`"),
                    "a file expectation is the exact text, {\"chars\": N}, or null (no such file)",
                ));
            }
            ExpectKey::File(name.to_owned())
        } else if key == "index" || key == "system" || key == "recall" {
            if !text_like {
                return Err(ctx.err(
                    format!("{at} `{key}`"),
                    "expected the exact text, {\"chars\": N}, or null",
                ));
            }
            match key.as_str() {
                "index" => ExpectKey::Index,
                "system" => ExpectKey::System,
                _ => ExpectKey::Recall,
            }
        } else if OBSERVABLE_NAMES.contains(&key.as_str())
            || crate::memory::observables::MEMORY_OBSERVABLE_NAMES.contains(&key.as_str())
        {
            ExpectKey::Observable(key.clone())
        } else {
            return Err(ctx.err(
                at,
                format!(
                    "unknown observable `{key}` (expected `result:<id>`, `message:<n>` or one of: {})",
                    OBSERVABLE_NAMES.join(", ")
                ),
            ));
        };
        out.push(Expectation {
            key,
            expected: expected.clone(),
        });
    }
    Ok(out)
}

fn check_expect_ids(
    ctx: &Ctx,
    at: &str,
    expect: &[Expectation],
    calls: &BTreeMap<String, String>,
) -> Result<(), ScenarioError> {
    for expectation in expect {
        if let ExpectKey::Result(id) = &expectation.key {
            if !calls.contains_key(id) {
                return Err(ctx.err(at, format!("`result:{id}` names an id no step calls")));
            }
        }
    }
    Ok(())
}

fn parse_step(
    ctx: &Ctx,
    index: usize,
    value: &Value,
    ids: &mut Ids,
) -> Result<Step, ScenarioError> {
    let at = format!("step {}", index + 1);
    let map = value.as_object().ok_or_else(|| {
        ctx.err(
            &at,
            format!(
                "a step must be an object with one key ({}), got {}",
                STEP_KEYS.join(", "),
                type_name(value)
            ),
        )
    })?;
    if map.len() != 1 {
        return Err(ctx.err(
            &at,
            format!(
                "a step has exactly one key ({}), got {}",
                STEP_KEYS.join(", "),
                map.len()
            ),
        ));
    }
    let (key, payload) = map.iter().next().expect("one key checked above");
    let at = format!("step {} ({key})", index + 1);
    let previous_assistant = if key == "check" {
        ids.last_assistant.clone()
    } else {
        ids.last_assistant.take()
    };
    let step = match key.as_str() {
        "user" => Step::User(as_str(ctx, &at, "user", payload)?.to_owned()),
        "assistant" => {
            let spec = parse_assistant(ctx, &at, payload, ids, &[])?;
            ids.last_assistant = Some(spec.calls.clone());
            Step::Assistant(spec)
        }
        "compact_tool" => {
            let map = as_object(ctx, &at, "compact_tool", payload)?;
            check_keys(ctx, &at, map, &["results"])?;
            let calls = previous_assistant.unwrap_or_default();
            let compact = calls.iter().find(|c| c.name == "compact").ok_or_else(|| {
                ctx.err(
                    &at,
                    "compact_tool must follow an assistant step with a call named `compact`",
                )
            })?;
            let results = match map.get("results") {
                Some(list) if list.as_array().is_some_and(|l| l.is_empty()) => Vec::new(),
                Some(list) => parse_results(ctx, &at, list, ids)?,
                None => Vec::new(),
            };
            for call in calls.iter().filter(|c| c.name != "compact") {
                if !results.iter().any(|r| r.id == call.id) {
                    return Err(ctx.err(&at, format!("call `{}` has no result", call.id)));
                }
            }
            for result in &results {
                if result.id == compact.id {
                    return Err(ctx.err(
                        &at,
                        format!(
                            "`{}` is the compact call: its result comes from the profile",
                            result.id
                        ),
                    ));
                }
                if !calls.iter().any(|c| c.id == result.id) {
                    return Err(ctx.err(
                        &at,
                        format!(
                            "result `{}` answers no call of the previous assistant step",
                            result.id
                        ),
                    ));
                }
            }
            ids.answer(ctx, &at, &compact.id)?;
            Step::CompactTool {
                id: compact.id.clone(),
                calls: calls.iter().map(|c| c.id.clone()).collect(),
                results,
            }
        }
        "results" => Step::Results(parse_results(ctx, &at, payload, ids)?),
        "stage" => {
            let name = as_str(ctx, &at, "stage", payload)?;
            Step::Stage(Stage::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Stage::ALL.iter().map(|s| s.as_str()).collect();
                ctx.err(
                    &at,
                    format!(
                        "unknown stage `{name}` (expected one of: {})",
                        known.join(", ")
                    ),
                )
            })?)
        }
        "prepare" => {
            if payload != &Value::Bool(true) {
                return Err(ctx.err(&at, "write the prepare step as {\"prepare\": true}"));
            }
            Step::Prepare
        }
        "turn" => {
            let assistant = parse_assistant(ctx, &at, payload, ids, &["results"])?;
            let results = match payload.get("results") {
                Some(list) => parse_results(ctx, &at, list, ids)?,
                None => Vec::new(),
            };
            let called: Vec<&str> = assistant.calls.iter().map(|c| c.id.as_str()).collect();
            let answered: BTreeSet<&str> = results.iter().map(|r| r.id.as_str()).collect();
            for id in &called {
                if !answered.contains(id) {
                    return Err(ctx.err(&at, format!("call `{id}` has no result in this turn")));
                }
            }
            for result in &results {
                if !called.contains(&result.id.as_str()) {
                    return Err(ctx.err(
                        &at,
                        format!("result `{}` answers no call of this turn", result.id),
                    ));
                }
            }
            // The agent loop appends results in call order.
            let mut ordered = results;
            ordered.sort_by_key(|r| called.iter().position(|c| *c == r.id));
            Step::Turn {
                assistant,
                results: ordered,
            }
        }
        "idle" => Step::Idle(as_size(ctx, &at, "idle", payload)? as u64),
        "select_reply" => Step::SelectReply(parse_reply(ctx, &at, payload)?),
        "extract_reply" => Step::ExtractReply(parse_reply(ctx, &at, payload)?),
        "consolidate_reply" => Step::ConsolidateReply(parse_reply(ctx, &at, payload)?),
        "fault" => {
            let map = as_object(ctx, &at, "fault", payload)?;
            check_keys(ctx, &at, map, &["fail_write_after", "fail_delete_after"])?;
            let get = |key: &str| -> Result<Option<usize>, ScenarioError> {
                map.get(key).map(|v| as_size(ctx, &at, key, v)).transpose()
            };
            let (write_after, delete_after) = (get("fail_write_after")?, get("fail_delete_after")?);
            if write_after.is_none() && delete_after.is_none() {
                return Err(ctx.err(
                    &at,
                    "a fault needs `fail_write_after` or `fail_delete_after`",
                ));
            }
            Step::Fault {
                write_after,
                delete_after,
            }
        }
        "write_file" => {
            let map = as_object(ctx, &at, "write_file", payload)?;
            check_keys(ctx, &at, map, &["name", "text"])?;
            let name = as_str(
                ctx,
                &at,
                "name",
                map.get("name")
                    .ok_or_else(|| ctx.err(&at, "write_file needs a `name`"))?,
            )?;
            let text = as_str(
                ctx,
                &at,
                "text",
                map.get("text")
                    .ok_or_else(|| ctx.err(&at, "write_file needs a `text`"))?,
            )?;
            Step::WriteFile {
                name: name.to_owned(),
                text: text.to_owned(),
            }
        }
        "symlink" => {
            let map = as_object(ctx, &at, "symlink", payload)?;
            check_keys(ctx, &at, map, &["name", "target", "text"])?;
            let field = |key: &str| -> Result<String, ScenarioError> {
                let value = map
                    .get(key)
                    .ok_or_else(|| ctx.err(&at, format!("symlink needs `{key}`")))?;
                Ok(as_str(ctx, &at, key, value)?.to_owned())
            };
            let target = field("target")?;
            if !target.starts_with('/') {
                return Err(ctx.err(&at, "a symlink `target` is an absolute path"));
            }
            Step::Symlink {
                name: field("name")?,
                target,
                text: map
                    .get("text")
                    .map(|v| as_str(ctx, &at, "text", v).map(str::to_owned))
                    .transpose()?
                    .unwrap_or_default(),
            }
        }
        "seed" => {
            let mut records = Vec::new();
            for item in as_array(ctx, &at, "seed", payload)? {
                let map = as_object(ctx, &at, "seed[]", item)?;
                check_keys(ctx, &at, map, &["name", "type", "description", "body"])?;
                let field = |key: &str| -> Result<String, ScenarioError> {
                    let value = map
                        .get(key)
                        .ok_or_else(|| ctx.err(&at, format!("a seed record needs `{key}`")))?;
                    Ok(as_str(ctx, &at, key, value)?.to_owned())
                };
                records.push(SeedRecord {
                    name: field("name")?,
                    kind: field("type")?,
                    description: field("description")?,
                    body: field("body")?,
                });
            }
            Step::Seed(records)
        }
        "check" => Step::Check(parse_expect(ctx, &at, payload)?),
        other => {
            return Err(ctx.err(
                &at,
                format!(
                    "unknown step `{other}` (expected one of: {})",
                    STEP_KEYS.join(", ")
                ),
            ));
        }
    };
    Ok(step)
}

fn parse_reply(ctx: &Ctx, at: &str, value: &Value) -> Result<Reply, ScenarioError> {
    match value {
        Value::String(text) => Ok(Reply::Text(text.clone())),
        Value::Object(map) if map.len() == 1 && map.get("raise").is_some_and(Value::is_string) => {
            Ok(Reply::Raise(
                map["raise"].as_str().unwrap_or_default().to_owned(),
            ))
        }
        other => Err(ctx.err(
            at,
            format!(
                "a reply is the model's text or {{\"raise\": \"message\"}}, got {}",
                type_name(other)
            ),
        )),
    }
}

fn parse_dir(
    ctx: &Ctx,
    key: &str,
    value: Option<&Value>,
    default: &str,
) -> Result<String, ScenarioError> {
    match value {
        None => Ok(default.to_owned()),
        Some(value) => {
            let dir = as_str(ctx, "top level", key, value)?;
            if !dir.starts_with('/') {
                return Err(ctx.err(
                    "top level",
                    format!("`{key}` must be an absolute path, got `{dir}`"),
                ));
            }
            Ok(dir.to_owned())
        }
    }
}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            file: file.clone(),
            source,
        })?;
        let default_name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.clone());
        Scenario::parse(&file, &default_name, &text)
    }

    /// Parses and checks scenario text; `file` names it in errors.
    pub fn parse(file: &str, default_name: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ScenarioError::Json {
            file: file.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or("")
                .to_owned(),
        })?;
        Scenario::from_value(file, default_name, &value)
    }

    /// Checks a parsed JSON value.
    pub fn from_value(
        file: &str,
        default_name: &str,
        value: &Value,
    ) -> Result<Scenario, ScenarioError> {
        let ctx = Ctx { file };
        let top = as_object(&ctx, "top level", "the scenario", value)?;
        check_keys(&ctx, "top level", top, TOP_KEYS)?;
        let text_field = |key: &str| -> Result<Option<String>, ScenarioError> {
            match top.get(key) {
                Some(v) => Ok(Some(as_str(&ctx, "top level", key, v)?.to_owned())),
                None => Ok(None),
            }
        };
        let name = text_field("name")?.unwrap_or_else(|| default_name.to_owned());
        let mut constants = Vec::new();
        if let Some(map) = top.get("constants") {
            for (key, value) in as_object(&ctx, "top level", "constants", map)? {
                let at = format!("constants.{key}");
                constants.push((key.clone(), as_size(&ctx, &at, key, value)?));
            }
        }
        let mut switches = Vec::new();
        if let Some(map) = top.get("switches") {
            for (key, value) in as_object(&ctx, "top level", "switches", map)? {
                let text = match value {
                    Value::Bool(true) => "on".to_owned(),
                    Value::Bool(false) => "off".to_owned(),
                    Value::String(s) => s.clone(),
                    other => {
                        return Err(ctx.err(
                            format!("switches.{key}"),
                            format!(
                                "a switch is true/false or a string, got {}",
                                type_name(other)
                            ),
                        ));
                    }
                };
                switches.push((key.clone(), text));
            }
        }
        let steps_value = top
            .get("steps")
            .ok_or_else(|| ctx.err("top level", "missing `steps` (an array of steps)"))?;
        let mut ids = Ids::default();
        let mut steps = Vec::new();
        for (index, step) in as_array(&ctx, "top level", "steps", steps_value)?
            .iter()
            .enumerate()
        {
            steps.push(parse_step(&ctx, index, step, &mut ids)?);
        }
        let expect = match top.get("expect") {
            Some(value) => parse_expect(&ctx, "expect", value)?,
            None => Vec::new(),
        };
        check_expect_ids(&ctx, "expect", &expect, &ids.calls)?;
        for (index, step) in steps.iter().enumerate() {
            if let Step::Check(list) = step {
                check_expect_ids(
                    &ctx,
                    &format!("step {} (check)", index + 1),
                    list,
                    &ids.calls,
                )?;
            }
        }
        Ok(Scenario {
            file: file.to_owned(),
            name,
            about: text_field("about")?,
            source: text_field("source")?,
            profile: text_field("profile")?,
            request: text_field("request")?,
            spill_dir: parse_dir(&ctx, "spill_dir", top.get("spill_dir"), DEFAULT_SPILL_DIR)?,
            transcript_dir: parse_dir(
                &ctx,
                "transcript_dir",
                top.get("transcript_dir"),
                DEFAULT_TRANSCRIPT_DIR,
            )?,
            dirs_given: top.contains_key("spill_dir") || top.contains_key("transcript_dir"),
            constants,
            switches,
            summary: text_field("summary")?,
            claude_md: text_field("claude_md")?,
            steps,
            expect,
            calls: ids.calls,
        })
    }

    /// Checks what depends on the profile: stages it has, its switches and constants.
    pub fn validate_for(&self, profile: &Profile) -> Result<(), ScenarioError> {
        let ctx = Ctx { file: &self.file };
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
        let memory_key = |e: &Expectation| {
            matches!(
                e.key,
                ExpectKey::Guard(_)
                    | ExpectKey::File(_)
                    | ExpectKey::Index
                    | ExpectKey::System
                    | ExpectKey::Recall
            ) || matches!(&e.key, ExpectKey::Observable(n) if !OBSERVABLE_NAMES.contains(&n.as_str()))
        };
        let checks = self.steps.iter().flat_map(|s| match s {
            Step::Check(list) => list.as_slice(),
            _ => &[],
        });
        if let Some(e) = self.expect.iter().chain(checks).find(|e| memory_key(e)) {
            return Err(ctx.err(
                "expect",
                format!(
                    "`{}` belongs to memory profiles; profile {} is a compaction profile",
                    e.key.label(),
                    profile.name
                ),
            ));
        }
        for (index, step) in self.steps.iter().enumerate() {
            if step.is_memory() {
                return Err(ctx.err(
                    format!("step {} ({})", index + 1, step.kind()),
                    format!(
                        "profile {} is a compaction profile: it has no memory store",
                        profile.name
                    ),
                ));
            }
            if matches!(step, Step::CompactTool { .. })
                && profile.compact_tool == crate::compaction::profile::CompactTool::Absent
            {
                return Err(ctx.err(
                    format!("step {} (compact_tool)", index + 1),
                    format!("profile {} has no compact tool", profile.name),
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
        }
        Ok(())
    }
}

impl AssistantSpec {
    /// The assistant message of this step: a text block, then tool_use blocks.
    pub(crate) fn message(&self) -> Message {
        let mut blocks = Vec::new();
        if let Some(text) = &self.text {
            blocks.push(Block::Text { text: text.clone() });
        }
        for call in &self.calls {
            blocks.push(Block::ToolUse {
                id: call.id.clone(),
                name: call.name.clone(),
                input: call.input.clone(),
            });
        }
        Message::blocks(Role::Assistant, blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse("s.json", "s", text)
    }

    fn message(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn minimal_scenario_and_defaults() {
        let s = parse(
            r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}},
                          {"results": [{"id": "t1", "lines": 2, "width": 3}]}, {"prepare": true}]}"#,
        )
        .unwrap();
        assert_eq!(s.name, "s");
        assert_eq!(s.spill_dir, DEFAULT_SPILL_DIR);
        assert_eq!(s.calls["t1"], "bash");
        match &s.steps[1] {
            Step::Results(results) => assert_eq!(results[0].body.render(), "xxx\nxxx"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_json_has_line_and_column() {
        let error = message("{\n  \"steps\": [\n    {\"user\": \"a\",}\n  ]\n}");
        assert!(
            error.starts_with("parse s.json: invalid JSON at line 3, column"),
            "{error}"
        );
    }

    #[test]
    fn unknown_step_names_the_step() {
        let error = message(r#"{"steps": [{"user": "a"}, {"dance": true}]}"#);
        assert!(
            error.contains("step 2 (dance): unknown step `dance`"),
            "{error}"
        );
    }

    #[test]
    fn result_for_an_uncalled_id() {
        let error = message(r#"{"steps": [{"results": [{"id": "t9", "chars": 5}]}]}"#);
        assert!(error.contains("step 1 (results)"), "{error}");
        assert!(
            error.contains("`t9`, which no earlier assistant message called"),
            "{error}"
        );
    }

    #[test]
    fn duplicate_call_id() {
        let error = message(
            r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}},
                          {"assistant": {"calls": [{"id": "t1"}]}}]}"#,
        );
        assert!(
            error.contains("step 2 (assistant): call id `t1` is used twice"),
            "{error}"
        );
    }

    #[test]
    fn negative_and_fractional_sizes() {
        let base = r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}}, {"results": [{"id": "t1", "chars": SIZE}]}]}"#;
        for size in ["-5", "2.5", "\"10\"", "1e3"] {
            let error = message(&base.replace("SIZE", size));
            assert!(
                error.contains(
                    "step 2 (results), result `t1`: `chars` must be a non-negative integer"
                ),
                "{size}: {error}"
            );
        }
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let error = message(r#"{"steps": [], "colour": 1}"#);
        assert!(error.contains("unknown key `colour`"), "{error}");
        let error =
            message(r#"{"steps": [{"assistant": {"calls": [{"id": "t1", "nmae": "x"}]}}]}"#);
        assert!(
            error.contains("step 1 (assistant): unknown key `nmae`"),
            "{error}"
        );
    }

    #[test]
    fn unknown_observable_in_expect() {
        let error = message(r#"{"steps": [], "expect": {"lost": 1}}"#);
        assert!(
            error.contains("expect: unknown observable `lost`"),
            "{error}"
        );
    }

    #[test]
    fn turn_results_must_match_calls() {
        let error = message(
            r#"{"steps": [{"turn": {"calls": [{"id": "a"}, {"id": "b"}], "results": [{"id": "a", "chars": 1}]}}]}"#,
        );
        assert!(
            error.contains("step 1 (turn): call `b` has no result"),
            "{error}"
        );
    }
}
