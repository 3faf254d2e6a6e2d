//! No citation of a file users cannot open: the project's research notes (`research/<note>.md`)
//! and seed texts are not in the repository, so nothing committed that users read (scenarios,
//! reports, docs, README) and nothing the lab prints about its sources (`lab profiles`,
//! `lab verify`) may name them; public sources (a repository path @ commit, a URL, an issue)
//! or the in-repository page take their place.

use std::path::{Path, PathBuf};

use crate::util::{lab, manifest_dir};

/// Names of the private notes, seeds and project spec, in any spelling a citation used.
const PRIVATE: &[&str] = &[
    "lcc_revisions",
    "peers_2026",
    "claude_code_probe",
    "production_pipelines",
    "fuzz_audit",
    "real_code_differential",
    "newcomer_review",
    "rust_anchors",
    "seeds/",
    "000_52a05e0d3b77db11",
    "003_8a618625ef9fbc37",
    "seed 003",
    "SPEC §",
];

/// The private citations in `text`: any name of [`PRIVATE`], and any `research/<name>.md`
/// (a note at the root of a research folder; a public path such as
/// `docs/research/agent-harness/...` goes on with a folder, so it is not one).
fn private_citations(text: &str) -> Vec<String> {
    let mut found: Vec<String> = PRIVATE
        .iter()
        .filter(|name| text.contains(*name))
        .map(|name| (*name).to_owned())
        .collect();
    for (at, _) in text.match_indices("research/") {
        let rest = &text[at + "research/".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        if !name.is_empty() && rest[name.len()..].starts_with(".md") {
            found.push(format!("research/{name}.md"));
        }
    }
    found
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "md" | "svg")
        ) {
            out.push(path);
        }
    }
}

#[test]
fn the_checker_finds_a_private_citation_and_passes_a_public_path() {
    assert_eq!(
        private_citations("see research/peers_2026.md §5.1"),
        ["peers_2026", "research/peers_2026.md"]
    );
    assert_eq!(
        private_citations("research/other_notes.md"),
        ["research/other_notes.md"]
    );
    assert!(
        private_citations("ThreeFish-AI/negentropy docs/research/agent-harness/assets/x.py")
            .is_empty()
    );
}

#[test]
fn committed_pages_and_source_output_cite_no_private_file() {
    let root = manifest_dir();
    let mut files = vec![root.join("README.md")];
    for dir in ["scenarios", "reports", "docs"] {
        files_under(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "{}", files.len());
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for cite in private_citations(&text) {
            bad.push(format!("{}: {cite}", file.display()));
        }
    }
    for args in [
        &["profiles"][..],
        &["profiles", "--format", "json"],
        &["verify", "--format", "markdown"],
    ] {
        let out = lab(args);
        assert!(
            out.code <= 1 && !out.stdout.is_empty(),
            "{args:?}: {}",
            out.stderr
        );
        for cite in private_citations(&out.stdout) {
            bad.push(format!("lab {}: {cite}", args.join(" ")));
        }
    }
    assert!(bad.is_empty(), "private citations:\n{}", bad.join("\n"));
}
