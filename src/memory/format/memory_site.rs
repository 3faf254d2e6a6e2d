//! The record file format of memory-site, the older s09 the course web site shows
//! (shareAI-lab/learn-claude-code @ 67a9126c, site-track s09): slugs by two replaces, frontmatter
//! written by hand (`name: {name}` lines, nothing quoted), a colon-splitting parser, and `-
//! [name](file) — desc` index lines.

use crate::memory::record::Record;
use crate::python::json::{char_prefix, splitlines};
use crate::python::str::py_strip;

/// The site's slug: lower case, spaces and slashes replaced by `-`, nothing else.
pub(crate) fn slug(name: &str) -> String {
    name.to_lowercase().replace([' ', '/'], "-")
}

/// The site's `_parse_frontmatter`: a text starting with `---` is split on the first two
/// `---`; every line of the middle part with a colon is `key: value` (quotes stripped, later
/// keys win); the body is the stripped rest. Anything else is all body.
fn parse(text: &str) -> (Vec<(String, String)>, String) {
    if !text.starts_with("---") {
        return (Vec::new(), text.to_owned());
    }
    let parts: Vec<&str> = text.splitn(3, "---").collect();
    if parts.len() < 3 {
        return (Vec::new(), text.to_owned());
    }
    let mut meta: Vec<(String, String)> = Vec::new();
    for line in splitlines(py_strip(parts[1])) {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = py_strip(key).to_owned();
        let value = py_strip(value).trim_matches('"').trim_matches('\'');
        meta.retain(|(k, _)| *k != key);
        meta.push((key, value.to_owned()));
    }
    (meta, py_strip(parts[2]).to_owned())
}

/// `meta.get(key, default)`.
fn get<'a>(meta: &'a [(String, String)], key: &str, default: &'a str) -> &'a str {
    meta.iter()
        .find(|(k, _)| k == key)
        .map_or(default, |(_, v)| v.as_str())
}

/// The record text the site's `write_memory_file` writes: nothing is quoted or stripped.
pub(crate) fn document(name: &str, kind: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n")
}

/// One line of the site's index: the description falls back to the first 80 characters of the
/// body's first line.
pub(crate) fn index_line(text: &str, filename: &str) -> String {
    let (meta, body) = parse(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    let first = char_prefix(body.split('\n').next().unwrap_or(""), 80);
    format!(
        "- [{}]({filename}) — {}",
        get(&meta, "name", stem),
        get(&meta, "description", first)
    )
}

/// The site's `list_memory_files` entry of one file (type defaults to `user`).
pub(crate) fn record(filename: &str, text: &str) -> Record {
    let (meta, body) = parse(text);
    let stem = filename.strip_suffix(".md").unwrap_or(filename);
    Record {
        filename: filename.to_owned(),
        name: get(&meta, "name", stem).to_owned(),
        description: get(&meta, "description", "").to_owned(),
        kind: get(&meta, "type", "user").to_owned(),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_only_replace_spaces_and_slashes() {
        assert_eq!(slug("../etc/passwd"), "..-etc-passwd");
        assert_eq!(slug("A B"), "a-b");
    }

    #[test]
    fn frontmatter_by_colons() {
        let (meta, body) = parse("---\nname: \"Tabs\"\ndescription: a: b\nnoise\n---\n\nBody\n\n");
        assert_eq!(
            meta,
            [
                ("name".to_owned(), "Tabs".to_owned()),
                ("description".to_owned(), "a: b".to_owned())
            ]
        );
        assert_eq!(body, "Body");
        // A `---` inside the description ends the frontmatter early.
        let text = document("x", "user", "before --- after", "B");
        let (meta, body) = parse(&text);
        assert_eq!(get(&meta, "description", "?"), "before");
        assert_eq!(body, "after\ntype: user\n---\n\nB");
        // Not frontmatter: the whole text is the body, unstripped.
        assert_eq!(parse(" ---\nx\n").1, " ---\nx\n");
    }

    #[test]
    fn index_line_falls_back_to_the_body() {
        assert_eq!(
            index_line(
                &document("Tabs", "user", "indentation", "Use tabs."),
                "tabs.md"
            ),
            "- [Tabs](tabs.md) — indentation"
        );
        let long = "y".repeat(100);
        assert_eq!(
            index_line(&format!("{long}\nsecond"), "raw.md"),
            format!("- [raw](raw.md) — {}", "y".repeat(80))
        );
    }
}
