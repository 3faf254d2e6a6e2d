//! Python's text views of a transcript, to the character.
//!
//! The course measures context with `len(json.dumps(messages, default=str, ensure_ascii=False))`
//! (learn-claude-code s08 `estimate_chars` at f9e8b28; docs/profiles.md). Thresholds decide the
//! findings, so the lab reproduces that count exactly: separators `", "` and `": "`, keys in
//! insertion order, non-ASCII kept, only `"`, `\` and the C0 controls escaped. The course site's
//! older revision measures `len(str(messages))` instead, Python's `repr`: quote choice,
//! `\xNN`/`\uNNNN` escapes of what CPython 3.11 calls non-printable. Python's `str.splitlines`,
//! which the micro stage uses to find a `Full output: ` line, lives here too.

use serde_json::{Number, Value};

use super::weigh::{plain_run, weigh};

/// Which of Python's text views a serialisation follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `json.dumps(value, ensure_ascii=False)`.
    Json,
    /// `json.dumps(value)` with its default `ensure_ascii=True`: everything outside printable
    /// ASCII escaped as `\uXXXX` (a surrogate pair above U+FFFF).
    JsonAscii,
    /// `str(value)` / `repr(value)` of lists, dicts and strings.
    Repr,
}

impl Dialect {
    /// Length of one string literal in this dialect, quotes included.
    pub fn str_chars(self, text: &str) -> usize {
        match self {
            Dialect::Json => json_str_chars(text),
            Dialect::JsonAscii => json_ascii_str_chars(text),
            Dialect::Repr => repr_str_chars(text),
        }
    }

    /// Appends one string literal.
    pub fn write_str(self, out: &mut String, text: &str) {
        match self {
            Dialect::Json => write_json_str(out, text, false),
            Dialect::JsonAscii => write_json_str(out, text, true),
            Dialect::Repr => write_repr_str(out, text),
        }
    }

    fn literal(self, value: &Value) -> &'static str {
        match (self, value) {
            (Dialect::Json | Dialect::JsonAscii, Value::Bool(true)) => "true",
            (Dialect::Json | Dialect::JsonAscii, Value::Bool(false)) => "false",
            (Dialect::Json | Dialect::JsonAscii, _) => "null",
            (Dialect::Repr, Value::Bool(true)) => "True",
            (Dialect::Repr, Value::Bool(false)) => "False",
            (Dialect::Repr, _) => "None",
        }
    }
}

/// Where serialised text goes: a `String`, or a counter when only the length matters.
pub(crate) trait Sink {
    /// Appends text that needs no escaping: punctuation, numbers and literals, all ASCII (so a
    /// counter counts its bytes).
    fn raw(&mut self, text: &str);
    /// Appends `text` as a string literal of the dialect, quotes included.
    fn string(&mut self, text: &str, dialect: Dialect);
    /// Appends one of the transcript's own names (a key such as `tool_use_id`, a block type, a
    /// role) as a string literal: ASCII letters and underscores, which no dialect escapes, so
    /// a counter adds its length and the two quotes without reading it.
    fn name(&mut self, name: &'static str, dialect: Dialect) {
        self.string(name, dialect);
    }
    /// Appends the content string of a tool_result block (a string literal, as [`Sink::string`]);
    /// a sink that measures can note its size apart.
    fn content(&mut self, text: &str, dialect: Dialect) {
        self.string(text, dialect);
    }
}

/// Counts Unicode scalar values, as Python's `len` of a `str` does.
#[derive(Debug, Default)]
pub(crate) struct Counter(pub usize);

impl Sink for Counter {
    fn raw(&mut self, text: &str) {
        self.0 += ascii_len(text);
    }

    fn string(&mut self, text: &str, dialect: Dialect) {
        self.0 += dialect.str_chars(text);
    }

    fn name(&mut self, name: &'static str, _: Dialect) {
        self.0 += name_len(name);
    }
}

/// The length of [`Sink::raw`] text, which is ASCII: its bytes.
fn ascii_len(text: &str) -> usize {
    debug_assert!(text.is_ascii(), "raw text {text:?} is not ASCII");
    text.len()
}

