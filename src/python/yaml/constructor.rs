//! PyYAML's `constructor.py`, `SafeConstructor`: nodes to Python objects.
//!
//! Collections are built in two steps as in Python, where `construct_yaml_seq` and
//! `construct_yaml_map` are generators: the empty object first (so a recursive structure can refer
//! to itself), its items once the document's other objects exist. Mapping keys follow Python's
//! dict: `1`, `1.0` and `True` are one key, the last value wins and the first position is kept.
//! The scalar constructors reproduce the Python exceptions (`ValueError`, `KeyError`, ...) that
//! `int()`, `float()` and `datetime` raise on the values the resolvers let through.

use std::collections::HashMap;

use super::composer::{Node, NodeValue};
use super::error::{MAX_DEPTH, Mark, YamlError, python_error, yaml_error};
use super::repr::str_repr;
use super::resolver::{
    BOOL_TAG, FLOAT_TAG, INT_TAG, MAP_TAG, MERGE_TAG, NULL_TAG, SEQ_TAG, STR_TAG, TIMESTAMP_TAG,
    VALUE_TAG, at, parse_timestamp, skip,
};

/// A `ConstructorError`.
fn constructor_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ConstructorError", problem, mark)
}

/// A `datetime.date`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Date {
    pub(super) year: i64,
    pub(super) month: i64,
    pub(super) day: i64,
}

/// A `datetime.datetime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DateTime {
    pub(super) date: Date,
    pub(super) hour: i64,
    pub(super) minute: i64,
    pub(super) second: i64,
    pub(super) microsecond: i64,
    /// UTC offset in seconds (`timezone(timedelta(...))`); `None` for a naive datetime.
    pub(super) offset: Option<i64>,
}

/// A Python object `safe_load` builds. Lists and dicts hold object ids, so an alias shares and a
/// recursive structure refers to itself.
#[derive(Debug, Clone)]
pub(super) enum Obj {
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

pub(super) struct Constructor {
    nodes: Vec<Node>,
    /// Every object built so far; an object is its index.
    pub(super) objects: Vec<Obj>,
    constructed: HashMap<usize, usize>,
    /// Collections whose generator has yielded the empty object and is still to run (Python's
    /// `state_generators`).
    pending: Vec<(usize, usize)>,
}

impl Constructor {
    pub(super) fn new(nodes: Vec<Node>) -> Self {
        Self {
            nodes,
            objects: Vec::new(),
            constructed: HashMap::new(),
            pending: Vec::new(),
        }
    }

    pub(super) fn construct_document(&mut self, node: usize) -> Result<usize, YamlError> {
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
