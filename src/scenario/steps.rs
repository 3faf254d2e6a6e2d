//! The step kinds of a scenario file (docs/scenario-format.md `steps`), written once: [`STEPS`]
//! holds, for each kind, its key (`{"turn": ...}`), the profiles that run it, the keys its payload
//! may have and its parser. [`Step::kind`], [`Step::is_memory`], [`Step::is_compaction`] and the
//! lists in error messages all read the table, so adding a step kind is one row, one parser and one
//! [`Step`] variant.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::calls::{Ids, parse_assistant, parse_results};
use super::expect::parse_expect;
use super::fields::{Ctx, as_array, as_object, as_size, as_str, check_keys, type_name};
use super::{Observed, SeedRecord, Step, StoreDir};
use crate::compaction::profile::Stage;
use crate::error::ScenarioError;
use crate::memory::world::Reply;

/// Which profiles run a step kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    /// Compaction and memory profiles.
    Both,
    /// Compaction profiles only: the memory driver refuses the step.
    Compaction,
    /// Memory profiles only: [`super::Scenario::validate_for`] refuses the step.
    Memory,
}

/// One step kind, a row of [`STEPS`].
pub(crate) struct StepKind {
    /// The step's one key in a scenario file, and its name in messages (`step 3 (turn)`).
    pub(crate) key: &'static str,
    pub(crate) domain: Domain,
    /// The keys of the step's object (of each record, for `seed`), in the order messages list
    /// them; empty when the payload is not an object.
    keys: &'static [&'static str],
    parse: ParseFn,
    /// True for the [`Step`] variant that `parse` returns.
    is: fn(&Step) -> bool,
}