/// The length of a [`Sink::name`] written as a string literal in any dialect: its bytes and
/// the two quotes.
fn name_len(name: &str) -> usize {
    debug_assert!(
        name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_'),
        "{name:?} is not a plain name"
    );
    name.len() + 2
}

/// The sizes of a message's tool_result contents, in block order: most messages hold one to
/// two, kept inline (issue 13: a list allocated for each message with a result, and freed
/// when it left the history).
pub(crate) type ContentSizes = smallvec::SmallVec<[usize; 2]>;

/// A [`Counter`] that also keeps the size of each tool_result content string, in order, so that
/// replacing one later needs no rescan of the old text.
#[derive(Debug, Default)]
pub(crate) struct ContentCounter<Known = std::iter::Empty<usize>> {
    pub(crate) total: usize,
    pub(crate) contents: ContentSizes,
    /// The sizes of the contents, in order, where they were measured already (read as the
    /// contents are met: no list of them is built).
    pub(crate) known: Known,
}

impl<Known: Iterator<Item = usize>> Sink for ContentCounter<Known> {
    fn raw(&mut self, text: &str) {
        self.total += ascii_len(text);
    }

    fn string(&mut self, text: &str, dialect: Dialect) {
        self.total += dialect.str_chars(text);
    }

    fn name(&mut self, name: &'static str, _: Dialect) {
        self.total += name_len(name);
    }

    fn content(&mut self, text: &str, dialect: Dialect) {
        let size = self.known.next().unwrap_or_else(|| dialect.str_chars(text));
        self.total += size;
        self.contents.push(size);
    }
}

/// Counts as [`Counter`] does, taking each tool_result content's length from `known` (in block
/// order) where it holds one.
pub(crate) struct KnownContents<Known> {
    pub(crate) total: usize,
    pub(crate) known: Known,
}

impl<Known: Iterator<Item = Option<usize>>> Sink for KnownContents<Known> {
    fn raw(&mut self, text: &str) {
        self.total += ascii_len(text);
    }

    fn string(&mut self, text: &str, dialect: Dialect) {
        self.total += dialect.str_chars(text);
    }

    fn name(&mut self, name: &'static str, _: Dialect) {
        self.total += name_len(name);
    }

    fn content(&mut self, text: &str, dialect: Dialect) {
        let known = self.known.next().flatten();
        self.total += known.unwrap_or_else(|| dialect.str_chars(text));
    }
}

impl Sink for String {
    fn raw(&mut self, text: &str) {
        self.push_str(text);
    }

    fn string(&mut self, text: &str, dialect: Dialect) {
        dialect.write_str(self, text);
    }
}

fn write_json_str(out: &mut String, text: &str, ascii: bool) {
    out.push('"');
    if ascii {
        write_json_chars(out, text, true);
    } else {
        // Runs of characters written as they are (every one but `"`, `\` and the C0 controls)
        // are copied in bulk; a run ends only at an ASCII byte, so it is whole characters.
        let plain = |b: u8| b >= 0x20 && b != b'"' && b != b'\\';
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let run = plain_run(&bytes[at..], plain);
            out.push_str(&text[at..at + run]);
            at += run;
            if at < bytes.len() {
                write_json_chars(out, &text[at..at + 1], false);
                at += 1;
            }
        }
    }
    out.push('"');
}

/// `json.dumps` of the characters of `text`, one at a time, without the quotes.
fn write_json_chars(out: &mut String, text: &str, ascii: bool) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
}

/// `JSON.stringify(text)` (the same escapes as `json.dumps(text, ensure_ascii=False)` and
/// serde_json: `\"`, `\\`, the short escapes and `\u00XX` for the other C0 controls).
#[cfg(test)]
pub(crate) fn js_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2 + js_escapes(text));
    write_js_string(&mut out, text);
    out
}

/// The characters [`js_string`]'s escapes add to `text`, and as many bytes (each escape is
/// ASCII): with the quotes, what a caller reserves to write it without a reallocation. Counted
/// in a pass that vectorises.
pub(crate) fn js_escapes(text: &str) -> usize {
    weigh::<32>(text.as_bytes(), escape_extra)
}

/// Appends [`js_string`]`(text)` to `out`.
pub(crate) fn write_js_string(out: &mut String, text: &str) {
    write_json_str(out, text, false);
}

