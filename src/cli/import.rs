//! The arguments of `lab import` and `lab audit` (real session logs in).

use std::path::PathBuf;

use clap::Args;

use crate::commands::Command;
use crate::commands::audit::AuditArgs;
use crate::commands::import::{ImportArgs, parse_format};
use crate::import::{Format as LogFormat, ImportOptions};
use crate::render::Format;

/// `lab import`.
#[derive(Debug, Args)]
pub struct ImportCliArgs {
    /// A session log, or a folder searched for *.jsonl and *messages.json logs.
    pub input: PathBuf,
    /// The log format (claude-code, codex, cline, gemini-cli); detected per file if absent.
    #[arg(long, value_parser = parse_format)]
    pub from: Option<LogFormat>,
    /// Replace every text by filler of the same size (ids, tool names, sizes kept).
    #[arg(long)]
    pub redact: bool,
    /// A bad line is an error (exit 2) instead of being skipped and counted.
    #[arg(long)]
    pub strict: bool,
    /// Folder for the scenarios (`<session>.json` each); without it the one scenario of a
    /// single session goes to stdout.
    #[arg(short, long)]
    pub out: Option<PathBuf>,
}

impl ImportCliArgs {
    pub(crate) fn into_command(self, format: Format) -> Command {
        Command::Import(ImportArgs {
            input: self.input,
            options: ImportOptions {
                from: self.from,
                redact: self.redact,
                strict: self.strict,
            },
            out: self.out,
            format,
        })
    }
}

/// `lab audit`.
#[derive(Debug, Args)]
pub struct AuditCliArgs {
    /// A session log, or a folder searched for logs.
    pub input: PathBuf,
    /// The log format; detected per file if absent.
    #[arg(long, value_parser = parse_format)]
    pub from: Option<LogFormat>,
    /// Profiles to replay under (default: every compaction profile).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A bad line of a log is an error instead of being skipped.
    #[arg(long)]
    pub strict: bool,
}

impl AuditCliArgs {
    pub(crate) fn into_command(self, format: Format) -> Command {
        Command::Audit(AuditArgs {
            input: self.input,
            options: ImportOptions {
                from: self.from,
                redact: false,
                strict: self.strict,
            },
            profiles: self.profiles,
            format,
        })
    }
}
