//! Pure text helpers shared by results and renderers: a JSON value as a table cell (`text`), the
//! same shortened to one line (`short`), and the ✓/✗ mark; and [`eq_as_text`], comparisons of
//! a text type with strings. A leaf: results use it to describe themselves (`dropped_unsaved 0 →
//! 1`), so they never need a renderer.

use serde_json::Value;

/// `PartialEq` with `str`, `&str` and `String` for a type that reads as text through the method
/// named (tool-call ids, result texts, trace reasons): equal when the texts are.
macro_rules! eq_as_text {
    ($type:ty, $text:ident) => {
        impl PartialEq<str> for $type {
            fn eq(&self, other: &str) -> bool {
                self.$text() == other
            }
        }

        impl PartialEq<&str> for $type {
            fn eq(&self, other: &&str) -> bool {
                self.$text() == *other
            }
        }

        impl PartialEq<String> for $type {
            fn eq(&self, other: &String) -> bool {
                self.$text() == other.as_str()
            }
        }
    };
}
pub(crate) use eq_as_text;

use crate::python::json::{char_len, char_prefix};

/// Compact text of a value for tables: strings bare, the rest as JSON.
pub(crate) fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A JSON value in one short line: strings bare with `\n` escaped, null as `(absent)`, and
/// anything over 64 chars cut to 48 with its length.
pub(crate) fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.replace('\n', "\\n"),
        Value::Null => "(absent)".to_owned(),
        other => other.to_string(),
    };
    if char_len(&text) > 64 {
        format!("{}… ({} chars)", char_prefix(&text, 48), char_len(&text))
    } else {
        text
    }
}

/// ✓ for a pass, ✗ for a failure.
pub(crate) fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}
