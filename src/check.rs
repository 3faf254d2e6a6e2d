//! Expectation outcomes shared by the compaction and memory drivers.

use serde::Serialize;
use serde_json::Value;

use crate::python::json::char_len;

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
