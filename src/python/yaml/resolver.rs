//! PyYAML's `resolver.py`: the implicit resolvers that give a plain scalar its tag (`Resolver`
//! and the regular expressions `BaseResolver.add_implicit_resolver` registers for the YAML 1.1
//! types), and the timestamp pattern `SafeConstructor.timestamp_regexp` shares with them.
//!
//! The dumper uses them too: a string that would load back as another type is quoted (the
//! serializer's `implicit` flags). The regular expressions are hand-written matchers over bytes;
//! each one's comment gives the Python pattern it implements.

pub(super) const STR_TAG: &str = "tag:yaml.org,2002:str";
pub(super) const NULL_TAG: &str = "tag:yaml.org,2002:null";
pub(super) const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
pub(super) const INT_TAG: &str = "tag:yaml.org,2002:int";
pub(super) const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
pub(super) const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
pub(super) const MERGE_TAG: &str = "tag:yaml.org,2002:merge";
pub(super) const VALUE_TAG: &str = "tag:yaml.org,2002:value";
pub(super) const YAML_TAG: &str = "tag:yaml.org,2002:yaml";
pub(super) const SEQ_TAG: &str = "tag:yaml.org,2002:seq";
pub(super) const MAP_TAG: &str = "tag:yaml.org,2002:map";

/// An implicit resolver: its tag and the test its regular expression makes.
type Resolver = (&'static str, fn(&str) -> bool);

/// The tag a plain scalar gets (`Resolver.resolve` with `implicit[0]`), resolvers in PyYAML's
/// registration order.
pub(super) fn resolve_implicit(value: &str) -> &'static str {
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

/// The index of the first byte from `i` on that is not in `class`.
pub(super) fn skip(b: &[u8], mut i: usize, class: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && class(b[i]) {
        i += 1;
    }
    i
}

/// Whether the byte at `i` exists and is in `class`.
pub(super) fn at(b: &[u8], i: usize, class: impl Fn(u8) -> bool) -> bool {
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
pub(super) struct Timestamp<'a> {
    pub(super) year: &'a str,
    pub(super) month: &'a str,
    pub(super) day: &'a str,
    pub(super) time: Option<TimeOfDay<'a>>,
}

pub(super) struct TimeOfDay<'a> {
    pub(super) hour: &'a str,
    pub(super) minute: &'a str,
    pub(super) second: &'a str,
    pub(super) fraction: &'a str,
    /// `None`, `Some(None)` for `Z`, `Some(Some((sign, hour, minute)))`.
    pub(super) tz: Option<Option<(u8, &'a str, &'a str)>>,
}

/// Matches the whole of `s` against the timestamp regexp (no `$` newline rule: see
/// [`regex_match`]).
pub(super) fn parse_timestamp(s: &str) -> Option<Timestamp<'_>> {
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