/// Parses a step's payload; `ids` is the call-id ledger shared by all steps.
type ParseFn = fn(Payload<'_>, &mut Ids) -> Result<Step, ScenarioError>;

/// Every step kind, in the order messages list them.
pub(crate) static STEPS: &[StepKind] = &[
    StepKind {
        key: "user",
        domain: Domain::Both,
        keys: &[],
        parse: parse_user,
        is: |s| matches!(s, Step::User(_)),
    },
    StepKind {
        key: "assistant",
        domain: Domain::Both,
        keys: &["text", "calls", "usage"],
        parse: parse_assistant_step,
        is: |s| matches!(s, Step::Assistant(_)),
    },
    StepKind {
        key: "results",
        domain: Domain::Both,
        keys: &[],
        parse: parse_results_step,
        is: |s| matches!(s, Step::Results(_)),
    },
    StepKind {
        key: "stage",
        domain: Domain::Compaction,
        keys: &[],
        parse: parse_stage,
        is: |s| matches!(s, Step::Stage(_)),
    },
    StepKind {
        key: "prepare",
        domain: Domain::Compaction,
        keys: &[],
        parse: parse_prepare,
        is: |s| matches!(s, Step::Prepare),
    },
    StepKind {
        key: "turn",
        domain: Domain::Both,
        keys: &["text", "calls", "results", "usage"],
        parse: parse_turn,
        is: |s| matches!(s, Step::Turn { .. }),
    },
    StepKind {
        key: "idle",
        domain: Domain::Compaction,
        keys: &[],
        parse: parse_idle,
        is: |s| matches!(s, Step::Idle(_)),
    },
    StepKind {
        key: "context_hint",
        domain: Domain::Compaction,
        keys: &[],
        parse: parse_context_hint,
        is: |s| matches!(s, Step::ContextHint),
    },
    StepKind {
        key: "check",
        domain: Domain::Both,
        keys: &[],
        parse: parse_check,
        is: |s| matches!(s, Step::Check(_)),
    },
    StepKind {
        key: "compact_tool",
        domain: Domain::Compaction,
        keys: &["results"],
        parse: parse_compact_tool,
        is: |s| matches!(s, Step::CompactTool { .. }),
    },
    StepKind {
        key: "select_reply",
        domain: Domain::Memory,
        keys: &[],
        parse: parse_select_reply,
        is: |s| matches!(s, Step::SelectReply(_)),
    },
    StepKind {
        key: "extract_reply",
        domain: Domain::Memory,
        keys: &[],
        parse: parse_extract_reply,
        is: |s| matches!(s, Step::ExtractReply(_)),
    },
    StepKind {
        key: "consolidate_reply",
        domain: Domain::Memory,
        keys: &[],
        parse: parse_consolidate_reply,
        is: |s| matches!(s, Step::ConsolidateReply(_)),
    },
    StepKind {
        key: "fault",
        domain: Domain::Memory,
        keys: &["fail_write_after", "fail_delete_after"],
        parse: parse_fault,
        is: |s| matches!(s, Step::Fault { .. }),
    },
    StepKind {
        key: "write_file",
        domain: Domain::Memory,
        keys: &["name", "text"],
        parse: parse_write_file,
        is: |s| matches!(s, Step::WriteFile { .. }),
    },
    StepKind {
        key: "symlink",
        domain: Domain::Memory,
        keys: &["name", "target", "text"],
        parse: parse_symlink,
        is: |s| matches!(s, Step::Symlink { .. }),
    },
    StepKind {
        key: "seed",
        domain: Domain::Memory,
        keys: &["name", "type", "description", "body"],
        parse: parse_seed,
        is: |s| matches!(s, Step::Seed(_)),
    },
    StepKind {
        key: "observed",
        domain: Domain::Compaction,
        keys: &["compaction", "pre_tokens", "post_tokens", "summary_chars"],
        parse: parse_observed,
        is: |s| matches!(s, Step::Observed(_)),
    },
    StepKind {
        key: "remove_file",
        domain: Domain::Compaction,
        keys: &["spill", "transcript"],
        parse: parse_remove_file,
        is: |s| matches!(s, Step::RemoveFile { .. }),
    },
];

/// The step keys of [`STEPS`], comma-separated, for messages.
fn step_keys() -> String {
    let keys: Vec<&str> = STEPS.iter().map(|kind| kind.key).collect();
    keys.join(", ")
}

impl Step {
    /// The row of [`STEPS`] for this step.
    fn row(&self) -> &'static StepKind {
        STEPS
            .iter()
            .find(|kind| (kind.is)(self))
            .expect("every Step variant has a row in STEPS (tested)")
    }

    /// The step's key, for messages.
    pub fn kind(&self) -> &'static str {
        self.row().key
    }

    /// True for the steps of memory profiles.
    pub fn is_memory(&self) -> bool {
        self.row().domain == Domain::Memory
    }

    /// True for the steps only compaction profiles run.
    pub fn is_compaction(&self) -> bool {
        self.row().domain == Domain::Compaction
    }
}

/// Parses step `index` (from 0): an object with one key of [`STEPS`].
pub(super) fn parse_step(
    ctx: &Ctx,
    index: usize,
    value: &Value,
    ids: &mut Ids,
) -> Result<Step, ScenarioError> {
    let (key, value) = only_key(ctx, index, value)?;
    let at = format!("step {} ({key})", index + 1);
    let kind = STEPS.iter().find(|kind| kind.key == key).ok_or_else(|| {
        ctx.err(
            &at,
            format!("unknown step `{key}` (expected one of: {})", step_keys()),
        )
    })?;
    let payload = Payload {
        ctx,
        at: &at,
        kind,
        value,
    };
    let step = (kind.parse)(payload, ids)?;
    // A check between an assistant step and its compact_tool step keeps them paired.
    match &step {
        Step::Assistant(spec) => ids.last_assistant = Some(spec.calls.clone()),
        Step::Check(_) => {}
        _ => ids.last_assistant = None,
    }
    Ok(step)
}

