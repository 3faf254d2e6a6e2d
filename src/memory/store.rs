//! The record store of s09: slugs, the path guard, record documents, the derived `MEMORY.md`
//! index and the record listing (research/lcc_revisions.md §2; seed 000 §6, M4).
//!
//! A record is `slug(name).md` with YAML frontmatter (name, description, type) and a body; the
//! index is rebuilt from every file after every write, so it is a derivative and the files are the
//! truth. `memory_path` refuses a name with a separator, the index itself, a store outside the
//! workspace, and a path that resolves out of the store (`..`, a symlink).

use super::fs::{MEMORY_DIR, Target, WORKDIR, path_name};
use super::profile::Revision;
use super::world::{MemoryWorld, PyError};
use crate::python::str::py_strip;
use crate::python::yaml::{self, YamlValue};

/// The index file.
pub const INDEX: &str = "MEMORY.md";
/// MEMORY_TYPES.
pub const MEMORY_TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];
/// TEMPORARY_MEMORY_MARKERS, in the course's order (English, Chinese, Japanese).
pub const TEMPORARY_MARKERS: [&str; 19] = [
    "this session",
    "current session",
    "this turn",
    "current turn",
    "this task",
    "current task",
    "for now",
    "just this time",
    "today only",
    "本次会话",
    "当前会话",
    "这一轮",
    "当前轮次",
    "本次任务",
    "当前任务",
    "暂时",
    "今回だけ",
    "このセッション",
    "現在のタスク",
];

/// One listed record (the course's dict from `list_memory_files`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub filename: String,
    pub name: String,
    pub description: String,
    pub kind: String,
    pub body: String,
}

