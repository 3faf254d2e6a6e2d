//! `lab probe` arguments.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::value_enums::parse_pair;
use crate::commands::Command;
use crate::commands::probe::ProbeCmd;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::probe::agent::AgentCommand;
use crate::probe::{install, session};
use crate::render::Format;

/// `lab probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The scenario to run through the agent (with --replay: a conformance record).
    pub path: PathBuf,
    /// The agent (only claude-code).
    #[arg(long, default_value = "claude-code")]
    pub agent: String,
    /// The agent's executable.
    #[arg(long, value_name = "PATH", conflicts_with = "agent_version")]
    pub agent_bin: Option<PathBuf>,
    /// The version installed in ~/.cache/harness-lab/agents/claude-code-V.
    #[arg(long, value_name = "V", default_value = "2.1.88")]
    pub agent_version: String,
    /// Install --agent-version with npm first when it is not there.
    #[arg(long)]
    pub install: bool,
    /// Write the conformance record to DIR/<agent>-<version>/<scenario>.json.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Kill the agent after this many seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// An extra argument for the agent, repeatable (2.1.332 needs `--agent-arg=--tools
    /// --agent-arg=Bash,Read,Grep,Glob` for Grep and Glob).
    #[arg(long = "agent-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub agent_args: Vec<String>,
    /// Compare a committed record with its profile; the agent is not run.
    #[arg(long)]
    pub replay: bool,
    /// With --replay: a constant of the profile changed (NAME=VALUE).
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_pair, requires = "replay")]
    pub constants: Vec<(String, String)>,
}

impl ProbeArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        if self.agent != "claude-code" {
            return Err(LabError::Usage(format!(
                "--agent {}: only claude-code can be probed",
                self.agent
            )));
        }
        if self.replay {
            let options = RunOptions {
                constants: self.constants,
                ..RunOptions::default()
            };
            return Ok(Command::Probe(ProbeCmd::Replay {
                record: self.path,
                options,
                format,
            }));
        }
        let bin = match self.agent_bin {
            Some(bin) => bin,
            None => {
                if self.install {
                    let (bytes, fresh) = install::install(&self.agent_version)?;
                    eprintln!(
                        "lab: claude-code {} {} ({} MB)",
                        self.agent_version,
                        if fresh {
                            "installed"
                        } else {
                            "already installed"
                        },
                        bytes / 1_000_000
                    );
                }
                let bin = session::installed_bin(&session::install_dir(&self.agent_version));
                if !bin.exists() {
                    return Err(LabError::Usage(format!(
                        "claude-code {} is not installed at {} (add --install, or give --agent-bin)",
                        self.agent_version,
                        bin.display()
                    )));
                }
                bin
            }
        };
        Ok(Command::Probe(ProbeCmd::Live {
            scenario: self.path,
            agent: AgentCommand {
                bin,
                args: self.agent_args,
                timeout: Duration::from_secs(self.timeout),
            },
            record_dir: self.record,
            format,
        }))
    }
}