/// The one key of step `index` and its payload.
fn only_key<'v>(
    ctx: &Ctx,
    index: usize,
    value: &'v Value,
) -> Result<(&'v String, &'v Value), ScenarioError> {
    let at = format!("step {}", index + 1);
    let map = value.as_object().ok_or_else(|| {
        ctx.err(
            &at,
            format!(
                "a step must be an object with one key ({}), got {}",
                step_keys(),
                type_name(value)
            ),
        )
    })?;
    if map.len() != 1 {
        return Err(ctx.err(
            &at,
            format!(
                "a step has exactly one key ({}), got {}",
                step_keys(),
                map.len()
            ),
        ));
    }
    Ok(map.iter().next().expect("one key checked above"))
}

/// A step's payload with where it is and which kind of step it is.
#[derive(Clone, Copy)]
struct Payload<'a> {
    ctx: &'a Ctx<'a>,
    /// `step N (key)`, the location of the step's errors.
    at: &'a str,
    kind: &'static StepKind,
    value: &'a Value,
}

impl<'a> Payload<'a> {
    fn err(&self, message: impl Into<String>) -> ScenarioError {
        self.ctx.err(self.at, message)
    }

    /// The payload as an object with only the keys of its row.
    fn object(&self) -> Result<&'a Map<String, Value>, ScenarioError> {
        let map = as_object(self.ctx, self.at, self.kind.key, self.value)?;
        check_keys(self.ctx, self.at, map, self.kind.keys)?;
        Ok(map)
    }

    /// The string at `key` of `map`; `missing` is the message when it is absent.
    fn required_str<'m>(
        &self,
        map: &'m Map<String, Value>,
        key: &str,
        missing: String,
    ) -> Result<&'m str, ScenarioError> {
        let value = map.get(key).ok_or_else(|| self.err(missing))?;
        as_str(self.ctx, self.at, key, value)
    }
}

fn parse_user(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::User(as_str(p.ctx, p.at, "user", p.value)?.to_owned()))
}

fn parse_assistant_step(p: Payload, ids: &mut Ids) -> Result<Step, ScenarioError> {
    let spec = parse_assistant(p.ctx, p.at, p.value, ids, p.kind.keys)?;
    Ok(Step::Assistant(spec))
}

fn parse_results_step(p: Payload, ids: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::Results(parse_results(p.ctx, p.at, p.value, ids)?))
}

fn parse_stage(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let name = as_str(p.ctx, p.at, "stage", p.value)?;
    let stage = Stage::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Stage::ALL.iter().map(|s| s.as_str()).collect();
        p.err(format!(
            "unknown stage `{name}` (expected one of: {})",
            known.join(", ")
        ))
    })?;
    Ok(Step::Stage(stage))
}

fn parse_prepare(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    if p.value != &Value::Bool(true) {
        return Err(p.err("write the prepare step as {\"prepare\": true}"));
    }
    Ok(Step::Prepare)
}

/// An assistant message and the results of all its calls, stored in call order.
fn parse_turn(p: Payload, ids: &mut Ids) -> Result<Step, ScenarioError> {
    let assistant = parse_assistant(p.ctx, p.at, p.value, ids, p.kind.keys)?;
    let results = match p.value.get("results") {
        Some(list) => parse_results(p.ctx, p.at, list, ids)?,
        None => Vec::new(),
    };
    let called: Vec<&str> = assistant.calls.iter().map(|c| c.id.as_str()).collect();
    let answered: BTreeSet<&str> = results.iter().map(|r| r.id.as_str()).collect();
    for id in &called {
        if !answered.contains(id) {
            return Err(p.err(format!("call `{id}` has no result in this turn")));
        }
    }
    for result in &results {
        if !called.contains(&result.id.as_str()) {
            return Err(p.err(format!(
                "result `{}` answers no call of this turn",
                result.id
            )));
        }
    }
    // The agent loop appends results in call order.
    let mut ordered = results;
    ordered.sort_by_key(|r| called.iter().position(|c| *c == r.id));
    Ok(Step::Turn {
        assistant,
        results: ordered,
    })
}

