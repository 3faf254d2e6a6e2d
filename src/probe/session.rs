//! One probe from start to end, and the replay of a committed record. A probe plans the
//! scenario, writes its fixtures into a fresh run directory, starts the scripted model server,
//! runs the agent, normalises the logged requests into a conformance record and compares the
//! last main request with the profile's run of the planned scenario. A replay does the last step
//! only, from a record, without node or the agent (what CI runs).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::agent::{self, Agent, AgentCommand, RunDirs};
use super::compare::{self, Row};
use super::install;
use super::plan;
use super::record::{self, Layout, Normaliser};
use super::server::ScriptedServer;
use crate::compaction::driver;
use crate::compaction::profile::{self, Profile};
use crate::compaction::switches::SwitchName;
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// The virtual layout of the `claude-code` profile (its default directories).
pub const VIRTUAL: Layout<'static> = Layout {
    home: "/home/lab",
    work: "/home/lab/repo",
    tmp: "/tmp",
    session: "5f0c3a1e-8a2b-4c6d-9e0f-00000000c0de",
};

/// The profile a version is compared with: `claude-code-2.1.332` for that version,
/// `claude-code` (it pins 2.1.88) for every other.
pub fn profile_for(version: &str) -> &'static str {
    match version {
        "2.1.332" => "claude-code-2.1.332",
        _ => "claude-code",
    }
}

/// Where `--agent-version V` looks for (and `--install` puts) the agent.
pub fn install_dir(version: &str) -> PathBuf {
    install::CLAUDE_CODE.dir(version)
}

/// The executable of an install directory.
pub fn installed_bin(dir: &Path) -> PathBuf {
    install::CLAUDE_CODE.installed_bin(dir)
}

/// What a probe or replay found.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    pub scenario: String,
    pub agent: String,
    pub version: String,
    pub profile: String,
    /// Requests by kind, in the order main, compact, side, count_tokens, connect, other.
    pub requests: Vec<(&'static str, usize)>,
    pub rows: Vec<Row>,
    /// The record (written by `--record`).
    pub record: Value,
    /// Wall time of the agent (None for a replay).
    pub elapsed: Option<Duration>,
}

impl ProbeReport {
    /// Every compared item is exact.
    pub fn exact(&self) -> bool {
        !self.rows.is_empty() && self.rows.iter().all(Row::exact)
    }
}

/// Runs the scenario at `path` through Claude Code (Codex: [`super::codex::probe`]).
pub fn probe(path: &Path, command: &AgentCommand) -> Result<ProbeReport, LabError> {
    let scenario = Scenario::load(path)?;
    let planned = plan::plan(&scenario)?;
    let dirs = RunDirs::new()?;
    for (relative, bytes) in &planned.fixtures {
        dirs.write_fixture(relative, bytes)?;
    }
    for (relative, offset) in &planned.mtimes {
        dirs.set_mtime(relative, plan::MTIME_BASE + offset)?;
    }
    let server = ScriptedServer::start(planned.script.clone())?;
    let outcome = agent::run(command, &dirs, &server.url())?;
    let log = server.stop();
    agent::require_requests(command, &outcome, &log)?;
    let version = log
        .iter()
        .find_map(|l| l.headers.get("user-agent"))
        .and_then(|ua| ua.strip_prefix("claude-cli/"))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("unknown")
        .to_string();
    let session = record::session_id(&log);
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let (home, work, tmp) = (text(&dirs.home), text(&dirs.work), text(&dirs.tmp));
    let real = Layout {
        home: &home,
        work: &work,
        tmp: &tmp,
        session: &session,
    };
    let n = Normaliser::new(real, VIRTUAL);
    let requests: Vec<Value> = log.iter().map(|l| record::request(&n, l)).collect();
    let profile = profile_for(&version);
    let record = json!({
        "format": record::FORMAT,
        "agent": "claude-code",
        "version": version,
        "scenario": path.to_string_lossy(),
        "profile": profile,
        "requests": requests,
    });
    let mut report = compare_record(&record, &planned.scenario, &RunOptions::default())?;
    report.elapsed = Some(outcome.elapsed);
    Ok(report)
}

