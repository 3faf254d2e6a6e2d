//! How to run a scenario: the overrides a command passes to either domain's driver.

use crate::compaction::store::StoreKind;

/// How to run a scenario: overrides from the command line and the store backend.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Profile to use instead of the scenario's.
    pub profile: Option<String>,
    /// `switch=value` overrides, applied after the scenario's.
    pub switches: Vec<(String, String)>,
    /// `constant=value` overrides, applied after the scenario's.
    pub constants: Vec<(String, String)>,
    /// Spill directory instead of the scenario's.
    pub spill_dir: Option<String>,
    /// Transcript directory instead of the scenario's.
    pub transcript_dir: Option<String>,
    /// Store backend; `Dir` without directories uses a fresh temporary directory.
    pub store: StoreKind,
    /// With `Dir`, accept a given spill or transcript directory that already holds files; they
    /// are neither overwritten nor counted as spill files.
    pub reuse_dir: bool,
}
