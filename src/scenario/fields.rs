//! Typed reads of scenario JSON with located errors: every loader below reads its values through
//! these helpers, so each error names the file, the place (`top level`, `step 3 (turn)`, ...)
//! and what was expected. A leaf: it knows JSON and [`ScenarioError`], nothing of steps.

use serde_json::{Map, Value};

use crate::error::ScenarioError;

/// The file being loaded, named in every error.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
}

impl Ctx<'_> {
    /// An [`ScenarioError::Invalid`] at `location` of this file.
    pub(super) fn err(
        &self,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError::Invalid {
            file: self.file.to_owned(),
            location: location.into(),
            message: message.into(),
        }
    }
}

/// The JSON type of `value` with its article, for "must be X, got Y" messages.
pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Refuses the first key of `map` (in the map's order) that is not in `allowed`; the message
/// lists `allowed` in the order given.
pub(super) fn check_keys(
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

pub(super) fn as_str<'v>(
    ctx: &Ctx,
    at: &str,
    what: &str,
    value: &'v Value,
) -> Result<&'v str, ScenarioError> {
    value.as_str().ok_or_else(|| {
        ctx.err(
            at,
            format!("`{what}` must be a string, got {}", type_name(value)),
        )
    })
}

/// A non-negative integer written as one: `-5`, `2.5`, `1e3` and `"10"` are refused.
pub(super) fn as_size(
    ctx: &Ctx,
    at: &str,
    what: &str,
    value: &Value,
) -> Result<usize, ScenarioError> {
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

pub(super) fn as_object<'v>(
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

pub(super) fn as_array<'v>(
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