/// Length of `json.dumps(text)` (`ensure_ascii=True`): as [`json_str_chars`], plus six for every
/// character outside printable ASCII (U+007F included) and twelve above U+FFFF.
pub fn json_ascii_str_chars(text: &str) -> usize {
    // A character's cost sits on its first byte: a lead byte of two or three bytes is one
    // `\uXXXX` escape, of four a surrogate pair of two.
    2 + weigh::<16>(text.as_bytes(), ascii_weight)
}

/// A byte's weight in [`json_ascii_str_chars`]: an ASCII character as `ensure_ascii=False`
/// writes it ([`escape_extra`]), but DEL, which becomes `\u007f`; a continuation byte nothing,
/// a lead byte one `\uXXXX` and a four-byte lead two. Compares only, so that a chunk's weights
/// vectorise (issue 13: a `match` of ranges cost twelve instructions a byte).
#[inline]
fn ascii_weight(b: u8) -> u8 {
    u8::from(b < 0x80) * (1 + escape_extra(b))
        + 5 * u8::from(b == 0x7f)
        + 6 * u8::from(b >= 0xc0)
        + 6 * u8::from(b >= 0xf0)
}

/// Length of `json.dumps(text, ensure_ascii=False)`: the quotes plus every character, with two
/// for `"`, `\`, `\b`, `\f`, `\n`, `\r`, `\t` and six (`\u00XX`) for the other C0 controls.
pub fn json_str_chars(text: &str) -> usize {
    2 + weigh::<32>(text.as_bytes(), |b| char_start(b) + escape_extra(b))
}

/// `JSON.stringify(text).length`: the quotes, `\"`, `\\` and the short escapes of `\b \t \n
/// \f \r` two units, the other C0 controls six (`\u00XX`), any other character its UTF-16
/// length (a string of Rust holds no lone surrogate to escape).
pub fn js_str_units(text: &str) -> usize {
    // A four-byte character is two UTF-16 units: its lead byte counts both.
    2 + weigh::<32>(text.as_bytes(), |b| {
        char_start(b) + u8::from(b >= 0xf0) + escape_extra(b)
    })
}

/// 1 for the first byte of a UTF-8 character, 0 for a continuation byte.
#[inline]
fn char_start(b: u8) -> u8 {
    u8::from(b & 0xc0 != 0x80)
}

/// What `json.dumps` and `JSON.stringify` add to a byte's character: one for `"`, `\` and the
/// short escapes (`\b \t \n \f \r`), five for the other C0 controls (`\u00XX`).
#[inline]
fn escape_extra(b: u8) -> u8 {
    // Compares only, no table or bit test, so that a chunk's weights vectorise: the short
    // escapes are 0x08-0x0d but 0x0b.
    let short = (b == b'"') | (b == b'\\') | ((b.wrapping_sub(0x08) < 6) & (b != 0x0b));
    u8::from(short) + 5 * u8::from((b < 0x20) & !short)
}

/// What `repr` adds to an ASCII byte's character, its quote aside: one for a backslash, `\t`,
/// `\n` and `\r`, three for the other C0 controls and DEL (`\xNN`). A quote is printable, so
/// the quote `repr` chooses adds its one on top. Compares only, so that a chunk's weights
/// vectorise.
#[inline]
fn repr_escape_extra(b: u8) -> u8 {
    let short = (b == b'\\') | (b == b'\t') | (b == b'\n') | (b == b'\r');
    let hex = ((b < 0x20) | (b == 0x7f)) & !short;
    u8::from(short) + 3 * u8::from(hex)
}

/// [`json_str_chars`] and [`repr_str_chars`] of an ASCII `text` in one pass (its other sizes
/// are its length, and `JSON.stringify`'s is `json.dumps`'s): each 32-byte chunk sums both
/// escapes' weights and counts both quotes, whose presence decides the quote `repr` writes
/// (issue 13: a literal result was read five times, once for each measure).
pub(crate) fn ascii_json_repr_chars(text: &str) -> (usize, usize) {
    debug_assert!(text.is_ascii(), "{text:?}");
    let (mut json, mut repr, mut singles, mut doubles) = (0, 0, 0, 0);
    for chunk in text.as_bytes().chunks(32) {
        // At most 32 bytes of weight 5, 3 or 1 each: the sums fit in a byte.
        let (mut j, mut r, mut s, mut d) = (0u8, 0u8, 0u8, 0u8);
        for &b in chunk {
            j += escape_extra(b);
            r += repr_escape_extra(b);
            s += u8::from(b == b'\'');
            d += u8::from(b == b'"');
        }
        json += usize::from(j);
        repr += usize::from(r);
        singles += usize::from(s);
        doubles += usize::from(d);
    }
    // `repr` writes `"` when the text holds `'` and no `"`: then no quote is escaped.
    let quoted = if singles > 0 && doubles == 0 {
        0
    } else {
        singles
    };
    let len = text.len();
    (2 + len + json, 2 + len + repr + quoted)
}

