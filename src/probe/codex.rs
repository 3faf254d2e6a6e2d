//! `lab probe --agent codex`: the Codex CLI (`@openai/codex`) run once with `codex exec --json
//! --skip-git-repo-check go` against the scripted server's Responses API. A fresh HOME and
//! `CODEX_HOME` (`<root>/home/.codex`, holding only a `config.toml` whose one provider is the
//! server: `base_url = "http://127.0.0.1:PORT/v1"`, `wire_api = "responses"`), working
//! directory and TMPDIR; an environment built from nothing (a dummy key, proxies at the server
//! so stray traffic is refused and logged). Installs go to
//! `$HOME/.cache/harness-lab/agents/codex-V`, outside any repository. Method:
//! docs/probe.md "Codex".

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::ProbeError;
use super::agent::{self, AgentCommand, RunDirs};
use super::codex_record;
use super::install;
use super::plan;
use super::record::{self, Layout, Normaliser};
use super::script::Kind;
use super::server::ScriptedServer;
use super::session::{self, ProbeReport};
use crate::error::LabError;
use crate::options::RunOptions;
use crate::scenario::Scenario;

/// The version `--agent codex` probes unless told otherwise.
pub const DEFAULT_VERSION: &str = "0.171.0";
/// The model named in `config.toml` (context window 272000 in 0.171.0's model list).
pub const MODEL: &str = "gpt-5.5";
/// The fixed arguments: one prompt, non-interactive, JSON events, no git repository needed.
pub const FIXED_ARGS: [&str; 4] = ["exec", "--json", "--skip-git-repo-check", agent::PROMPT];

/// The virtual layout of the `codex` profile (its default directories).
pub const VIRTUAL: Layout<'static> = Layout {
    home: "/home/lab",
    work: "/home/lab/repo",
    tmp: "/tmp",
    session: "01a00000-0000-7000-8000-00000000c0de",
};

/// The profile a Codex version is compared with.
pub fn profile_for(_version: &str) -> &'static str {
    "codex"
}

/// How this agent is installed and found (`--agent-version`, `--install`).
pub const CODEX: install::NpmAgent = install::NpmAgent {
    name: "codex",
    package: "@openai/codex",
    bin: "codex",
    example: DEFAULT_VERSION,
};

/// Where `--agent-version V` looks for (and `--install` puts) the agent.
pub fn install_dir(version: &str) -> PathBuf {
    CODEX.dir(version)
}

/// The executable of an install directory.
pub fn installed_bin(dir: &Path) -> PathBuf {
    CODEX.installed_bin(dir)
}

/// Installs a version unless it is there; its size in bytes and whether it was installed now.
pub fn install(version: &str) -> Result<(u64, bool), ProbeError> {
    let (dir, fresh) = CODEX.install(version)?;
    Ok((install::size(&dir), fresh))
}

/// `config.toml`: the scripted server as the only model provider.
pub fn config(server_url: &str) -> String {
    format!(
        "model = \"{MODEL}\"\nmodel_provider = \"lab\"\n\n[model_providers.lab]\nname = \"lab\"\n\
         base_url = \"{server_url}/v1\"\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n"
    )
}

