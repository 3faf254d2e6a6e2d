//! A scenario replayed under whichever domain its profile belongs to: compaction or memory.

use crate::check::CheckOutcome;
use crate::compaction::driver::{self, RunReport};
use crate::error::LabError;
use crate::memory;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// A run under any profile.
#[derive(Debug, Clone)]
pub enum Ran {
    Compaction(Box<RunReport>),
    Memory(Box<memory::run::MemoryReport>),
}

impl Ran {
    pub fn expect(&self) -> &[CheckOutcome] {
        match self {
            Ran::Compaction(r) => &r.expect,
            Ran::Memory(r) => &r.expect,
        }
    }

    pub fn profile(&self) -> &str {
        match self {
            Ran::Compaction(r) => &r.profile,
            Ran::Memory(r) => &r.profile,
        }
    }

    pub fn passed(&self) -> bool {
        self.expect().iter().all(|c| c.ok)
    }
}

/// Runs a scenario under its (or the options') profile, compaction or memory.
pub fn run_any(scenario: &Scenario, options: &RunOptions) -> Result<Ran, LabError> {
    match memory::run::memory_profile(scenario, options) {
        Some(profile) => Ok(Ran::Memory(Box::new(memory::run::run(
            scenario, options, profile,
        )?))),
        None => Ok(Ran::Compaction(Box::new(driver::run(scenario, options)?))),
    }
}
