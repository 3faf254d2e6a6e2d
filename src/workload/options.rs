//! The generator's options as a user gives them (`--seed`, `--turns`, `--mix`, ...), before they
//! are checked into [`GenParams`]. A Monte Carlo study records them as given, so that its shard
//! files name the mix by name and merge only with shards of the same options.

use serde::{Deserialize, Serialize};

use super::{GenParams, mix_by_name};
use crate::error::LabError;

/// Workload options shared by `lab gen`, `lab search` and `lab montecarlo`, as given on the
/// command line. The default is [`GenParams::default`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenOptions {
    pub seed: u64,
    pub turns: usize,
    /// A mix name of [`super::MIXES`].
    pub mix: String,
    pub max_calls: usize,
    pub size_mu: f64,
    pub size_sigma: f64,
    pub size_max: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        let d = GenParams::default();
        GenOptions {
            seed: d.seed,
            turns: d.turns,
            mix: d.mix.name.to_owned(),
            max_calls: d.max_calls,
            size_mu: d.size_mu,
            size_sigma: d.size_sigma,
            size_max: d.size_max,
        }
    }
}

impl GenOptions {
    /// The checked generator parameters: the mix must exist, then [`GenParams::check`].
    pub fn params(&self) -> Result<GenParams, LabError> {
        let params = GenParams {
            seed: self.seed,
            turns: self.turns,
            mix: mix_by_name(&self.mix)?,
            max_calls: self.max_calls,
            size_mu: self.size_mu,
            size_sigma: self.size_sigma,
            size_max: self.size_max,
            ..GenParams::default()
        };
        params.check()?;
        Ok(params)
    }
}
