//! `lab import <file|dir> [--from F] [--redact] [--strict] [-o DIR]`: real session logs in,
//! scenarios out ([`crate::import`]).

use std::path::PathBuf;

use crate::import::{self, DirSink, Format, ImportOptions, MemorySink};
use crate::render;
use crate::{LabError, Outcome};

/// `lab import`.
#[derive(Debug, Clone)]
pub struct ImportArgs {
    /// A log, or a folder searched for logs.
    pub input: PathBuf,
    pub options: ImportOptions,
    /// The folder scenarios are written to (`<name>.json` each); stdout when absent, which
    /// takes exactly one session.
    pub out: Option<PathBuf>,
    /// The format of the summary printed after writing to `out`.
    pub format: render::Format,
}

/// Imports and prints the scenario (no `out`) or the summary of what was written.
pub fn execute(args: &ImportArgs) -> Result<Outcome, LabError> {
    let Some(out) = &args.out else {
        let mut sink = MemorySink::default();
        let report = import::import(&args.input, &args.options, &mut sink)?;
        return match sink.files.as_slice() {
            [(_, bytes)] => Ok(Outcome {
                text: String::from_utf8_lossy(bytes).into_owned(),
                code: 0,
                note: None,
            }),
            files => Err(LabError::Usage(format!(
                "{} holds {} sessions ({}); name a folder for them with -o",
                args.input.display(),
                files.len(),
                report
                    .sessions
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        };
    };
    let mut sink = DirSink { dir: out.clone() };
    let report = import::import(&args.input, &args.options, &mut sink)?;
    Ok(Outcome {
        text: render::import(&report, out, args.format),
        note: None,
        code: 0,
    })
}

/// `--from` names.
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::parse(name).ok_or_else(|| {
        format!(
            "unknown format `{name}` (known: {})",
            Format::ALL.map(Format::name).join(", ")
        )
    })
}
