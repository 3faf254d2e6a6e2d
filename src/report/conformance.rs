//! `conformance.md`: every committed conformance record (the requests a real agent sent to the
//! scripted model server, normalised) replayed against its profile, as a table of scenarios by
//! agent version (issue 14, item 8). CI regenerates it, so a profile change that breaks a
//! recorded agreement shows here as well as in the replay test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::LabError;
use crate::options::RunOptions;
use crate::probe::session::replay;
use crate::render::{self, Format};

/// Where the records live, relative to the repository root.
const RECORDS: &str = "conformance";

/// The committed records: `conformance/<agent>-<version>/<scenario>.json`, sorted.
fn records(root: &Path) -> Result<Vec<PathBuf>, LabError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| LabError::Io { path, source }
    };
    let mut out = Vec::new();
    for agent in std::fs::read_dir(root).map_err(io(root))? {
        let agent = agent.map_err(io(root))?.path();
        if !agent.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&agent).map_err(io(&agent))? {
            let file = file.map_err(io(&agent))?.path();
            if file.extension().is_some_and(|e| e == "json") {
                out.push(file);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A version as numbers, so that 2.1.88 sorts before 2.1.332.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// The page.
pub(super) fn conformance_md(header: &str) -> Result<String, LabError> {
    let mut cells: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut scenarios = BTreeSet::new();
    let mut columns: Vec<(String, String)> = Vec::new();
    let (mut exact_records, mut total_records, mut exact_rows, mut total_rows) = (0, 0, 0, 0);
    for path in records(Path::new(RECORDS))? {
        let report = replay(&path, &RunOptions::default())?;
        let column = format!("{} {} ({})", report.agent, report.version, report.profile);
        if !columns.iter().any(|(c, _)| *c == column) {
            columns.push((column.clone(), report.version.clone()));
        }
        let scenario = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let exact = report.rows.iter().filter(|r| r.exact()).count();
        let rows = report.rows.len();
        let verdict = if report.exact() { "exact" } else { "differs" };
        cells.insert(
            (scenario.clone(), column),
            format!("{verdict} ({exact}/{rows})"),
        );
        scenarios.insert(scenario);
        total_records += 1;
        exact_records += usize::from(report.exact());
        exact_rows += exact;
        total_rows += rows;
    }
    columns.sort_by(|a, b| {
        version_key(&a.1)
            .cmp(&version_key(&b.1))
            .then(a.0.cmp(&b.0))
    });
    let mut header_row = vec!["scenario"];
    header_row.extend(columns.iter().map(|(c, _)| c.as_str()));
    let rows: Vec<Vec<String>> = scenarios
        .iter()
        .map(|scenario| {
            let mut row = vec![format!("`{scenario}`")];
            row.extend(columns.iter().map(|(column, _)| {
                cells
                    .get(&(scenario.clone(), column.clone()))
                    .cloned()
                    .unwrap_or_else(|| "not recorded".to_owned())
            }));
            row
        })
        .collect();
    let mut out = String::from(header);
    out.push_str(
        "# Conformance: the profiles against the real agent\n\n\
         Each cell replays one committed record of `conformance/<agent>-<version>/` (what the real \
         agent sent to the lab's scripted model server, recorded by `lab probe --record`) against \
         the profile it names: `exact` when every tool_use and tool_result it sent (Codex: every \
         user message, function_call and function_call_output; Gemini CLI: every user text, \
         functionCall and functionResponse), and the number of summary \
         requests, are byte for byte what the profile produces after the documented \
         normalisation (after a compaction also every user text; the reminders appended to results \
         when the profile models them); in brackets the items that agree out of those compared. A record keeps the \
         messages exactly and only the length and sha256 of the system prompt, the tool schemas \
         and the compaction prompt. `not recorded`: no record for that version (p14 and p15 under \
         2.1.88: it restores the files of one batch of Reads in the order they completed, not \
         the order the profile follows; each agent's scenarios are recorded under that agent \
         only; p26 under Gemini CLI 0.61.0 differs in the masked file's path, which the \
         `gemini-cli` profile does not model; see `docs/probe.md`).\n\n",
    );
    out.push_str(&render::table(&header_row, rows, Format::Markdown));
    out.push_str(&format!(
        "\n\n{exact_records} of {total_records} records exact; {exact_rows} of {total_rows} \
         compared items agree.\n"
    ));
    Ok(out)
}
