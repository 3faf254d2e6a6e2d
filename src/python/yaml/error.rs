//! PyYAML's `error.py`: the position of a problem (`Mark`) and the errors `yaml.safe_load` raises.
//!
//! PyYAML's `MarkedYAMLError` subclasses (`ReaderError`, `ScannerError`, `ParserError`,
//! `ComposerError`, `ConstructorError`) become [`YamlError::Yaml`] with the class name; each stage
//! module has a helper that names its class. Python exceptions that are not `YAMLError`s, and what
//! the port does not model, have variants of their own.

use std::fmt;

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
    /// A construct the port does not model; treat it like [`YamlError::Yaml`].
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
pub(super) const MAX_DEPTH: usize = 100;

/// A position in the text, counted from 0 (PyYAML's `Mark` without the buffer).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Mark {
    pub(super) line: usize,
    pub(super) column: usize,
}

/// A `MarkedYAMLError` of class `class`; the message counts lines and columns from 1.
pub(super) fn yaml_error(class: &'static str, problem: impl Into<String>, mark: Mark) -> YamlError {
    YamlError::Yaml {
        class,
        problem: problem.into(),
        line: mark.line + 1,
        column: mark.column + 1,
    }
}

/// A Python exception other than `YAMLError` (`ValueError`, `KeyError`, ...).
pub(super) fn python_error(exception: &'static str, message: impl Into<String>) -> YamlError {
    YamlError::Python {
        exception,
        message: message.into(),
    }
}