fn parse_idle(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let minutes = as_size(p.ctx, p.at, "idle", p.value)?;
    if minutes > crate::limits::MAX_IDLE_MINUTES {
        return Err(p.err(format!(
            "{minutes} idle minutes, more than the limit of {} (docs/limits.md)",
            crate::limits::MAX_IDLE_MINUTES
        )));
    }
    Ok(Step::Idle(minutes as u64))
}

fn parse_context_hint(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    if p.value != &Value::Bool(true) {
        return Err(p.err("write the context_hint step as {\"context_hint\": true}"));
    }
    Ok(Step::ContextHint)
}

fn parse_check(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::Check(parse_expect(p.ctx, p.at, p.value)?))
}

/// The `compact` call of the previous assistant step and the results of its other calls.
fn parse_compact_tool(p: Payload, ids: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let calls = ids.last_assistant.take().unwrap_or_default();
    let compact = calls.iter().find(|c| c.name == "compact").ok_or_else(|| {
        p.err("compact_tool must follow an assistant step with a call named `compact`")
    })?;
    let results = match map.get("results") {
        Some(list) if list.as_array().is_some_and(|l| l.is_empty()) => Vec::new(),
        Some(list) => parse_results(p.ctx, p.at, list, ids)?,
        None => Vec::new(),
    };
    for call in calls.iter().filter(|c| c.name != "compact") {
        if !results.iter().any(|r| r.id == call.id) {
            return Err(p.err(format!("call `{}` has no result", call.id)));
        }
    }
    for result in &results {
        if result.id == compact.id {
            return Err(p.err(format!(
                "`{}` is the compact call: its result comes from the profile",
                result.id
            )));
        }
        if !calls.iter().any(|c| c.id == result.id) {
            return Err(p.err(format!(
                "result `{}` answers no call of the previous assistant step",
                result.id
            )));
        }
    }
    ids.answer(p.ctx, p.at, &compact.id)?;
    Ok(Step::CompactTool {
        id: compact.id,
        calls: calls.iter().map(|c| c.id).collect(),
        results,
    })
}

/// `{"spill": NAME}` or `{"transcript": NAME}`: one file name of that directory.
fn parse_remove_file(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let (dir, key) = match (map.contains_key("spill"), map.contains_key("transcript")) {
        (true, false) => (StoreDir::Spill, "spill"),
        (false, true) => (StoreDir::Transcript, "transcript"),
        (has_spill, _) => {
            let got = if has_spill { "both" } else { "neither" };
            return Err(p.err(format!(
                "remove_file names one file: {{\"spill\": NAME}} or {{\"transcript\": NAME}}, got {got}"
            )));
        }
    };
    let name = as_str(p.ctx, p.at, key, &map[key])?;
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(p.err(format!(
            "`{key}` is a file name in the {key} directory (no `/`, not `.` or `..`), got `{name}`"
        )));
    }
    Ok(Step::RemoveFile {
        dir,
        name: name.to_owned(),
    })
}

fn parse_select_reply(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::SelectReply(parse_reply(p)?))
}

fn parse_extract_reply(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::ExtractReply(parse_reply(p)?))
}

fn parse_consolidate_reply(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    Ok(Step::ConsolidateReply(parse_reply(p)?))
}

/// A scripted model reply: its text, or `{"raise": "message"}` for a failed call.
fn parse_reply(p: Payload) -> Result<Reply, ScenarioError> {
    match p.value {
        Value::String(text) => Ok(Reply::Text(text.clone())),
        Value::Object(map) if map.len() == 1 && map.get("raise").is_some_and(Value::is_string) => {
            Ok(Reply::Raise(
                map["raise"].as_str().unwrap_or_default().to_owned(),
            ))
        }
        other => Err(p.err(format!(
            "a reply is the model's text or {{\"raise\": \"message\"}}, got {}",
            type_name(other)
        ))),
    }
}

