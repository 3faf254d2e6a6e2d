//! Expectations (docs/scenario-format.md `expect`, and `check` steps): what a run must show, keyed
//! by an observable name, `result:<id>`, `message:<n>`, or a memory key (`guard:<name>`,
//! `file:<name>`, `index`, `system`, `recall`). Which profile a key belongs to is checked later, by
//! [`super::Scenario::validate_for`] for compaction and by the memory driver for memory.

use serde_json::Value;

use super::fields::{Ctx, as_object};
use super::{ExpectKey, Expectation};
use crate::call_id::CallId;
use crate::compaction::observables::OBSERVABLE_NAMES;
use crate::error::ScenarioError;
use crate::memory::observables::MEMORY_OBSERVABLE_NAMES;

/// The expectations of an `expect` object, in file order.
pub(super) fn parse_expect(
    ctx: &Ctx,
    at: &str,
    value: &Value,
) -> Result<Vec<Expectation>, ScenarioError> {
    let map = as_object(ctx, at, "expect", value)?;
    let mut out = Vec::new();
    for (key, expected) in map {
        out.push(Expectation {
            key: expect_key(ctx, at, key, expected)?,
            expected: expected.clone(),
        });
    }
    Ok(out)
}

// What each kind of key takes, said when the expected value has another shape.
const RESULT_SHAPE: &str =
    "a result expectation is the exact text, {\"chars\": N}, or null (not in context)";
const MESSAGE_SHAPE: &str = "a message expectation is the exact text, {\"chars\": N}, or null (no such message or not text)";
const GUARD_SHAPE: &str = "a guard expectation is `ok` or the exact error message";
const FILE_SHAPE: &str =
    "a file expectation is the exact text, {\"chars\": N}, or null (no such file)";
const TEXT_SHAPE: &str = "expected the exact text, {\"chars\": N}, or null";

/// The key of one expectation, after checking that `expected` has the shape the key takes.
fn expect_key(
    ctx: &Ctx,
    at: &str,
    key: &str,
    expected: &Value,
) -> Result<ExpectKey, ScenarioError> {
    let text_like = is_text_like(expected);
    // The key, and whether `expected` has the shape it takes (else the message saying so).
    let (parsed, shape) = if let Some(id) = key.strip_prefix("result:") {
        (ExpectKey::Result(id.to_owned()), (text_like, RESULT_SHAPE))
    } else if let Some(index) = key.strip_prefix("message:") {
        let index = index.parse().map_err(|_| {
            ctx.err(
                format!("{at} `{key}`"),
                "`message:<n>` takes a message index from 0",
            )
        })?;
        (ExpectKey::Message(index), (text_like, MESSAGE_SHAPE))
    } else if let Some(name) = key.strip_prefix("guard:") {
        let shape = (expected.is_string(), GUARD_SHAPE);
        (ExpectKey::Guard(name.to_owned()), shape)
    } else if let Some(name) = key.strip_prefix("file:") {
        (ExpectKey::File(name.to_owned()), (text_like, FILE_SHAPE))
    } else if let Some(memory_key) = memory_text_key(key) {
        (memory_key, (text_like, TEXT_SHAPE))
    } else if OBSERVABLE_NAMES.contains(&key) || MEMORY_OBSERVABLE_NAMES.contains(&key) {
        (ExpectKey::Observable(key.to_owned()), (true, ""))
    } else {
        return Err(ctx.err(
            at,
            format!(
                "unknown observable `{key}` (expected `result:<id>`, `message:<n>` or one of: {})",
                OBSERVABLE_NAMES.join(", ")
            ),
        ));
    };
    match shape {
        (true, _) => Ok(parsed),
        (false, message) => Err(ctx.err(format!("{at} `{key}`"), message)),
    }
}

/// A text expectation: the exact text, `{"chars": N}`, or null (absent).
fn is_text_like(expected: &Value) -> bool {
    expected.is_string()
        || expected.is_null()
        || expected
            .as_object()
            .is_some_and(|m| m.len() == 1 && m.get("chars").is_some_and(Value::is_u64))
}

/// The memory keys without an argument.
fn memory_text_key(key: &str) -> Option<ExpectKey> {
    match key {
        "index" => Some(ExpectKey::Index),
        "system" => Some(ExpectKey::System),
        "recall" => Some(ExpectKey::Recall),
        _ => None,
    }
}

/// Refuses a `result:<id>` expectation whose id no step calls (`calls` holds every call id).
pub(super) fn check_expect_ids(
    ctx: &Ctx,
    at: &str,
    expect: &[Expectation],
    calls: &super::CallTools,
) -> Result<(), ScenarioError> {
    for expectation in expect {
        if let ExpectKey::Result(id) = &expectation.key {
            if !calls.contains_key(&CallId::new(id)) {
                return Err(ctx.err(at, format!("`result:{id}` names an id no step calls")));
            }
        }
    }
    Ok(())
}
