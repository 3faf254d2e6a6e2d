//! The fast size estimates against the per-character loops they replaced: every string a run can
//! hold (ASCII, escapes, C0 controls, DEL, non-ASCII, non-printable, characters that UTF-16 writes
//! as surrogate pairs) must measure exactly as before, or a threshold would fire elsewhere.

use super::*;
use crate::transcript::utf16_len;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The per-character loop `json_str_chars` was before the fast path.
fn slow_json(text: &str) -> usize {
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

/// The per-character loop `json_ascii_str_chars` was.
fn slow_json_ascii(text: &str) -> usize {
    let mut count = 2;
    for c in text.chars() {
        count += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            ' '..='~' => 1,
            c if (c as u32) > 0xffff => 12,
            _ => 6,
        };
    }
    count
}

/// The per-character loop `repr_str_chars` was.
fn slow_repr(text: &str) -> usize {
    let quote = repr_quote(text);
    let mut count = 2;
    for c in text.chars() {
        let cp = c as u32;
        count += match c {
            c if c == quote || c == '\\' => 2,
            '\t' | '\n' | '\r' => 2,
            _ if cp < 0x20 || cp == 0x7f => 4,
            _ if cp < 0x7f || is_printable(c) => 1,
            _ if cp <= 0xff => 4,
            _ if cp <= 0xffff => 6,
            _ => 10,
        };
    }
    count
}

/// Every measure of `text`, fast then slow, plus the serialised text's own length.
fn check(text: &str) {
    assert_eq!(json_str_chars(text), slow_json(text), "json {text:?}");
    assert_eq!(
        json_ascii_str_chars(text),
        slow_json_ascii(text),
        "ascii {text:?}"
    );
    assert_eq!(repr_str_chars(text), slow_repr(text), "repr {text:?}");
    if text.is_ascii() {
        let both = (slow_json(text), slow_repr(text));
        assert_eq!(ascii_json_repr_chars(text), both, "one pass {text:?}");
    }
    let sizes = crate::transcript::TextSizes::of(text);
    assert_eq!(sizes.json, slow_json(text), "sizes json {text:?}");
    assert_eq!(sizes.repr, slow_repr(text), "sizes repr {text:?}");
    assert_eq!(sizes.chars, text.chars().count(), "sizes chars {text:?}");
    assert_eq!(
        sizes.utf16,
        text.encode_utf16().count(),
        "sizes utf16 {text:?}"
    );
    assert_eq!(sizes.js, js_str_units(text), "sizes js {text:?}");
    for dialect in [Dialect::Json, Dialect::JsonAscii, Dialect::Repr] {
        let mut out = String::new();
        dialect.write_str(&mut out, text);
        assert_eq!(
            dialect.str_chars(text),
            out.chars().count(),
            "{dialect:?} {text:?}"
        );
    }
    let units: usize = text.chars().map(char::len_utf16).sum();
    assert_eq!(utf16_len(text), units, "utf16 {text:?}");
    let built = crate::transcript::js_stringify(&serde_json::Value::from(text));
    assert_eq!(js_str_units(text), utf16_len(&built), "js {text:?}");
    assert_eq!(js_string(text), built, "written {text:?}");
}

