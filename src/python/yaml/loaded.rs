//! Python's view of what `yaml.safe_load` returned: `str()`, `repr()` and truthiness of the
//! objects the constructor built, and the [`YamlValue`] a frontmatter key's value becomes.
//!
//! `parse_frontmatter` takes `str(metadata.get(key) or fallback)`, so what matters of a loaded
//! value is whether it is truthy and how `str()` prints it: the repr for lists and dicts (with
//! `[...]` / `{...}` for a recursive one), `2024-01-01` for a date, `datetime.datetime(...)`
//! inside a container.

use super::constructor::{Date, Obj};
use super::repr::{float_repr, str_repr};

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

/// The objects of one loaded document and its root (`None` for an empty stream).
pub(super) struct Loaded {
    pub(super) objects: Vec<Obj>,
    pub(super) root: Option<usize>,
}

impl Loaded {
    /// The `str`-keyed pairs of a dict, `None` for anything else.
    pub(super) fn mapping(&self, object: usize) -> Option<Vec<(String, YamlValue)>> {
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

    /// Python's `bool()` of an object.
    pub(super) fn truthy(&self, object: usize) -> bool {
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
