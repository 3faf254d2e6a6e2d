//! Python's `repr()` of the values the loader quotes: `%r` of a string or a character in error
//! messages (PyYAML formats its problems with `%r`), and `float.__repr__` for loaded floats.

use serde_json::Value;

use crate::python::json::{python_float_repr, repr};

/// Python's `repr()` of a string.
pub(super) fn str_repr(text: &str) -> String {
    repr(&Value::String(text.to_owned()))
}

/// Python's `repr()` of a one-character string.
pub(super) fn char_repr(c: char) -> String {
    str_repr(&c.to_string())
}

/// `float.__repr__` (and `str`): `inf`, `-inf`, `nan`, shortest round-trip digits otherwise.
pub(super) fn float_repr(value: f64) -> String {
    if value.is_nan() {
        "nan".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        python_float_repr(value)
    }
}
