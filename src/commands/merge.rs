//! `lab merge`: the shard files of one `lab montecarlo` study combined into its result.

use std::path::{Path, PathBuf};

use super::{Outcome, write_chart};
use crate::error::LabError;
use crate::experiments::montecarlo::{self as mc, Shard};
use crate::render::{self, Format};

/// `lab merge`.
#[derive(Debug, Clone)]
pub struct MergeCmd {
    /// Every shard of the split, each once, with the name errors give it (its path).
    pub shards: Vec<(String, Shard)>,
    pub format: Format,
    /// `--chart`: where to draw P(any loss) per cell as SVG (its path checked before reading).
    pub chart: Option<PathBuf>,
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
    let report = mc::report(&mc::merge(cmd.shards)?);
    if let Some(path) = &cmd.chart {
        write_chart(path, &render::forest::montecarlo_svg(&report))?;
    }
    Ok(Outcome::new(render::montecarlo(&report, cmd.format), true))
}
