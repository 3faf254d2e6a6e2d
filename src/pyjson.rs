//! Python's text views of a transcript, to the character.
//!
//! The course measures context with `len(json.dumps(messages, default=str, ensure_ascii=False))`
//! (learn-claude-code s08 `estimate_chars` at f9e8b28; SPEC §2). Thresholds decide the findings, so
//! the lab reproduces that count exactly: separators `", "` and `": "`, keys in insertion order,
//! non-ASCII kept, only `"`, `\` and the C0 controls escaped. Python's `str.splitlines`, which the
//! micro stage uses to find a `Full output: ` line, lives here too.

use serde_json::{Number, Value};

/// Where serialised text goes: a `String`, or a counter when only the length matters.
pub(crate) trait Sink {
    /// Appends text that needs no escaping (punctuation, keys known to be plain ASCII).
    fn raw(&mut self, text: &str);
    /// Appends `text` as a JSON string literal, quotes included.
    fn json_str(&mut self, text: &str);
}

/// Counts Unicode scalar values, as Python's `len` of a `str` does.
#[derive(Debug, Default)]
pub(crate) struct Counter(pub usize);

impl Sink for Counter {
    fn raw(&mut self, text: &str) {
        self.0 += text.chars().count();
    }

    fn json_str(&mut self, text: &str) {
        self.0 += json_str_chars(text);
    }
}

impl Sink for String {
    fn raw(&mut self, text: &str) {
        self.push_str(text);
    }

    fn json_str(&mut self, text: &str) {
        self.push('"');
        for c in text.chars() {
            match c {
                '"' => self.push_str("\\\""),
                '\\' => self.push_str("\\\\"),
                '\n' => self.push_str("\\n"),
                '\r' => self.push_str("\\r"),
                '\t' => self.push_str("\\t"),
                '\u{8}' => self.push_str("\\b"),
                '\u{c}' => self.push_str("\\f"),
                c if (c as u32) < 0x20 => self.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.push(c),
            }
        }
        self.push('"');
    }
}

/// Length of `json.dumps(text, ensure_ascii=False)`: the quotes plus every character, with two
/// for `"`, `\`, `\b`, `\f`, `\n`, `\r`, `\t` and six (`\u00XX`) for the other C0 controls.
pub fn json_str_chars(text: &str) -> usize {
    // Fast path: ASCII bytes map one to one onto characters.
    let mut count = 2;
    for c in text.chars() {
        count += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        };
    }
    count
}

/// Writes `value` as `json.dumps(value, ensure_ascii=False)` would.
pub(crate) fn write_value<S: Sink>(sink: &mut S, value: &Value) {
    match value {
        Value::Null => sink.raw("null"),
        Value::Bool(true) => sink.raw("true"),
        Value::Bool(false) => sink.raw("false"),
        Value::Number(number) => sink.raw(&python_number(number)),
        Value::String(text) => sink.json_str(text),
        Value::Array(items) => {
            sink.raw("[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    sink.raw(", ");
                }
                write_value(sink, item);
            }
            sink.raw("]");
        }
        Value::Object(map) => {
            sink.raw("{");
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    sink.raw(", ");
                }
                sink.json_str(key);
                sink.raw(": ");
                write_value(sink, item);
            }
            sink.raw("}");
        }
    }
}

/// Length of `json.dumps(value, ensure_ascii=False)`.
pub fn value_chars(value: &Value) -> usize {
    let mut counter = Counter::default();
    write_value(&mut counter, value);
    counter.0
}

/// The text `json.dumps(value, ensure_ascii=False)` prints.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// How Python prints a number that `json.loads` read: integers exactly, floats by `float.__repr__`.
fn python_number(number: &Number) -> String {
    // serde_json keeps the literal (feature `arbitrary_precision`), so big integers stay exact.
    let literal = number.to_string();
    let is_float = literal.contains(['.', 'e', 'E']);
    if !is_float {
        // json.loads("-0") is the int 0.
        return if literal == "-0" {
            "0".to_owned()
        } else {
            literal
        };
    }
    let value: f64 = literal.parse().unwrap_or(f64::NAN);
    python_float_repr(value)
}

/// `float.__repr__`: the shortest round-tripping digits, positional for decimal exponents in
/// -4..16, scientific (`1e+16`, `1.5e-05`) outside; `Infinity`/`NaN` as `json.dumps` spells them.
pub fn python_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-tripping digits, like Python's repr.
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` always prints an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` prints an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        if point <= 0 {
            let zeros = "0".repeat(point.unsigned_abs() as usize);
            format!("{sign}0.{zeros}{digits}")
        } else {
            let point = point as usize;
            if digits.len() <= point {
                let zeros = "0".repeat(point - digits.len());
                format!("{sign}{digits}{zeros}.0")
            } else {
                format!("{sign}{}.{}", &digits[..point], &digits[point..])
            }
        }
    } else {
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        let body = if digits.len() == 1 {
            digits
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        format!("{sign}{body}e{exp_sign}{:02}", exponent.unsigned_abs())
    }
}