/// Characters from every class the estimates treat apart, weighted towards plain ASCII so that
/// runs cross the 32-byte chunks of the fast scan.
fn text() -> impl Strategy<Value = String> {
    let special = prop_oneof![
        Just('"'),
        Just('\''),
        Just('\\'),
        Just('\n'),
        Just('\r'),
        Just('\t'),
        Just('\u{8}'),
        Just('\u{c}'),
        Just('\u{0}'),
        Just('\u{1f}'),
        Just('\u{7f}'),
        Just('\u{85}'),
        Just('\u{a0}'),
        Just('é'),
        Just('中'),
        Just('\u{200b}'),
        Just('\u{2028}'),
        Just('\u{e000}'),
        Just('\u{fffd}'),
        Just('😀'),
        Just('\u{10ffff}'),
        any::<char>(),
    ];
    let piece = prop_oneof![
        6 => "[ -~]{0,80}",
        3 => special.prop_map(String::from),
        1 => (1usize..200).prop_map(|n| "x".repeat(n)),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

#[test]
fn fast_estimates_equal_the_character_loops() {
    let config = Config::with_cases(3000);
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[13; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    runner
        .run(&text(), |text| {
            check(&text);
            Ok(())
        })
        .unwrap();
}

#[test]
fn chunk_edges_and_fixed_cases() {
    // A special character at every offset around the 32-byte chunks, alone and in a long run.
    for special in [
        "\"", "'", "\\", "\n", "\u{1}", "\u{7f}", "é", "\u{85}", "😀", "中",
    ] {
        for at in 0..70 {
            for len in [at, at + 1, 64, 65, 100] {
                let head = "a".repeat(at);
                let tail = "b".repeat(len.saturating_sub(at));
                check(&format!("{head}{special}{tail}"));
            }
        }
    }
    check("");
    check(&"x".repeat(100_000));
    // By hand: utf16_len sums 64-byte chunks in a byte; a surrogate pair is two units.
    assert_eq!(utf16_len(&"😀".repeat(1000)), 2000);
    assert_eq!(utf16_len(&"中".repeat(1000)), 1000);
    // By hand: 2 quotes, a, \u0001 (6), 😀 (2 units), \n (2).
    assert_eq!(js_str_units("a\u{1}😀\n"), 13);
    // By hand: 2 quotes + 1000 plain + 1000 newlines at two each.
    assert_eq!(json_str_chars(&"a\n".repeat(1000)), 3002);
    // repr picks `"` for text with `'` and no `"`, so the `'` inside costs one: 2 + 4.
    assert_eq!(repr_str_chars("it's"), 6);
}

/// The three byte-weighted counts against the text each writer produces (serde_json's
/// escapes are `json.dumps(ensure_ascii=False)`'s and `JSON.stringify`'s): every string of
/// up to three characters over an alphabet of each class of character (8000), and longer
/// mixes that cross the 16- and 32-byte chunks at every offset.
#[test]
fn weighted_counts_are_the_written_lengths() {
    let alphabet = [
        'a',
        ' ',
        '~',
        '"',
        '\\',
        '\n',
        '\r',
        '\t',
        '\u{8}',
        '\u{c}',
        '\u{0}',
        '\u{1f}',
        '\u{7f}',
        '\u{80}',
        'é',
        '中',
        '\u{2028}',
        '\u{ffff}',
        '😀',
        '\u{10ffff}',
    ];
    let check = |text: &str| {
        let json = serde_json::to_string(text).expect("a string serialises");
        assert_eq!(json_str_chars(text), json.chars().count(), "{text:?}");
        assert_eq!(js_str_units(text), json.encode_utf16().count(), "{text:?}");
        let mut ascii = String::new();
        Dialect::JsonAscii.write_str(&mut ascii, text);
        assert_eq!(
            json_ascii_str_chars(text),
            ascii.chars().count(),
            "{text:?}"
        );
    };
    let mut checked = 0;
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                check(&String::from_iter([a, b, c]));
                checked += 1;
            }
        }
    }
    check("");
    let mut state: u64 = 13;
    for len in 0..200 {
        let text: String = (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mostly plain text, as results are.
                let pick = (state >> 33) as usize % (alphabet.len() * 4);
                alphabet.get(pick).copied().unwrap_or('x')
            })
            .collect();
        check(&text);
        checked += 1;
    }
    assert_eq!(checked, 8200);
}

/// An ASCII text's `repr` length weighed in bulk is the one counted by runs, for every
/// ASCII character, with either quote chosen.
#[test]
fn an_ascii_repr_weighed_in_bulk_is_the_one_counted_by_runs() {
    let every: String = (0u8..0x80).map(char::from).collect();
    let no_single: String = every.chars().filter(|c| *c != '\'').collect();
    let no_double: String = every.chars().filter(|c| *c != '"').collect();
    for text in [
        every.as_str(),
        &no_single,
        &no_double,
        "",
        "it's",
        "a\nb\tc",
    ] {
        let long = text.repeat(9);
        for text in [text, long.as_str()] {
            let by_runs = repr_str_chars_by_runs(text, repr_quote(text));
            assert_eq!(repr_str_chars(text), by_runs, "{text:?}");
        }
    }
    assert_eq!(repr_str_chars("it's"), 6);
    assert_eq!(repr_str_chars("a\u{1}\u{7f}'\""), 2 + 1 + 4 + 4 + 1 + 2);
}

/// The compare-only weight is the table it replaced, for every byte.
#[test]
fn the_ensure_ascii_weight_of_every_byte_is_its_escape() {
    for b in 0..=u8::MAX {
        let expected = match b {
            b'"' | b'\\' => 2,
            b' '..=b'~' => 1,
            0x08 | 0x09 | 0x0a | 0x0c | 0x0d => 2,
            0x80..=0xbf => 0,
            0xf0..=0xff => 12,
            _ => 6,
        };
        assert_eq!(ascii_weight(b), expected, "{b:#04x}");
    }
}
