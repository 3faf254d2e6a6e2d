//! PyYAML 6.0.3 as the course's memory records meet it: the frontmatter writer and reader.
//!
//! s09 (`s09_memory/code.py`) writes a record's frontmatter with
//! `yaml.safe_dump({"name": .., "description": .., "type": ..}, sort_keys=False,
//! allow_unicode=True).strip()` and reads it back in `parse_frontmatter` with `yaml.safe_load`,
//! then takes `str(metadata.get(key) or fallback)`. File sizes are measured, so
//! [`safe_dump_str_mapping`] reproduces the pure-Python `SafeDumper` to the character for a flat
//! mapping of `str`: the implicit resolvers (a string that would load as bool, int, float, null,
//! timestamp, merge `<<` or value `=` is quoted; YAML 1.1 floats need a dot and a signed exponent,
//! so `1.5e3` stays plain), `analyze_scalar`, the plain / single-quoted / double-quoted choice,
//! `''` and backslash escapes (astral characters such as emoji are escaped in double quotes even
//! with `allow_unicode`), and folding past column 80 with continuation lines indented by 2. A value
//! with a line break is single-quoted with each break written twice; one with a tab or another
//! control character is double-quoted; keys that are empty, multi-line or 123+ characters long
//! (`check_simple_key` counts the 5 characters of the tag `!!str` too) become `? key` / `: value`
//! pairs.
//!
//! [`safe_load_mapping`] ports `yaml.safe_load` (reader, scanner, parser, composer and
//! `SafeConstructor`): block and flow mappings and sequences, plain (multi-line, folded), quoted and
//! block (`|`, `>`) scalars, comments, directives, documents markers, anchors and aliases
//! (recursive ones too), merge keys, tags (`!!str`, `!!int`, `!`, verbatim, `%TAG` handles), the
//! implicit bool / int / float / null / timestamp types, duplicate keys (last value wins, first
//! position kept, `1`, `1.0` and `True` being one key as in a Python dict). A value that is not
//! `None`, bool, int, float or str comes back as [`YamlValue::Other`] holding Python's `str()` of it
//! (the repr for lists and dicts, `2024-01-01` for a date). Only `str` keys are returned: a lookup
//! by a `str` key never finds another type. What PyYAML rejects with a `YAMLError` is
//! [`YamlError::Yaml`] (`parse_frontmatter` catches it); what it rejects with another exception
//! (`ValueError` for `!!int x` or `2024-02-30`, `KeyError` for `!!bool maybe`) is
//! [`YamlError::Python`] (it escapes `parse_frontmatter`). Not modelled, reported as
//! [`YamlError::Unsupported`] for the caller to treat like a YAML error: `!!binary`, `!!omap`,
//! `!!pairs`, `!!set`, integers beyond 128 bits, escapes naming a lone surrogate, non-ASCII text
//! handed to `int()`/`float()` by an explicit tag, and nesting deeper than [`MAX_DEPTH`] (where
//! Python would raise `RecursionError` at some depth of its own).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

use serde_json::Value;

use crate::python::json::{python_float_repr, repr};

// ---------------------------------------------------------------------------------------------
// The emitter.

/// PyYAML's `best_width`: a scalar breaks at the first space once the column passes 80.
const BEST_WIDTH: usize = 80;
/// PyYAML's `best_indent`: a mapping value's continuation lines start at column 2.
const BEST_INDENT: usize = 2;

/// The characters PyYAML's emitter treats as line breaks.
const LINE_BREAKS: &str = "\n\u{85}\u{2028}\u{2029}";
/// End of input, blanks and line breaks: what may follow an indicator.
const Z_BLANK_BREAK: &str = "\0 \t\r\n\u{85}\u{2028}\u{2029}";

fn is_line_break(c: char) -> bool {
    LINE_BREAKS.contains(c)
}

/// `yaml.safe_dump(dict(pairs), sort_keys=False, allow_unicode=True)`, before `.strip()`.
///
/// A repeated key keeps its first position and its last value, as `dict(pairs)` does; no pairs
/// give `{}\n`.
pub(crate) fn safe_dump_str_mapping(pairs: &[(&str, &str)]) -> String {
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for &(key, value) in pairs {
        match entries.iter_mut().find(|(seen, _)| *seen == key) {
            Some(entry) => entry.1 = value,
            None => entries.push((key, value)),
        }
    }
    if entries.is_empty() {
        return "{}\n".to_owned();
    }
    let mut emitter = Emitter::new();
    for (key, value) in entries {
        emitter.entry(key, value);
    }
    // The document end.
    emitter.indent = 0;
    emitter.write_indent();
    emitter.out
}

/// What `analyze_scalar` finds out about a string (the parts a block mapping needs).
struct Analysis {
    empty: bool,
    multiline: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

fn analyze_scalar(text: &[char]) -> Analysis {
    if text.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let mut block_indicators =
        text.starts_with(&['-', '-', '-']) || text.starts_with(&['.', '.', '.']);
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut preceded_by_whitespace = true;
    let mut followed_by_whitespace = text.len() == 1 || Z_BLANK_BREAK.contains(text[1]);
    let mut previous_space = false;
    let mut previous_break = false;
    let last = text.len() - 1;
    for (index, &ch) in text.iter().enumerate() {
        if index == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(ch) || ("?:-".contains(ch) && followed_by_whitespace) {
                block_indicators = true;
            }
        } else if (ch == ':' && followed_by_whitespace) || (ch == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        if is_line_break(ch) {
            line_breaks = true;
        }
        if !(ch == '\n' || ('\x20'..='\x7e').contains(&ch)) {
            let unicode = (ch == '\u{85}'
                || ('\u{a0}'..='\u{d7ff}').contains(&ch)
                || ('\u{e000}'..='\u{fffd}').contains(&ch)
                || ('\u{10000}'..'\u{10ffff}').contains(&ch))
                && ch != '\u{feff}';
            // allow_unicode=True: only the non-printable ones are special.
            if !unicode {
                special_characters = true;
            }
        }
        if ch == ' ' {
            leading_space |= index == 0;
            trailing_space |= index == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_line_break(ch) {
            leading_break |= index == 0;
            trailing_break |= index == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = Z_BLANK_BREAK.contains(ch);
        followed_by_whitespace = index + 2 >= text.len() || Z_BLANK_BREAK.contains(text[index + 2]);
    }
    let mut allow_block_plain = true;
    let mut allow_single_quoted = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        allow_block_plain = false;
    }
    if break_space {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if space_break || special_characters {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators {
        allow_block_plain = false;
    }
    Analysis {
        empty: false,
        multiline: line_breaks,
        allow_block_plain,
        allow_single_quoted,
    }
}

/// The emitter's state while it writes one block mapping at indent 0.
struct Emitter {
    out: String,
    /// In characters (code points), as Python counts.
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: usize,
}

impl Emitter {
    fn new() -> Self {
        Self {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: 0,
        }
    }

    /// `expect_block_mapping_key` and its value.
    fn entry(&mut self, key: &str, value: &str) {
        self.indent = 0;
        self.write_indent();
        let key_chars: Vec<char> = key.chars().collect();
        let analysis = analyze_scalar(&key_chars);
        // check_simple_key counts the prepared tag `!!str` (5 characters) along with the text.
        if key_chars.len() + 5 < 128 && !analysis.empty && !analysis.multiline {
            self.scalar(key, &key_chars, &analysis, true);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.scalar(key, &key_chars, &analysis, false);
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        let value_chars: Vec<char> = value.chars().collect();
        let analysis = analyze_scalar(&value_chars);
        self.scalar(value, &value_chars, &analysis, false);
    }

    /// `expect_scalar` for a `str` node: `choose_scalar_style`, then the writer.
    fn scalar(&mut self, text: &str, chars: &[char], analysis: &Analysis, simple_key: bool) {
        // increase_indent(flow=True) inside the block mapping.
        self.indent = BEST_INDENT;
        // The serializer marks the scalar implicit for the plain style only if a plain scalar with
        // this text would resolve back to `str`.
        let plain_resolves_to_str = resolve_implicit(text) == STR_TAG;
        let split = !simple_key;
        if plain_resolves_to_str
            && !(simple_key && (analysis.empty || analysis.multiline))
            && analysis.allow_block_plain
        {
            self.write_plain(chars, split);
        } else if analysis.allow_single_quoted && !(simple_key && analysis.multiline) {
            self.write_single_quoted(chars, split);
        } else {
            self.write_double_quoted(chars, split);
        }
        self.indent = 0;
    }

    fn write_chars(&mut self, text: &[char]) {
        self.out.extend(text.iter());
        self.column += text.len();
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        whitespace: bool,
        indention: bool,
    ) {
        if !self.whitespace && need_whitespace {
            self.out.push(' ');
            self.column += 1;
        }
        self.out.push_str(indicator);
        self.column += indicator.chars().count();
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            self.out
                .extend(std::iter::repeat_n(' ', indent - self.column));
            self.column = indent;
        }
    }

    fn write_line_break(&mut self, data: Option<char>) {
        self.out.push(data.unwrap_or('\n'));
        self.whitespace = true;
        self.indention = true;
        self.column = 0;
    }

    fn write_breaks(&mut self, breaks: &[char]) {
        for &br in breaks {
            self.write_line_break(if br == '\n' { None } else { Some(br) });
        }
    }

    /// `write_plain`; `analyze_scalar` never allows a plain scalar with a line break, so only the
    /// space handling is ported.
    fn write_plain(&mut self, text: &[char], split: bool) {
        if text.is_empty() {
            return;
        }
        if !self.whitespace {
            self.out.push(' ');
            self.column += 1;
        }
        self.whitespace = false;
        self.indention = false;
        let mut spaces = false;
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > BEST_WIDTH && split {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write_chars(&text[start..end]);
                    }
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_line_break(c)) {
                self.write_chars(&text[start..end]);
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
            }
        }
    }

    fn write_single_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end
                        && self.column > BEST_WIDTH
                        && split
                        && start != 0
                        && end != text.len()
                    {
                        self.write_indent();
                    } else {
                        self.write_chars(&text[start..end]);
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_line_break) {
                    // A single break folds to a space when read back: write it twice.
                    if text[start] == '\n' {
                        self.write_line_break(None);
                    }
                    self.write_breaks(&text[start..end]);
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_line_break(c)) && start < end {
                self.write_chars(&text[start..end]);
                start = end;
            }
            if ch == Some('\'') {
                self.out.push_str("''");
                self.column += 2;
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_line_break(c);
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("\"", true, false, false);
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if ch.is_none_or(|c| {
                "\"\\\u{85}\u{2028}\u{2029}\u{feff}".contains(c) || !double_quoted_printable(c)
            }) {
                if start < end {
                    self.write_chars(&text[start..end]);
                    start = end;
                }
                if let Some(c) = ch {
                    let data = double_quoted_escape(c);
                    self.column += data.chars().count();
                    self.out.push_str(&data);
                    start = end + 1;
                }
            }
            // `start` may be `end + 1` right after an escape (an empty slice in Python).
            if end > 0
                && end + 1 < text.len()
                && (ch == Some(' ') || start >= end)
                && self.column + end > BEST_WIDTH + start
                && split
            {
                if start < end {
                    self.write_chars(&text[start..end]);
                    start = end;
                }
                self.out.push('\\');
                self.column += 1;
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if text[start] == ' ' {
                    self.out.push('\\');
                    self.column += 1;
                }
            }
        }
        self.write_indicator("\"", false, false, false);
    }
}

/// What a double-quoted scalar may hold unescaped with `allow_unicode=True` (no astral planes).
fn double_quoted_printable(c: char) -> bool {
    ('\x20'..='\x7e').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
}

fn double_quoted_escape(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\x07' => "a",
        '\x08' => "b",
        '\t' => "t",
        '\n' => "n",
        '\x0b' => "v",
        '\x0c' => "f",
        '\r' => "r",
        '\x1b' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{a0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    let cp = c as u32;
    if !short.is_empty() {
        format!("\\{short}")
    } else if cp <= 0xff {
        format!("\\x{cp:02X}")
    } else if cp <= 0xffff {
        format!("\\u{cp:04X}")
    } else {
        format!("\\U{cp:08X}")
    }
}

// ---------------------------------------------------------------------------------------------
// The implicit resolvers (shared by the dumper's style choice and the loader).

const STR_TAG: &str = "tag:yaml.org,2002:str";
const NULL_TAG: &str = "tag:yaml.org,2002:null";
const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
const INT_TAG: &str = "tag:yaml.org,2002:int";
const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
const MERGE_TAG: &str = "tag:yaml.org,2002:merge";
const VALUE_TAG: &str = "tag:yaml.org,2002:value";
const YAML_TAG: &str = "tag:yaml.org,2002:yaml";
const SEQ_TAG: &str = "tag:yaml.org,2002:seq";
const MAP_TAG: &str = "tag:yaml.org,2002:map";

/// An implicit resolver: its tag and the test its regular expression makes.
type Resolver = (&'static str, fn(&str) -> bool);

/// The tag a plain scalar gets (`Resolver.resolve` with `implicit[0]`), resolvers in PyYAML's
/// registration order.
fn resolve_implicit(value: &str) -> &'static str {
    let resolvers: [Resolver; 8] = [
        (BOOL_TAG, |s| {
            matches!(
                s,
                "yes"
                    | "Yes"
                    | "YES"
                    | "no"
                    | "No"
                    | "NO"
                    | "true"
                    | "True"
                    | "TRUE"
                    | "false"
                    | "False"
                    | "FALSE"
                    | "on"
                    | "On"
                    | "ON"
                    | "off"
                    | "Off"
                    | "OFF"
            )
        }),
        (FLOAT_TAG, |s| is_float(s.as_bytes())),
        (INT_TAG, |s| is_int(s.as_bytes())),
        (MERGE_TAG, |s| s == "<<"),
        (NULL_TAG, |s| {
            matches!(s, "~" | "null" | "Null" | "NULL" | "")
        }),
        (TIMESTAMP_TAG, |s| {
            parse_timestamp(s)
                .is_some_and(|t| t.time.is_some() || (t.month.len() == 2 && t.day.len() == 2))
        }),
        (VALUE_TAG, |s| s == "="),
        (YAML_TAG, |s| matches!(s, "!" | "&" | "*")),
    ];
    for (tag, matches) in resolvers {
        if regex_match(value, matches) {
            return tag;
        }
    }
    STR_TAG
}

/// `re.match(r'^...$', value)`: Python's `$` also matches before a final `\n`.
fn regex_match(value: &str, matches: impl Fn(&str) -> bool) -> bool {
    matches(value) || value.strip_suffix('\n').is_some_and(&matches)
}

fn skip(b: &[u8], mut i: usize, class: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && class(b[i]) {
        i += 1;
    }
    i
}

fn at(b: &[u8], i: usize, class: impl Fn(u8) -> bool) -> bool {
    b.get(i).copied().is_some_and(class)
}

fn digit_or_underscore(c: u8) -> bool {
    c.is_ascii_digit() || c == b'_'
}

fn sign_len(b: &[u8]) -> usize {
    usize::from(at(b, 0, |c| c == b'-' || c == b'+'))
}

/// `(?::[0-5]?[0-9])+` from `i`; returns the end.
fn sexagesimal_groups(b: &[u8], mut i: usize) -> Option<usize> {
    let mut groups = 0;
    while at(b, i, |c| c == b':') {
        let digits = skip(b, i + 1, |c| c.is_ascii_digit()) - (i + 1);
        let ok = digits == 1 || (digits == 2 && (b'0'..=b'5').contains(&b[i + 1]));
        if !ok {
            return None;
        }
        i += 1 + digits;
        groups += 1;
    }
    (groups > 0).then_some(i)
}

/// `(?:[eE][-+][0-9]+)?$` from `i`.
fn exponent_then_end(b: &[u8], i: usize) -> bool {
    if i == b.len() {
        return true;
    }
    at(b, i, |c| c == b'e' || c == b'E')
        && at(b, i + 1, |c| c == b'-' || c == b'+')
        && at(b, i + 2, |c| c.is_ascii_digit())
        && skip(b, i + 2, |c| c.is_ascii_digit()) == b.len()
}

fn is_float(b: &[u8]) -> bool {
    let s = sign_len(b);
    // [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    let first = at(b, s, |c| c.is_ascii_digit()) && {
        let i = skip(b, s + 1, digit_or_underscore);
        at(b, i, |c| c == b'.') && exponent_then_end(b, skip(b, i + 1, digit_or_underscore))
    };
    // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    let second = at(b, 0, |c| c == b'.')
        && at(b, 1, |c| c.is_ascii_digit())
        && exponent_then_end(b, skip(b, 2, digit_or_underscore));
    // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    let third = at(b, s, |c| c.is_ascii_digit())
        && sexagesimal_groups(b, skip(b, s + 1, digit_or_underscore)).is_some_and(|i| {
            at(b, i, |c| c == b'.') && skip(b, i + 1, digit_or_underscore) == b.len()
        });
    // [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    let special =
        matches!(&b[s..], b".inf" | b".Inf" | b".INF") || matches!(b, b".nan" | b".NaN" | b".NAN");
    first || second || third || special
}

fn is_int(b: &[u8]) -> bool {
    let s = sign_len(b);
    let rest = &b[s..];
    let all_from =
        |i: usize, class: fn(u8) -> bool| i < rest.len() && skip(rest, i, class) == rest.len();
    // [-+]?0b[0-1_]+ | [-+]?0x[0-9a-fA-F_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*)
    (rest.starts_with(b"0b") && all_from(2, |c| c == b'0' || c == b'1' || c == b'_'))
        || (rest.starts_with(b"0x") && all_from(2, |c| c.is_ascii_hexdigit() || c == b'_'))
        || (rest.starts_with(b"0")
            && (rest.len() == 1 || all_from(1, |c| (b'0'..=b'7').contains(&c) || c == b'_')))
        || (at(rest, 0, |c| (b'1'..=b'9').contains(&c)) && {
            // [1-9][0-9_]* with or without (?::[0-5]?[0-9])+
            let i = skip(rest, 1, digit_or_underscore);
            i == rest.len() || sexagesimal_groups(rest, i) == Some(rest.len())
        })
}

/// The fields of `SafeConstructor.timestamp_regexp` (which the resolver's second alternative
/// equals; its first alternative is a date with two-digit month and day).
struct Timestamp<'a> {
    year: &'a str,
    month: &'a str,
    day: &'a str,
    time: Option<TimeOfDay<'a>>,
}

