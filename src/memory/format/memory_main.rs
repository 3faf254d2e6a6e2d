//! The record file format of memory-main (s09 at f9e8b28, shareAI-lab/learn-claude-code
//! s09_memory/code.py @ 168fff8): `\w` slugs, YAML frontmatter written by PyYAML's `safe_dump` and
//! read back by `safe_load`, and `- [name](file) - description` index lines with whitespace
//! collapsed.

use crate::memory::record::{Record, collapse};
use crate::python::json::splitlines;
use crate::python::str::{py_is_space, py_strip};
use crate::python::yaml::{self, YamlValue};

/// `memory_slug`: `re.sub(r"[^\w]+", "-", name.lower()).strip("-_") or "memory"`.
pub(crate) fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut in_gap = false;
    for c in name.to_lowercase().chars() {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
            in_gap = false;
        } else if !in_gap {
            out.push('-');
            in_gap = true;
        }
    }
    let trimmed = out.trim_matches(|c| c == '-' || c == '_');
    if trimmed.is_empty() {
        "memory".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// `parse_frontmatter`: metadata and body, or no metadata when the text does not start with
/// `---\n`, has no closing `---`, or its YAML is invalid or not a mapping.
fn parse_frontmatter(text: &str) -> (Vec<(String, YamlValue)>, String) {
    if !text.starts_with("---\n") {
        return (Vec::new(), text.to_owned());
    }
    let mut parts = text.splitn(3, "---");
    let (Some(_), Some(meta), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
        return (Vec::new(), text.to_owned());
    };
    // `yaml.safe_load(parts[1]) or {}`, then the dict check; exceptions PyYAML raises outside
    // YAMLError would crash the course's code and are treated here like a YAML error.
    match yaml::load_metadata(meta) {
        Ok(Some(map)) => (map, body.trim_start_matches(py_is_space).to_owned()),
        Ok(None) => (Vec::new(), text.to_owned()),
        Err(_) => (Vec::new(), text.to_owned()),
    }
}

/// `str(metadata.get(key) or fallback)`.
fn meta_str(meta: &[(String, YamlValue)], key: &str, fallback: &str) -> String {
    match meta.iter().rev().find(|(k, _)| k == key) {
        Some((_, value)) if value.truthy() => value.python_str(),
        _ => fallback.to_owned(),
    }
}

/// `memory_document`: YAML frontmatter, a blank line, the stripped body.
pub(crate) fn document(name: &str, kind: &str, description: &str, body: &str) -> String {
    let meta = yaml::safe_dump_str_mapping(&[
        ("name", name),
        ("description", description),
        ("type", kind),
    ]);
    format!("---\n{}\n---\n\n{}\n", py_strip(&meta), py_strip(body))
}

/// The index line of one record file.
pub(crate) fn index_line(text: &str, filename: &str) -> String {
    let (meta, body) = parse_frontmatter(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    let name = collapse(&meta_str(&meta, "name", stem));
    let first_line = splitlines(&body)
        .into_iter()
        .find(|line| !py_strip(line).is_empty())
        .unwrap_or("")
        .to_owned();
    let description = collapse(&meta_str(&meta, "description", &first_line));
    format!("- [{name}]({filename}) - {description}")
}

/// The `list_memory_files` entry of one file (type defaults to `project`).
pub(crate) fn record(filename: &str, text: &str) -> Record {
    let (meta, body) = parse_frontmatter(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    Record {
        name: meta_str(&meta, "name", stem),
        description: meta_str(&meta, "description", ""),
        kind: meta_str(&meta, "type", "project"),
        body: py_strip(&body).to_owned(),
        filename: filename.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_course() {
        assert_eq!(slug("User prefers tabs"), "user-prefers-tabs");
        assert_eq!(slug("中文 名字"), "中文-名字");
        assert_eq!(slug("../etc/passwd"), "etc-passwd");
        assert_eq!(slug("___"), "memory");
        assert_eq!(slug("snake_case_"), "snake_case");
    }

    #[test]
    fn frontmatter_edge_cases() {
        let (meta, body) = parse_frontmatter("---\nname: a\n---\n\nbody\n");
        assert_eq!(meta.len(), 1);
        assert_eq!(body, "body\n");
        let (meta, body) = parse_frontmatter("no frontmatter");
        assert!(meta.is_empty());
        assert_eq!(body, "no frontmatter");
        // CRLF files do not start with "---\n".
        let (meta, _) = parse_frontmatter("---\r\nname: a\r\n---\r\n");
        assert!(meta.is_empty());
        // No closing fence.
        let (meta, body) = parse_frontmatter("---\nname: a\n");
        assert!(meta.is_empty());
        assert_eq!(body, "---\nname: a\n");
    }

    #[test]
    fn index_lines_collapse_whitespace_and_fall_back() {
        let doc = document("Tabs  please", "user", "Use tabs\nnot spaces", "Body");
        assert_eq!(
            index_line(&doc, "tabs-please.md"),
            "- [Tabs please](tabs-please.md) - Use tabs not spaces"
        );
        assert_eq!(
            index_line("first line\nsecond", "poison.md"),
            "- [poison](poison.md) - first line"
        );
    }
}
