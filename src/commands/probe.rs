//! `lab probe`: run a scenario through the real Claude Code, Codex or Gemini CLI against the
//! scripted model server and compare what it sent with the profile (`src/probe/`), or replay a
//! committed conformance record without the agent. Exit 1 when an item differs.

use std::path::PathBuf;

use super::{Outcome, write_file};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::probe::agent::{Agent, AgentCommand};
use crate::probe::{codex, gemini_cli, render, session};
use crate::render::Format;

/// What `lab probe` does.
#[derive(Debug, Clone)]
pub enum ProbeCmd {
    /// Run the agent on a scenario; write the record under `record_dir` when given.
    Live {
        scenario: PathBuf,
        agent: AgentCommand,
        record_dir: Option<PathBuf>,
        format: Format,
    },
    /// Compare a committed record with its profile.
    Replay {
        record: PathBuf,
        options: RunOptions,
        format: Format,
    },
}

pub(crate) fn execute(cmd: &ProbeCmd) -> Result<Outcome, LabError> {
    match cmd {
        ProbeCmd::Live {
            scenario,
            agent,
            record_dir,
            format,
        } => {
            let report = match agent.agent {
                Agent::ClaudeCode => session::probe(scenario, agent)?,
                Agent::Codex => codex::probe(scenario, agent)?,
                Agent::GeminiCli => gemini_cli::probe(scenario, agent)?,
            };
            if let Some(dir) = record_dir {
                let name = scenario
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "scenario".into());
                let path = dir
                    .join(format!("{}-{}", report.agent, report.version))
                    .join(format!("{name}.json"));
                let text = serde_json::to_string_pretty(&report.record).expect("a JSON value");
                write_file(&path, &format!("{text}\n"))?;
            }
            Ok(Outcome::new(
                render::render(&report, *format),
                report.exact(),
            ))
        }
        ProbeCmd::Replay {
            record,
            options,
            format,
        } => {
            let report = session::replay(record, options)?;
            Ok(Outcome::new(
                render::render(&report, *format),
                report.exact(),
            ))
        }
    }
}
