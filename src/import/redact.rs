//! `lab import --redact`: every text of a session becomes filler of the same size, so that a user
//! can share a scenario without sharing their code. Each character is replaced by a filler of the
//! same size class, which keeps every length the profiles measure: characters, lines, UTF-8
//! bytes, UTF-16 units (Claude Code's estimate), the escaped length of `json.dumps` (the course's
//! estimate) and of Python's `repr` (the course site's). So white space and the characters those
//! encodings escape (`\n`, `\t`, other control characters, `"`, `'`, `\`) stay as they are, and so
//! do the characters Python does not print (they are escaped by `repr`); they carry structure,
//! not content. Ids, tool names and numbers are not texts and are kept by the callers.

use serde_json::Value;

use crate::python::json::is_printable;

/// Filler for a printable ASCII character.
const ASCII: char = 'x';
/// Filler for a printable character of 2 UTF-8 bytes (1 UTF-16 unit).
const TWO_BYTES: char = 'ж';
/// Filler for a printable character of 3 UTF-8 bytes (1 UTF-16 unit).
const THREE_BYTES: char = '□';
/// Filler for a printable character of 4 UTF-8 bytes (2 UTF-16 units).
const FOUR_BYTES: char = '𝑥';

/// The filler of one character.
fn filler(c: char) -> char {
    let cp = c as u32;
    match c {
        '"' | '\'' | '\\' => c,
        _ if cp < 0x20 || cp == 0x7f => c,
        ' ' => ' ',
        _ if cp < 0x7f => ASCII,
        _ if !is_printable(c) => c,
        _ => match c.len_utf8() {
            2 => TWO_BYTES,
            3 => THREE_BYTES,
            _ => FOUR_BYTES,
        },
    }
}

/// `text` with every character replaced by its filler.
pub fn text(text: &str) -> String {
    text.chars().map(filler).collect()
}

/// A tool input with every string value redacted (keys, numbers, booleans and the shape kept).
pub fn value(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(text(s)),
        Value::Array(items) => Value::Array(items.iter().map(self::value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), self::value(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::json::{json_str_chars, repr_str_chars};

    const SAMPLES: &[&str] = &[
        "fn main() {\n\tprintln!(\"secret: {}\", key);\n}\n",
        "café naïve 中文 العربية 🎉 \u{a0}nbsp \u{200b}zw 'q' \\ \u{1}",
        "",
        "x",
    ];

    #[test]
    fn every_measured_length_is_kept() {
        for sample in SAMPLES {
            let redacted = text(sample);
            assert_eq!(
                redacted.chars().count(),
                sample.chars().count(),
                "{sample:?}"
            );
            assert_eq!(redacted.len(), sample.len(), "bytes of {sample:?}");
            assert_eq!(
                redacted.encode_utf16().count(),
                sample.encode_utf16().count(),
                "UTF-16 of {sample:?}"
            );
            assert_eq!(
                json_str_chars(&redacted),
                json_str_chars(sample),
                "{sample:?}"
            );
            assert_eq!(
                repr_str_chars(&redacted),
                repr_str_chars(sample),
                "{sample:?}"
            );
            assert_eq!(redacted.lines().count(), sample.lines().count());
        }
    }

    #[test]
    fn no_letter_or_digit_survives() {
        let redacted = text(SAMPLES[0]);
        assert_eq!(
            redacted,
            "xx xxxxxx x\n\txxxxxxxxx\"xxxxxxx xx\"x xxxxx\nx\n"
        );
        let redacted = text(SAMPLES[1]);
        assert!(!redacted.contains("caf") && !redacted.contains('中') && !redacted.contains('🎉'));
        assert!(
            redacted.contains('\u{a0}'),
            "non-printable kept: {redacted:?}"
        );
    }

    #[test]
    fn values_keep_their_shape() {
        let input =
            serde_json::json!({"command": "cat /etc/passwd", "n": 3, "flags": ["-a", true]});
        assert_eq!(
            value(&input),
            serde_json::json!({"command": "xxx xxxxxxxxxxx", "n": 3, "flags": ["xx", true]})
        );
    }
}
