//! A memory record as s09's `list_memory_files` returns it, the record types memory-main
//! accepts, and the text normalisation its storage gates and observables compare records by
//! (shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8; negentropy 173-claude-code-memory-management.md §6, M4).

use crate::python::str::py_split;

/// MEMORY_TYPES: the four record types memory-main accepts.
pub(crate) const MEMORY_TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];

/// One listed record (the course's dict from `list_memory_files`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) filename: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) kind: String,
    pub(crate) body: String,
}

impl Record {
    /// `f"{name} {description}".lower()`: the text both keyword fallbacks search.
    pub(crate) fn catalog_text(&self) -> String {
        format!("{} {}", self.name, self.description).to_lowercase()
    }
}

/// Python's `" ".join(text.split())`.
pub(crate) fn collapse(text: &str) -> String {
    py_split(text).collect::<Vec<_>>().join(" ")
}

/// `_normalized_memory_text`: lower case, whitespace collapsed.
pub(crate) fn normalized(text: &str) -> String {
    collapse(&text.to_lowercase())
}
