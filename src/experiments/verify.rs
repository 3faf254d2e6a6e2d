//! `lab verify`: run every scenario's expectations and tabulate expected against measured.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::LabError;
use crate::experiments::findings::{self, FindingRow};
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// One checked expectation of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyRow {
    pub scenario: String,
    pub profile: String,
    /// `check` step, or `None` for the final `expect`.
    pub step: Option<usize>,
    pub expectation: String,
    pub expected: Value,
    pub measured: Value,
    pub ok: bool,
}

/// The verify table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub rows: Vec<VerifyRow>,
    /// The built-in findings (breaks, matrices, sweeps and finding scenarios).
    pub findings: Vec<FindingRow>,
    /// Scenario files that carry no expectation.
    pub without_expect: Vec<String>,
}

impl VerifyReport {
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.ok) && self.findings.iter().all(|f| f.ok)
    }

    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|r| !r.ok).count()
    }
}

/// Every `*.json` under `dir`, recursively (linked directories are not entered), sorted by path.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, LabError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next).map_err(|source| LabError::Io {
            path: next.display().to_string(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| LabError::Io {
                path: next.display().to_string(),
                source,
            })?;
            let path = entry.path();
            // A linked directory is not entered: `a -> .` would loop (audit D9).
            let real_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            if real_dir {
                pending.push(path);
            } else if path.is_dir() {
                continue;
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Runs every scenario in `paths` (files, or directories searched recursively) and checks its
/// expectations; then, when `with_findings`, the built-in findings (their scenarios are compiled
/// in, so they run without a checkout).
pub fn verify(paths: &[PathBuf], with_findings: bool) -> Result<VerifyReport, LabError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(scenario_files(path)?);
        } else {
            files.push(path.clone());
        }
    }
    let mut rows = Vec::new();
    let mut without_expect = Vec::new();
    for path in files {
        let scenario = Scenario::load(&path)?;
        let report = crate::replay::run_any(&scenario, &RunOptions::default())?;
        let name = path.display().to_string();
        if report.expect().is_empty() {
            without_expect.push(name);
            continue;
        }
        for check in report.expect().iter().cloned() {
            rows.push(VerifyRow {
                scenario: name.clone(),
                profile: report.profile().to_owned(),
                step: check.step,
                expectation: check.key,
                expected: check.expected,
                measured: check.measured,
                ok: check.ok,
            });
        }
    }
    Ok(VerifyReport {
        rows,
        findings: if with_findings {
            findings::evaluate_all()?
        } else {
            Vec::new()
        },
        without_expect,
    })
}