fn parse_fault(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let get = |key: &str| -> Result<Option<usize>, ScenarioError> {
        map.get(key)
            .map(|v| as_size(p.ctx, p.at, key, v))
            .transpose()
    };
    let (write_after, delete_after) = (get("fail_write_after")?, get("fail_delete_after")?);
    if write_after.is_none() && delete_after.is_none() {
        return Err(p.err("a fault needs `fail_write_after` or `fail_delete_after`"));
    }
    Ok(Step::Fault {
        write_after,
        delete_after,
    })
}

fn parse_write_file(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let name = p.required_str(map, "name", "write_file needs a `name`".to_owned())?;
    let text = p.required_str(map, "text", "write_file needs a `text`".to_owned())?;
    Ok(Step::WriteFile {
        name: name.to_owned(),
        text: text.to_owned(),
    })
}

fn parse_symlink(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let field = |key: &str| p.required_str(map, key, format!("symlink needs `{key}`"));
    let target = field("target")?.to_owned();
    if !target.starts_with('/') {
        return Err(p.err("a symlink `target` is an absolute path"));
    }
    Ok(Step::Symlink {
        name: field("name")?.to_owned(),
        target,
        text: map
            .get("text")
            .map(|v| as_str(p.ctx, p.at, "text", v).map(str::to_owned))
            .transpose()?
            .unwrap_or_default(),
    })
}

fn parse_seed(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let mut records = Vec::new();
    for item in as_array(p.ctx, p.at, "seed", p.value)? {
        let map = as_object(p.ctx, p.at, "seed[]", item)?;
        check_keys(p.ctx, p.at, map, p.kind.keys)?;
        let field = |key: &str| {
            p.required_str(map, key, format!("a seed record needs `{key}`"))
                .map(str::to_owned)
        };
        records.push(SeedRecord {
            name: field("name")?,
            kind: field("type")?,
            description: field("description")?,
            body: field("body")?,
        });
    }
    Ok(Step::Seed(records))
}

