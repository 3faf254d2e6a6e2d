//! Tool calls and tool results as scenario files write them (docs/scenario-format.md), and [`Ids`],
//! the ledger of call ids that loading keeps across steps: a call id is issued once, answered once,
//! and only after an assistant message called it (the pairing rule of the Messages API).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::fields::{Ctx, as_array, as_object, as_size, as_str, check_keys};
use super::{AssistantSpec, Body, Call, CallTools, ResultSpec, Usage};
use crate::call_id::CallId;
use crate::error::ScenarioError;
use crate::limits;

/// The keys of one call of an assistant message.
const CALL_KEYS: &[&str] = &["id", "name", "input"];
/// The keys of an assistant message's `usage`.
const USAGE_KEYS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];
/// The keys of one result.
const RESULT_KEYS: &[&str] = &["id", "text", "chars", "lines", "width"];
/// The width of a `lines` result without `width`.
const DEFAULT_WIDTH: usize = 80;

/// Calls issued so far and results already given, to check ids while loading.
#[derive(Default)]
pub(super) struct Ids {
    /// Tool name of every call id.
    pub(super) calls: CallTools,
    answered: BTreeSet<String>,
    /// The calls of the previous step if it was an `assistant` step (a `check` step between
    /// them does not count), for `compact_tool`.
    pub(super) last_assistant: Option<Vec<Call>>,
    /// Result characters asked for so far (bounded by [`limits::MAX_TOTAL_RESULT_CHARS`]).
    total_chars: usize,
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
        self.calls.insert(call.id, call.name.clone());
        Ok(())
    }

    /// Records the result for `id`: it must have been called and not answered yet.
    pub(super) fn answer(&mut self, ctx: &Ctx, at: &str, id: &str) -> Result<(), ScenarioError> {
        if !self.calls.contains_key(&CallId::new(id)) {
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

/// One call; `name` defaults to `bash` and `input` to `{}`.
fn parse_call(ctx: &Ctx, at: &str, value: &Value) -> Result<Call, ScenarioError> {
    let map = as_object(ctx, at, "calls[]", value)?;
    check_keys(ctx, at, map, CALL_KEYS)?;
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
    Ok(Call {
        id: id.into(),
        name: name.into(),
        input: input.into(),
    })
}

/// An assistant message (of an `assistant` or a `turn` step, whose keys are `allowed`); its
/// calls are issued in `ids`.
pub(super) fn parse_assistant(
    ctx: &Ctx,
    at: &str,
    value: &Value,
    ids: &mut Ids,
    allowed: &[&str],
) -> Result<AssistantSpec, ScenarioError> {
    let map = as_object(ctx, at, "assistant", value)?;
    check_keys(ctx, at, map, allowed)?;
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
    let usage = map
        .get("usage")
        .map(|value| parse_usage(ctx, at, value))
        .transpose()?;
    Ok(AssistantSpec {
        text,
        calls,
        usage,
        ..AssistantSpec::default()
    })
}

/// `usage`: token counts the API reported, each a non-negative integer, at least one given.
fn parse_usage(ctx: &Ctx, at: &str, value: &Value) -> Result<Usage, ScenarioError> {
    let map = as_object(ctx, at, "usage", value)?;
    check_keys(ctx, at, map, USAGE_KEYS)?;
    if map.is_empty() {
        return Err(ctx.err(
            at,
            format!("`usage` needs at least one of: {}", USAGE_KEYS.join(", ")),
        ));
    }
    let get = |key: &str| -> Result<usize, ScenarioError> {
        map.get(key)
            .map(|v| as_size(ctx, at, key, v))
            .unwrap_or(Ok(0))
    };
    Ok(Usage {
        input_tokens: get("input_tokens")?,
        output_tokens: get("output_tokens")?,
        cache_creation_input_tokens: get("cache_creation_input_tokens")?,
        cache_read_input_tokens: get("cache_read_input_tokens")?,
    })
}

/// One result: an `id` and exactly one of `text`, `chars` or `lines` (with optional `width`).
fn parse_result(ctx: &Ctx, at: &str, value: &Value) -> Result<ResultSpec, ScenarioError> {
    let map = as_object(ctx, at, "results[]", value)?;
    check_keys(ctx, at, map, RESULT_KEYS)?;
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
        "text" => Body::Text(as_str(ctx, &at_id, "text", &map["text"])?.into()),
        "chars" => Body::Chars(as_size(ctx, &at_id, "chars", &map["chars"])?),
        _ => Body::Lines {
            lines: as_size(ctx, &at_id, "lines", &map["lines"])?,
            width: match map.get("width") {
                Some(width) => as_size(ctx, &at_id, "width", width)?,
                None => DEFAULT_WIDTH,
            },
        },
    };
    check_size(ctx, &at_id, &body)?;
    Ok(ResultSpec {
        id: id.into(),
        body,
    })
}

/// Refuses a result longer than [`limits::MAX_RESULT_CHARS`] before it is rendered.
fn check_size(ctx: &Ctx, at: &str, body: &Body) -> Result<(), ScenarioError> {
    let chars = match body {
        Body::Text(_) => return Ok(()),
        Body::Chars(n) => Some(*n),
        Body::Lines { lines, width } => limits::lines_chars(*lines, *width),
    };
    match chars {
        Some(n) if n <= limits::MAX_RESULT_CHARS => Ok(()),
        _ => Err(ctx.err(
            at,
            format!(
                "the result is longer than the limit of {} characters (docs/limits.md)",
                limits::MAX_RESULT_CHARS
            ),
        )),
    }
}

/// The characters a result renders to (its text's length, or the size asked for).
fn body_chars(body: &Body) -> usize {
    match body {
        Body::Text(text) => text.chars().count(),
        Body::Chars(n) => *n,
        Body::Lines { lines, width } => limits::lines_chars(*lines, *width).unwrap_or(usize::MAX),
    }
}

/// A non-empty list of results, each answering an earlier call (recorded in `ids`).
pub(super) fn parse_results(
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
        ids.total_chars = ids.total_chars.saturating_add(body_chars(&result.body));
        if ids.total_chars > limits::MAX_TOTAL_RESULT_CHARS {
            return Err(ctx.err(
                at,
                format!(
                    "the scenario's results exceed the limit of {} characters in all (docs/limits.md)",
                    limits::MAX_TOTAL_RESULT_CHARS
                ),
            ));
        }
        results.push(result);
    }
    Ok(results)
}
