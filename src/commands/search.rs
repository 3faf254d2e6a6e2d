//! `lab search`: a generated session that violates a property, shrunk to a minimal scenario and
//! written to a file; exit 1 when none is found within the budget. Or the list of properties.

use std::path::PathBuf;

use super::{Outcome, write_file};
use crate::error::LabError;
use crate::render::{self, Format};
use crate::search::{self, SearchParams, properties};

/// `lab search`.
#[expect(
    clippy::large_enum_variant,
    reason = "one value per process: its size does not matter"
)]
#[derive(Debug, Clone)]
pub enum SearchCmd {
    /// `--list`: the properties.
    List { format: Format },
    /// `--property`: search, shrink and write the minimal scenario.
    Find {
        params: SearchParams,
        /// The command line that repeats the search, printed and quoted in the found file.
        command_line: String,
        /// Where the minimal scenario is written (`<property>-<profile>.json`).
        out_dir: PathBuf,
        /// The screen the report's lines fit (tables), or none.
        format: Format,
    },
}

pub(crate) fn execute(
    cmd: &SearchCmd,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    let (params, command_line, out_dir, format) = match cmd {
        SearchCmd::List { format } => {
            let text = render::properties(properties::PROPERTIES, *format);
            return Ok(Outcome::new(text, true));
        }
        SearchCmd::Find {
            params,
            command_line,
            out_dir,
            format,
        } => (params, command_line, out_dir, *format),
    };
    let report = search::search(params, command_line, progress)?;
    let written = match &report.found {
        Some(found) => {
            let path = out_dir.join(format!("{}.json", found.frame.name));
            write_file(&path, &found.workload.to_json(&found.frame))?;
            Some(path)
        }
        None => None,
    };
    Ok(Outcome::new(
        render::search(&report, written.as_deref(), command_line, format),
        report.found.is_some(),
    ))
}
