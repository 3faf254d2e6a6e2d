//! Expectation outcomes shared by the compaction and memory drivers.

use serde::Serialize;
use serde_json::Value;

use crate::python::json::char_len;
use crate::scenario::{ExpectKey, Expectation};

/// One expectation checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckOutcome {
    /// The `check` step, or `None` for the final `expect`.
    pub step: Option<usize>,
    pub key: String,
    pub expected: Value,
    pub measured: Value,
    pub ok: bool,
}

/// A text as an expectation measures it: itself, `{"chars": N}` when that is what is expected,
/// or null when there is none.
pub(crate) fn text_measure(text: Option<String>, expected: &Value) -> Value {
    match (text, expected.is_object()) {
        (None, _) => Value::Null,
        (Some(text), true) => serde_json::json!({ "chars": char_len(&text) }),
        (Some(text), false) => Value::from(text),
    }
}

/// Checks `expectations` now: an observable is read from `observed` (the run's observables as
/// JSON), every other key is measured by `measure`, the domain's own reader.
pub(crate) fn evaluate(
    expectations: &[Expectation],
    step: Option<usize>,
    observed: impl Serialize,
    mut measure: impl FnMut(&ExpectKey, &Value) -> Value,
) -> Vec<CheckOutcome> {
    if expectations.is_empty() {
        return Vec::new();
    }
    let observed = serde_json::to_value(observed).expect("observables serialise to JSON");
    expectations
        .iter()
        .map(|expectation| {
            let measured = match &expectation.key {
                ExpectKey::Observable(name) => observed.get(name).cloned().unwrap_or(Value::Null),
                key => measure(key, &expectation.expected),
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
