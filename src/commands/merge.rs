//! `lab merge`: the shard files of one `lab montecarlo` study combined into its result.

use std::path::Path;

use super::Outcome;
use crate::error::LabError;
use crate::experiments::montecarlo::{self as mc, Shard};
use crate::render::{self, Format};

/// `lab merge`.
#[derive(Debug, Clone)]
pub struct MergeCmd {
    /// Every shard of the split, each once, with the name errors give it (its path).
    pub shards: Vec<(String, Shard)>,
    pub format: Format,
}

/// Reads one shard file.
pub fn read_shard(path: &Path) -> Result<(String, Shard), LabError> {
    let name = path.display().to_string();
    let text = crate::limits::read_bounded(path).map_err(|source| LabError::Io {
        path: name.clone(),
        source,
    })?;
    let shard: Shard = serde_json::from_str(&text).map_err(|e| {
        LabError::Usage(format!(
            "{name}:{}:{}: not a montecarlo shard: {e}",
            e.line(),
            e.column()
        ))
    })?;
    Ok((name, shard))
}

pub(crate) fn execute(cmd: MergeCmd) -> Result<Outcome, LabError> {
    let whole = mc::merge(cmd.shards)?;
    Ok(Outcome::new(
        render::montecarlo(&mc::report(&whole), cmd.format),
        true,
    ))
}
