//! `lab profiles [NAME]`: every modelled system (or the one named) with its revision, sources,
//! constants, default switches and the layers it leaves out.

use super::Outcome;
use crate::compaction::profile::{self, Profile};
use crate::error::LabError;
use crate::memory::profile::{self as memory_profile, MemoryProfile};
use crate::render::{self, Format};

/// One profile of either domain.
#[derive(Debug, Clone, Copy)]
pub enum OneProfile {
    Compaction(&'static Profile),
    Memory(&'static MemoryProfile),
}

impl OneProfile {
    /// The profile called `name`, compaction or memory.
    pub fn by_name(name: &str) -> Result<OneProfile, LabError> {
        if let Some(p) = profile::by_name(name) {
            return Ok(OneProfile::Compaction(p));
        }
        memory_profile::by_name(name)
            .map(OneProfile::Memory)
            .ok_or_else(|| {
                let memory: Vec<&str> = memory_profile::MEMORY_PROFILES
                    .iter()
                    .map(|p| p.name)
                    .collect();
                LabError::Usage(format!(
                    "unknown profile `{name}` (known: {}, {})",
                    profile::names(),
                    memory.join(", ")
                ))
            })
    }
}

/// `lab profiles`.
#[derive(Debug, Clone)]
pub struct ProfilesCmd {
    /// Only this profile (default: all).
    pub only: Option<OneProfile>,
    pub format: Format,
}

pub(crate) fn execute(cmd: &ProfilesCmd) -> Outcome {
    let text = match cmd.only {
        None => render::all_profiles(cmd.format),
        Some(OneProfile::Compaction(p)) => render::profiles(std::slice::from_ref(p), cmd.format),
        Some(OneProfile::Memory(p)) => render::memory_profiles(std::slice::from_ref(p), cmd.format),
    };
    Outcome::new(text, true)
}
