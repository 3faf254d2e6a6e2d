//! The documentation's examples are real: every ```text block of README.md and docs/*.md that
//! starts with `$ lab ARGS` is run and its output must be exactly what the page shows. Every
//! relative link of those pages names a file of the repository, and LICENSE matches Cargo.toml.

use std::path::{Path, PathBuf};

use crate::util::{lab_at_width, manifest_dir};

/// README.md and every page of docs/, sorted, as (path relative to the root, text).
fn pages(root: &Path) -> Vec<(PathBuf, String)> {
    let mut paths = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(root.join(&p)).unwrap();
            (p, text)
        })
        .collect()
}

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
    // README 4, docs/commands.md 7, workloads 3, probe 2, import, memory and montecarlo 1 each.
    check_examples(|args| !is_report(args), 19);
}

#[test]
#[ignore = "regenerates every report (20 s in a debug build): .ci/run runs it"]
fn every_readme_report_example_is_current() {
    check_examples(is_report, 1);
}

fn check_examples(select: impl Fn(&str) -> bool, at_least: usize) {
    let root = manifest_dir();
    let examples: Vec<_> = pages(root)
        .into_iter()
        .flat_map(|(page, text)| {
            examples(&text)
                .into_iter()
                .map(move |(args, shown)| (page.clone(), args, shown))
        })
        .filter(|(_, args, _)| select(args))
        .collect();
    assert!(
        examples.len() >= at_least,
        "found {} examples",
        examples.len()
    );
    for (page, args, shown) in examples {
        // As a reader sees them in a 100-column terminal (and as a pipe gets them).
        let out = lab_at_width(root, 100, &args.split_whitespace().collect::<Vec<_>>());
        assert_eq!(
            out.code,
            0,
            "{}: lab {args}: {}",
            page.display(),
            out.stderr
        );
        assert_eq!(
            out.stdout.trim_end_matches('\n'),
            shown,
            "{}: example `lab {args}` is stale: regenerate it",
            page.display()
        );
    }
}

/// The targets of the Markdown links `](target)` outside code blocks and code spans, without
/// web links, mail links and in-page anchors.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Drop code spans: the text between backticks is not Markdown.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            let external = ["http://", "https://", "mailto:", "#"]
                .iter()
                .any(|p| target.starts_with(p));
            if !external {
                out.push(target.split('#').next().unwrap().to_owned());
            }
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_docs_names_a_file_of_the_repository() {
    let root = manifest_dir();
    let mut checked = 0;
    let mut broken = Vec::new();
    for (page, text) in pages(root) {
        let dir = root.join(&page).parent().unwrap().to_path_buf();
        for target in relative_links(&text) {
            checked += 1;
            if !dir.join(&target).exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(checked >= 40, "found only {checked} relative links");
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_link_parser_sees_links_and_skips_code() {
    let text = "see [a](docs/a.md#x) and [w](https://e.org) `[c](no.md)`\n```\n[d](no.md)\n```\n[e](#top) [f](../g)";
    assert_eq!(relative_links(text), ["docs/a.md", "../g"]);
}

#[test]
fn the_license_file_matches_cargo_toml() {
    let root = manifest_dir();
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let license = cargo
        .lines()
        .find_map(|l| l.strip_prefix("license = "))
        .expect("a license field in Cargo.toml")
        .trim_matches('"');
    assert_eq!(license, "MIT");
    let text = std::fs::read_to_string(root.join("LICENSE")).unwrap();
    assert!(
        text.starts_with("MIT License\n"),
        "LICENSE is not the MIT text"
    );
    assert!(text.contains("Permission is hereby granted, free of charge"));
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