/// The summed cost of the characters of `text`, where every byte `plain` accepts is an ASCII
/// character costing one and every other character costs `other(c)`. Runs of plain bytes are
/// counted in bulk (a vectorisable scan of 32-byte chunks), so plain text costs about a memory
/// scan and only the characters that need escaping, or are not ASCII, are decoded one by one.
/// `plain` must reject every byte of 0x80 and above.
#[inline]
fn count_runs(
    text: &str,
    plain: impl Fn(u8) -> bool + Copy,
    mut other: impl FnMut(char) -> usize,
) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut at = 0;
    while at < bytes.len() {
        let run = plain_run(&bytes[at..], plain);
        count += run;
        at += run;
        if let Some(c) = text[at..].chars().next() {
            count += other(c);
            at += c.len_utf8();
        }
    }
    count
}

/// CPython 3.11's `str.isprintable` for one character.
pub(crate) fn is_printable(c: char) -> bool {
    let cp = c as u32;
    crate::python::repr_table::NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_err()
}

/// The quote `repr` chooses: `"` when the text has `'` and no `"`, else `'`.
fn repr_quote(text: &str) -> char {
    if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    }
}

/// How `repr` writes one character inside quotes `quote`.
enum ReprChar {
    Plain(char),
    Escaped(String),
}

fn repr_char(c: char, quote: char) -> ReprChar {
    let cp = c as u32;
    match c {
        c if c == quote || c == '\\' => ReprChar::Escaped(format!("\\{c}")),
        '\t' => ReprChar::Escaped("\\t".to_owned()),
        '\n' => ReprChar::Escaped("\\n".to_owned()),
        '\r' => ReprChar::Escaped("\\r".to_owned()),
        _ if cp < 0x20 || cp == 0x7f => ReprChar::Escaped(format!("\\x{cp:02x}")),
        _ if cp < 0x7f || is_printable(c) => ReprChar::Plain(c),
        _ if cp <= 0xff => ReprChar::Escaped(format!("\\x{cp:02x}")),
        _ if cp <= 0xffff => ReprChar::Escaped(format!("\\u{cp:04x}")),
        _ => ReprChar::Escaped(format!("\\U{cp:08x}")),
    }
}

/// Length of `repr(text)`.
pub fn repr_str_chars(text: &str) -> usize {
    let quote = repr_quote(text);
    let quote_byte = quote as u8;
    if text.is_ascii() {
        // Every character is one byte: weighed in bulk, as a memory scan (issue 13: a run of
        // plain bytes between two newlines cost a decode and a call).
        return 2 + weigh::<32>(text.as_bytes(), |b| {
            1 + u8::from(b == quote_byte) + repr_escape_extra(b)
        });
    }
    repr_str_chars_by_runs(text, quote)
}

/// [`repr_str_chars`] of any text, by runs of plain bytes and a decode of each other character.
fn repr_str_chars_by_runs(text: &str, quote: char) -> usize {
    let quote_byte = quote as u8;
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != quote_byte && b != b'\\';
    2 + count_runs(text, plain, |c| {
        let cp = c as u32;
        match c {
            c if c == quote || c == '\\' => 2,
            '\t' | '\n' | '\r' => 2,
            _ if cp < 0x20 || cp == 0x7f => 4,
            _ if cp < 0x7f || is_printable(c) => 1,
            _ if cp <= 0xff => 4,
            _ if cp <= 0xffff => 6,
            _ => 10,
        }
    })
}

