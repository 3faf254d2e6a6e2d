//! Spill paths for path experiments (`--vary path`, a `path` axis, the findings on short and
//! deep paths): a spill directory of a chosen length, the reference file whose path is
//! measured, and the refusal to invent directories on the real file system.

use crate::compaction::driver::{self, RunReport};
use crate::compaction::store::{self, StoreKind};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;
use smol_str::SmolStr;

/// The short spill directory the findings and reports contrast with the prototype's deep
/// default.
pub(crate) const SHORT_SPILL_DIR: &str = "/tmp/lab/tool-results";

/// Default options with `spill_dir` (`None`: the profile's own).
pub(crate) fn with_spill_dir(spill_dir: Option<&str>) -> RunOptions {
    RunOptions {
        spill_dir: spill_dir.map(str::to_owned),
        ..RunOptions::default()
    }
}

/// A spill directory such that `dir/basename` has exactly `file_len` characters.
pub(crate) fn spill_dir_for(file_len: usize, basename: &str) -> Result<String, LabError> {
    let need = basename.chars().count() + 3;
    if file_len < need {
        return Err(LabError::Usage(format!(
            "a spill file path of {file_len} chars cannot hold `/x/{basename}` (at least {need})"
        )));
    }
    let dir_len = file_len - basename.chars().count() - 1;
    let frame = "/lab//tool-results".len();
    Ok(if dir_len > frame {
        format!("/lab/{}/tool-results", "p".repeat(dir_len - frame))
    } else {
        format!("/{}", "p".repeat(dir_len - 1))
    })
}

/// Path experiments make up spill directories (`/lab/ppp…/tool-results`); on the real-directory
/// store they would be created on the machine, so they run on the memory store only.
pub(crate) fn refuse_real_paths(options: &RunOptions) -> Result<(), LabError> {
    if options.store == StoreKind::Dir {
        return Err(LabError::Usage(
            "a spill path experiment invents directories; run it on the memory store (drop --store dir)"
                .to_owned(),
        ));
    }
    Ok(())
}

/// The spill file a path experiment measures: the first file the baseline run persists.
pub(crate) fn reference_file(
    scenario: &Scenario,
    options: &RunOptions,
) -> Result<String, LabError> {
    let report = driver::run(scenario, options)?;
    report
        .observables
        .persisted_files
        .first()
        .map(SmolStr::to_string)
        .ok_or_else(|| {
            LabError::Usage(format!(
                "{}: the run spills no file, so there is no spill path to vary",
                scenario.file
            ))
        })
}

/// The spill path of a report's first persisted file and its length.
pub(crate) fn spill_path_of(report: &RunReport) -> Option<(String, usize)> {
    let name = report.observables.persisted_files.first()?;
    let path = store::join(&report.spill_dir, name);
    let len = path.chars().count();
    Some((path, len))
}