struct TimeOfDay<'a> {
    hour: &'a str,
    minute: &'a str,
    second: &'a str,
    fraction: &'a str,
    /// `None`, `Some(None)` for `Z`, `Some(Some((sign, hour, minute)))`.
    tz: Option<Option<(u8, &'a str, &'a str)>>,
}

/// Matches the whole of `s` against the timestamp regexp (no `$` newline rule: see
/// [`regex_match`]).
fn parse_timestamp(s: &str) -> Option<Timestamp<'_>> {
    let b = s.as_bytes();
    let digits_from = |i: usize| skip(b, i, |c| c.is_ascii_digit()) - i;
    if digits_from(0) < 4 || !at(b, 4, |c| c == b'-') {
        return None;
    }
    let month_len = digits_from(5);
    if !(1..=2).contains(&month_len) || !at(b, 5 + month_len, |c| c == b'-') {
        return None;
    }
    let day_at = 6 + month_len;
    let day_len = digits_from(day_at);
    if !(1..=2).contains(&day_len) {
        return None;
    }
    let mut i = day_at + day_len;
    let date = Timestamp {
        year: &s[..4],
        month: &s[5..5 + month_len],
        day: &s[day_at..i],
        time: None,
    };
    if i == b.len() {
        return Some(date);
    }
    if at(b, i, |c| c == b'T' || c == b't') {
        i += 1;
    } else if at(b, i, |c| c == b' ' || c == b'\t') {
        i = skip(b, i, |c| c == b' ' || c == b'\t');
    } else {
        return None;
    }
    let hour_at = i;
    let hour_len = digits_from(i);
    if !(1..=2).contains(&hour_len) || !at(b, i + hour_len, |c| c == b':') {
        return None;
    }
    i += hour_len + 1;
    let minute_at = i;
    if digits_from(i) != 2 || !at(b, i + 2, |c| c == b':') {
        return None;
    }
    i += 3;
    let second_at = i;
    // `[0-9][0-9]` followed by `.`, blanks, `Z`, a sign or the end.
    if !(at(b, i, |c| c.is_ascii_digit()) && at(b, i + 1, |c| c.is_ascii_digit())) {
        return None;
    }
    i += 2;
    let mut fraction = "";
    if at(b, i, |c| c == b'.') {
        let end = skip(b, i + 1, |c| c.is_ascii_digit());
        fraction = &s[i + 1..end];
        i = end;
    }
    let mut tz = None;
    if i < b.len() {
        i = skip(b, i, |c| c == b' ' || c == b'\t');
        if at(b, i, |c| c == b'Z') {
            tz = Some(None);
            i += 1;
        } else if at(b, i, |c| c == b'-' || c == b'+') {
            let sign = b[i];
            let tz_hour_len = digits_from(i + 1);
            if !(1..=2).contains(&tz_hour_len) {
                return None;
            }
            let tz_hour = &s[i + 1..i + 1 + tz_hour_len];
            i += 1 + tz_hour_len;
            let mut tz_minute = "";
            if at(b, i, |c| c == b':') {
                if digits_from(i + 1) != 2 {
                    return None;
                }
                tz_minute = &s[i + 1..i + 3];
                i += 3;
            }
            tz = Some(Some((sign, tz_hour, tz_minute)));
        } else {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    Some(Timestamp {
        time: Some(TimeOfDay {
            hour: &s[hour_at..hour_at + hour_len],
            minute: &s[minute_at..minute_at + 2],
            second: &s[second_at..second_at + 2],
            fraction,
            tz,
        }),
        ..date
    })
}

// ---------------------------------------------------------------------------------------------
// Loaded values and errors.

/// A value `yaml.safe_load` gives for one key of the frontmatter, as Python sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum YamlValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// Any other value (a list, a dict, a date, an int beyond `i64`), held as Python's `str()` of
    /// it; for lists and dicts that is their repr. Only this module builds it, so the text `[]`
    /// or `{}` always means an empty list or dict.
    Other(String),
}

impl YamlValue {
    /// Python's `str()` of the value: `None`, `True`, `3`, `1.5`, `inf`, the text itself.
    pub(crate) fn python_str(&self) -> String {
        match self {
            Self::Null => "None".to_owned(),
            Self::Bool(true) => "True".to_owned(),
            Self::Bool(false) => "False".to_owned(),
            Self::Int(value) => value.to_string(),
            Self::Float(value) => float_repr(*value),
            Self::Str(text) | Self::Other(text) => text.clone(),
        }
    }

    /// Python's truthiness: `None`, `False`, `0`, `0.0`, `''`, `[]` and `{}` are false.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Self::Null => false,
            Self::Bool(value) => *value,
            Self::Int(value) => *value != 0,
            Self::Float(value) => *value != 0.0,
            Self::Str(text) => !text.is_empty(),
            Self::Other(text) => text != "[]" && text != "{}",
        }
    }
}

/// Why `yaml.safe_load` gives no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum YamlError {
    /// PyYAML raises a `yaml.YAMLError` (`class`: `ReaderError`, `ScannerError`, `ParserError`,
    /// `ComposerError` or `ConstructorError`); `line` and `column` count from 1.
    Yaml {
        class: &'static str,
        problem: String,
        line: usize,
        column: usize,
    },
    /// `safe_load` raises another Python exception, which `except yaml.YAMLError` does not catch.
    Python {
        exception: &'static str,
        message: String,
    },
    /// A construct this module does not model; treat it like [`YamlError::Yaml`].
    Unsupported(String),
}

impl YamlError {
    /// True unless the exception would escape `except yaml.YAMLError`.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "used by tests; part of the loader's API")
    )]
    pub(crate) fn is_yaml_error(&self) -> bool {
        !matches!(self, Self::Python { .. })
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Yaml {
                class,
                problem,
                line,
                column,
            } => write!(f, "{class}: {problem} (line {line}, column {column})"),
            Self::Python { exception, message } => write!(f, "{exception}: {message}"),
            Self::Unsupported(what) => write!(f, "unsupported YAML: {what}"),
        }
    }
}

impl std::error::Error for YamlError {}

/// Nesting deeper than this is [`YamlError::Unsupported`] (Python's recursion limit would end
/// its own construction somewhere around here too).
const MAX_DEPTH: usize = 100;

#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    line: usize,
    column: usize,
}

fn yaml_error(class: &'static str, problem: impl Into<String>, mark: Mark) -> YamlError {
    YamlError::Yaml {
        class,
        problem: problem.into(),
        line: mark.line + 1,
        column: mark.column + 1,
    }
}

fn scanner_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ScannerError", problem, mark)
}

fn parser_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ParserError", problem, mark)
}

fn constructor_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ConstructorError", problem, mark)
}

fn python_error(exception: &'static str, message: impl Into<String>) -> YamlError {
    YamlError::Python {
        exception,
        message: message.into(),
    }
}

/// Python's `repr()` of a string.
fn str_repr(text: &str) -> String {
    repr(&Value::String(text.to_owned()))
}

fn char_repr(c: char) -> String {
    str_repr(&c.to_string())
}

/// `float.__repr__` (and `str`): `inf`, `-inf`, `nan`, shortest round-trip digits otherwise.
fn float_repr(value: f64) -> String {
    if value.is_nan() {
        "nan".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        python_float_repr(value)
    }
}

// ---------------------------------------------------------------------------------------------
// The loader's entry points.

/// `yaml.safe_load(text)` when it is a dict: its `str` keys and their values in dict order.
///
/// `Ok(None)` when the document is empty or not a mapping (a scalar, a list).
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "used by tests; part of the loader's API")
)]
pub(crate) fn safe_load_mapping(text: &str) -> Result<Option<Vec<(String, YamlValue)>>, YamlError> {
    let loaded = safe_load(text)?;
    Ok(match loaded.root {
        Some(root) => loaded.mapping(root),
        None => None,
    })
}

/// `metadata = yaml.safe_load(text) or {}` followed by `isinstance(metadata, dict)`, as
/// `parse_frontmatter` does: an empty document and a falsy value (`0`, `false`, `''`, `[]`, `~`)
/// give `Some` of no pairs; a truthy non-mapping gives `None`.
pub(crate) fn load_metadata(text: &str) -> Result<Option<Vec<(String, YamlValue)>>, YamlError> {
    let loaded = safe_load(text)?;
    Ok(match loaded.root {
        None => Some(Vec::new()),
        Some(root) if !loaded.truthy(root) => Some(Vec::new()),
        Some(root) => loaded.mapping(root),
    })
}

fn safe_load(text: &str) -> Result<Loaded, YamlError> {
    let scanner = Scanner::new(text)?;
    let mut composer = Composer {
        parser: Parser::new(scanner),
        nodes: Vec::new(),
        anchors: HashMap::new(),
        open: Vec::new(),
    };
    let root = composer.get_single_node()?;
    let mut constructor = Constructor {
        nodes: composer.nodes,
        objects: Vec::new(),
        constructed: HashMap::new(),
        pending: Vec::new(),
    };
    let root = match root {
        Some(node) => Some(constructor.construct_document(node)?),
        None => None,
    };
    Ok(Loaded {
        objects: constructor.objects,
        root,
    })
}

// ---------------------------------------------------------------------------------------------
// The reader and scanner (`yaml/reader.py`, `yaml/scanner.py`).

/// No blanks: what ends a directive, tag or block-scalar header.
const Z_SPACE_BREAK: &str = "\0 \r\n\u{85}\u{2028}\u{2029}";
const Z_BREAK: &str = "\0\r\n\u{85}\u{2028}\u{2029}";
const BREAK: &str = "\r\n\u{85}\u{2028}\u{2029}";

fn reader_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\x20'..='\x7e' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
}

#[derive(Debug, Clone)]
enum Directive {
    Yaml { major_is_one: bool },
    Tag { handle: String, prefix: String },
    Other,
}

#[derive(Debug, Clone)]
enum Tok {
    StreamStart,
    StreamEnd,
    Directive(Directive),
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowMappingStart,
    FlowSequenceEnd,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    Tag(Option<String>, String),
    Scalar { value: String, plain: bool },
}

impl Tok {
    /// PyYAML's `Token.id`, for messages.
    fn id(&self) -> &'static str {
        match self {
            Self::StreamStart => "<stream start>",
            Self::StreamEnd => "<stream end>",
            Self::Directive(_) => "<directive>",
            Self::DocumentStart => "<document start>",
            Self::DocumentEnd => "<document end>",
            Self::BlockSequenceStart => "<block sequence start>",
            Self::BlockMappingStart => "<block mapping start>",
            Self::BlockEnd => "<block end>",
            Self::FlowSequenceStart => "[",
            Self::FlowMappingStart => "{",
            Self::FlowSequenceEnd => "]",
            Self::FlowMappingEnd => "}",
            Self::BlockEntry => "-",
            Self::FlowEntry => ",",
            Self::Key => "?",
            Self::Value => ":",
            Self::Alias(_) => "<alias>",
            Self::Anchor(_) => "<anchor>",
            Self::Tag(..) => "<tag>",
            Self::Scalar { .. } => "<scalar>",
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    start: Mark,
    end: Mark,
}

#[derive(Debug, Clone, Copy)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    index: usize,
    line: usize,
    column: usize,
    mark: Mark,
}

struct Scanner {
    /// The text and a closing `\0`, as PyYAML's reader holds it.
    buf: Vec<char>,
    pointer: usize,
    line: usize,
    column: usize,
    done: bool,
    /// Python lets a stray `]` or `}` take it below 0.
    flow_level: isize,
    tokens: VecDeque<Token>,
    tokens_taken: usize,
    indent: isize,
    indents: Vec<isize>,
    allow_simple_key: bool,
    possible_simple_keys: BTreeMap<isize, SimpleKey>,
}

fn one_of(c: char, set: &str) -> bool {
    set.contains(c)
}

impl Scanner {
    fn new(text: &str) -> Result<Self, YamlError> {
        if let Some((position, c)) = text
            .chars()
            .enumerate()
            .find(|(_, c)| !reader_printable(*c))
        {
            let before: String = text.chars().take(position).collect();
            let line = before.matches('\n').count();
            let column = before
                .rsplit('\n')
                .next()
                .map_or(0, |tail| tail.chars().count());
            return Err(yaml_error(
                "ReaderError",
                format!(
                    "unacceptable character #x{:04x}: special characters are not allowed",
                    c as u32
                ),
                Mark { line, column },
            ));
        }
        let mut buf: Vec<char> = text.chars().collect();
        buf.push('\0');
        let mut scanner = Self {
            buf,
            pointer: 0,
            line: 0,
            column: 0,
            done: false,
            flow_level: 0,
            tokens: VecDeque::new(),
            tokens_taken: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            possible_simple_keys: BTreeMap::new(),
        };
        let mark = scanner.mark();
        scanner.push(Tok::StreamStart, mark, mark);
        Ok(scanner)
    }

    // The reader.

    fn peek(&self, index: usize) -> char {
        self.buf.get(self.pointer + index).copied().unwrap_or('\0')
    }

    fn prefix(&self, length: usize) -> String {
        let end = (self.pointer + length).min(self.buf.len());
        self.buf[self.pointer..end].iter().collect()
    }

    fn forward(&mut self, length: usize) {
        for _ in 0..length {
            let ch = self.peek(0);
            self.pointer += 1;
            if one_of(ch, "\n\u{85}\u{2028}\u{2029}") || (ch == '\r' && self.peek(0) != '\n') {
                self.line += 1;
                self.column = 0;
            } else if ch != '\u{feff}' {
                self.column += 1;
            }
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            line: self.line,
            column: self.column,
        }
    }

    fn col(&self) -> isize {
        self.column as isize
    }

    fn push(&mut self, tok: Tok, start: Mark, end: Mark) {
        self.tokens.push_back(Token { tok, start, end });
    }

    // The token queue.

    fn ensure_token(&mut self) -> Result<(), YamlError> {
        while self.need_more_tokens()? {
            self.fetch_more_tokens()?;
        }
        Ok(())
    }