fn write_repr_str(out: &mut String, text: &str) {
    let quote = repr_quote(text);
    out.push(quote);
    for c in text.chars() {
        match repr_char(c, quote) {
            ReprChar::Plain(c) => out.push(c),
            ReprChar::Escaped(text) => out.push_str(&text),
        }
    }
    out.push(quote);
}

/// Writes `value` as `json.dumps(value, ensure_ascii=False)` (or `repr(value)`) would.
pub(crate) fn write_value<S: Sink>(sink: &mut S, value: &Value, dialect: Dialect) {
    match value {
        Value::Null | Value::Bool(_) => sink.raw(dialect.literal(value)),
        Value::Number(number) => sink.raw(&python_number(number, dialect)),
        Value::String(text) => sink.string(text, dialect),
        Value::Array(items) => {
            sink.raw("[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    sink.raw(", ");
                }
                write_value(sink, item, dialect);
            }
            sink.raw("]");
        }
        Value::Object(map) => {
            sink.raw("{");
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    sink.raw(", ");
                }
                sink.string(key, dialect);
                sink.raw(": ");
                write_value(sink, item, dialect);
            }
            sink.raw("}");
        }
    }
}

/// Length of `json.dumps(value, ensure_ascii=False)`.
pub fn value_chars(value: &Value) -> usize {
    let mut counter = Counter::default();
    write_value(&mut counter, value, Dialect::Json);
    counter.0
}

/// `len(repr(value))` for a value read by `json.loads`.
pub fn repr_chars(value: &Value) -> usize {
    let mut counter = Counter::default();
    write_value(&mut counter, value, Dialect::Repr);
    counter.0
}

/// The text `repr(value)` prints.
pub fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Dialect::Repr);
    out
}

/// The text `json.dumps(value, ensure_ascii=False)` prints.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Dialect::Json);
    out
}

/// How Python prints a number that `json.loads` read: integers exactly, floats by `float.__repr__`
/// (`json.dumps` spells the infinities `Infinity`, `repr` spells them `inf`).
fn python_number(number: &Number, dialect: Dialect) -> String {
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
    match dialect {
        Dialect::Repr if value.is_infinite() => if value > 0.0 { "inf" } else { "-inf" }.to_owned(),
        Dialect::Repr if value.is_nan() => "nan".to_owned(),
        _ => python_float_repr(value),
    }
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
    lines(text).collect()
}

/// [`splitlines`] one line at a time: a search for the first line of some kind reads the text
/// only up to it (issue 13: a pointer is looked for in every persisted-output preview).
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let rest = text.get(start..).filter(|rest| !rest.is_empty())?;
        let found = rest.char_indices().find(|(_, c)| {
            matches!(
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
            )
        });
        let Some((index, c)) = found else {
            start = text.len();
            return Some(rest);
        };
        let crlf = c == '\r' && rest[index + 1..].starts_with('\n');
        start += index + c.len_utf8() + usize::from(crlf);
        Some(&rest[..index])
    })
}

/// Python's `text[:n]` on characters.
pub fn char_prefix(text: &str, n: usize) -> &str {
    // When the first `n` bytes are ASCII they are the first `n` characters: checked in bulk,
    // not decoded one by one (issue 13: every persisted preview).
    if text.len() <= n {
        return text;
    }
    if text.as_bytes()[..n].is_ascii() {
        return &text[..n];
    }
    match text.char_indices().nth(n) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}

/// The last `n` characters of `text` (all of it when it has fewer), the counterpart of
/// [`char_prefix`]: when the last `n` bytes are ASCII they are the last `n` characters.
pub fn char_suffix(text: &str, n: usize) -> &str {
    if text.len() <= n {
        return text;
    }
    let start = text.len() - n;
    if text.as_bytes()[start..].is_ascii() {
        return &text[start..];
    }
    let start = match n.checked_sub(1) {
        Some(back) => text.char_indices().nth_back(back).map_or(0, |(at, _)| at),
        None => text.len(),
    };
    &text[start..]
}

/// Python's `len(text)`: its characters, every byte but the continuation bytes, summed in bulk
/// (issue 13: `chars().count()` cost three times as much on the masked outputs gemini-cli
/// writes).
pub fn char_len(text: &str) -> usize {
    weigh::<128>(text.as_bytes(), char_start)
}

#[cfg(test)]
#[path = "json_fast_tests.rs"]
mod fast_path_tests;

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
