//! The README's examples are real: every ```text block that starts with `$ lab ARGS` is run and
//! its output must be exactly what the README shows.

use std::path::Path;
use std::process::Command;

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 8, "found {} examples", examples.len());
    for (args, shown) in examples {
        let output = Command::new(env!("CARGO_BIN_EXE_lab"))
            .args(args.split_whitespace())
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "lab {args}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            printed.trim_end_matches('\n'),
            shown,
            "README example `lab {args}` is stale: regenerate it"
        );
    }
}
