//! `lab report`: deterministic markdown reports of the findings, breaks, matrices and sweeps,
//! with their SVG charts, regenerated and compared in CI (`--check`). Everything here is computed
//! by runs; no cell is typed by hand.

mod conformance;
mod field;
mod pages;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::LabError;

/// Every report file, by name.
pub fn generate() -> Result<BTreeMap<String, String>, LabError> {
    let sweeps = pages::path_sweeps()?;
    let mut files = BTreeMap::new();
    files.insert("README.md".to_owned(), pages::index_md());
    files.insert("findings.md".to_owned(), pages::findings_md()?);
    files.insert("breaks.md".to_owned(), pages::breaks_md()?);
    files.insert("matrix.md".to_owned(), pages::matrix_md()?);
    files.insert("sweep-path.md".to_owned(), pages::sweep_md(&sweeps));
    files.insert(
        "sweep-path.svg".to_owned(),
        crate::render::charts::sweep_svg(&sweeps)?,
    );
    files.insert("profiles.md".to_owned(), pages::profiles_md()?);
    files.insert("memory.md".to_owned(), pages::memory_md()?);
    let growth = crate::memory::growth::run();
    files.insert("memory-growth.md".to_owned(), pages::growth_md(&growth));
    files.insert(
        "memory-growth.svg".to_owned(),
        crate::render::charts::growth_svg(&growth)?,
    );
    let (montecarlo, every) = pages::montecarlo_md()?;
    files.insert("montecarlo.md".to_owned(), montecarlo);
    files.insert(
        "montecarlo.svg".to_owned(),
        crate::render::forest::montecarlo_svg(&every),
    );
    files.insert("field.md".to_owned(), field::field_md(pages::HEADER)?);
    files.insert(
        "conformance.md".to_owned(),
        conformance::conformance_md(pages::HEADER)?,
    );
    Ok(files)
}

/// What `lab report` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportOutcome {
    pub files: Vec<String>,
    /// With `--check`: the first difference, if a checked-in report is stale.
    pub stale: Option<String>,
}

/// Writes the reports into `dir`, or with `check` compares them with what is there.
pub fn report(dir: &Path, check: bool) -> Result<ReportOutcome, LabError> {
    let files = generate()?;
    let names: Vec<String> = files.keys().cloned().collect();
    if check {
        for (name, fresh) in &files {
            let path = dir.join(name);
            let Ok(old) = std::fs::read_to_string(&path) else {
                return Ok(ReportOutcome {
                    files: names,
                    stale: Some(format!("{} is missing", path.display())),
                });
            };
            if let Some(diff) = first_difference(&old, fresh) {
                return Ok(ReportOutcome {
                    files: names,
                    stale: Some(format!("{}: {diff}", path.display())),
                });
            }
        }
        return Ok(ReportOutcome {
            files: names,
            stale: None,
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| LabError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| LabError::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(ReportOutcome {
        files: names,
        stale: None,
    })
}

/// `line N: checked in "..." / generated "..."` for the first differing line.
pub fn first_difference(old: &str, new: &str) -> Option<String> {
    if old == new {
        return None;
    }
    if old.trim_end_matches('\n') == new.trim_end_matches('\n') {
        let count = |text: &str| text.len() - text.trim_end_matches('\n').len();
        return Some(format!(
            "only the final newlines differ: checked in {}, generated {}",
            count(old),
            count(new)
        ));
    }
    let mut old_lines = old.lines();
    let mut new_lines = new.lines();
    let mut line = 1;
    loop {
        match (old_lines.next(), new_lines.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                return Some(format!(
                    "line {line}: checked in {:?}, generated {:?}",
                    a.unwrap_or("<end of file>"),
                    b.unwrap_or("<end of file>")
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_the_line() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\nc\n", "a\nx\nc\n").as_deref(),
            Some("line 2: checked in \"b\", generated \"x\"")
        );
        assert_eq!(
            first_difference("a\nb", "a\nb\n").as_deref(),
            Some("only the final newlines differ: checked in 0, generated 1")
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n").as_deref(),
            Some("line 2: checked in \"<end of file>\", generated \"b\"")
        );
    }
}
