//! harness-lab: a laboratory for the context-management layer of LLM agent harnesses.
//!
//! It replays scripted agent sessions ([`scenario`]) through faithful, deterministic models of
//! real compaction pipelines ([`profile`], [`stages`]), lets a user switch single safeguards off
//! ([`switches`]) and measures what breaks ([`observables`]). Every command is one library call
//! ([`execute`]); the binary only parses arguments and prints.

pub mod cli;
pub mod error;
pub mod experiments;
pub mod explain;
pub mod layers;
pub mod observables;
pub mod profile;
pub mod pyjson;
pub mod render;
pub mod run;
pub mod scenario;
pub mod stages;
pub mod store;
pub mod switches;
pub mod trace;
pub mod transcript;
pub mod verify;
pub mod world;

use std::path::PathBuf;

pub use error::LabError;
use render::Format;
use run::RunOptions;
use scenario::Scenario;

/// `lab run`.
#[derive(Debug, Clone)]
pub struct RunArgs {
    pub scenario: PathBuf,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab explain`.
#[derive(Debug, Clone)]
pub struct ExplainArgs {
    pub scenario: PathBuf,
    pub id: String,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab verify`.
#[derive(Debug, Clone)]
pub struct VerifyArgs {
    pub dir: PathBuf,
    pub format: Format,
}

/// One command of the binary.
#[derive(Debug, Clone)]
pub enum Command {
    Run(RunArgs),
    Explain(ExplainArgs),
    Verify(VerifyArgs),
}

/// What a command prints and its exit code (0, or 1 when an expectation failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub code: u8,
}

/// Runs one command.
pub fn execute(command: Command) -> Result<Outcome, LabError> {
    match command {
        Command::Run(args) => {
            let scenario = Scenario::load(&args.scenario)?;
            let report = run::run(&scenario, &args.options)?;
            Ok(Outcome {
                text: render::run(&report, args.format),
                code: if report.passed() { 0 } else { 1 },
            })
        }
        Command::Explain(args) => {
            let scenario = Scenario::load(&args.scenario)?;
            let report = run::run(&scenario, &args.options)?;
            let explanation = explain::explain(&report, &args.id)?;
            Ok(Outcome {
                text: render::explain(&explanation, args.format),
                code: 0,
            })
        }
        Command::Verify(args) => {
            let report = verify::verify(&args.dir)?;
            Ok(Outcome {
                text: render::verify(&report, args.format),
                code: if report.passed() { 0 } else { 1 },
            })
        }
    }
}
