//! `lab profiles`: every modelled system with its revision, sources, constants, default switches
//! and the layers it leaves out.

use super::Outcome;
use crate::render::{self, Format};

/// `lab profiles`.
#[derive(Debug, Clone)]
pub struct ProfilesCmd {
    pub format: Format,
}

pub(crate) fn execute(cmd: &ProfilesCmd) -> Outcome {
    Outcome::new(render::all_profiles(cmd.format), true)
}