/// Python's `str.splitlines()`: splits on `\n`, `\r`, `\r\n`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`,
/// U+2028 and U+2029, and drops the terminators.
pub fn splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if !is_break {
            continue;
        }
        lines.push(&text[start..index]);
        let mut end = index + c.len_utf8();
        if c == '\r' {
            if let Some((_, '\n')) = chars.peek() {
                chars.next();
                end += 1;
            }
        }
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Python's `text[:n]` on characters.
pub fn char_prefix(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}

/// Python's `len(text)`.
pub fn char_len(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expected values below were computed with CPython 3.11:
    // len(json.dumps(value, ensure_ascii=False)).

    #[test]
    fn plain_ascii_string() {
        assert_eq!(json_str_chars("hello"), 7);
        assert_eq!(dumps(&json!("hello")), "\"hello\"");
    }

    #[test]
    fn non_ascii_is_kept_and_counted_per_code_point() {
        // json.dumps("中文😀", ensure_ascii=False) == '"中文😀"', len 5.
        assert_eq!(json_str_chars("中文😀"), 5);
        assert_eq!(dumps(&json!("中文😀")), "\"中文😀\"");
        // "é" precomposed is one code point, "e\u0301" two.
        assert_eq!(json_str_chars("é"), 3);
        assert_eq!(json_str_chars("e\u{301}"), 4);
    }

    #[test]
    fn quotes_and_backslashes_take_two() {
        // len(json.dumps('say "hi" \\ ok')) == 18: 13 characters, 3 escapes, 2 quotes.
        let text = "say \"hi\" \\ ok";
        assert_eq!(json_str_chars(text), 18);
        assert_eq!(dumps(&json!(text)), r#""say \"hi\" \\ ok""#);
    }

    #[test]
    fn control_characters() {
        // '\n', '\t', '\r', '\b', '\f' take two; other C0 take six; DEL and U+2028 stay raw.
        let text = "a\nb\tc\rd\u{8}e\u{c}f\u{1}g\u{1f}h\u{7f}i\u{2028}";
        assert_eq!(
            dumps(&json!(text)),
            "\"a\\nb\\tc\\rd\\be\\ff\\u0001g\\u001fh\u{7f}i\u{2028}\""
        );
        // 2 quotes + 11 plain + 5*2 + 2*6 = 35.
        assert_eq!(json_str_chars(text), 35);
        assert_eq!(json_str_chars(text), dumps(&json!(text)).chars().count());
    }

    #[test]
    fn nested_tool_use_input() {
        // json.dumps([{"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
        //   "name": "bash", "input": {"command": "ls", "opts": {"a": [1, 2.5, True, None]}}}]}],
        //   ensure_ascii=False)
        let value = json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
            "name": "bash", "input": {"command": "ls", "opts": {"a": [1, 2.5, true, null]}}}]}]);
        let expected = r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls", "opts": {"a": [1, 2.5, true, null]}}}]}]"#;
        assert_eq!(dumps(&value), expected);
        assert_eq!(value_chars(&value), 151);
    }

    #[test]
    fn input_keys_keep_scenario_order() {
        let value: Value = serde_json::from_str(r#"{"z": 1, "a": 2}"#).unwrap();
        assert_eq!(dumps(&value), r#"{"z": 1, "a": 2}"#);
    }

    #[test]
    fn numbers_print_as_python_does() {
        let value: Value = serde_json::from_str(
            "[1.0, 1e20, 1e16, 1e15, 0.0001, 0.00001, -0, -0.0, 123456789012345678901234567890, 1.5e-7, 2.50]",
        )
        .unwrap();
        // json.dumps(json.loads(same)) in CPython.
        assert_eq!(
            dumps(&value),
            "[1.0, 1e+20, 1e+16, 1000000000000000.0, 0.0001, 1e-05, 0, -0.0, \
             123456789012345678901234567890, 1.5e-07, 2.5]"
        );
        let huge: Value = serde_json::from_str("[1e400]").unwrap();
        assert_eq!(dumps(&huge), "[Infinity]");
    }

    #[test]
    fn splitlines_matches_python() {
        // "a\r\nb\rc\nd\x0be\x0cf\x1cg\x85h\u2028i".splitlines()
        let text = "a\r\nb\rc\nd\u{b}e\u{c}f\u{1c}g\u{85}h\u{2028}i";
        assert_eq!(
            splitlines(text),
            vec!["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        );
        // A trailing newline does not make an empty last line; an inner blank line stays.
        assert_eq!(splitlines("x\n\ny\n"), vec!["x", "", "y"]);
        assert_eq!(splitlines(""), Vec::<&str>::new());
    }

    #[test]
    fn prefix_counts_characters() {
        assert_eq!(char_prefix("中文abc", 3), "中文a");
        assert_eq!(char_prefix("ab", 5), "ab");
        assert_eq!(char_len("中文abc"), 5);
    }
}