/// Replays a committed record against its profile (with `options` applied on top).
pub fn replay(path: &Path, options: &RunOptions) -> Result<ProbeReport, LabError> {
    let text = std::fs::read_to_string(path).map_err(|source| LabError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let record: Value = serde_json::from_str(&text).map_err(|e| {
        LabError::Usage(format!("{}: not a conformance record: {e}", path.display()))
    })?;
    if record.get("format").and_then(Value::as_str) != Some(record::FORMAT) {
        return Err(LabError::Usage(format!(
            "{}: not a conformance record (expected \"format\": \"{}\")",
            path.display(),
            record::FORMAT
        )));
    }
    let scenario_path = record.get("scenario").and_then(Value::as_str).unwrap_or("");
    let scenario = Scenario::load(Path::new(scenario_path))?;
    let planned = plan::plan(&scenario)?;
    compare_record(&record, &planned.scenario, options)
}

/// The switches that follow from the tools the agent offered, unless the options name them:
/// Claude Code attaches the TodoWrite reminder only when TodoWrite is among its tools (D3), so a
/// record without it (2.1.332, or 2.1.88 under `--tools Bash,Read,Grep,Glob`) is compared with
/// `todo_reminder` off; 2.1.332 refuses Grep and Glob unless they are offered, so a record that
/// offers them is compared with `search_tools` on (for a profile with that switch).
fn switches_from_tools(record: &Value, profile: &Profile, options: &mut RunOptions) {
    let offered: Vec<&str> = record
        .get("requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.get("kind").and_then(Value::as_str) == Some("main"))
        .filter_map(|r| r.get("tools").and_then(Value::as_array))
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let follows = [
        (SwitchName::TodoReminder, offered.contains(&"TodoWrite")),
        (
            SwitchName::SearchTools,
            offered.contains(&"Grep") || offered.contains(&"Glob"),
        ),
    ];
    for (switch, offers) in follows {
        let named = options.switches.iter().any(|(k, _)| k == switch.as_str());
        if named || !profile.has_switch(switch) || profile.switches.is_on(switch) == offers {
            continue;
        }
        let value = if offers { "on" } else { "off" };
        options
            .switches
            .push((switch.as_str().to_owned(), value.to_owned()));
    }
}

/// The record's requests counted by kind.
fn request_counts(record: &Value) -> Map<String, Value> {
    let mut counts: Map<String, Value> = Map::new();
    for r in record
        .get("requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = r
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("other")
            .to_string();
        let n = counts.get(&kind).and_then(Value::as_u64).unwrap_or(0);
        counts.insert(kind, json!(n + 1));
    }
    counts
}

/// Compares a record with the profile's run of the planned scenario (the rows of the record's
/// agent: Claude Code's messages, or Codex's input items).
pub(crate) fn compare_record(
    record: &Value,
    planned: &Scenario,
    options: &RunOptions,
) -> Result<ProbeReport, LabError> {
    let get = |key: &str| {
        record
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let profile = get("profile");
    if profile::by_name(&profile).is_none() {
        return Err(LabError::Usage(format!(
            "record names an unknown profile `{profile}`"
        )));
    }
    let mut options = options.clone();
    let run_with = options.profile.get_or_insert(profile.clone()).clone();
    let Some(model) = profile::by_name(&run_with) else {
        return Err(LabError::Usage(format!(
            "unknown profile `{run_with}` (known: {})",
            profile::names()
        )));
    };
    if get("agent") == Agent::ClaudeCode.name() {
        switches_from_tools(record, model, &mut options);
    }
    let run = driver::run(planned, &options)?;
    let reminders = run.switches.get("todo_reminder") == Some(&Value::Bool(true));
    let lab: Vec<Value> = run.messages.iter().map(|m| m.to_value()).collect();
    let counts = request_counts(record);
    let kinds = [
        "main",
        "compact",
        "side",
        "count_tokens",
        "connect",
        "other",
    ];
    Ok(ProbeReport {
        scenario: get("scenario"),
        agent: get("agent"),
        version: get("version"),
        profile: run_with,
        requests: kinds
            .iter()
            .map(|k| {
                (
                    *k,
                    counts.get(*k).and_then(Value::as_u64).unwrap_or(0) as usize,
                )
            })
            .collect(),
        rows: {
            let agent = get("agent");
            let mut rows = if agent == Agent::Codex.name() {
                super::codex_record::compare(record, &lab)
            } else if agent == Agent::GeminiCli.name() {
                super::gemini_record::compare(record, &lab)
            } else {
                let extra = compare::Extra {
                    reminders,
                    user_texts: counts.get("compact").and_then(Value::as_u64).unwrap_or(0) > 0,
                };
                compare::compare(compare::last_main(record, "messages"), &lab, extra)
            };
            rows.push(compare::summary_requests(
                counts.get("compact").and_then(Value::as_u64).unwrap_or(0) as usize,
                run.observables.model_calls,
            ));
            rows
        },
        record: record.clone(),
        elapsed: None,
    })
}
