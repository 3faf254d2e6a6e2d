//! The README's examples are real: every ```text block that starts with `$ lab ARGS` is run and
//! its output must be exactly what the README shows.

use crate::util::{lab_at_width, manifest_dir};

fn examples(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = readme;
    while let Some(start) = rest.find("```text\n$ lab ") {
        let body = &rest[start + "```text\n".len()..];
        let end = body.find("\n```").expect("a closed code block");
        let block = &body[..end];
        let (command, output) = block.split_once('\n').unwrap_or((block, ""));
        out.push((command["$ lab ".len()..].to_owned(), output.to_owned()));
        rest = &body[end..];
    }
    out
}

/// `lab report` regenerates every report (20 s in a debug build): its examples are checked by
/// the ignored test below, which `.ci/run` runs.
fn is_report(args: &str) -> bool {
    args.starts_with("report")
}

#[test]
fn every_readme_example_is_current() {
    check_examples(|args| !is_report(args), 8);
}

#[test]
#[ignore = "regenerates every report (20 s in a debug build): .ci/run runs it"]
fn every_readme_report_example_is_current() {
    check_examples(is_report, 1);
}

fn check_examples(select: impl Fn(&str) -> bool, at_least: usize) {
    let root = manifest_dir();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples: Vec<_> = examples(&readme)
        .into_iter()
        .filter(|(args, _)| select(args))
        .collect();
    assert!(
        examples.len() >= at_least,
        "found {} examples",
        examples.len()
    );
    for (args, shown) in examples {
        // As a reader sees them in a 100-column terminal (and as a pipe gets them).
        let out = lab_at_width(root, 100, &args.split_whitespace().collect::<Vec<_>>());
        assert_eq!(out.code, 0, "lab {args}: {}", out.stderr);
        assert_eq!(
            out.stdout.trim_end_matches('\n'),
            shown,
            "README example `lab {args}` is stale: regenerate it"
        );
    }
}

/// The entries of the README's Layout tree, as paths under `src/` (folders end in `/`).
fn layout_entries(readme: &str) -> Vec<String> {
    let start = readme.find("## Layout").expect("a Layout section");
    let block = &readme[start..];
    let body =
        &block[block.find("```text\nsrc/\n").expect("the src/ tree") + "```text\nsrc/\n".len()..];
    let body = &body[..body.find("\n```").expect("a closed tree")];
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in body.lines() {
        let depth = (line.len() - line.trim_start().len()) / 2 - 1;
        let name = line
            .split_whitespace()
            .next()
            .expect("a name on every line");
        stack.truncate(depth);
        let path = format!("{}{name}", stack.concat());
        if name.ends_with('/') {
            stack.push(name.to_owned());
        }
        out.push(path);
    }
    out
}

/// Every folder under `src/` and every file at its top level, as the Layout tree names them.
fn source_entries(dir: &std::path::Path, prefix: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            out.push(format!("{prefix}{name}/"));
            source_entries(&path, &format!("{prefix}{name}/"), out);
        } else if prefix.is_empty() {
            out.push(name);
        }
    }
}

#[test]
fn the_readme_layout_tree_matches_the_source_folders() {
    let root = manifest_dir();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut listed = layout_entries(&readme);
    let mut actual = Vec::new();
    source_entries(&root.join("src"), "", &mut actual);
    listed.sort();
    actual.sort();
    assert_eq!(listed, actual, "README Layout tree vs src/");
}
