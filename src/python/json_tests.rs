//! Tests of Python's text views: CPython's lengths and texts, the escapes, splitlines, and
//! the counting sinks against the text the same walk writes.

use super::*;
use serde_json::json;

/// The bulk writer escapes as serde_json does (and `json.dumps(ensure_ascii=False)`):
/// quotes, backslashes, the short escapes, `\u00XX` for the other C0 controls, everything
/// else (DEL, non-ASCII, astral) as it is, whether a run is long or short.
#[test]
fn js_string_escapes_as_serde_json_does() {
    let long = format!("{}\u{1}{}\"中😀", "x".repeat(70), "é".repeat(40));
    for text in [
        "",
        "plain",
        "\"\\\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}",
        "a\u{0}b 中 😀 \u{2028}",
        long.as_str(),
    ] {
        let expected = serde_json::to_string(text).expect("a string serialises");
        assert_eq!(js_string(text), expected, "{text:?}");
    }
    assert_eq!(js_string("a\nb"), r#""a\nb""#);
    // The escapes are what they add, so the reserved length is the written one.
    let escapes = js_escapes(&long);
    assert_eq!(escapes, 6, "\\u0001 adds five, \\\" one");
    let out = js_string(&long);
    assert_eq!(out.len(), long.len() + 2 + escapes);
    assert_eq!(out.capacity(), out.len());
}

#[test]
fn ensure_ascii_escapes_everything_outside_printable_ascii() {
    // CPython: json.dumps("aé\x7f😀\n\x01") == '"a\\u00e9\\u007f\\ud83d\\ude00\\n\\u0001"'
    let text = "aé\u{7f}😀\n\u{1}";
    let mut out = String::new();
    Dialect::JsonAscii.write_str(&mut out, text);
    assert_eq!(out, r#""a\u00e9\u007f\ud83d\ude00\n\u0001""#);
    assert_eq!(Dialect::JsonAscii.str_chars(text), out.chars().count());
    assert_eq!(out.chars().count(), 35);
}

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
fn repr_quotes_and_escapes_like_cpython() {
    // Each pair is (text, repr(text)) from CPython 3.11.
    let cases = [
        ("plain", "'plain'"),
        ("it's", "\"it's\""),
        ("say \"hi\"", "'say \"hi\"'"),
        ("both ' and \"", "'both \\' and \"'"),
        ("back\\slash", "'back\\\\slash'"),
        ("a\nb\tc\rd", "'a\\nb\\tc\\rd'"),
        (
            "\u{0}\u{1f}\u{7f}\u{85}\u{a0}",
            "'\\x00\\x1f\\x7f\\x85\\xa0'",
        ),
        ("中文😀é", "'中文😀é'"),
        ("zero\u{200b}width\u{2028}", "'zero\\u200bwidth\\u2028'"),
        ("\u{e000}\u{10ffff}", "'\\ue000\\U0010ffff'"),
    ];
    for (text, expected) in cases {
        let mut out = String::new();
        Dialect::Repr.write_str(&mut out, text);
        assert_eq!(out, expected, "{text:?}");
        assert_eq!(repr_str_chars(text), expected.chars().count(), "{text:?}");
    }
}

#[test]
fn repr_of_values() {
    let value: Value =
        serde_json::from_str(r#"{"a": [1, 2.5, true, false, null, "x"], "b": 1e400}"#).unwrap();
    // repr(json.loads(same)) in CPython.
    assert_eq!(
        repr(&value),
        "{'a': [1, 2.5, True, False, None, 'x'], 'b': inf}"
    );
    assert_eq!(repr_chars(&value), repr(&value).chars().count());
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
    // "\n".splitlines() == [''], "\r\n\r".splitlines() == ['', ''], "x\r" and "\u2029y".
    assert_eq!(splitlines("\n"), vec![""]);
    assert_eq!(splitlines("\r\n\r"), vec!["", ""]);
    assert_eq!(splitlines("x\r"), vec!["x"]);
    assert_eq!(splitlines("\u{2029}y\u{1d}\u{1e}"), vec!["", "y", ""]);
    // One line at a time, the search stops at the first line it wants.
    let mut lines = lines("a\nFull: b\nc");
    assert_eq!(lines.find_map(|l| l.strip_prefix("Full: ")), Some("b"));
    assert_eq!(lines.next(), Some("c"));
}

#[test]
fn prefix_counts_characters() {
    assert_eq!(char_prefix("中文abc", 3), "中文a");
    assert_eq!(char_prefix("ab", 5), "ab");
    // The bulk ASCII paths and the decodes agree with Python's slices at every length.
    for text in ["abc中de", "中", "plain ascii", "é", "ab\u{1F600}c", ""] {
        for n in 0..12 {
            let by_chars: String = text.chars().take(n).collect();
            assert_eq!(char_prefix(text, n), by_chars, "{text:?}[:{n}]");
            let count = text.chars().count();
            let by_chars: String = text.chars().skip(count.saturating_sub(n)).collect();
            assert_eq!(char_suffix(text, n), by_chars, "the last {n} of {text:?}");
        }
    }
    assert_eq!(char_len("中文abc"), 5);
    // Counted in chunks of 128 bytes: texts of one- to four-byte characters whose chunks end
    // inside a character, at every length up to three chunks.
    let mixed = "aé中😀\n".repeat(40);
    for end in (0..=mixed.len()).filter(|&end| mixed.is_char_boundary(end)) {
        let text = &mixed[..end];
        assert_eq!(char_len(text), text.chars().count(), "{end}");
    }
}

/// Each dialect's counted length of a message (names and punctuation counted without being
/// read) is the length of the text the same walk writes.
#[test]
fn counted_lengths_are_those_of_the_written_text() {
    for message in crate::transcript::sample_messages() {
        for dialect in [Dialect::Json, Dialect::JsonAscii, Dialect::Repr] {
            let mut text = String::new();
            message.write_py(&mut text, dialect);
            let mut counter = Counter::default();
            message.write_py(&mut counter, dialect);
            assert_eq!(counter.0, text.chars().count(), "{dialect:?}: {text}");
            let mut contents: ContentCounter = ContentCounter::default();
            message.write_py(&mut contents, dialect);
            assert_eq!(contents.total, counter.0, "{dialect:?}");
            let mut known = KnownContents {
                total: 0,
                known: std::iter::empty(),
            };
            message.write_py(&mut known, dialect);
            assert_eq!(known.total, counter.0, "{dialect:?}");
        }
    }
}
