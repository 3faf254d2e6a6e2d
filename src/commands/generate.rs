//! `lab gen`: a seeded synthetic session written as a scenario (same seed and flags, same
//! bytes). The file is `generate.rs` because `gen` is a reserved word in Rust 2024.

use std::path::PathBuf;

use super::{Outcome, write_file};
use crate::error::LabError;
use crate::workload::{self, GenParams};

/// `lab gen`.
#[derive(Debug, Clone)]
pub struct GenCmd {
    pub params: GenParams,
    /// The command line recorded in the scenario (`lab gen --seed 1 ...`).
    pub command_line: String,
    /// Write the scenario here instead of printing it.
    pub out: Option<PathBuf>,
}

pub(crate) fn execute(cmd: &GenCmd) -> Result<Outcome, LabError> {
    let workload = workload::generate(&cmd.params);
    let text = workload.to_json(&workload::gen_frame(&cmd.params, &cmd.command_line));
    let Some(out) = &cmd.out else {
        return Ok(Outcome::new(text, true));
    };
    write_file(out, &text)?;
    Ok(Outcome::new(
        format!(
            "wrote {}: {} turns, {} calls\n",
            out.display(),
            workload.turns(),
            workload.calls()
        ),
        true,
    ))
}