/// The environment of Codex: nothing inherited but what is listed here.
pub fn environment(dirs: &RunDirs, server_url: &str) -> Vec<(String, String)> {
    let codex_home = dirs.home.join(".codex");
    [
        ("HOME", dirs.home.to_string_lossy().into_owned()),
        ("CODEX_HOME", codex_home.to_string_lossy().into_owned()),
        ("TMPDIR", dirs.tmp.to_string_lossy().into_owned()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("TERM", "dumb".to_string()),
        ("TZ", "UTC".to_string()),
        ("OPENAI_API_KEY", "sk-lab-probe".to_string()),
        ("HTTPS_PROXY", server_url.to_string()),
        ("HTTP_PROXY", server_url.to_string()),
        ("NO_PROXY", "127.0.0.1,localhost".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Runs the scenario at `path` through Codex.
pub fn probe(path: &Path, command: &AgentCommand) -> Result<ProbeReport, LabError> {
    let scenario = Scenario::load(path)?;
    let planned = plan::plan(&scenario)?;
    refuse_non_bash(&planned.scenario, "codex", "as exec_command")?;
    let dirs = RunDirs::new()?;
    for (relative, bytes) in &planned.fixtures {
        dirs.write_fixture(relative, bytes)?;
    }
    let server = ScriptedServer::start(planned.script.clone())?;
    let codex_home = dirs.home.join(".codex");
    fs::create_dir_all(&codex_home)
        .map_err(|e| ProbeError::Io(format!("create {}", codex_home.display()), e))?;
    fs::write(codex_home.join("config.toml"), config(&server.url()))
        .map_err(|e| ProbeError::Io("write config.toml".into(), e))?;
    let env = environment(&dirs, &server.url());
    let outcome = agent::run_with(command, &dirs, &FIXED_ARGS, env)?;
    let log = server.stop();
    agent::require_requests(command, &outcome, &log)?;
    let version = codex_record::version(&log);
    let session = codex_record::session_id(&log);
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let (home, work, tmp) = (text(&dirs.home), text(&dirs.work), text(&dirs.tmp));
    let real = Layout {
        home: &home,
        work: &work,
        tmp: &tmp,
        session: &session,
    };
    let n = Normaliser::new(real, VIRTUAL);
    let mut requests: Vec<Value> = log
        .iter()
        .filter(|l| l.kind != Kind::Connect)
        .map(|l| codex_record::request(&n, l))
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
        "agent": "codex",
        "version": version,
        "scenario": path.to_string_lossy(),
        "profile": profile_for(&version),
        "requests": requests,
    });
    let mut report = session::compare_record(&record, &planned.scenario, &RunOptions::default())?;
    report.elapsed = Some(outcome.elapsed);
    Ok(report)
}

/// Only `Bash` calls can be played to Codex (its one shell tool) and Gemini CLI (whose
/// `read_file` plays a `cat` of the fixture); `how` says how a Bash call is played.
pub(crate) fn refuse_non_bash(
    scenario: &Scenario,
    agent: &str,
    how: &str,
) -> Result<(), ProbeError> {
    use crate::scenario::Step;
    for (index, step) in scenario.steps.iter().enumerate() {
        let calls = match step {
            Step::Assistant(a) | Step::Turn { assistant: a, .. } => &a.calls,
            _ => continue,
        };
        if let Some(call) = calls.iter().find(|c| c.name != "Bash") {
            return Err(ProbeError::Plan {
                file: scenario.file.clone(),
                location: format!("step {}", index + 1),
                message: format!(
                    "call {}: tool `{}` cannot be played to {agent} (Bash can, {how})",
                    call.id, call.name
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_and_environment_name_only_the_loopback_server() {
        let dirs = RunDirs::new().unwrap();
        let url = "http://127.0.0.1:4242";
        let toml = config(url);
        assert!(
            toml.contains("base_url = \"http://127.0.0.1:4242/v1\"\n"),
            "{toml}"
        );
        assert!(toml.contains("wire_api = \"responses\"\n"), "{toml}");
        let env = environment(&dirs, url);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("HTTPS_PROXY"), Some(url));
        assert_eq!(
            get("CODEX_HOME"),
            Some(dirs.home.join(".codex").to_str().unwrap())
        );
        assert!(
            env.iter()
                .filter(|(_, v)| v.contains("://"))
                .all(|(_, v)| v.starts_with("http://127.0.0.1:"))
        );
    }

    #[test]
    fn only_bash_calls_are_played() {
        let text = r#"{"profile": "codex", "request": "r", "steps": [{"turn": {"calls": [{"id": "g1", "name": "Grep"}], "results": [{"id": "g1", "text": "a"}]}}]}"#;
        let s = Scenario::parse("t.json", "t", text).unwrap();
        let e = refuse_non_bash(&s, "codex", "as exec_command")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "plan t.json: step 1: call g1: tool `Grep` cannot be played to codex (Bash can, as exec_command)"
        );
    }
}
