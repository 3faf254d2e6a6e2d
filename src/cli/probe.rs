//! `lab probe` arguments.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::value_enums::parse_pair;
use crate::commands::Command;
use crate::commands::probe::ProbeCmd;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::probe::agent::{Agent, AgentCommand};
use crate::probe::{codex, gemini_cli, install, session};
use crate::render::Format;

/// `lab probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The scenario to run through the agent (with --replay: a conformance record).
    pub path: PathBuf,
    /// The agent: claude-code (`@anthropic-ai/claude-code`, Messages API) or codex
    /// (`@openai/codex`, run as `codex exec --json` against the Responses API; Bash calls are
    /// played as its exec_command; compared with the `codex` profile) or gemini-cli
    /// (`@google/gemini-cli`, run as `gemini -p` against the Gemini API; Bash `cat` calls are
    /// played as its read_file; compared with the `gemini-cli` profile).
    #[arg(long, default_value = "claude-code")]
    pub agent: String,
    /// The agent's executable.
    #[arg(long, value_name = "PATH", conflicts_with = "agent_version")]
    pub agent_bin: Option<PathBuf>,
    /// The version installed in ~/.cache/harness-lab/agents/<agent>-V [default: 2.1.88 for
    /// claude-code, 0.171.0 for codex, 0.61.0 for gemini-cli].
    #[arg(long, value_name = "V")]
    pub agent_version: Option<String>,
    /// Install --agent-version with npm first when it is not there.
    #[arg(long)]
    pub install: bool,
    /// Write the conformance record to DIR/<agent>-<version>/<scenario>.json.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Kill the agent after this many seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// An extra argument for the agent, repeatable (2.1.332 offers Grep and Glob only with
    /// `--agent-arg=--tools --agent-arg=Bash,Read,Grep,Glob`).
    #[arg(long = "agent-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub agent_args: Vec<String>,
    /// Compare a committed record with its profile; the agent is not run.
    #[arg(long)]
    pub replay: bool,
    /// With --replay: a constant of the profile changed (NAME=VALUE).
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_pair, requires = "replay")]
    pub constants: Vec<(String, String)>,
    /// With --replay: a switch of the profile changed (NAME=VALUE, e.g. todo_reminder=off).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_pair, requires = "replay")]
    pub switches: Vec<(String, String)>,
    /// With --replay: compare with this profile instead of the one the record names (e.g. a
    /// 2.1.332 record against `claude-code`, to see what changed between the versions).
    #[arg(long, value_name = "NAME", requires = "replay")]
    pub profile: Option<String>,
}

impl ProbeArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let agent = match self.agent.as_str() {
            "claude-code" => Agent::ClaudeCode,
            "codex" => Agent::Codex,
            "gemini-cli" => Agent::GeminiCli,
            other => {
                return Err(LabError::Usage(format!(
                    "--agent {other}: expected claude-code, codex or gemini-cli"
                )));
            }
        };
        if self.replay {
            let options = RunOptions {
                profile: self.profile,
                constants: self.constants,
                switches: self.switches,
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
            None => installed(agent, self.agent_version, self.install)?,
        };
        Ok(Command::Probe(ProbeCmd::Live {
            scenario: self.path,
            agent: AgentCommand {
                agent,
                bin,
                args: self.agent_args,
                timeout: Duration::from_secs(self.timeout),
            },
            record_dir: self.record,
            format,
        }))
    }
}

/// The installed executable of `agent` at `version` (its default when None), installed first
/// with npm when `install` is set.
fn installed(agent: Agent, version: Option<String>, install: bool) -> Result<PathBuf, LabError> {
    let version = version.unwrap_or_else(|| match agent {
        Agent::ClaudeCode => "2.1.88".into(),
        Agent::Codex => codex::DEFAULT_VERSION.into(),
        Agent::GeminiCli => gemini_cli::DEFAULT_VERSION.into(),
    });
    if install {
        let (bytes, fresh) = match agent {
            Agent::ClaudeCode => install::install(&version)?,
            Agent::Codex => codex::install(&version)?,
            Agent::GeminiCli => gemini_cli::install(&version)?,
        };
        eprintln!(
            "lab: {} {version} {} ({} MB)",
            agent.name(),
            if fresh {
                "installed"
            } else {
                "already installed"
            },
            bytes / 1_000_000
        );
    }
    let bin = match agent {
        Agent::ClaudeCode => session::installed_bin(&session::install_dir(&version)),
        Agent::Codex => codex::installed_bin(&codex::install_dir(&version)),
        Agent::GeminiCli => gemini_cli::installed_bin(&gemini_cli::install_dir(&version)),
    };
    if !bin.exists() {
        return Err(LabError::Usage(format!(
            "{} {version} is not installed at {} (add --install, or give --agent-bin)",
            agent.name(),
            bin.display()
        )));
    }
    Ok(bin)
}