    fn peek_token(&mut self) -> Result<&Token, YamlError> {
        self.ensure_token()?;
        self.tokens
            .front()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    fn get_token(&mut self) -> Result<Token, YamlError> {
        self.ensure_token()?;
        let token = self
            .tokens
            .pop_front()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))?;
        self.tokens_taken += 1;
        Ok(token)
    }

    fn need_more_tokens(&mut self) -> Result<bool, YamlError> {
        if self.done {
            return Ok(false);
        }
        if self.tokens.is_empty() {
            return Ok(true);
        }
        self.stale_possible_simple_keys()?;
        Ok(self.next_possible_simple_key() == Some(self.tokens_taken))
    }

    fn fetch_more_tokens(&mut self) -> Result<(), YamlError> {
        self.scan_to_next_token();
        self.stale_possible_simple_keys()?;
        self.unwind_indent(self.col());
        let ch = self.peek(0);
        let block = self.flow_level == 0;
        match ch {
            '\0' => self.fetch_stream_end(),
            '%' if self.column == 0 => self.fetch_directive(),
            '-' if self.check_document_indicator("---") => {
                self.fetch_document_indicator(Tok::DocumentStart)
            }
            '.' if self.check_document_indicator("...") => {
                self.fetch_document_indicator(Tok::DocumentEnd)
            }
            '[' => self.fetch_flow_collection_start(Tok::FlowSequenceStart),
            '{' => self.fetch_flow_collection_start(Tok::FlowMappingStart),
            ']' => self.fetch_flow_collection_end(Tok::FlowSequenceEnd),
            '}' => self.fetch_flow_collection_end(Tok::FlowMappingEnd),
            ',' => self.fetch_flow_entry(),
            '-' if one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_block_entry(),
            '?' if !block || one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_key(),
            ':' if !block || one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_value(),
            '*' => self.fetch_anchor_or_alias(true),
            '&' => self.fetch_anchor_or_alias(false),
            '!' => self.fetch_tag(),
            '|' | '>' if block => self.fetch_block_scalar(ch == '>'),
            '\'' | '"' => self.fetch_flow_scalar(ch == '"'),
            _ if self.check_plain() => self.fetch_plain(),
            _ => Err(scanner_error(
                format!(
                    "while scanning for the next token: found character {} that cannot start any token",
                    char_repr(ch)
                ),
                self.mark(),
            )),
        }
    }

    // Simple keys.

    fn next_possible_simple_key(&self) -> Option<usize> {
        self.possible_simple_keys
            .values()
            .map(|key| key.token_number)
            .min()
    }

    fn stale_possible_simple_keys(&mut self) -> Result<(), YamlError> {
        let levels: Vec<isize> = self.possible_simple_keys.keys().copied().collect();
        for level in levels {
            let key = self.possible_simple_keys[&level];
            if key.line != self.line || self.pointer - key.index > 1024 {
                if key.required {
                    return Err(scanner_error(
                        "while scanning a simple key: could not find expected ':'",
                        self.mark(),
                    ));
                }
                self.possible_simple_keys.remove(&level);
            }
        }
        Ok(())
    }

    fn save_possible_simple_key(&mut self) -> Result<(), YamlError> {
        let required = self.flow_level == 0 && self.indent == self.col();
        if self.allow_simple_key {
            self.remove_possible_simple_key()?;
            let key = SimpleKey {
                token_number: self.tokens_taken + self.tokens.len(),
                required,
                index: self.pointer,
                line: self.line,
                column: self.column,
                mark: self.mark(),
            };
            self.possible_simple_keys.insert(self.flow_level, key);
        }
        Ok(())
    }

    fn remove_possible_simple_key(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.possible_simple_keys.remove(&self.flow_level) {
            if key.required {
                return Err(scanner_error(
                    "while scanning a simple key: could not find expected ':'",
                    self.mark(),
                ));
            }
        }
        Ok(())
    }

    // Indentation.

    fn unwind_indent(&mut self, column: isize) {
        if self.flow_level != 0 {
            return;
        }
        while self.indent > column {
            let mark = self.mark();
            self.indent = self.indents.pop().unwrap_or(-1);
            self.push(Tok::BlockEnd, mark, mark);
        }
    }

    fn add_indent(&mut self, column: isize) -> bool {
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            return true;
        }
        false
    }

    // Fetchers.

    fn fetch_stream_end(&mut self) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        self.possible_simple_keys.clear();
        let mark = self.mark();
        self.push(Tok::StreamEnd, mark, mark);
        self.done = true;
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_directive()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn check_document_indicator(&self, indicator: &str) -> bool {
        self.column == 0 && self.prefix(3) == indicator && one_of(self.peek(3), Z_BLANK_BREAK)
    }

    fn fetch_document_indicator(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark();
        self.forward(3);
        let end = self.mark();
        self.push(tok, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.flow_level += 1;
        self.allow_simple_key = true;
        self.fetch_one_char(tok);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.remove_possible_simple_key()?;
        self.flow_level -= 1;
        self.allow_simple_key = false;
        self.fetch_one_char(tok);
        Ok(())
    }

    fn fetch_one_char(&mut self, tok: Tok) {
        let start = self.mark();
        self.forward(1);
        let end = self.mark();
        self.push(tok, start, end);
    }

    fn fetch_flow_entry(&mut self) -> Result<(), YamlError> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::FlowEntry);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<(), YamlError> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    "sequence entries are not allowed here",
                    self.mark(),
                ));
            }
            if self.add_indent(self.col()) {
                let mark = self.mark();
                self.push(Tok::BlockSequenceStart, mark, mark);
            }
        }
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::BlockEntry);
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<(), YamlError> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    "mapping keys are not allowed here",
                    self.mark(),
                ));
            }
            if self.add_indent(self.col()) {
                let mark = self.mark();
                self.push(Tok::BlockMappingStart, mark, mark);
            }
        }
        self.allow_simple_key = self.flow_level == 0;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::Key);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.possible_simple_keys.remove(&self.flow_level) {
            let at = key.token_number - self.tokens_taken;
            self.tokens.insert(
                at,
                Token {
                    tok: Tok::Key,
                    start: key.mark,
                    end: key.mark,
                },
            );
            if self.flow_level == 0 && self.add_indent(key.column as isize) {
                self.tokens.insert(
                    at,
                    Token {
                        tok: Tok::BlockMappingStart,
                        start: key.mark,
                        end: key.mark,
                    },
                );
            }
            self.allow_simple_key = false;
        } else {
            if self.flow_level == 0 {
                if !self.allow_simple_key {
                    return Err(scanner_error(
                        "mapping values are not allowed here",
                        self.mark(),
                    ));
                }
                if self.add_indent(self.col()) {
                    let mark = self.mark();
                    self.push(Tok::BlockMappingStart, mark, mark);
                }
            }
            self.allow_simple_key = self.flow_level == 0;
            self.remove_possible_simple_key()?;
        }
        self.fetch_one_char(Tok::Value);
        Ok(())
    }

    fn fetch_anchor_or_alias(&mut self, alias: bool) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_anchor(alias)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_tag()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, folded: bool) -> Result<(), YamlError> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let token = self.scan_block_scalar(folded)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, double: bool) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_flow_scalar(double)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_plain(&mut self) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_plain();
        self.tokens.push_back(token);
        Ok(())
    }

    fn check_plain(&self) -> bool {
        let ch = self.peek(0);
        !one_of(ch, "\0 \t\r\n\u{85}\u{2028}\u{2029}-?:,[]{}#&*!|>'\"%@`")
            || (!one_of(self.peek(1), Z_BLANK_BREAK)
                && (ch == '-' || (self.flow_level == 0 && one_of(ch, "?:"))))
    }

    // Scanners.

    fn scan_to_next_token(&mut self) {
        if self.pointer == 0 && self.peek(0) == '\u{feff}' {
            self.forward(1);
        }
        loop {
            while self.peek(0) == ' ' {
                self.forward(1);
            }
            if self.peek(0) == '#' {
                while !one_of(self.peek(0), Z_BREAK) {
                    self.forward(1);
                }
            }
            if self.scan_line_break().is_empty() {
                break;
            }
            if self.flow_level == 0 {
                self.allow_simple_key = true;
            }
        }
    }

    fn scan_line_break(&mut self) -> String {
        let ch = self.peek(0);
        if one_of(ch, "\r\n\u{85}") {
            if self.prefix(2) == "\r\n" {
                self.forward(2);
            } else {
                self.forward(1);
            }
            "\n".to_owned()
        } else if one_of(ch, "\u{2028}\u{2029}") {
            self.forward(1);
            ch.to_string()
        } else {
            String::new()
        }
    }

    fn scan_directive(&mut self) -> Result<Token, YamlError> {
        let start = self.mark();
        self.forward(1);
        let name = self.scan_directive_name()?;
        let directive = match name.as_str() {
            "YAML" => {
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let major = self.scan_directive_number()?;
                if self.peek(0) != '.' {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected a digit or '.', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                self.forward(1);
                self.scan_directive_number()?;
                if !one_of(self.peek(0), Z_SPACE_BREAK) {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected a digit or ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                Directive::Yaml {
                    major_is_one: major.trim_start_matches('0') == "1",
                }
            }
            "TAG" => {
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let handle = self.scan_tag_handle("directive")?;
                if self.peek(0) != ' ' {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let prefix = self.scan_tag_uri("directive")?;
                if !one_of(self.peek(0), Z_SPACE_BREAK) {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                Directive::Tag { handle, prefix }
            }
            _ => {
                while !one_of(self.peek(0), Z_BREAK) {
                    self.forward(1);
                }
                Directive::Other
            }
        };
        let end = self.mark();
        // scan_directive_ignored_line
        while self.peek(0) == ' ' {
            self.forward(1);
        }
        if self.peek(0) == '#' {
            while !one_of(self.peek(0), Z_BREAK) {
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected a comment or a line break, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        self.scan_line_break();
        Ok(Token {
            tok: Tok::Directive(directive),
            start,
            end,
        })
    }

    fn scan_directive_name(&mut self) -> Result<String, YamlError> {
        let mut length = 0;
        while is_word_char(self.peek(length)) {
            length += 1;
        }
        if length == 0 {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let value = self.prefix(length);
        self.forward(length);
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        Ok(value)
    }

    fn scan_directive_number(&mut self) -> Result<String, YamlError> {
        if !self.peek(0).is_ascii_digit() {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected a digit, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let mut length = 0;
        while self.peek(length).is_ascii_digit() {
            length += 1;
        }
        let value = self.prefix(length);
        self.forward(length);
        Ok(value)
    }

    fn scan_anchor(&mut self, alias: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        let name = if alias { "alias" } else { "anchor" };
        self.forward(1);
        let mut length = 0;
        while is_word_char(self.peek(length)) {
            length += 1;
        }
        if length == 0 {
            return Err(scanner_error(
                format!(
                    "while scanning an {name}: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let value = self.prefix(length);
        self.forward(length);
        if !one_of(self.peek(0), "\0 \t\r\n\u{85}\u{2028}\u{2029}?:,]}%@`") {
            return Err(scanner_error(
                format!(
                    "while scanning an {name}: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let end = self.mark();
        let tok = if alias {
            Tok::Alias(value)
        } else {
            Tok::Anchor(value)
        };
        Ok(Token { tok, start, end })
    }

    fn scan_tag(&mut self) -> Result<Token, YamlError> {
        let start = self.mark();
        let mut ch = self.peek(1);
        let (handle, suffix) = if ch == '<' {
            self.forward(2);
            let suffix = self.scan_tag_uri("tag")?;
            if self.peek(0) != '>' {
                return Err(scanner_error(
                    format!(
                        "while parsing a tag: expected '>', but found {}",
                        char_repr(self.peek(0))
                    ),
                    self.mark(),
                ));
            }
            self.forward(1);
            (None, suffix)
        } else if one_of(ch, Z_BLANK_BREAK) {
            self.forward(1);
            (None, "!".to_owned())
        } else {
            let mut length = 1;
            let mut use_handle = false;
            while !one_of(ch, Z_SPACE_BREAK) {
                if ch == '!' {
                    use_handle = true;
                    break;
                }
                length += 1;
                ch = self.peek(length);
            }
            let handle = if use_handle {
                self.scan_tag_handle("tag")?
            } else {
                self.forward(1);
                "!".to_owned()
            };
            (Some(handle), self.scan_tag_uri("tag")?)
        };
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a tag: expected ' ', but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let end = self.mark();
        Ok(Token {
            tok: Tok::Tag(handle, suffix),
            start,
            end,
        })
    }

    fn scan_block_scalar(&mut self, folded: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        self.forward(1);
        let (chomping, increment) = self.scan_block_scalar_indicators()?;
        // scan_block_scalar_ignored_line
        while self.peek(0) == ' ' {
            self.forward(1);
        }
        if self.peek(0) == '#' {
            while !one_of(self.peek(0), Z_BREAK) {
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a block scalar: expected a comment or a line break, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        self.scan_line_break();

        let min_indent = (self.indent + 1).max(1);
        let (mut breaks, mut end, indent) = match increment {
            None => {
                let (breaks, max_indent, end) = self.scan_block_scalar_indentation();
                (breaks, end, min_indent.max(max_indent))
            }
            Some(increment) => {
                let indent = min_indent + increment - 1;
                let (breaks, end) = self.scan_block_scalar_breaks(indent);
                (breaks, end, indent)
            }
        };
        let mut chunks: Vec<String> = Vec::new();
        let mut line_break = String::new();
        while self.col() == indent && self.peek(0) != '\0' {
            chunks.append(&mut breaks);
            let leading_non_space = !one_of(self.peek(0), " \t");
            let mut length = 0;
            while !one_of(self.peek(length), Z_BREAK) {
                length += 1;
            }
            chunks.push(self.prefix(length));
            self.forward(length);
            line_break = self.scan_line_break();
            (breaks, end) = self.scan_block_scalar_breaks(indent);
            if self.col() == indent && self.peek(0) != '\0' {
                if folded && line_break == "\n" && leading_non_space && !one_of(self.peek(0), " \t")
                {
                    if breaks.is_empty() {
                        chunks.push(" ".to_owned());
                    }
                } else {
                    chunks.push(line_break.clone());
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) {
            chunks.push(line_break);
        }
        if chomping == Some(true) {
            chunks.append(&mut breaks);
        }
        Ok(Token {
            tok: Tok::Scalar {
                value: chunks.concat(),
                plain: false,
            },
            start,
            end,
        })
    }

    fn scan_block_scalar_indicators(&mut self) -> Result<(Option<bool>, Option<isize>), YamlError> {
        let bad_zero = |scanner: &Self| {
            scanner_error(
                "while scanning a block scalar: expected indentation indicator in the range 1-9, but found 0",
                scanner.mark(),
            )
        };
        let mut chomping = None;
        let mut increment = None;
        let ch = self.peek(0);
        if one_of(ch, "+-") {
            chomping = Some(ch == '+');
            self.forward(1);
            let ch = self.peek(0);
            if let Some(digit) = ch.to_digit(10).filter(|_| ch.is_ascii_digit()) {
                if digit == 0 {
                    return Err(bad_zero(self));
                }
                increment = Some(digit as isize);
                self.forward(1);
            }
        } else if let Some(digit) = ch.to_digit(10).filter(|_| ch.is_ascii_digit()) {
            if digit == 0 {
                return Err(bad_zero(self));
            }
            increment = Some(digit as isize);
            self.forward(1);
            let ch = self.peek(0);
            if one_of(ch, "+-") {
                chomping = Some(ch == '+');
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a block scalar: expected chomping or indentation indicators, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        Ok((chomping, increment))
    }

    fn scan_block_scalar_indentation(&mut self) -> (Vec<String>, isize, Mark) {
        let mut chunks = Vec::new();
        let mut max_indent = 0;
        let mut end = self.mark();
        while one_of(self.peek(0), " \r\n\u{85}\u{2028}\u{2029}") {
            if self.peek(0) != ' ' {
                chunks.push(self.scan_line_break());
                end = self.mark();
            } else {
                self.forward(1);
                max_indent = max_indent.max(self.col());
            }
        }
        (chunks, max_indent, end)
    }

    fn scan_block_scalar_breaks(&mut self, indent: isize) -> (Vec<String>, Mark) {
        let mut chunks = Vec::new();
        let mut end = self.mark();
        while self.col() < indent && self.peek(0) == ' ' {
            self.forward(1);
        }
        while one_of(self.peek(0), BREAK) {
            chunks.push(self.scan_line_break());
            end = self.mark();
            while self.col() < indent && self.peek(0) == ' ' {
                self.forward(1);
            }
        }
        (chunks, end)
    }

    fn scan_flow_scalar(&mut self, double: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        let quote = self.peek(0);
        self.forward(1);
        let mut chunks = String::new();
        self.scan_flow_scalar_non_spaces(double, &mut chunks)?;
        while self.peek(0) != quote {
            self.scan_flow_scalar_spaces(double, &mut chunks)?;
            self.scan_flow_scalar_non_spaces(double, &mut chunks)?;
        }
        self.forward(1);
        let end = self.mark();
        Ok(Token {
            tok: Tok::Scalar {
                value: chunks,
                plain: false,
            },
            start,
            end,
        })
    }

    fn scan_flow_scalar_non_spaces(
        &mut self,
        double: bool,
        chunks: &mut String,
    ) -> Result<(), YamlError> {
        loop {
            let mut length = 0;
            while !one_of(self.peek(length), "'\"\\\0 \t\r\n\u{85}\u{2028}\u{2029}") {
                length += 1;
            }
            if length > 0 {
                chunks.push_str(&self.prefix(length));
                self.forward(length);
            }
            let ch = self.peek(0);
            if !double && ch == '\'' && self.peek(1) == '\'' {
                chunks.push('\'');
                self.forward(2);
            } else if (double && ch == '\'') || (!double && one_of(ch, "\"\\")) {
                chunks.push(ch);
                self.forward(1);
            } else if double && ch == '\\' {
                self.forward(1);
                let ch = self.peek(0);
                if let Some(replacement) = scanner_escape(ch) {
                    chunks.push(replacement);
                    self.forward(1);
                } else if let Some(length) = match ch {
                    'x' => Some(2),
                    'u' => Some(4),
                    'U' => Some(8),
                    _ => None,
                } {
                    self.forward(1);
                    for k in 0..length {
                        if !self.peek(k).is_ascii_hexdigit() {
                            return Err(scanner_error(
                                format!(
                                    "while scanning a double-quoted scalar: expected escape sequence of {length} hexadecimal numbers, but found {}",
                                    char_repr(self.peek(k))
                                ),
                                self.mark(),
                            ));
                        }
                    }
                    let digits = self.prefix(length);
                    let code = u32::from_str_radix(&digits, 16)
                        .map_err(|_| YamlError::Unsupported(format!("escape \\{digits}")))?;
                    // chr() takes a C int: past 2**31 - 1 it overflows before the range check.
                    if code > 0x7fff_ffff {
                        return Err(python_error(
                            "OverflowError",
                            "Python int too large to convert to C int",
                        ));
                    }
                    if code > 0x10ffff {
                        return Err(python_error(
                            "ValueError",
                            "chr() arg not in range(0x110000)",
                        ));
                    }
                    let decoded = char::from_u32(code).ok_or_else(|| {
                        YamlError::Unsupported(format!("escape of the lone surrogate U+{code:04X}"))
                    })?;
                    chunks.push(decoded);
                    self.forward(length);
                } else if one_of(ch, BREAK) {
                    self.scan_line_break();
                    self.scan_flow_scalar_breaks(chunks)?;
                } else {
                    return Err(scanner_error(
                        format!(
                            "while scanning a double-quoted scalar: found unknown escape character {}",
                            char_repr(ch)
                        ),
                        self.mark(),
                    ));
                }
            } else {
                return Ok(());
            }
        }
    }

    fn scan_flow_scalar_spaces(
        &mut self,
        _double: bool,
        chunks: &mut String,
    ) -> Result<(), YamlError> {
        let mut length = 0;
        while one_of(self.peek(length), " \t") {
            length += 1;
        }
        let whitespaces = self.prefix(length);
        self.forward(length);
        let ch = self.peek(0);
        if ch == '\0' {
            return Err(scanner_error(
                "while scanning a quoted scalar: found unexpected end of stream",
                self.mark(),
            ));
        }
        if one_of(ch, BREAK) {
            let line_break = self.scan_line_break();
            let mut breaks = String::new();
            self.scan_flow_scalar_breaks(&mut breaks)?;
            if line_break != "\n" {
                chunks.push_str(&line_break);
            } else if breaks.is_empty() {
                chunks.push(' ');
            }
            chunks.push_str(&breaks);
        } else {
            chunks.push_str(&whitespaces);
        }
        Ok(())
    }

    fn scan_flow_scalar_breaks(&mut self, chunks: &mut String) -> Result<(), YamlError> {
        loop {
            let prefix = self.prefix(3);
            if (prefix == "---" || prefix == "...") && one_of(self.peek(3), Z_BLANK_BREAK) {
                return Err(scanner_error(
                    "while scanning a quoted scalar: found unexpected document separator",
                    self.mark(),
                ));
            }
            while one_of(self.peek(0), " \t") {
                self.forward(1);
            }
            if one_of(self.peek(0), BREAK) {
                let line_break = self.scan_line_break();
                chunks.push_str(&line_break);
            } else {
                return Ok(());
            }
        }
    }

    fn scan_plain(&mut self) -> Token {
        let mut chunks = String::new();
        let start = self.mark();
        let mut end = start;
        let indent = self.indent + 1;
        let mut spaces: Vec<String> = Vec::new();
        loop {
            let mut length = 0;
            if self.peek(0) == '#' {
                break;
            }
            loop {
                let ch = self.peek(length);
                let after = self.peek(length + 1);
                let ends_value = ch == ':'
                    && (one_of(after, Z_BLANK_BREAK)
                        || (self.flow_level != 0 && one_of(after, ",[]{}")));
                if one_of(ch, Z_BLANK_BREAK)
                    || ends_value
                    || (self.flow_level != 0 && one_of(ch, ",?[]{}"))
                {
                    break;
                }
                length += 1;
            }
            if length == 0 {
                break;
            }
            self.allow_simple_key = false;
            chunks.push_str(&spaces.concat());
            chunks.push_str(&self.prefix(length));
            self.forward(length);
            end = self.mark();
            spaces = self.scan_plain_spaces();
            if spaces.is_empty()
                || self.peek(0) == '#'
                || (self.flow_level == 0 && self.col() < indent)
            {
                break;
            }
        }
        Token {
            tok: Tok::Scalar {
                value: chunks,
                plain: true,
            },
            start,
            end,
        }
    }

    /// `scan_plain_spaces`; Python's `None` (a document separator) is the empty list too.
    fn scan_plain_spaces(&mut self) -> Vec<String> {
        let mut chunks = Vec::new();
        let mut length = 0;
        while self.peek(length) == ' ' {
            length += 1;
        }
        let whitespaces = self.prefix(length);
        self.forward(length);
        let separator = |scanner: &Self| {
            let prefix = scanner.prefix(3);
            (prefix == "---" || prefix == "...") && one_of(scanner.peek(3), Z_BLANK_BREAK)
        };
        if one_of(self.peek(0), BREAK) {
            let line_break = self.scan_line_break();
            self.allow_simple_key = true;
            if separator(self) {
                return Vec::new();
            }
            let mut breaks = Vec::new();
            while one_of(self.peek(0), " \r\n\u{85}\u{2028}\u{2029}") {
                if self.peek(0) == ' ' {
                    self.forward(1);
                } else {
                    breaks.push(self.scan_line_break());
                    if separator(self) {
                        return Vec::new();
                    }
                }
            }
            if line_break != "\n" {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(" ".to_owned());
            }
            chunks.extend(breaks);
        } else if !whitespaces.is_empty() {
            chunks.push(whitespaces);
        }
        chunks
    }

    fn scan_tag_handle(&mut self, name: &str) -> Result<String, YamlError> {
        let ch = self.peek(0);
        if ch != '!' {
            return Err(scanner_error(
                format!(
                    "while scanning a {name}: expected '!', but found {}",
                    char_repr(ch)
                ),
                self.mark(),
            ));
        }
        let mut length = 1;
        let mut ch = self.peek(length);
        if ch != ' ' {
            while is_word_char(ch) {
                length += 1;
                ch = self.peek(length);
            }
            if ch != '!' {
                self.forward(length);
                return Err(scanner_error(
                    format!(
                        "while scanning a {name}: expected '!', but found {}",
                        char_repr(ch)
                    ),
                    self.mark(),
                ));
            }
            length += 1;
        }
        let value = self.prefix(length);
        self.forward(length);
        Ok(value)
    }

    fn scan_tag_uri(&mut self, name: &str) -> Result<String, YamlError> {
        let mut chunks = String::new();
        let mut length = 0;
        let mut ch = self.peek(length);
        while ch.is_ascii_alphanumeric() || one_of(ch, "-;/?:@&=+$,_.!~*'()[]%") {
            if ch == '%' {
                chunks.push_str(&self.prefix(length));
                self.forward(length);
                length = 0;
                let decoded = self.scan_uri_escapes(name)?;
                chunks.push_str(&decoded);
            } else {
                length += 1;
            }
            ch = self.peek(length);
        }
        if length > 0 {
            chunks.push_str(&self.prefix(length));
            self.forward(length);
        }
        if chunks.is_empty() {
            return Err(scanner_error(
                format!(
                    "while parsing a {name}: expected URI, but found {}",
                    char_repr(ch)
                ),
                self.mark(),
            ));
        }
        Ok(chunks)
    }

    fn scan_uri_escapes(&mut self, name: &str) -> Result<String, YamlError> {
        let mut codes = Vec::new();
        let mark = self.mark();
        while self.peek(0) == '%' {
            self.forward(1);
            for k in 0..2 {
                if !self.peek(k).is_ascii_hexdigit() {
                    return Err(scanner_error(
                        format!(
                            "while scanning a {name}: expected URI escape sequence of 2 hexadecimal numbers, but found {}",
                            char_repr(self.peek(k))
                        ),
                        self.mark(),
                    ));
                }
            }
            let byte = u8::from_str_radix(&self.prefix(2), 16)
                .map_err(|_| YamlError::Unsupported("URI escape".to_owned()))?;
            codes.push(byte);
            self.forward(2);
        }
        String::from_utf8(codes)
            .map_err(|error| scanner_error(format!("while scanning a {name}: {error}"), mark))
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The scanner's `ESCAPE_REPLACEMENTS` for `\x` in double quotes.
fn scanner_escape(c: char) -> Option<char> {
    Some(match c {
        '0' => '\0',
        'a' => '\x07',
        'b' => '\x08',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\x0b',
        'f' => '\x0c',
        'r' => '\r',
        'e' => '\x1b',
        ' ' => ' ',
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// The parser (`yaml/parser.py`).

#[derive(Debug, Clone)]
enum Ev {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        /// `implicit[0]`: resolve the tag as for a plain scalar.
        plain_implicit: bool,
        value: String,
    },
    SequenceStart {
        anchor: Option<String>,
        tag: Option<String>,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        tag: Option<String>,
    },
    MappingEnd,
}

#[derive(Debug, Clone)]
struct Event {
    ev: Ev,
    start: Mark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    ImplicitDocumentStart,
    DocumentStart,
    DocumentEnd,
    DocumentContent,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
}

struct Parser {
    scanner: Scanner,
    current: Option<Event>,
    started: bool,
    state: Option<State>,
    states: Vec<State>,
    tag_handles: BTreeMap<String, String>,
}

fn default_tag_handles() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("!".to_owned(), "!".to_owned()),
        ("!!".to_owned(), "tag:yaml.org,2002:".to_owned()),
    ])
}

impl Parser {
    fn new(scanner: Scanner) -> Self {
        Self {
            scanner,
            current: None,
            started: false,
            state: None,
            states: Vec::new(),
            tag_handles: BTreeMap::new(),
        }
    }

    fn check(&mut self, matches: fn(&Tok) -> bool) -> Result<bool, YamlError> {
        Ok(matches(&self.scanner.peek_token()?.tok))
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop();
    }

    fn peek_event(&mut self) -> Result<&Event, YamlError> {
        if self.current.is_none() {
            let event = self.next_event()?;
            self.current = Some(event);
        }
        self.current
            .as_ref()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    fn get_event(&mut self) -> Result<Event, YamlError> {
        self.peek_event()?;
        self.current
            .take()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    fn next_event(&mut self) -> Result<Event, YamlError> {
        if !self.started {
            self.started = true;
            let token = self.scanner.get_token()?;
            self.state = Some(State::ImplicitDocumentStart);
            return Ok(Event {
                ev: Ev::StreamStart,
                start: token.start,
            });
        }
        let state = self
            .state
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))?;
        match state {
            State::ImplicitDocumentStart => self.parse_implicit_document_start(),
            State::DocumentStart => self.parse_document_start(),
            State::DocumentEnd => self.parse_document_end(),
            State::DocumentContent => self.parse_document_content(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => {
                self.scanner.get_token()?;
                self.parse_block_sequence_entry()
            }
            State::BlockSequenceEntry => self.parse_block_sequence_entry(),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => {
                self.scanner.get_token()?;
                self.parse_block_mapping_key()
            }
            State::BlockMappingKey => self.parse_block_mapping_key(),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => {
                self.scanner.get_token()?;
                self.parse_flow_sequence_entry(true)
            }
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => {
                self.state = Some(State::FlowSequenceEntry);
                let start = self.scanner.peek_token()?.start;
                Ok(Event {
                    ev: Ev::MappingEnd,
                    start,
                })
            }
            State::FlowMappingFirstKey => {
                self.scanner.get_token()?;
                self.parse_flow_mapping_key(true)
            }
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(),
            State::FlowMappingEmptyValue => {
                self.state = Some(State::FlowMappingKey);
                let mark = self.scanner.peek_token()?.start;
                Ok(empty_scalar(mark))
            }
        }
    }

    fn parse_implicit_document_start(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Directive(_) | Tok::DocumentStart | Tok::StreamEnd))? {
            return self.parse_document_start();
        }
        self.tag_handles = default_tag_handles();
        let start = self.scanner.peek_token()?.start;
        self.states.push(State::DocumentEnd);
        self.state = Some(State::BlockNode);
        Ok(Event {
            ev: Ev::DocumentStart,
            start,
        })
    }

    fn parse_document_start(&mut self) -> Result<Event, YamlError> {
        while self.check(|t| matches!(t, Tok::DocumentEnd))? {
            self.scanner.get_token()?;
        }
        if self.check(|t| matches!(t, Tok::StreamEnd))? {
            let token = self.scanner.get_token()?;
            self.state = None;
            return Ok(Event {
                ev: Ev::StreamEnd,
                start: token.start,
            });
        }
        let start = self.scanner.peek_token()?.start;
        self.process_directives()?;
        let token = self.scanner.peek_token()?;
        if !matches!(token.tok, Tok::DocumentStart) {
            return Err(parser_error(
                format!(
                    "expected '<document start>', but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.scanner.get_token()?;
        self.states.push(State::DocumentEnd);
        self.state = Some(State::DocumentContent);
        Ok(Event {
            ev: Ev::DocumentStart,
            start,
        })
    }

    fn parse_document_end(&mut self) -> Result<Event, YamlError> {
        let start = self.scanner.peek_token()?.start;
        if self.check(|t| matches!(t, Tok::DocumentEnd))? {
            self.scanner.get_token()?;
        }
        self.state = Some(State::DocumentStart);
        Ok(Event {
            ev: Ev::DocumentEnd,
            start,
        })
    }

    fn parse_document_content(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| {
            matches!(
                t,
                Tok::Directive(_) | Tok::DocumentStart | Tok::DocumentEnd | Tok::StreamEnd
            )
        })? {
            let mark = self.scanner.peek_token()?.start;
            self.pop_state();
            return Ok(empty_scalar(mark));
        }
        self.parse_node(true, false)
    }

    fn process_directives(&mut self) -> Result<(), YamlError> {
        let mut seen_version = false;
        self.tag_handles = BTreeMap::new();
        while self.check(|t| matches!(t, Tok::Directive(_)))? {
            let token = self.scanner.get_token()?;
            match token.tok {
                Tok::Directive(Directive::Yaml { major_is_one }) => {
                    if seen_version {
                        return Err(parser_error("found duplicate YAML directive", token.start));
                    }
                    if !major_is_one {
                        return Err(parser_error(
                            "found incompatible YAML document (version 1.* is required)",
                            token.start,
                        ));
                    }
                    seen_version = true;
                }
                Tok::Directive(Directive::Tag { handle, prefix }) => {
                    if self.tag_handles.contains_key(&handle) {
                        return Err(parser_error(
                            format!("duplicate tag handle {}", str_repr(&handle)),
                            token.start,
                        ));
                    }
                    self.tag_handles.insert(handle, prefix);
                }
                _ => {}
            }
        }
        for (handle, prefix) in default_tag_handles() {
            self.tag_handles.entry(handle).or_insert(prefix);
        }
        Ok(())
    }

    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Alias(_)))? {
            let token = self.scanner.get_token()?;
            self.pop_state();
            let Tok::Alias(name) = token.tok else {
                return Err(YamlError::Unsupported("alias token expected".to_owned()));
            };
            return Ok(Event {
                ev: Ev::Alias(name),
                start: token.start,
            });
        }
        let mut anchor = None;
        let mut tag_token = None;
        let mut start = None;
        let mut tag_mark = None;
        if self.check(|t| matches!(t, Tok::Anchor(_)))? {
            let token = self.scanner.get_token()?;
            start = Some(token.start);
            if let Tok::Anchor(name) = token.tok {
                anchor = Some(name);
            }
            if self.check(|t| matches!(t, Tok::Tag(..)))? {
                let token = self.scanner.get_token()?;
                tag_mark = Some(token.start);
                if let Tok::Tag(handle, suffix) = token.tok {
                    tag_token = Some((handle, suffix));
                }
            }
        } else if self.check(|t| matches!(t, Tok::Tag(..)))? {
            let token = self.scanner.get_token()?;
            start = Some(token.start);
            tag_mark = Some(token.start);
            if let Tok::Tag(handle, suffix) = token.tok {
                tag_token = Some((handle, suffix));
            }
            if self.check(|t| matches!(t, Tok::Anchor(_)))? {
                if let Tok::Anchor(name) = self.scanner.get_token()?.tok {
                    anchor = Some(name);
                }
            }
        }
        let tag = match tag_token {
            Some((Some(handle), suffix)) => match self.tag_handles.get(&handle) {
                Some(prefix) => Some(format!("{prefix}{suffix}")),
                None => {
                    return Err(parser_error(
                        format!(
                            "while parsing a node: found undefined tag handle {}",
                            str_repr(&handle)
                        ),
                        tag_mark.unwrap_or_default(),
                    ));
                }
            },
            Some((None, suffix)) => Some(suffix),
            None => None,
        };
        let start = match start {
            Some(mark) => mark,
            None => self.scanner.peek_token()?.start,
        };
        let implicit = tag.as_deref().is_none_or(|t| t == "!");
        if indentless_sequence && self.check(|t| matches!(t, Tok::BlockEntry))? {
            self.state = Some(State::IndentlessSequenceEntry);
            return Ok(Event {
                ev: Ev::SequenceStart { anchor, tag },
                start,
            });
        }
        let token = self.scanner.peek_token()?;
        let (ev, next) = match &token.tok {
            Tok::Scalar { .. } => {
                let token = self.scanner.get_token()?;
                let Tok::Scalar { value, plain } = token.tok else {
                    return Err(YamlError::Unsupported("scalar token expected".to_owned()));
                };
                let plain_implicit = (plain && tag.is_none()) || tag.as_deref() == Some("!");
                self.pop_state();
                return Ok(Event {
                    ev: Ev::Scalar {
                        anchor,
                        tag,
                        plain_implicit,
                        value,
                    },
                    start,
                });
            }
            Tok::FlowSequenceStart => (
                Ev::SequenceStart { anchor, tag },
                State::FlowSequenceFirstEntry,
            ),
            Tok::FlowMappingStart => (Ev::MappingStart { anchor, tag }, State::FlowMappingFirstKey),
            Tok::BlockSequenceStart if block => (
                Ev::SequenceStart { anchor, tag },
                State::BlockSequenceFirstEntry,
            ),
            Tok::BlockMappingStart if block => (
                Ev::MappingStart { anchor, tag },
                State::BlockMappingFirstKey,
            ),
            _ if anchor.is_some() || tag.is_some() => {
                // An empty scalar with properties.
                self.pop_state();
                return Ok(Event {
                    ev: Ev::Scalar {
                        anchor,
                        tag,
                        plain_implicit: implicit,
                        value: String::new(),
                    },
                    start,
                });
            }
            other => {
                let kind = if block { "block" } else { "flow" };
                return Err(parser_error(
                    format!(
                        "while parsing a {kind} node: expected the node content, but found {}",
                        str_repr(other.id())
                    ),
                    token.start,
                ));
            }
        };
        self.state = Some(next);
        Ok(Event { ev, start })
    }

    fn parse_block_sequence_entry(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::BlockEntry))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::BlockEntry | Tok::BlockEnd))? {
                self.states.push(State::BlockSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = Some(State::BlockSequenceEntry);
            return Ok(empty_scalar(token.end));
        }
        let token = self.scanner.get_token()?;
        if !matches!(token.tok, Tok::BlockEnd) {
            return Err(parser_error(
                format!(
                    "while parsing a block collection: expected <block end>, but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start: token.start,
        })
    }

    fn parse_indentless_sequence_entry(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::BlockEntry))? {
            let token = self.scanner.get_token()?;
            if !self
                .check(|t| matches!(t, Tok::BlockEntry | Tok::Key | Tok::Value | Tok::BlockEnd))?
            {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = Some(State::IndentlessSequenceEntry);
            return Ok(empty_scalar(token.end));
        }
        let start = self.scanner.peek_token()?.start;
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start,
        })
    }

    fn parse_block_mapping_key(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Key))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::Key | Tok::Value | Tok::BlockEnd))? {
                self.states.push(State::BlockMappingValue);
                return self.parse_node(true, true);
            }
            self.state = Some(State::BlockMappingValue);
            return Ok(empty_scalar(token.end));
        }
        let token = self.scanner.get_token()?;
        if !matches!(token.tok, Tok::BlockEnd) {
            return Err(parser_error(
                format!(
                    "while parsing a block mapping: expected <block end>, but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.pop_state();
        Ok(Event {
            ev: Ev::MappingEnd,
            start: token.start,
        })
    }

    fn parse_block_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::Key | Tok::Value | Tok::BlockEnd))? {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = Some(State::BlockMappingKey);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::BlockMappingKey);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_sequence_entry(&mut self, first: bool) -> Result<Event, YamlError> {
        if !self.check(|t| matches!(t, Tok::FlowSequenceEnd))? {
            if !first {
                if self.check(|t| matches!(t, Tok::FlowEntry))? {
                    self.scanner.get_token()?;
                } else {
                    let token = self.scanner.peek_token()?;
                    return Err(parser_error(
                        format!(
                            "while parsing a flow sequence: expected ',' or ']', but got {}",
                            str_repr(token.tok.id())
                        ),
                        token.start,
                    ));
                }
            }
            if self.check(|t| matches!(t, Tok::Key))? {
                let start = self.scanner.peek_token()?.start;
                self.state = Some(State::FlowSequenceEntryMappingKey);
                return Ok(Event {
                    ev: Ev::MappingStart {
                        anchor: None,
                        tag: None,
                    },
                    start,
                });
            }
            if !self.check(|t| matches!(t, Tok::FlowSequenceEnd))? {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        let token = self.scanner.get_token()?;
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start: token.start,
        })
    }

    fn parse_flow_sequence_entry_mapping_key(&mut self) -> Result<Event, YamlError> {
        let token = self.scanner.get_token()?;
        if !self.check(|t| matches!(t, Tok::Value | Tok::FlowEntry | Tok::FlowSequenceEnd))? {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        self.state = Some(State::FlowSequenceEntryMappingValue);
        Ok(empty_scalar(token.end))
    }

    fn parse_flow_sequence_entry_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::FlowEntry | Tok::FlowSequenceEnd))? {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
            self.state = Some(State::FlowSequenceEntryMappingEnd);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::FlowSequenceEntryMappingEnd);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_mapping_key(&mut self, first: bool) -> Result<Event, YamlError> {
        if !self.check(|t| matches!(t, Tok::FlowMappingEnd))? {
            if !first {
                if self.check(|t| matches!(t, Tok::FlowEntry))? {
                    self.scanner.get_token()?;
                } else {
                    let token = self.scanner.peek_token()?;
                    return Err(parser_error(
                        format!(
                            "while parsing a flow mapping: expected ',' or '}}', but got {}",
                            str_repr(token.tok.id())
                        ),
                        token.start,
                    ));
                }
            }
            if self.check(|t| matches!(t, Tok::Key))? {
                let token = self.scanner.get_token()?;
                if !self
                    .check(|t| matches!(t, Tok::Value | Tok::FlowEntry | Tok::FlowMappingEnd))?
                {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = Some(State::FlowMappingValue);
                return Ok(empty_scalar(token.end));
            }
            if !self.check(|t| matches!(t, Tok::FlowMappingEnd))? {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        let token = self.scanner.get_token()?;
        self.pop_state();
        Ok(Event {
            ev: Ev::MappingEnd,
            start: token.start,
        })
    }

    fn parse_flow_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::FlowEntry | Tok::FlowMappingEnd))? {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
            self.state = Some(State::FlowMappingKey);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::FlowMappingKey);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }
}

fn empty_scalar(mark: Mark) -> Event {
    Event {
        ev: Ev::Scalar {
            anchor: None,
            tag: None,
            plain_implicit: true,
            value: String::new(),
        },
        start: mark,
    }
}

// ---------------------------------------------------------------------------------------------
// The composer (`yaml/composer.py`): events to a node graph; aliases share nodes.

#[derive(Debug, Clone)]
enum NodeValue {
    Scalar(String),
    Sequence(Vec<usize>),
    Mapping(Vec<(usize, usize)>),
}

#[derive(Debug, Clone)]
struct Node {
    tag: String,
    value: NodeValue,
    start: Mark,
}

impl Node {
    fn id(&self) -> &'static str {
        match self.value {
            NodeValue::Scalar(_) => "scalar",
            NodeValue::Sequence(_) => "sequence",
            NodeValue::Mapping(_) => "mapping",
        }
    }
}

struct Composer {
    parser: Parser,
    nodes: Vec<Node>,
    anchors: HashMap<String, usize>,
    /// Collections being composed, for the depth limit.
    open: Vec<usize>,
}

impl Composer {
    fn at_stream_end(&mut self) -> Result<bool, YamlError> {
        Ok(matches!(self.parser.peek_event()?.ev, Ev::StreamEnd))
    }

    fn get_single_node(&mut self) -> Result<Option<usize>, YamlError> {
        self.parser.get_event()?;
        let mut document = None;
        if !self.at_stream_end()? {
            document = Some(self.compose_document()?);
        }
        if !self.at_stream_end()? {
            let event = self.parser.get_event()?;
            return Err(yaml_error(
                "ComposerError",
                "expected a single document in the stream, but found another document",
                event.start,
            ));
        }
        self.parser.get_event()?;
        Ok(document)
    }

    fn compose_document(&mut self) -> Result<usize, YamlError> {
        self.parser.get_event()?;
        let node = self.compose_node()?;
        self.parser.get_event()?;
        self.anchors.clear();
        Ok(node)
    }

    fn new_node(
        &mut self,
        tag: String,
        value: NodeValue,
        start: Mark,
        anchor: Option<String>,
    ) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node { tag, value, start });
        if let Some(anchor) = anchor {
            self.anchors.insert(anchor, id);
        }
        id
    }

    fn compose_node(&mut self) -> Result<usize, YamlError> {
        let event = self.parser.get_event()?;
        let anchor = match &event.ev {
            Ev::Alias(name) => {
                return self.anchors.get(name).copied().ok_or_else(|| {
                    yaml_error(
                        "ComposerError",
                        format!("found undefined alias {}", str_repr(name)),
                        event.start,
                    )
                });
            }
            Ev::Scalar { anchor, .. }
            | Ev::SequenceStart { anchor, .. }
            | Ev::MappingStart { anchor, .. } => anchor.clone(),
            _ => return Err(YamlError::Unsupported("node event expected".to_owned())),
        };
        if let Some(name) = &anchor {
            if self.anchors.contains_key(name) {
                return Err(yaml_error(
                    "ComposerError",
                    format!(
                        "found duplicate anchor {}; first occurrence ... second occurrence",
                        str_repr(name)
                    ),
                    event.start,
                ));
            }
        }
        match event.ev {
            Ev::Scalar {
                tag,
                plain_implicit,
                value,
                ..
            } => {
                let tag = match tag {
                    Some(tag) if tag != "!" => tag,
                    _ if plain_implicit => resolve_implicit(&value).to_owned(),
                    _ => STR_TAG.to_owned(),
                };
                Ok(self.new_node(tag, NodeValue::Scalar(value), event.start, anchor))
            }
            Ev::SequenceStart { tag, .. } => {
                let tag = tag
                    .filter(|t| t != "!")
                    .unwrap_or_else(|| SEQ_TAG.to_owned());
                let id = self.new_node(tag, NodeValue::Sequence(Vec::new()), event.start, anchor);
                self.enter(id)?;
                let mut items = Vec::new();
                while !matches!(self.parser.peek_event()?.ev, Ev::SequenceEnd) {
                    items.push(self.compose_node()?);
                }
                self.parser.get_event()?;
                self.nodes[id].value = NodeValue::Sequence(items);
                self.open.pop();
                Ok(id)
            }
            Ev::MappingStart { tag, .. } => {
                let tag = tag
                    .filter(|t| t != "!")
                    .unwrap_or_else(|| MAP_TAG.to_owned());
                let id = self.new_node(tag, NodeValue::Mapping(Vec::new()), event.start, anchor);
                self.enter(id)?;
                let mut pairs = Vec::new();
                while !matches!(self.parser.peek_event()?.ev, Ev::MappingEnd) {
                    let key = self.compose_node()?;
                    let value = self.compose_node()?;
                    pairs.push((key, value));
                }
                self.parser.get_event()?;
                self.nodes[id].value = NodeValue::Mapping(pairs);
                self.open.pop();
                Ok(id)
            }
            _ => Err(YamlError::Unsupported("node event expected".to_owned())),
        }
    }

    fn enter(&mut self, id: usize) -> Result<(), YamlError> {
        self.open.push(id);
        if self.open.len() > MAX_DEPTH {
            return Err(YamlError::Unsupported(format!(
                "nesting deeper than {MAX_DEPTH}"
            )));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The constructor (`SafeConstructor`): nodes to Python objects.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Date {
    year: i64,
    month: i64,
    day: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DateTime {
    date: Date,
    hour: i64,
    minute: i64,
    second: i64,
    microsecond: i64,
    /// UTC offset in seconds (`timezone(timedelta(...))`); `None` for a naive datetime.
    offset: Option<i64>,
}

/// A Python object `safe_load` builds. Lists and dicts hold object ids, so an alias shares and a
/// recursive structure refers to itself.
#[derive(Debug, Clone)]
enum Obj {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Date(Date),
    DateTime(DateTime),
    List(Vec<usize>),
    Dict(Vec<(usize, usize)>),
}

struct Constructor {
    nodes: Vec<Node>,
    objects: Vec<Obj>,
    constructed: HashMap<usize, usize>,
    /// Collections whose generator has yielded the empty object and is still to run (Python's
    /// `state_generators`).
    pending: Vec<(usize, usize)>,
}

impl Constructor {
    fn construct_document(&mut self, node: usize) -> Result<usize, YamlError> {
        let root = self.construct_object(node)?;
        while !self.pending.is_empty() {
            for (node, object) in std::mem::take(&mut self.pending) {
                self.fill(node, object)?;
            }
        }
        Ok(root)
    }

    fn push(&mut self, object: Obj) -> usize {
        self.objects.push(object);
        self.objects.len() - 1
    }

    fn construct_object(&mut self, node: usize) -> Result<usize, YamlError> {
        if let Some(&object) = self.constructed.get(&node) {
            return Ok(object);
        }
        let tag = self.nodes[node].tag.clone();
        let object = match tag.as_str() {
            SEQ_TAG => {
                let object = self.push(Obj::List(Vec::new()));
                self.pending.push((node, object));
                object
            }
            MAP_TAG => {
                let object = self.push(Obj::Dict(Vec::new()));
                self.pending.push((node, object));
                object
            }
            _ => {
                let value = self.construct_leaf(node, &tag)?;
                self.push(value)
            }
        };
        self.constructed.insert(node, object);
        Ok(object)
    }

    fn construct_leaf(&self, node: usize, tag: &str) -> Result<Obj, YamlError> {
        match tag {
            NULL_TAG => {
                self.construct_scalar(node, 0)?;
                Ok(Obj::None)
            }
            BOOL_TAG => {
                let value = self.construct_scalar(node, 0)?.to_lowercase();
                match value.as_str() {
                    "yes" | "true" | "on" => Ok(Obj::Bool(true)),
                    "no" | "false" | "off" => Ok(Obj::Bool(false)),
                    _ => Err(python_error("KeyError", str_repr(&value))),
                }
            }
            INT_TAG => construct_int(&self.construct_scalar(node, 0)?),
            FLOAT_TAG => construct_float(&self.construct_scalar(node, 0)?),
            TIMESTAMP_TAG => construct_timestamp(&self.construct_scalar(node, 0)?),
            STR_TAG => Ok(Obj::Str(self.construct_scalar(node, 0)?)),
            "tag:yaml.org,2002:binary"
            | "tag:yaml.org,2002:omap"
            | "tag:yaml.org,2002:pairs"
            | "tag:yaml.org,2002:set" => Err(YamlError::Unsupported(format!("the tag {tag}"))),
            _ => Err(constructor_error(
                format!(
                    "could not determine a constructor for the tag {}",
                    str_repr(tag)
                ),
                self.nodes[node].start,
            )),
        }
    }

    /// `SafeConstructor.construct_scalar`: a mapping with a `=` key stands for that key's value.
    fn construct_scalar(&self, node: usize, depth: usize) -> Result<String, YamlError> {
        if depth > MAX_DEPTH {
            return Err(YamlError::Unsupported(format!(
                "nesting deeper than {MAX_DEPTH}"
            )));
        }
        let found = &self.nodes[node];
        match &found.value {
            NodeValue::Scalar(value) => Ok(value.clone()),
            NodeValue::Mapping(pairs) => {
                if let Some(&(_, value)) = pairs
                    .iter()
                    .find(|(key, _)| self.nodes[*key].tag == VALUE_TAG)
                {
                    return self.construct_scalar(value, depth + 1);
                }
                Err(constructor_error(
                    "expected a scalar node, but found mapping",
                    found.start,
                ))
            }
            NodeValue::Sequence(_) => Err(constructor_error(
                "expected a scalar node, but found sequence",
                found.start,
            )),
        }
    }

    /// Runs a collection's generator: `construct_sequence` or `construct_mapping`.
    fn fill(&mut self, node: usize, object: usize) -> Result<(), YamlError> {
        if let Obj::List(_) = self.objects[object] {
            let children = match &self.nodes[node].value {
                NodeValue::Sequence(children) => children.clone(),
                _ => {
                    return Err(constructor_error(
                        format!(
                            "expected a sequence node, but found {}",
                            self.nodes[node].id()
                        ),
                        self.nodes[node].start,
                    ));
                }
            };
            let mut items = Vec::with_capacity(children.len());
            for child in children {
                items.push(self.construct_object(child)?);
            }
            self.objects[object] = Obj::List(items);
            return Ok(());
        }
        if let NodeValue::Mapping(_) = self.nodes[node].value {
            self.flatten_mapping(node, 0)?;
        }
        let pairs = match &self.nodes[node].value {
            NodeValue::Mapping(pairs) => pairs.clone(),
            _ => {
                return Err(constructor_error(
                    format!(
                        "expected a mapping node, but found {}",
                        self.nodes[node].id()
                    ),
                    self.nodes[node].start,
                ));
            }
        };
        let mut entries: Vec<(usize, usize)> = Vec::new();
        for (key_node, value_node) in pairs {
            let key = self.construct_object(key_node)?;
            if matches!(self.objects[key], Obj::List(_) | Obj::Dict(_)) {
                return Err(constructor_error(
                    "while constructing a mapping: found unhashable key",
                    self.nodes[key_node].start,
                ));
            }
            let value = self.construct_object(value_node)?;
            match entries.iter_mut().find(|(seen, _)| self.py_eq(*seen, key)) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        self.objects[object] = Obj::Dict(entries);
        Ok(())
    }

    fn pairs(&self, node: usize) -> Vec<(usize, usize)> {
        match &self.nodes[node].value {
            NodeValue::Mapping(pairs) => pairs.clone(),
            _ => Vec::new(),
        }
    }

    /// `flatten_mapping`: merge keys `<<` pull in the pairs of a mapping or of a list of
    /// mappings (later ones first), before the mapping's own pairs. Mutates the shared nodes as
    /// PyYAML does.
    fn flatten_mapping(&mut self, node: usize, depth: usize) -> Result<(), YamlError> {
        if depth > MAX_DEPTH {
            return Err(YamlError::Unsupported(format!(
                "nesting deeper than {MAX_DEPTH}"
            )));
        }
        let mut merge: Vec<(usize, usize)> = Vec::new();
        let mut index = 0;
        while index < self.pairs(node).len() {
            let (key_node, value_node) = self.pairs(node)[index];
            if self.nodes[key_node].tag == MERGE_TAG {
                if let NodeValue::Mapping(pairs) = &mut self.nodes[node].value {
                    pairs.remove(index);
                }
                match &self.nodes[value_node].value {
                    NodeValue::Mapping(_) => {
                        self.flatten_mapping(value_node, depth + 1)?;
                        merge.extend(self.pairs(value_node));
                    }
                    NodeValue::Sequence(subnodes) => {
                        let mut submerge = Vec::new();
                        for subnode in subnodes.clone() {
                            if !matches!(self.nodes[subnode].value, NodeValue::Mapping(_)) {
                                return Err(constructor_error(
                                    format!(
                                        "while constructing a mapping: expected a mapping for merging, but found {}",
                                        self.nodes[subnode].id()
                                    ),
                                    self.nodes[subnode].start,
                                ));
                            }
                            self.flatten_mapping(subnode, depth + 1)?;
                            submerge.push(self.pairs(subnode));
                        }
                        for pairs in submerge.into_iter().rev() {
                            merge.extend(pairs);
                        }
                    }
                    NodeValue::Scalar(_) => {
                        return Err(constructor_error(
                            "while constructing a mapping: expected a mapping or list of mappings for merging, but found scalar",
                            self.nodes[value_node].start,
                        ));
                    }
                }
            } else {
                if self.nodes[key_node].tag == VALUE_TAG {
                    self.nodes[key_node].tag = STR_TAG.to_owned();
                }
                index += 1;
            }
        }
        if !merge.is_empty() {
            if let NodeValue::Mapping(pairs) = &mut self.nodes[node].value {
                merge.append(pairs);
                *pairs = merge;
            }
        }
        Ok(())
    }

    /// `==` between two hashable objects (dict keys): `1 == 1.0 == True`, a naive datetime never
    /// equals an aware one, aware ones compare as instants.
    fn py_eq(&self, a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        let number = |object: &Obj| match object {
            Obj::Bool(value) => Some((i128::from(*value), None)),
            Obj::Int(value) => Some((*value, None)),
            Obj::Float(value) => Some((0, Some(*value))),
            _ => None,
        };
        match (&self.objects[a], &self.objects[b]) {
            (Obj::None, Obj::None) => true,
            (Obj::Str(x), Obj::Str(y)) => x == y,
            (Obj::Date(x), Obj::Date(y)) => x == y,
            (Obj::DateTime(x), Obj::DateTime(y)) => match (x.offset, y.offset) {
                (None, None) => x == y,
                (Some(_), Some(_)) => {
                    utc_seconds(x) == utc_seconds(y) && x.microsecond == y.microsecond
                }
                _ => false,
            },
            (x, y) => match (number(x), number(y)) {
                (Some((i, None)), Some((j, None))) => i == j,
                (Some((_, Some(f))), Some((_, Some(g)))) => f == g,
                (Some((i, None)), Some((_, Some(f)))) | (Some((_, Some(f))), Some((i, None))) => {
                    int_equals_float(i, f)
                }
                _ => false,
            },
        }
    }
}

fn int_equals_float(int: i128, float: f64) -> bool {
    // Integral floats in i128's range convert exactly.
    float.is_finite() && float.fract() == 0.0 && float.abs() < 1.7e38 && float as i128 == int
}

/// Seconds since 0001-01-01 in UTC (for comparing aware datetimes).
fn utc_seconds(value: &DateTime) -> i64 {
    let days = days_before(value.date);
    days * 86_400 + value.hour * 3600 + value.minute * 60 + value.second - value.offset.unwrap_or(0)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn days_before(date: Date) -> i64 {
    let y = date.year - 1;
    let mut days = y * 365 + y / 4 - y / 100 + y / 400;
    for month in 1..date.month {
        days += days_in_month(date.year, month);
    }
    days + date.day - 1
}

// Scalar constructors.

fn index_error() -> YamlError {
    python_error("IndexError", "string index out of range")
}

/// `construct_yaml_int`.
fn construct_int(value: &str) -> Result<Obj, YamlError> {
    let value = value.replace('_', "");
    let first = value.chars().next().ok_or_else(index_error)?;
    let negative = first == '-';
    let value = if first == '-' || first == '+' {
        &value[1..]
    } else {
        &value[..]
    };
    let magnitude = if value == "0" {
        0
    } else if let Some(digits) = value.strip_prefix("0b") {
        python_int(digits, 2)?
    } else if let Some(digits) = value.strip_prefix("0x") {
        python_int(digits, 16)?
    } else if value.starts_with('0') {
        python_int(value, 8)?
    } else if value.is_empty() {
        return Err(index_error());
    } else if value.contains(':') {
        let mut total: i128 = 0;
        for part in value.split(':') {
            let part = python_int(part, 10)?;
            total = total
                .checked_mul(60)
                .and_then(|total| total.checked_add(part))
                .ok_or_else(too_big)?;
        }
        total
    } else {
        python_int(value, 10)?
    };
    Ok(Obj::Int(if negative { -magnitude } else { magnitude }))
}

fn too_big() -> YamlError {
    YamlError::Unsupported("an integer beyond 128 bits".to_owned())
}

/// Python's `int(text, base)` for ASCII text.
fn python_int(text: &str, base: u32) -> Result<i128, YamlError> {
    if !text.is_ascii() {
        return Err(YamlError::Unsupported(format!(
            "int() of the non-ASCII text {}",
            str_repr(text)
        )));
    }
    let invalid = || {
        python_error(
            "ValueError",
            format!(
                "invalid literal for int() with base {base}: {}",
                str_repr(text)
            ),
        )
    };
    let trimmed = text.trim_matches(|c: char| {
        c.is_ascii_whitespace() || c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f'
    });
    let (negative, unsigned) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let prefix = match base {
        2 => Some("0b"),
        8 => Some("0o"),
        16 => Some("0x"),
        _ => None,
    };
    let digits = match prefix {
        Some(prefix) if unsigned.len() >= 2 && unsigned[..2].eq_ignore_ascii_case(prefix) => {
            &unsigned[2..]
        }
        _ => unsigned,
    };
    if digits.is_empty() {
        return Err(invalid());
    }
    let mut total: i128 = 0;
    for c in digits.chars() {
        let digit = c.to_digit(base).ok_or_else(invalid)?;
        total = total
            .checked_mul(i128::from(base))
            .and_then(|total| total.checked_add(i128::from(digit)))
            .ok_or_else(too_big)?;
    }
    Ok(if negative { -total } else { total })
}

/// `construct_yaml_float`.
fn construct_float(value: &str) -> Result<Obj, YamlError> {
    let value = value.replace('_', "").to_lowercase();
    let first = value.chars().next().ok_or_else(index_error)?;
    let sign = if first == '-' { -1.0 } else { 1.0 };
    let value = if first == '-' || first == '+' {
        &value[1..]
    } else {
        &value[..]
    };
    let result = if value == ".inf" {
        sign * f64::INFINITY
    } else if value == ".nan" {
        f64::NAN
    } else if value.contains(':') {
        let mut digits = Vec::new();
        for part in value.split(':') {
            digits.push(python_float(part)?);
        }
        let mut base: f64 = 1.0;
        let mut total = 0.0;
        for digit in digits.into_iter().rev() {
            total += digit * base;
            base *= 60.0;
        }
        sign * total
    } else {
        sign * python_float(value)?
    };
    Ok(Obj::Float(result))
}

/// Python's `float(text)` for ASCII text.
fn python_float(text: &str) -> Result<f64, YamlError> {
    if !text.is_ascii() {
        return Err(YamlError::Unsupported(format!(
            "float() of the non-ASCII text {}",
            str_repr(text)
        )));
    }
    let invalid = || {
        python_error(
            "ValueError",
            format!("could not convert string to float: {}", str_repr(text)),
        )
    };
    let trimmed = text.trim_matches(|c: char| {
        c.is_ascii_whitespace() || c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f'
    });
    let unsigned = trimmed.strip_prefix(['-', '+']).unwrap_or(trimmed);
    let lower = unsigned.to_ascii_lowercase();
    let b = lower.as_bytes();
    let named = matches!(lower.as_str(), "inf" | "infinity" | "nan");
    let mantissa_end = skip(b, 0, |c| c.is_ascii_digit());
    let (int_digits, mut i) = (mantissa_end, mantissa_end);
    let mut frac_digits = 0;
    if at(b, i, |c| c == b'.') {
        let end = skip(b, i + 1, |c| c.is_ascii_digit());
        frac_digits = end - i - 1;
        i = end;
    }
    let mut numeric = int_digits + frac_digits > 0;
    if numeric && at(b, i, |c| c == b'e') {
        let digits_at = i + 1 + usize::from(at(b, i + 1, |c| c == b'-' || c == b'+'));
        let end = skip(b, digits_at, |c| c.is_ascii_digit());
        numeric = end > digits_at;
        i = end;
    }
    if !(named || (numeric && i == b.len())) {
        return Err(invalid());
    }
    trimmed.parse::<f64>().map_err(|_| invalid())
}

/// `construct_yaml_timestamp`.
fn construct_timestamp(value: &str) -> Result<Obj, YamlError> {
    let parsed =
        parse_timestamp(value).or_else(|| value.strip_suffix('\n').and_then(parse_timestamp));
    let Some(parsed) = parsed else {
        return Err(python_error(
            "AttributeError",
            "'NoneType' object has no attribute 'groupdict'",
        ));
    };
    let number = |digits: &str| digits.parse::<i64>().unwrap_or(0);
    let date = Date {
        year: number(parsed.year),
        month: number(parsed.month),
        day: number(parsed.day),
    };
    let Some(time) = parsed.time else {
        check_date(date)?;
        return Ok(Obj::Date(date));
    };
    let mut fraction: String = time.fraction.chars().take(6).collect();
    while fraction.len() < 6 {
        fraction.push('0');
    }
    let offset = match time.tz {
        Some(Some((sign, hour, minute))) => {
            let seconds = number(hour) * 3600 + number(minute) * 60;
            let seconds = if sign == b'-' { -seconds } else { seconds };
            if seconds.abs() >= 86_400 {
                return Err(python_error(
                    "ValueError",
                    "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24).",
                ));
            }
            Some(seconds)
        }
        Some(None) => Some(0),
        None => None,
    };
    let value = DateTime {
        date,
        hour: number(time.hour),
        minute: number(time.minute),
        second: number(time.second),
        microsecond: number(&fraction),
        offset,
    };
    check_date(date)?;
    for (what, field, limit) in [
        ("hour", value.hour, 23),
        ("minute", value.minute, 59),
        ("second", value.second, 59),
    ] {
        if field > limit {
            return Err(python_error(
                "ValueError",
                format!("{what} must be in 0..{limit}"),
            ));
        }
    }
    Ok(Obj::DateTime(value))
}

fn check_date(date: Date) -> Result<(), YamlError> {
    if !(1..=9999).contains(&date.year) {
        return Err(python_error(
            "ValueError",
            format!("year {} is out of range", date.year),
        ));
    }
    if !(1..=12).contains(&date.month) {
        return Err(python_error("ValueError", "month must be in 1..12"));
    }
    if date.day < 1 || date.day > days_in_month(date.year, date.month) {
        return Err(python_error("ValueError", "day is out of range for month"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Python's view of the loaded objects.

struct Loaded {
    objects: Vec<Obj>,
    root: Option<usize>,
}

impl Loaded {
    /// The `str`-keyed pairs of a dict, `None` for anything else.
    fn mapping(&self, object: usize) -> Option<Vec<(String, YamlValue)>> {
        let Obj::Dict(entries) = &self.objects[object] else {
            return None;
        };
        Some(
            entries
                .iter()
                .filter_map(|&(key, value)| match &self.objects[key] {
                    Obj::Str(key) => Some((key.clone(), self.value(value))),
                    _ => None,
                })
                .collect(),
        )
    }

    fn value(&self, object: usize) -> YamlValue {
        match &self.objects[object] {
            Obj::None => YamlValue::Null,
            Obj::Bool(value) => YamlValue::Bool(*value),
            Obj::Int(value) => match i64::try_from(*value) {
                Ok(value) => YamlValue::Int(value),
                Err(_) => YamlValue::Other(value.to_string()),
            },
            Obj::Float(value) => YamlValue::Float(*value),
            Obj::Str(text) => YamlValue::Str(text.clone()),
            _ => YamlValue::Other(self.python_str(object)),
        }
    }

    fn truthy(&self, object: usize) -> bool {
        match &self.objects[object] {
            Obj::None => false,
            Obj::Bool(value) => *value,
            Obj::Int(value) => *value != 0,
            Obj::Float(value) => *value != 0.0,
            Obj::Str(text) => !text.is_empty(),
            Obj::Date(_) | Obj::DateTime(_) => true,
            Obj::List(items) => !items.is_empty(),
            Obj::Dict(entries) => !entries.is_empty(),
        }
    }

    fn python_str(&self, object: usize) -> String {
        match &self.objects[object] {
            Obj::Str(text) => text.clone(),
            Obj::Date(date) => format_date(*date),
            Obj::DateTime(value) => {
                let mut text = format!(
                    "{} {:02}:{:02}:{:02}",
                    format_date(value.date),
                    value.hour,
                    value.minute,
                    value.second
                );
                if value.microsecond != 0 {
                    text.push_str(&format!(".{:06}", value.microsecond));
                }
                if let Some(offset) = value.offset {
                    let sign = if offset < 0 { '-' } else { '+' };
                    let offset = offset.abs();
                    text.push_str(&format!(
                        "{sign}{:02}:{:02}",
                        offset / 3600,
                        offset % 3600 / 60
                    ));
                }
                text
            }
            _ => {
                let mut out = String::new();
                self.write_repr(object, &mut Vec::new(), &mut out);
                out
            }
        }
    }

    fn write_repr(&self, object: usize, stack: &mut Vec<usize>, out: &mut String) {
        match &self.objects[object] {
            Obj::None => out.push_str("None"),
            Obj::Bool(true) => out.push_str("True"),
            Obj::Bool(false) => out.push_str("False"),
            Obj::Int(value) => out.push_str(&value.to_string()),
            Obj::Float(value) => out.push_str(&float_repr(*value)),
            Obj::Str(text) => out.push_str(&str_repr(text)),
            Obj::Date(date) => out.push_str(&format!(
                "datetime.date({}, {}, {})",
                date.year, date.month, date.day
            )),
            Obj::DateTime(value) => {
                let mut fields = vec![
                    value.date.year,
                    value.date.month,
                    value.date.day,
                    value.hour,
                    value.minute,
                    value.second,
                    value.microsecond,
                ];
                for _ in 0..2 {
                    if fields.last() == Some(&0) {
                        fields.pop();
                    }
                }
                let fields: Vec<String> = fields.iter().map(i64::to_string).collect();
                out.push_str(&format!("datetime.datetime({}", fields.join(", ")));
                if let Some(offset) = value.offset {
                    out.push_str(", tzinfo=");
                    out.push_str(&timezone_repr(offset));
                }
                out.push(')');
            }
            Obj::List(items) => {
                if stack.contains(&object) {
                    out.push_str("[...]");
                    return;
                }
                stack.push(object);
                out.push('[');
                for (index, &item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push_str(", ");
                    }
                    self.write_repr(item, stack, out);
                }
                out.push(']');
                stack.pop();
            }
            Obj::Dict(entries) => {
                if stack.contains(&object) {
                    out.push_str("{...}");
                    return;
                }
                stack.push(object);
                out.push('{');
                for (index, &(key, value)) in entries.iter().enumerate() {
                    if index > 0 {
                        out.push_str(", ");
                    }
                    self.write_repr(key, stack, out);
                    out.push_str(": ");
                    self.write_repr(value, stack, out);
                }
                out.push('}');
                stack.pop();
            }
        }
    }
}

fn format_date(date: Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year, date.month, date.day)
}

/// `repr(datetime.timezone(timedelta(seconds=offset)))`; a zero offset is the `utc` singleton.
fn timezone_repr(offset: i64) -> String {
    if offset == 0 {
        return "datetime.timezone.utc".to_owned();
    }
    let days = offset.div_euclid(86_400);
    let seconds = offset.rem_euclid(86_400);
    let mut parts = Vec::new();
    if days != 0 {
        parts.push(format!("days={days}"));
    }
    if seconds != 0 {
        parts.push(format!("seconds={seconds}"));
    }
    format!(
        "datetime.timezone(datetime.timedelta({}))",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values below were produced by PyYAML 6.0.3 (python3 on the lab machine) with the
    // generator /tmp/yamlgen/gen.py: `yaml.safe_dump(..., sort_keys=False, allow_unicode=True)`
    // and `yaml.safe_load`.

    // Dump cases: generated by /tmp/yamlgen/gen.py with PyYAML 6.0.3.
    // (label, value, dumped, what safe_load reads back: the value except for U+0085)
    const DUMP_CASES: &[(&str, &str, &str, &str)] = &[
        (
            "ascii words",
            "prefers-tabs",
            "name: x\ndescription: prefers-tabs\ntype: user\n",
            "prefers-tabs",
        ),
        (
            "words with spaces",
            "User prefers tabs over spaces",
            "name: x\ndescription: User prefers tabs over spaces\ntype: user\n",
            "User prefers tabs over spaces",
        ),
        (
            "longer than 80",
            "Prefers concise answers with code examples first, then a short explanation of trade-offs involved.",
            "name: x\ndescription: Prefers concise answers with code examples first, then a short explanation\n  of trade-offs involved.\ntype: user\n",
            "Prefers concise answers with code examples first, then a short explanation of trade-offs involved.",
        ),
        (
            "longer than 160",
            "User is migrating the billing service from Python 2.7 to Python 3.11 and wants every change reviewed for unicode handling, integer division semantics, and dictionary ordering assumptions; keep notes short.",
            "name: x\ndescription: User is migrating the billing service from Python 2.7 to Python 3.11\n  and wants every change reviewed for unicode handling, integer division semantics,\n  and dictionary ordering assumptions; keep notes short.\ntype: user\n",
            "User is migrating the billing service from Python 2.7 to Python 3.11 and wants every change reviewed for unicode handling, integer division semantics, and dictionary ordering assumptions; keep notes short.",
        ),
        (
            "one long word",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "name: x\ndescription: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\ntype: user\n",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ),
        (
            "colon space",
            "note: remember this",
            "name: x\ndescription: 'note: remember this'\ntype: user\n",
            "note: remember this",
        ),
        (
            "colon inside a word",
            "a:b",
            "name: x\ndescription: a:b\ntype: user\n",
            "a:b",
        ),
        (
            "colon at the end",
            "ends with:",
            "name: x\ndescription: 'ends with:'\ntype: user\n",
            "ends with:",
        ),
        (
            "dash space",
            "- a list-like start",
            "name: x\ndescription: '- a list-like start'\ntype: user\n",
            "- a list-like start",
        ),
        (
            "dash word",
            "-flag",
            "name: x\ndescription: -flag\ntype: user\n",
            "-flag",
        ),
        (
            "lone dash",
            "-",
            "name: x\ndescription: '-'\ntype: user\n",
            "-",
        ),
        (
            "hash",
            "# not a comment",
            "name: x\ndescription: '# not a comment'\ntype: user\n",
            "# not a comment",
        ),
        (
            "space hash",
            "issue #12 fixed",
            "name: x\ndescription: 'issue #12 fixed'\ntype: user\n",
            "issue #12 fixed",
        ),
        (
            "hash in a word",
            "C# and F#",
            "name: x\ndescription: C# and F#\ntype: user\n",
            "C# and F#",
        ),
        (
            "single quote first",
            "'quoted' start",
            "name: x\ndescription: '''quoted'' start'\ntype: user\n",
            "'quoted' start",
        ),
        (
            "double quote first",
            "\"quoted\" start",
            "name: x\ndescription: '\"quoted\" start'\ntype: user\n",
            "\"quoted\" start",
        ),
        (
            "bracket",
            "[draft] plan",
            "name: x\ndescription: '[draft] plan'\ntype: user\n",
            "[draft] plan",
        ),
        (
            "brace",
            "{a}",
            "name: x\ndescription: '{a}'\ntype: user\n",
            "{a}",
        ),
        (
            "comma inside",
            "a, b",
            "name: x\ndescription: a, b\ntype: user\n",
            "a, b",
        ),
        (
            "question space",
            "? maybe",
            "name: x\ndescription: '? maybe'\ntype: user\n",
            "? maybe",
        ),
        (
            "question word",
            "?maybe",
            "name: x\ndescription: ?maybe\ntype: user\n",
            "?maybe",
        ),
        (
            "ampersand",
            "&anchor",
            "name: x\ndescription: '&anchor'\ntype: user\n",
            "&anchor",
        ),
        (
            "star",
            "*alias",
            "name: x\ndescription: '*alias'\ntype: user\n",
            "*alias",
        ),
        (
            "bang",
            "!important",
            "name: x\ndescription: '!important'\ntype: user\n",
            "!important",
        ),
        (
            "percent",
            "%TAG",
            "name: x\ndescription: '%TAG'\ntype: user\n",
            "%TAG",
        ),
        (
            "at",
            "@user",
            "name: x\ndescription: '@user'\ntype: user\n",
            "@user",
        ),
        (
            "backtick",
            "`cmd`",
            "name: x\ndescription: '`cmd`'\ntype: user\n",
            "`cmd`",
        ),
        (
            "pipe",
            "| literal",
            "name: x\ndescription: '| literal'\ntype: user\n",
            "| literal",
        ),
        (
            "greater",
            "> folded",
            "name: x\ndescription: '> folded'\ntype: user\n",
            "> folded",
        ),
        (
            "document start",
            "--- doc",
            "name: x\ndescription: '--- doc'\ntype: user\n",
            "--- doc",
        ),
        (
            "document end",
            "... more",
            "name: x\ndescription: '... more'\ntype: user\n",
            "... more",
        ),
        (
            "yes",
            "yes",
            "name: x\ndescription: 'yes'\ntype: user\n",
            "yes",
        ),
        ("No", "No", "name: x\ndescription: 'No'\ntype: user\n", "No"),
        ("on", "on", "name: x\ndescription: 'on'\ntype: user\n", "on"),
        (
            "True",
            "True",
            "name: x\ndescription: 'True'\ntype: user\n",
            "True",
        ),
        (
            "y stays plain",
            "y",
            "name: x\ndescription: y\ntype: user\n",
            "y",
        ),
        (
            "null",
            "null",
            "name: x\ndescription: 'null'\ntype: user\n",
            "null",
        ),
        (
            "NULL",
            "NULL",
            "name: x\ndescription: 'NULL'\ntype: user\n",
            "NULL",
        ),
        ("tilde", "~", "name: x\ndescription: '~'\ntype: user\n", "~"),
        (
            "int",
            "123",
            "name: x\ndescription: '123'\ntype: user\n",
            "123",
        ),
        (
            "signed int",
            "+1",
            "name: x\ndescription: '+1'\ntype: user\n",
            "+1",
        ),
        (
            "hex",
            "0x1F",
            "name: x\ndescription: '0x1F'\ntype: user\n",
            "0x1F",
        ),
        (
            "octal",
            "0755",
            "name: x\ndescription: '0755'\ntype: user\n",
            "0755",
        ),
        (
            "underscore int",
            "1_000",
            "name: x\ndescription: '1_000'\ntype: user\n",
            "1_000",
        ),
        (
            "sexagesimal",
            "1:30",
            "name: x\ndescription: '1:30'\ntype: user\n",
            "1:30",
        ),
        (
            "float",
            "1.5",
            "name: x\ndescription: '1.5'\ntype: user\n",
            "1.5",
        ),
        (
            "float with signed exponent",
            "1.5e+3",
            "name: x\ndescription: '1.5e+3'\ntype: user\n",
            "1.5e+3",
        ),
        (
            "exponent without sign stays plain",
            "1.5e3",
            "name: x\ndescription: 1.5e3\ntype: user\n",
            "1.5e3",
        ),
        (
            "inf",
            ".inf",
            "name: x\ndescription: '.inf'\ntype: user\n",
            ".inf",
        ),
        (
            "nan",
            ".NaN",
            "name: x\ndescription: '.NaN'\ntype: user\n",
            ".NaN",
        ),
        (
            "date",
            "2024-01-01",
            "name: x\ndescription: '2024-01-01'\ntype: user\n",
            "2024-01-01",
        ),
        (
            "datetime",
            "2001-12-14 21:59:43.10 -5",
            "name: x\ndescription: '2001-12-14 21:59:43.10 -5'\ntype: user\n",
            "2001-12-14 21:59:43.10 -5",
        ),
        (
            "one-digit month stays plain",
            "2001-1-1",
            "name: x\ndescription: 2001-1-1\ntype: user\n",
            "2001-1-1",
        ),
        (
            "merge",
            "<<",
            "name: x\ndescription: '<<'\ntype: user\n",
            "<<",
        ),
        ("value", "=", "name: x\ndescription: '='\ntype: user\n", "="),
        (
            "trailing space",
            "ends with space ",
            "name: x\ndescription: 'ends with space '\ntype: user\n",
            "ends with space ",
        ),
        (
            "leading space",
            " starts with space",
            "name: x\ndescription: ' starts with space'\ntype: user\n",
            " starts with space",
        ),
        (
            "double space inside",
            "a  b",
            "name: x\ndescription: a  b\ntype: user\n",
            "a  b",
        ),
        ("empty", "", "name: x\ndescription: ''\ntype: user\n", ""),
        (
            "chinese",
            "用户偏好简洁的回答，先给代码",
            "name: x\ndescription: 用户偏好简洁的回答，先给代码\ntype: user\n",
            "用户偏好简洁的回答，先给代码",
        ),
        (
            "emoji",
            "ship it 🚀 today",
            "name: x\ndescription: ship it 🚀 today\ntype: user\n",
            "ship it 🚀 today",
        ),
        (
            "apostrophes",
            "it's the user's choice",
            "name: x\ndescription: it's the user's choice\ntype: user\n",
            "it's the user's choice",
        ),
        (
            "apostrophe and colon",
            "user's rule: no tabs",
            "name: x\ndescription: 'user''s rule: no tabs'\ntype: user\n",
            "user's rule: no tabs",
        ),
        (
            "newline",
            "line one\nline two",
            "name: x\ndescription: 'line one\n\n  line two'\ntype: user\n",
            "line one\nline two",
        ),
        (
            "trailing newline",
            "line\n",
            "name: x\ndescription: 'line\n\n  '\ntype: user\n",
            "line\n",
        ),
        (
            "blank line",
            "a\n\nb",
            "name: x\ndescription: 'a\n\n\n  b'\ntype: user\n",
            "a\n\nb",
        ),
        (
            "space before newline",
            "a \nb",
            "name: x\ndescription: \"a \\nb\"\ntype: user\n",
            "a \nb",
        ),
        (
            "space after newline",
            "a\n b",
            "name: x\ndescription: \"a\\n b\"\ntype: user\n",
            "a\n b",
        ),
        (
            "crlf",
            "a\r\nb",
            "name: x\ndescription: \"a\\r\\nb\"\ntype: user\n",
            "a\r\nb",
        ),
        (
            "tab",
            "col1\tcol2",
            "name: x\ndescription: \"col1\\tcol2\"\ntype: user\n",
            "col1\tcol2",
        ),
        (
            "tab and emoji",
            "tab\tand 🚀",
            "name: x\ndescription: \"tab\\tand \\U0001F680\"\ntype: user\n",
            "tab\tand 🚀",
        ),
        (
            "bell",
            "a\u{7}b",
            "name: x\ndescription: \"a\\ab\"\ntype: user\n",
            "a\u{7}b",
        ),
        (
            "delete",
            "a\u{7f}b",
            "name: x\ndescription: \"a\\x7Fb\"\ntype: user\n",
            "a\u{7f}b",
        ),
        (
            "byte order mark",
            "a\u{feff}b",
            "name: x\ndescription: \"a\\uFEFFb\"\ntype: user\n",
            "a\u{feff}b",
        ),
        (
            "no-break space",
            "a\u{a0}b",
            "name: x\ndescription: a\u{a0}b\ntype: user\n",
            "a\u{a0}b",
        ),
        (
            "next line",
            "a\u{85}b",
            "name: x\ndescription: 'a\u{85}  b'\ntype: user\n",
            "a b",
        ),
        (
            "line separator",
            "a\u{2028}b",
            "name: x\ndescription: 'a\u{2028}  b'\ntype: user\n",
            "a\u{2028}b",
        ),
        (
            "long quoted",
            "'Prefers concise answers with code examples first, then a short explanation of trade-offs involved. Prefers concise answers with code examples first, then a short explanation of trade-offs involved.",
            "name: x\ndescription: '''Prefers concise answers with code examples first, then a short explanation\n  of trade-offs involved. Prefers concise answers with code examples first, then a\n  short explanation of trade-offs involved.'\ntype: user\n",
            "'Prefers concise answers with code examples first, then a short explanation of trade-offs involved. Prefers concise answers with code examples first, then a short explanation of trade-offs involved.",
        ),
        (
            "long double quoted",
            "tab\tUser is migrating the billing service from Python 2.7 to Python 3.11 and wants every change reviewed for unicode handling, integer division semantics, and dictionary ordering assumptions; keep notes short.",
            "name: x\ndescription: \"tab\\tUser is migrating the billing service from Python 2.7 to Python\\\n  \\ 3.11 and wants every change reviewed for unicode handling, integer division semantics,\\\n  \\ and dictionary ordering assumptions; keep notes short.\"\ntype: user\n",
            "tab\tUser is migrating the billing service from Python 2.7 to Python 3.11 and wants every change reviewed for unicode handling, integer division semantics, and dictionary ordering assumptions; keep notes short.",
        ),
        (
            "long with newline",
            "Prefers concise answers with code examples first, then a short explanation of trade-offs involved.\nPrefers concise answers with code examples first, then a short explanation of trade-offs involved.",
            "name: x\ndescription: 'Prefers concise answers with code examples first, then a short explanation\n  of trade-offs involved.\n\n  Prefers concise answers with code examples first, then a short explanation of trade-offs\n  involved.'\ntype: user\n",
            "Prefers concise answers with code examples first, then a short explanation of trade-offs involved.\nPrefers concise answers with code examples first, then a short explanation of trade-offs involved.",
        ),
        (
            "long chinese",
            "用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好",
            "name: x\ndescription: 用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好\ntype: user\n",
            "用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好用户偏好",
        ),
    ];
    /// (label, pairs, dumped)
    type KeyCase = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
    );
    const KEY_CASES: &[KeyCase] = &[
        ("no pairs", &[], "{}\n"),
        (
            "repeated key",
            &[("name", "a"), ("type", "t"), ("name", "b")],
            "name: b\ntype: t\n",
        ),
        (
            "keys needing quotes",
            &[("yes", "1"), ("a b", "c")],
            "'yes': '1'\na b: c\n",
        ),
        (
            "longest simple key",
            &[(
                "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
                "v",
            )],
            "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: v\n",
        ),
        (
            "shortest complex key",
            &[(
                "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
                "v",
            )],
            "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: v\n",
        ),
        (
            "complex keys",
            &[
                (
                    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
                    "long key",
                ),
                ("", "empty key"),
                ("two\nlines", "v"),
            ],
            "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: long key\n? ''\n: empty key\n? 'two\n\n  lines'\n: v\n",
        ),
    ];
    // Load cases: generated by /tmp/yamlgen/gen.py with PyYAML 6.0.3 (`yaml.safe_load`).
    const LOAD_CASES: &[(&str, &str, &str)] = &[
        (
            "frontmatter",
            "\nname: prefers-tabs\ndescription: User prefers tabs\ntype: user\n",
            "name: Str(prefers-tabs); description: Str(User prefers tabs); type: Str(user)",
        ),
        (
            "folded plain",
            "name: x\ndescription: a long\n  folded line\n\n  new paragraph\ntype: user\n",
            "name: Str(x); description: Str(a long folded line\nnew paragraph); type: Str(user)",
        ),
        (
            "single quoted",
            "a: 'it''s'\nb: 'one\n  two\n\n  three'\n",
            "a: Str(it's); b: Str(one two\nthree)",
        ),
        (
            "double quoted escapes",
            "a: \"t\\tn\\nu\\u00e9x\\x41U\\U0001F680q\\\"b\\\\\"\nb: \"fold\\\n  \\ ed\"\n",
            "a: Str(t\tn\nuéxAU🚀q\"b\\); b: Str(fold ed)",
        ),
        (
            "comments and blank lines",
            "# top\nname: x # trailing\n\n# middle\n\ntype: user\n",
            "name: Str(x); type: Str(user)",
        ),
        (
            "duplicate keys",
            "name: a\ntype: t\nname: b\n",
            "name: Str(b); type: Str(t)",
        ),
        (
            "implicit types",
            "a: yes\nb: No\nc: 0x1F\nd: 1_000\ne: 1.5\nf: .inf\ng: ~\nh:\ni: 2024-01-01\nj: 1:30\nk: 0755\nl: -.5\nm: 1e5\nn: +12\no: -0.0\np: 0b101\nq: 1:30.5\nr: .NaN\ns: -.inf\nt: 1.0e+400\n",
            "a: Bool(True); b: Bool(False); c: Int(31); d: Int(1000); e: Float(1.5); f: Float(inf); g: Null(None); h: Null(None); i: Other(2024-01-01); j: Int(90); k: Int(493); l: Str(-.5); m: Str(1e5); n: Int(12); o: Float(-0.0); p: Int(5); q: Float(90.5); r: Float(nan); s: Float(-inf); t: Float(inf)",
        ),
        (
            "flow sequence",
            "tags: [a, 'b c', 1, null, {k: v}]\nname: x\n",
            "tags: Other(['a', 'b c', 1, None, {'k': 'v'}]); name: Str(x)",
        ),
        (
            "flow sequence pair",
            "a: [b: c]\n",
            "a: Other([{'b': 'c'}])",
        ),
        (
            "nested mapping",
            "name:\n  first: a\n  last: b\ntype: t\n",
            "name: Other({'first': 'a', 'last': 'b'}); type: Str(t)",
        ),
        (
            "block sequence",
            "items:\n- a\n- b\nempty:\n  -\n",
            "items: Other(['a', 'b']); empty: Other([None])",
        ),
        (
            "block scalars",
            "a: |\n  x\n  y\nb: >-\n  p\n  q\n\n  r\nc: |+\n  keep\n\nd: x\n",
            "a: Str(x\ny\n); b: Str(p q\nr); c: Str(keep\n\n); d: Str(x)",
        ),
        (
            "anchor and alias",
            "a: &x hello\nb: *x\n",
            "a: Str(hello); b: Str(hello)",
        ),
        (
            "merge key",
            "base: &b {k: 1, j: 0}\nd:\n  <<: *b\n  j: 2\n",
            "base: Other({'k': 1, 'j': 0}); d: Other({'k': 1, 'j': 2})",
        ),
        (
            "explicit tags",
            "a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: ! 12\ne: !!null x\nf: !!bool 'ON'\ng: !<tag:yaml.org,2002:str> 5\nh: !!str\n",
            "a: Str(123); b: Int(7); c: Float(1.0); d: Int(12); e: Null(None); f: Bool(True); g: Str(5); h: Str()",
        ),
        (
            "empty flow collections",
            "a: {}\nb: []\nc: ''\n",
            "a: Other({}); b: Other([]); c: Str()",
        ),
        (
            "non-str keys dropped",
            "1: a\nname: x\ntrue: b\n~: c\n2024-01-01: d\n",
            "name: Str(x)",
        ),
        (
            "equal number keys",
            "1: a\nTrue: b\n1.0: c\nname: x\n",
            "name: Str(x)",
        ),
        (
            "equal number keys nested",
            "a: {1: a, True: b, 1.0: c, '1': d}\n",
            "a: Other({1: 'c', '1': 'd'})",
        ),
        (
            "date inside a list",
            "a: [1, {b: 2001-01-01}]\n",
            "a: Other([1, {'b': datetime.date(2001, 1, 1)}])",
        ),
        (
            "datetime",
            "a: 2001-12-14 21:59:43.10 -5\nb: 2001-12-14t21:59:43Z\nc: [2001-12-14 21:59:43 +05:30, 2002-01-01 00:00:00]\n",
            "a: Other(2001-12-14 21:59:43.100000-05:00); b: Other(2001-12-14 21:59:43+00:00); c: Other([datetime.datetime(2001, 12, 14, 21, 59, 43, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800))), datetime.datetime(2002, 1, 1, 0, 0)])",
        ),
        (
            "big int",
            "a: 12345678901234567890123\n",
            "a: Other(12345678901234567890123)",
        ),
        (
            "recursive list",
            "a: &x [*x]\nb: &y {k: *y}\n",
            "a: Other([[...]]); b: Other({'k': {...}})",
        ),
        ("document markers", "---\nname: x\n...\n", "name: Str(x)"),
        (
            "directive",
            "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\na: !!str 1\n",
            "a: Str(1)",
        ),
        (
            "crlf line ends",
            "name: x\r\ntype: y\r\n",
            "name: Str(x); type: Str(y)",
        ),
        ("byte order mark", "\u{feff}name: x\n", "name: Str(x)"),
        (
            "quoted keys",
            "'na me': x\n\"k\\t\": y\n",
            "na me: Str(x); k\t: Str(y)",
        ),
        ("complex key", "? a\n: b\n", "a: Str(b)"),
        (
            "unicode",
            "name: 用户 🚀\ndescription: café\n",
            "name: Str(用户 🚀); description: Str(café)",
        ),
        (
            "hash inside a word",
            "a: x#y\nb: c #d\n",
            "a: Str(x#y); b: Str(c)",
        ),
        (
            "colon inside a word",
            "a: b:c\nurl: http://x.y/z\n",
            "a: Str(b:c); url: Str(http://x.y/z)",
        ),
        (
            "dumped long value",
            "name: x\ndescription: Prefers concise answers with code examples first, then a short explanation\n  of trade-offs involved.\ntype: user\n",
            "name: Str(x); description: Str(Prefers concise answers with code examples first, then a short explanation of trade-offs involved.); type: Str(user)",
        ),
        (
            "dumped newline",
            "description: 'line one\n\n  line two'\n",
            "description: Str(line one\nline two)",
        ),
        ("value tag key", "a: !!str {=: v, k: 1}\n", "a: Str(v)"),
        (
            "indented mapping",
            "  name: x\n  type: y\n",
            "name: Str(x); type: Str(y)",
        ),
        (
            "nested value indicator",
            "a: b: c",
            "YAMLError ScannerError 1:5",
        ),
        (
            "unclosed flow sequence",
            "name: [unclosed",
            "YAMLError ParserError 1:16",
        ),
        (
            "unclosed flow mapping",
            "name: {a: 1",
            "YAMLError ParserError 1:12",
        ),
        ("tab before a value", "a:\tb", "YAMLError ScannerError 1:3"),
        (
            "unterminated quote",
            "a: 'open\n",
            "YAMLError ScannerError 2:1",
        ),
        (
            "key without value",
            "a: x\nb\n",
            "YAMLError ScannerError 3:1",
        ),
        (
            "bad indentation",
            "name: x\n  bad: y\n",
            "YAMLError ScannerError 2:6",
        ),
        (
            "sequence then mapping",
            "- a\nb: c\n",
            "YAMLError ParserError 2:1",
        ),
        (
            "two documents",
            "a: 1\n---\nb: 2\n",
            "YAMLError ComposerError 2:1",
        ),
        (
            "unknown tag",
            "a: !foo x\n",
            "YAMLError ConstructorError 1:4",
        ),
        (
            "undefined tag handle",
            "a: !e!x y\n",
            "YAMLError ParserError 1:4",
        ),
        ("value scalar", "a: =\n", "YAMLError ConstructorError 1:4"),
        (
            "merge of a scalar",
            "<<: x\n",
            "YAMLError ConstructorError 1:5",
        ),
        (
            "unhashable key",
            "? [a]\n: b\n",
            "YAMLError ConstructorError 1:3",
        ),
        ("control character", "a: \u{1}\n", "YAMLError ReaderError"),
        (
            "undefined alias",
            "a: *nope\n",
            "YAMLError ComposerError 1:4",
        ),
        (
            "duplicate anchor",
            "a: &x 1\nb: &x 2\n",
            "YAMLError ComposerError 2:4",
        ),
        (
            "unknown escape",
            "a: \"\\q\"\n",
            "YAMLError ScannerError 1:6",
        ),
        (
            "bad yaml directive",
            "%YAML 2.0\n---\na: 1\n",
            "YAMLError ParserError 1:1",
        ),
        (
            "stray closing bracket",
            "a: ]\n",
            "YAMLError ParserError 1:4",
        ),
        ("int of a word", "a: !!int x\n", "Python ValueError"),
        ("impossible date", "a: 2024-02-30\n", "Python ValueError"),
        ("bool of a word", "a: !!bool maybe\n", "Python KeyError"),
        ("empty binary int", "a: 0b_\n", "Python ValueError"),
        (
            "timestamp of a word",
            "a: !!timestamp junk\n",
            "Python AttributeError",
        ),
        (
            "escape beyond unicode",
            "a: \"\\U00110000\"\n",
            "Python ValueError",
        ),
        (
            "offset of a day",
            "a: 2001-12-14 21:59:43 +24\n",
            "Python ValueError",
        ),
        ("plain scalar", "just text", "not a mapping"),
        ("list", "- a\n- b\n", "not a mapping"),
        ("empty", "", "not a mapping"),
        ("only a comment", "# nothing\n", "not a mapping"),
        ("number", "42", "not a mapping"),
        ("empty list", "[]", "not a mapping"),
        ("empty mapping", "{}", ""),
    ];
    // `yaml.safe_load(text) or {}` then `isinstance(..., dict)`, PyYAML 6.0.3.
    const METADATA_CASES: &[(&str, &str)] = &[
        ("0", "dict"),
        ("false", "dict"),
        ("''", "dict"),
        ("[]", "dict"),
        ("~", "dict"),
        ("", "dict"),
        ("abc", "not a dict"),
        ("[1]", "not a dict"),
        ("a: 1", "dict"),
        ("{}", "dict"),
    ];

    fn dump_description(value: &str) -> String {
        safe_dump_str_mapping(&[("name", "x"), ("description", value), ("type", "user")])
    }

    /// What a load gives, spelled as the generator spells PyYAML's result.
    fn describe(result: &Result<Option<Vec<(String, YamlValue)>>, YamlError>) -> String {
        match result {
            Ok(None) => "not a mapping".to_owned(),
            Ok(Some(pairs)) => pairs
                .iter()
                .map(|(key, value)| {
                    let kind = match value {
                        YamlValue::Null => "Null",
                        YamlValue::Bool(_) => "Bool",
                        YamlValue::Int(_) => "Int",
                        YamlValue::Float(_) => "Float",
                        YamlValue::Str(_) => "Str",
                        YamlValue::Other(_) => "Other",
                    };
                    format!("{key}: {kind}({})", value.python_str())
                })
                .collect::<Vec<_>>()
                .join("; "),
            Err(YamlError::Yaml {
                class: "ReaderError",
                ..
            }) => "YAMLError ReaderError".to_owned(),
            Err(YamlError::Yaml {
                class,
                line,
                column,
                ..
            }) => format!("YAMLError {class} {line}:{column}"),
            Err(YamlError::Python { exception, .. }) => format!("Python {exception}"),
            Err(YamlError::Unsupported(what)) => format!("Unsupported {what}"),
        }
    }

    #[test]
    fn dumps_every_value_as_pyyaml() {
        let mut failures = Vec::new();
        for (label, value, expected, _) in DUMP_CASES {
            let dumped = dump_description(value);
            if dumped != *expected {
                failures.push(format!(
                    "{label}:\n  got      {dumped:?}\n  expected {expected:?}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn dumps_keys_as_pyyaml() {
        for (label, pairs, expected) in KEY_CASES {
            assert_eq!(safe_dump_str_mapping(pairs), *expected, "{label}");
        }
    }

    #[test]
    fn every_dump_loads_back() {
        for (label, value, dumped, loaded) in DUMP_CASES {
            let pairs = safe_load_mapping(dumped).unwrap().unwrap();
            let expected = vec![
                ("name".to_owned(), YamlValue::Str("x".to_owned())),
                (
                    "description".to_owned(),
                    YamlValue::Str((*loaded).to_owned()),
                ),
                ("type".to_owned(), YamlValue::Str("user".to_owned())),
            ];
            assert_eq!(pairs, expected, "{label}");
            // Every value but U+0085 (which PyYAML reads back as a line break folded to a space)
            // survives the round trip.
            if !value.contains('\u{85}') {
                assert_eq!(loaded, value, "{label}");
            }
        }
    }

    #[test]
    fn frontmatter_as_parse_frontmatter_splits_it() {
        // s09 writes `---\n{frontmatter}\n---\n{body}`; parts[1] of text.split("---", 2) is
        // what safe_load reads.
        for (label, value, dumped, loaded) in DUMP_CASES {
            let text = format!("---\n{}\n---\nbody\n", dumped.trim());
            let parts: Vec<&str> = text.splitn(3, "---").collect();
            if parts.len() < 3 || value.contains("---") {
                continue;
            }
            let pairs = load_metadata(parts[1]).unwrap().unwrap();
            assert_eq!(pairs[1].1, YamlValue::Str((*loaded).to_owned()), "{label}");
        }
    }

    #[test]
    fn loads_as_pyyaml() {
        let mut failures = Vec::new();
        for (label, text, expected) in LOAD_CASES {
            let got = describe(&safe_load_mapping(text));
            if got != *expected {
                failures.push(format!(
                    "{label}:\n  got      {got:?}\n  expected {expected:?}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn metadata_is_safe_load_or_empty_dict() {
        for (text, expected) in METADATA_CASES {
            let got = match load_metadata(text).unwrap() {
                Some(_) => "dict",
                None => "not a dict",
            };
            assert_eq!(got, *expected, "{text:?}");
        }
        assert_eq!(load_metadata("0").unwrap(), Some(Vec::new()));
    }

    #[test]
    fn errors_say_whether_parse_frontmatter_catches_them() {
        assert!(safe_load_mapping("a: b: c").unwrap_err().is_yaml_error());
        assert!(!safe_load_mapping("a: !!int x").unwrap_err().is_yaml_error());
        let unsupported = safe_load_mapping("a: !!binary aGVsbG8=").unwrap_err();
        assert!(matches!(unsupported, YamlError::Unsupported(_)));
        assert!(unsupported.is_yaml_error());
        assert_eq!(
            safe_load_mapping("a: b: c").unwrap_err().to_string(),
            "ScannerError: mapping values are not allowed here (line 1, column 5)"
        );
    }

    #[test]
    fn deep_nesting_is_unsupported() {
        let deep = format!(
            "a: {}{}",
            "[".repeat(MAX_DEPTH + 5),
            "]".repeat(MAX_DEPTH + 5)
        );
        assert!(matches!(
            safe_load_mapping(&deep),
            Err(YamlError::Unsupported(_))
        ));
        let fine = format!("a: {}{}", "[".repeat(10), "]".repeat(10));
        assert_eq!(
            safe_load_mapping(&fine).unwrap().unwrap()[0].1,
            YamlValue::Other("[[[[[[[[[[]]]]]]]]]]".to_owned())
        );
    }

    #[test]
    fn python_str_and_truthiness() {
        let cases = [
            (YamlValue::Null, "None", false),
            (YamlValue::Bool(true), "True", true),
            (YamlValue::Bool(false), "False", false),
            (YamlValue::Int(3), "3", true),
            (YamlValue::Int(0), "0", false),
            (YamlValue::Float(1.5), "1.5", true),
            (YamlValue::Float(1e16), "1e+16", true),
            (YamlValue::Float(-0.0), "-0.0", false),
            (YamlValue::Float(f64::NAN), "nan", true),
            (YamlValue::Float(f64::NEG_INFINITY), "-inf", true),
            (YamlValue::Str(String::new()), "", false),
            (YamlValue::Str("x".to_owned()), "x", true),
            (YamlValue::Other("[]".to_owned()), "[]", false),
            (YamlValue::Other("{}".to_owned()), "{}", false),
            (YamlValue::Other("[None]".to_owned()), "[None]", true),
            (
                YamlValue::Other("2024-01-01".to_owned()),
                "2024-01-01",
                true,
            ),
        ];
        for (value, text, truthy) in cases {
            assert_eq!(value.python_str(), text, "{value:?}");
            assert_eq!(value.truthy(), truthy, "{value:?}");
        }
    }

    #[test]
    fn implicit_resolvers() {
        for (value, tag) in [
            ("yes", BOOL_TAG),
            ("OFF", BOOL_TAG),
            ("y", STR_TAG),
            ("1.5", FLOAT_TAG),
            ("1.5e3", STR_TAG),
            ("1.5e+3", FLOAT_TAG),
            ("-.INF", FLOAT_TAG),
            ("190:20:30.15", FLOAT_TAG),
            ("1:75", STR_TAG),
            ("0b1_0", INT_TAG),
            ("0o17", STR_TAG),
            ("08", STR_TAG),
            ("-0x_F", INT_TAG),
            ("190:20:30", INT_TAG),
            ("", NULL_TAG),
            ("~", NULL_TAG),
            ("2024-01-01", TIMESTAMP_TAG),
            ("2024-1-01", STR_TAG),
            ("2001-12-14t21:59:43.10-05:00", TIMESTAMP_TAG),
            ("2001-12-14 21:59:43 ", STR_TAG),
            ("<<", MERGE_TAG),
            ("=", VALUE_TAG),
            // Python's `$` matches before a final newline.
            ("123\n", INT_TAG),
        ] {
            assert_eq!(resolve_implicit(value), tag, "{value:?}");
        }
    }
}
