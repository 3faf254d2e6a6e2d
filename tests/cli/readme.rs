//! The README's examples are real: every ```text block that starts with `$ lab ARGS` is run and
//! its output must be exactly what the README shows.

use crate::util::{lab_in, manifest_dir};

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

#[test]
fn every_readme_example_is_current() {
    let root = manifest_dir();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 8, "found {} examples", examples.len());
    for (args, shown) in examples {
        let out = lab_in(root, &args.split_whitespace().collect::<Vec<_>>());
        assert_eq!(out.code, 0, "lab {args}: {}", out.stderr);
        assert_eq!(
            out.stdout.trim_end_matches('\n'),
            shown,
            "README example `lab {args}` is stale: regenerate it"
        );
    }
}