/// Python's `" ".join(text.split())`.
pub fn collapse(text: &str) -> String {
    crate::python::str::py_split(text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `_normalized_memory_text`: lower case, whitespace collapsed.
pub fn normalized(text: &str) -> String {
    collapse(&text.to_lowercase())
}

/// `memory_slug`: `re.sub(r"[^\w]+", "-", name.lower()).strip("-_") or "memory"` (main); the site
/// revision only replaces spaces and slashes.
pub fn slug(revision: Revision, name: &str) -> String {
    let lower = name.to_lowercase();
    match revision {
        Revision::Main => {
            let mut out = String::new();
            let mut in_gap = false;
            for c in lower.chars() {
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
        Revision::Site => lower.replace([' ', '/'], "-"),
    }
}

/// `parse_frontmatter`: metadata and body, or no metadata when the text does not start with
/// `---\n`, has no closing `---`, or its YAML is invalid or not a mapping.
pub(crate) fn parse_frontmatter(text: &str) -> (Vec<(String, YamlValue)>, String) {
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
        Ok(Some(map)) => (
            map,
            body.trim_start_matches(crate::python::str::py_is_space)
                .to_owned(),
        ),
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
pub fn document(name: &str, kind: &str, description: &str, body: &str) -> String {
    let meta = yaml::safe_dump_str_mapping(&[
        ("name", name),
        ("description", description),
        ("type", kind),
    ]);
    format!("---\n{}\n---\n\n{}\n", py_strip(&meta), py_strip(body))
}

/// The index line of one record file.
fn index_line(text: &str, filename: &str) -> String {
    let (meta, body) = parse_frontmatter(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    let name = collapse(&meta_str(&meta, "name", stem));
    let first_line = crate::python::json::splitlines(&body)
        .into_iter()
        .find(|line| !py_strip(line).is_empty())
        .unwrap_or("")
        .to_owned();
    let description = collapse(&meta_str(&meta, "description", &first_line));
    format!("- [{name}]({filename}) - {description}")
}

impl MemoryWorld {
    /// `memory_path(filename, allow_index)`: the guard's verdict, or `Ok` when the profile has
    /// no guard.
    pub fn memory_path(&self, filename: &str, allow_index: bool) -> Result<(), PyError> {
        if !self.profile.switches.path_guard {
            return Ok(());
        }
        if path_name(filename) != filename {
            return Err(PyError(format!("Invalid memory filename: {filename}")));
        }
        if filename == INDEX && !allow_index {
            return Err(PyError::new("The memory index is not a memory record"));
        }
        if self.fs.root_escapes() {
            return Err(PyError::new("Memory directory escapes the workspace"));
        }
        let escapes = filename == ".." || matches!(self.fs.target(filename), Target::Outside(_));
        if escapes {
            return Err(PyError(format!(
                "Memory path escapes the store: {filename}"
            )));
        }
        Ok(())
    }

    /// `write_memory_file`: validate, write `slug.md`, rebuild the index.
    pub fn write_memory_file(
        &mut self,
        name: &str,
        kind: &str,
        description: &str,
        body: &str,
    ) -> Result<String, PyError> {
        if self.profile.revision == Revision::Site {
            return self.site_write(name, kind, description, body);
        }
        if py_strip(name).is_empty() {
            return Err(PyError::new("Memory name cannot be empty"));
        }
        if self.profile.revision == Revision::Main && !MEMORY_TYPES.contains(&kind) {
            return Err(PyError(format!("Unknown memory type: {kind}")));
        }
        if py_strip(description).is_empty() || py_strip(body).is_empty() {
            return Err(PyError::new("Memory description and body cannot be empty"));
        }
        let filename = format!("{}.md", slug(self.profile.revision, name));
        self.memory_path(&filename, false)?;
        let text = document(name, kind, description, body);
        self.write_record(&filename, &text)?;
        self.event(
            "store",
            "write",
            Some(&filename),
            format!("record `{name}` written"),
        );
        if self.profile.switches.rebuild_index {
            self.rebuild_index()?;
        } else {
            self.append_index_line(&filename, &text)?;
        }
        Ok(filename)
    }

    /// MB2: the index kept by hand, one appended line per write, never rebuilt.
    fn append_index_line(&mut self, filename: &str, text: &str) -> Result<(), PyError> {
        let mut index = self.fs.read(INDEX).unwrap_or_default();
        index.push_str(&index_line(text, filename));
        index.push('\n');
        self.fs
            .write(INDEX, &index)
            .map_err(|e| PyError(e.to_string()))
    }

    /// The index `rebuild_memory_index` would write now.
    pub fn derived_index(&self) -> String {
        let line = match self.profile.revision {
            Revision::Main => index_line,
            Revision::Site => super::site::index_line,
        };
        let mut lines = Vec::new();
        for name in self.fs.glob_md() {
            if name == INDEX || self.memory_path(&name, false).is_err() {
                continue;
            }
            let Ok(text) = self.fs.read(&name) else {
                continue;
            };
            lines.push(line(&text, &name));
        }
        let mut out = lines.join("\n");
        if !lines.is_empty() {
            out.push('\n');
        }
        out
    }

    /// `rebuild_memory_index`.
    pub fn rebuild_index(&mut self) -> Result<(), PyError> {
        if self.profile.revision == Revision::Site {
            return self.site_rebuild_index();
        }
        for name in self.fs.glob_md() {
            if name != INDEX && self.memory_path(&name, false).is_ok() {
                self.note_read(&name);
            }
        }
        let index = self.derived_index();
        self.memory_path(INDEX, true)?;
        self.fs
            .write(INDEX, &index)
            .map_err(|e| PyError(e.to_string()))?;
        self.event(
            "store",
            "index",
            None,
            "MEMORY.md rebuilt from every record file",
        );
        Ok(())
    }

    fn note_read(&mut self, name: &str) {
        if let Target::Outside(path) = self.fs.target(name) {
            self.path_escapes += 1;
            self.event(
                "store",
                "escape",
                Some(name),
                format!("read of {name} reaches {path}, outside the store"),
            );
        }
    }

    /// `read_memory_index`: the stripped index, or empty.
    pub fn read_index(&self) -> String {
        if self.memory_path(INDEX, true).is_err() {
            return String::new();
        }
        self.fs
            .read(INDEX)
            .map(|t| py_strip(&t).to_owned())
            .unwrap_or_default()
    }

    /// `list_memory_files`.
    pub fn list_records(&mut self) -> Vec<Record> {
        let mut records = Vec::new();
        for filename in self.fs.glob_md() {
            if filename == INDEX || self.memory_path(&filename, false).is_err() {
                continue;
            }
            let Ok(text) = self.read_file(&filename) else {
                continue;
            };
            if self.profile.revision == Revision::Site {
                records.push(super::site::record(&filename, &text));
                continue;
            }
            let (meta, body) = parse_frontmatter(&text);
            let stem = filename.strip_suffix(".md").unwrap_or(&filename).to_owned();
            records.push(Record {
                name: meta_str(&meta, "name", &stem),
                description: meta_str(&meta, "description", ""),
                kind: meta_str(&meta, "type", "project"),
                body: py_strip(&body).to_owned(),
                filename,
            });
        }
        records
    }

    /// `read_memory_file`: the text, or nothing when the guard refuses or the file is missing.
    pub fn read_memory_file(&mut self, filename: &str) -> Option<String> {
        self.memory_path(filename, false).ok()?;
        if !self.fs.is_file(filename) {
            return None;
        }
        self.read_file(filename).ok()
    }
}

/// The virtual workspace, for the system prompt.
pub fn workdir() -> &'static str {
    WORKDIR
}

/// The virtual memory directory.
pub fn memory_dir() -> &'static str {
    MEMORY_DIR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_course() {
        assert_eq!(
            slug(Revision::Main, "User prefers tabs"),
            "user-prefers-tabs"
        );
        assert_eq!(slug(Revision::Main, "中文 名字"), "中文-名字");
        assert_eq!(slug(Revision::Main, "../etc/passwd"), "etc-passwd");
        assert_eq!(slug(Revision::Main, "___"), "memory");
        assert_eq!(slug(Revision::Main, "snake_case_"), "snake_case");
        assert_eq!(slug(Revision::Site, "../etc/passwd"), "..-etc-passwd");
        assert_eq!(slug(Revision::Site, "A B"), "a-b");
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
