//! `lab probe --agent gemini-cli`: Gemini CLI (`@google/gemini-cli`) run once with `gemini -p go
//! --output-format json` against the scripted server's Gemini API. A fresh HOME holding only
//! `~/.gemini/settings.json` (auth type `gemini-api-key`, telemetry and usage statistics off),
//! working directory and TMPDIR; an environment built from nothing (a dummy key,
//! `GOOGLE_GEMINI_BASE_URL` at the server, `GEMINI_CLI_TRUST_WORKSPACE=true`, proxies at the
//! server so stray traffic is refused and logged). Installs go to
//! `$HOME/.cache/harness-lab/agents/gemini-cli-V`. Method: docs/probe.md "Gemini CLI".

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::ProbeError;
use super::agent::{self, AgentCommand, RunDirs};
use super::gemini_record;
use super::install;
use super::plan;
use super::record::{self, Layout, Normaliser};
use super::script::Kind;
use super::server::ScriptedServer;
use super::session::{self, ProbeReport};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// The version `--agent gemini-cli` probes unless told otherwise.
pub const DEFAULT_VERSION: &str = "0.61.0";
/// The fixed arguments: one prompt, non-interactive, JSON output.
pub const FIXED_ARGS: [&str; 4] = ["-p", agent::PROMPT, "--output-format", "json"];
/// `~/.gemini/settings.json`: the API-key auth type, no telemetry, no usage statistics.
pub const SETTINGS: &str = r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false}}"#;

/// The virtual layout of the `gemini-cli` profile (its default directories).
pub const VIRTUAL: Layout<'static> = Layout {
    home: "/home/lab",
    work: "/home/lab/repo",
    tmp: "/tmp",
    session: "",
};

/// The profile a Gemini CLI version is compared with.
pub fn profile_for(_version: &str) -> &'static str {
    "gemini-cli"
}

/// How this agent is installed and found (`--agent-version`, `--install`).
pub const GEMINI_CLI: install::NpmAgent = install::NpmAgent {
    name: "gemini-cli",
    package: "@google/gemini-cli",
    bin: "gemini",
    example: DEFAULT_VERSION,
};

/// Where `--agent-version V` looks for (and `--install` puts) the agent.
pub fn install_dir(version: &str) -> PathBuf {
    GEMINI_CLI.dir(version)
}

/// The executable of an install directory.
pub fn installed_bin(dir: &Path) -> PathBuf {
    GEMINI_CLI.installed_bin(dir)
}

/// Installs a version unless it is there; its size in bytes and whether it was installed now.
pub fn install(version: &str) -> Result<(u64, bool), ProbeError> {
    let (dir, fresh) = GEMINI_CLI.install(version)?;
    Ok((install::size(&dir), fresh))
}

/// The environment of Gemini CLI: nothing inherited but what is listed here.
pub fn environment(dirs: &RunDirs, server_url: &str) -> Vec<(String, String)> {
    [
        ("HOME", dirs.home.to_string_lossy().into_owned()),
        ("TMPDIR", dirs.tmp.to_string_lossy().into_owned()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("TERM", "dumb".to_string()),
        ("TZ", "UTC".to_string()),
        ("GEMINI_API_KEY", "lab-probe".to_string()),
        ("GOOGLE_GEMINI_BASE_URL", server_url.to_string()),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ("HTTPS_PROXY", server_url.to_string()),
        ("HTTP_PROXY", server_url.to_string()),
        ("NO_PROXY", "127.0.0.1,localhost".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Runs the scenario at `path` through Gemini CLI.
pub fn probe(path: &Path, command: &AgentCommand) -> Result<ProbeReport, LabError> {
    let scenario = Scenario::load(path)?;
    let planned = plan::plan(&scenario)?;
    super::codex::refuse_non_bash(
        &planned.scenario,
        "gemini-cli",
        "as read_file of its fixture",
    )?;
    let dirs = RunDirs::new()?;
    for (relative, bytes) in &planned.fixtures {
        dirs.write_fixture(relative, bytes)?;
    }
    let server = ScriptedServer::start(planned.script.clone())?;
    let gemini = dirs.home.join(".gemini");
    fs::create_dir_all(&gemini)
        .map_err(|e| ProbeError::Io(format!("create {}", gemini.display()), e))?;
    fs::write(gemini.join("settings.json"), SETTINGS)
        .map_err(|e| ProbeError::Io("write settings.json".into(), e))?;
    let env = environment(&dirs, &server.url());
    let outcome = agent::run_with(command, &dirs, &FIXED_ARGS, env)?;
    let log = server.stop();
    agent::require_requests(command, &outcome, &log)?;
    let version = gemini_record::version(&log);
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let (home, work, tmp) = (text(&dirs.home), text(&dirs.work), text(&dirs.tmp));
    let real = Layout {
        home: &home,
        work: &work,
        tmp: &tmp,
        session: "",
    };
    let n = Normaliser::new(real, VIRTUAL);
    let mut requests: Vec<Value> = log
        .iter()
        .filter(|l| l.kind != Kind::Connect)
        .map(|l| gemini_record::request(&n, l))
        .collect();
    // Stray connections are made concurrently: sorted, so two runs give the same record.
    let mut connects: Vec<&str> = log
        .iter()
        .filter(|l| l.kind == Kind::Connect)
        .map(|l| l.path.as_str())
        .collect();
    connects.sort_unstable();
    requests.extend(
        connects
            .into_iter()
            .map(|t| json!({"kind": "connect", "target": t})),
    );
    let record = json!({
        "format": record::FORMAT,
        "agent": "gemini-cli",
        "version": version,
        "scenario": path.to_string_lossy(),
        "profile": profile_for(&version),
        "requests": requests,
    });
    let mut report = session::compare_record(&record, &planned.scenario, &RunOptions::default())?;
    report.elapsed = Some(outcome.elapsed);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_and_environment_name_only_the_loopback_server() {
        let dirs = RunDirs::new().unwrap();
        let url = "http://127.0.0.1:4242";
        let env = environment(&dirs, url);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("GOOGLE_GEMINI_BASE_URL"), Some(url));
        assert_eq!(get("GEMINI_CLI_TRUST_WORKSPACE"), Some("true"));
        assert!(
            env.iter()
                .filter(|(_, v)| v.contains("://"))
                .all(|(_, v)| v.starts_with("http://127.0.0.1:"))
        );
        let s: Value = serde_json::from_str(SETTINGS).unwrap();
        assert_eq!(s["security"]["auth"]["selectedType"], "gemini-api-key");
        assert_eq!(s["telemetry"]["enabled"], false);
    }
}
