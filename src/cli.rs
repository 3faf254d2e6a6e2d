//! Command-line parsing (clap). The types here stay at the edge and convert into core commands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::render::Format;
use crate::run::RunOptions;
use crate::store::StoreKind;
use crate::{Command, ExplainArgs, RunArgs, VerifyArgs};

/// harness-lab: replay scripted agent sessions through faithful models of context-compaction
/// pipelines and measure what they lose.
#[derive(Debug, Parser)]
#[command(name = "lab", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: CliCommand,
}

#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Run one scenario and print its observables, results, spill store and trace.
    Run {
        /// The scenario file.
        scenario: PathBuf,
        #[command(flatten)]
        options: CliRunOptions,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Tell what happened to one tool result, step by step, and why.
    Explain {
        /// The scenario file.
        scenario: PathBuf,
        /// The tool_use_id of the result.
        id: String,
        #[command(flatten)]
        options: CliRunOptions,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run every scenario's expectations under DIR and print expected against measured.
    Verify {
        /// Directory searched recursively for *.json scenarios.
        #[arg(default_value = "scenarios")]
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
}

/// Overrides shared by the commands that run a scenario.
#[derive(Debug, Args)]
pub struct CliRunOptions {
    /// Profile to run under (default: the scenario's, else course-main).
    #[arg(long)]
    pub profile: Option<String>,
    /// Set a switch: `--set unseen_guard=off`, `--set order=swapped`.
    #[arg(long = "set", value_name = "SWITCH=VALUE", value_parser = parse_pair)]
    pub switches: Vec<(String, String)>,
    /// Set a constant: `--const keep_results=0`.
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub constants: Vec<(String, String)>,
    /// Spill directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub spill_dir: Option<String>,
    /// Transcript directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub transcript_dir: Option<String>,
    /// Store backend: memory (virtual paths, default) or dir (a real temporary directory).
    #[arg(long, value_enum, default_value_t = CliStore::Memory)]
    pub store: CliStore,
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliFormat {
    Table,
    Markdown,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliStore {
    Memory,
    Dir,
}

impl From<CliFormat> for Format {
    fn from(value: CliFormat) -> Self {
        match value {
            CliFormat::Table => Format::Table,
            CliFormat::Markdown => Format::Markdown,
            CliFormat::Json => Format::Json,
        }
    }
}

impl From<CliStore> for StoreKind {
    fn from(value: CliStore) -> Self {
        match value {
            CliStore::Memory => StoreKind::Memory,
            CliStore::Dir => StoreKind::Dir,
        }
    }
}

impl From<CliRunOptions> for RunOptions {
    fn from(value: CliRunOptions) -> Self {
        RunOptions {
            profile: value.profile,
            switches: value.switches,
            constants: value.constants,
            spill_dir: value.spill_dir,
            transcript_dir: value.transcript_dir,
            store: value.store.into(),
        }
    }
}

impl From<Cli> for Command {
    fn from(cli: Cli) -> Self {
        match cli.command {
            CliCommand::Run {
                scenario,
                options,
                format,
            } => Command::Run(RunArgs {
                scenario,
                options: options.into(),
                format: format.into(),
            }),
            CliCommand::Explain {
                scenario,
                id,
                options,
                format,
            } => Command::Explain(ExplainArgs {
                scenario,
                id,
                options: options.into(),
                format: format.into(),
            }),
            CliCommand::Verify { dir, format } => Command::Verify(VerifyArgs {
                dir,
                format: format.into(),
            }),
        }
    }
}