/// What the real agent did here: `{"compaction": "auto", "pre_tokens": N, ...}`.
fn parse_observed(p: Payload, _: &mut Ids) -> Result<Step, ScenarioError> {
    let map = p.object()?;
    let trigger = p.required_str(
        map,
        "compaction",
        "an observed event names what happened: {\"compaction\": \"auto\"}".to_owned(),
    )?;
    let size = |key: &str| {
        map.get(key)
            .map(|v| as_size(p.ctx, p.at, key, v))
            .transpose()
    };
    Ok(Step::Observed(Observed::Compaction {
        trigger: trigger.to_owned(),
        pre_tokens: size("pre_tokens")?,
        post_tokens: size("post_tokens")?,
        summary_chars: size("summary_chars")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// The smallest valid payload of every step kind, each placed after an assistant step that
    /// calls `compact` (so `results` and `compact_tool` have a call to answer).
    const EXAMPLES: &[(&str, &str)] = &[
        ("user", r#""hi""#),
        ("assistant", r#"{"text": "ok"}"#),
        ("results", r#"[{"id": "k", "chars": 1}]"#),
        ("stage", r#""budget""#),
        ("prepare", "true"),
        (
            "turn",
            r#"{"calls": [{"id": "t"}], "results": [{"id": "t", "chars": 1}]}"#,
        ),
        ("idle", "5"),
        ("context_hint", "true"),
        ("check", r#"{"result:k": null}"#),
        ("compact_tool", "{}"),
        ("select_reply", r#""[]""#),
        ("extract_reply", r#"{"raise": "boom"}"#),
        ("consolidate_reply", r#""done""#),
        ("fault", r#"{"fail_write_after": 0}"#),
        ("write_file", r#"{"name": "a.md", "text": "x"}"#),
        ("symlink", r#"{"name": "l.md", "target": "/etc/x"}"#),
        (
            "seed",
            r#"[{"name": "a", "type": "user", "description": "d", "body": "b"}]"#,
        ),
        (
            "observed",
            r#"{"compaction": "auto", "pre_tokens": 167000}"#,
        ),
        ("remove_file", r#"{"spill": "k.txt"}"#),
    ];

    fn parse_second_step(key: &str, payload: &str) -> Step {
        let text = format!(
            r#"{{"steps": [{{"assistant": {{"calls": [{{"id": "k", "name": "compact"}}]}}}}, {{"{key}": {payload}}}]}}"#
        );
        let scenario =
            Scenario::parse("s.json", "s", &text).unwrap_or_else(|e| panic!("{key}: {e}"));
        scenario.steps[1].clone()
    }

    #[test]
    fn every_step_kind_round_trips() {
        let keys: Vec<&str> = STEPS.iter().map(|kind| kind.key).collect();
        let examples: Vec<&str> = EXAMPLES.iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, examples, "one example per row of STEPS, in order");
        for (row, (key, payload)) in STEPS.iter().zip(EXAMPLES) {
            let step = parse_second_step(key, payload);
            assert_eq!(step.kind(), *key);
            let matching: Vec<&str> = STEPS
                .iter()
                .filter(|kind| (kind.is)(&step))
                .map(|kind| kind.key)
                .collect();
            assert_eq!(matching, [*key], "exactly one row claims the step");
            assert_eq!(step.is_memory(), row.domain == Domain::Memory, "{key}");
            assert_eq!(
                step.is_compaction(),
                row.domain == Domain::Compaction,
                "{key}"
            );
        }
    }

    #[test]
    fn remove_file_names_one_file_of_one_directory() {
        let step = parse_second_step("remove_file", r#"{"transcript": "s.jsonl"}"#);
        assert_eq!(
            step,
            Step::RemoveFile {
                dir: StoreDir::Transcript,
                name: "s.jsonl".into()
            }
        );
        let error = |payload: &str| {
            let text = format!(r#"{{"steps": [{{"remove_file": {payload}}}]}}"#);
            Scenario::parse("s.json", "s", &text)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(r#"{"spill": "a.txt", "transcript": "b"}"#),
            "load s.json: step 1 (remove_file): remove_file names one file: {\"spill\": NAME} or {\"transcript\": NAME}, got both"
        );
        assert!(error("{}").ends_with("got neither"));
        assert_eq!(
            error(r#"{"spill": "../etc/passwd"}"#),
            "load s.json: step 1 (remove_file): `spill` is a file name in the spill directory (no `/`, not `.` or `..`), got `../etc/passwd`"
        );
        assert!(error(r#"{"spill": 3}"#).ends_with("`spill` must be a string, got a number"));
        assert!(error(r#"{"file": "a"}"#).contains("unknown key `file`"));
    }

    /// The order of the list in "unknown step" and "a step has exactly one key" messages.
    #[test]
    fn step_keys_keep_their_order() {
        assert_eq!(
            step_keys(),
            "user, assistant, results, stage, prepare, turn, idle, context_hint, check, compact_tool, \
             select_reply, extract_reply, consolidate_reply, fault, write_file, symlink, seed, observed, \
             remove_file"
        );
    }

    /// The domains of the hand-kept lists this table replaced.
    #[test]
    fn domains_match_the_profiles_that_run_them() {
        let of = |domain: Domain| -> Vec<&str> {
            STEPS
                .iter()
                .filter(|kind| kind.domain == domain)
                .map(|kind| kind.key)
                .collect()
        };
        assert_eq!(
            of(Domain::Compaction),
            [
                "stage",
                "prepare",
                "idle",
                "context_hint",
                "compact_tool",
                "observed",
                "remove_file"
            ]
        );
        assert_eq!(
            of(Domain::Memory),
            [
                "select_reply",
                "extract_reply",
                "consolidate_reply",
                "fault",
                "write_file",
                "symlink",
                "seed"
            ]
        );
    }
}
