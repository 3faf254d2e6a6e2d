//! Runs the installed Claude Code once, non-interactively, against the scripted model server:
//! a fresh HOME, working directory and TMPDIR under one temporary root, an environment built
//! from nothing (`env -i`: base URL and proxies at the server, a dummy key, telemetry,
//! auto-update and non-essential traffic off, `IS_SANDBOX=1` when root), and a timeout after
//! which the agent is killed. No address but 127.0.0.1 is ever named. Method:
//! docs/probe.md.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::ProbeError;
use super::script::Kind;
use super::server::Logged;

/// The directories of one run, all under [`RunDirs::root`] (removed when dropped).
pub struct RunDirs {
    temp: tempfile::TempDir,
    /// `<root>/home`: HOME (Claude Code's `~/.claude` lands here).
    pub home: PathBuf,
    /// `<root>/work`: the working directory; fixtures are written below it.
    pub work: PathBuf,
    /// `<root>/tmp`: TMPDIR (Bash task output files land here).
    pub tmp: PathBuf,
}

impl RunDirs {
    /// A fresh root under the system temporary directory.
    pub fn new() -> Result<RunDirs, ProbeError> {
        let temp = tempfile::Builder::new()
            .prefix("lab-probe-")
            .tempdir()
            .map_err(|e| ProbeError::Io("create the run directory".into(), e))?;
        let root = temp.path().to_path_buf();
        let dirs = RunDirs {
            home: root.join("home"),
            work: root.join("work"),
            tmp: root.join("tmp"),
            temp,
        };
        for dir in [&dirs.home, &dirs.work, &dirs.tmp] {
            fs::create_dir(dir)
                .map_err(|e| ProbeError::Io(format!("create {}", dir.display()), e))?;
        }
        Ok(dirs)
    }

    /// The root of the run.
    pub fn root(&self) -> &Path {
        self.temp.path()
    }

    /// Writes `bytes` to `work/<relative>`, creating its folders.
    pub fn write_fixture(&self, relative: &str, bytes: &[u8]) -> Result<(), ProbeError> {
        let path = self.work.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .map_err(|e| ProbeError::Io(format!("create {}", parent.display()), e))?;
        }
        fs::write(&path, bytes).map_err(|e| ProbeError::Io(format!("write {}", path.display()), e))
    }

    /// Sets the modification time of `work/<relative>` to `secs` after the Unix epoch.
    pub fn set_mtime(&self, relative: &str, secs: u64) -> Result<(), ProbeError> {
        let path = self.work.join(relative);
        let time = std::time::UNIX_EPOCH + Duration::from_secs(secs);
        fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(time))
            .map_err(|e| ProbeError::Io(format!("set the time of {}", path.display()), e))
    }
}

/// Which agent is probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code (`@anthropic-ai/claude-code`), against the Messages API.
    ClaudeCode,
    /// The Codex CLI (`@openai/codex`), against the Responses API (`src/probe/codex.rs`).
    Codex,
    /// Gemini CLI (`@google/gemini-cli`), against the Gemini API (`src/probe/gemini_cli.rs`).
    GeminiCli,
}

impl Agent {
    /// The name `--agent` takes and records carry.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::GeminiCli => "gemini-cli",
        }
    }
}

/// How the agent is started.
#[derive(Debug, Clone)]
pub struct AgentCommand {
    /// Which agent `bin` is.
    pub agent: Agent,
    /// The `claude` executable (the npm package's `cli.js` or native binary).
    pub bin: PathBuf,
    /// Extra arguments after the fixed ones (e.g. `--tools Bash,Read,Grep,Glob`).
    pub args: Vec<String>,
    /// The agent is killed after this long.
    pub timeout: Duration,
}

/// What one agent run left.
#[derive(Debug, Clone)]
pub struct AgentOutcome {
    /// The exit code (None when killed by the timeout or a signal).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    /// Wall time of the agent process.
    pub elapsed: Duration,
}

/// The fixed arguments: one prompt, non-interactive, no permission prompts, JSON output.
pub const FIXED_ARGS: [&str; 5] = [
    "-p",
    "go",
    "--dangerously-skip-permissions",
    "--output-format",
    "json",
];

/// The prompt the agent is given (the scenario's request is not sent; see `plan`).
pub const PROMPT: &str = "go";

/// The environment of the agent: nothing inherited but what is listed here.
pub fn environment(dirs: &RunDirs, server_url: &str) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        ("HOME", dirs.home.to_string_lossy().into_owned()),
        ("TMPDIR", dirs.tmp.to_string_lossy().into_owned()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("TERM", "dumb".to_string()),
        ("ANTHROPIC_BASE_URL", server_url.to_string()),
        ("ANTHROPIC_API_KEY", "sk-lab-probe".to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
        ("DISABLE_TELEMETRY", "1".to_string()),
        ("DISABLE_AUTOUPDATER", "1".to_string()),
        ("DISABLE_ERROR_REPORTING", "1".to_string()),
        ("HTTPS_PROXY", server_url.to_string()),
        ("HTTP_PROXY", server_url.to_string()),
        ("NO_PROXY", "127.0.0.1,localhost".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if running_as_root() {
        // The bypass flag refuses to run as root outside a sandbox.
        env.push(("IS_SANDBOX".into(), "1".into()));
    }
    env
}

fn running_as_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Runs the agent in `dirs.work` and waits for it (at most `command.timeout`).
pub fn run(
    command: &AgentCommand,
    dirs: &RunDirs,
    server_url: &str,
) -> Result<AgentOutcome, ProbeError> {
    run_with(command, dirs, &FIXED_ARGS, environment(dirs, server_url))
}

/// Runs `command.bin` with `fixed` arguments (then `command.args`) in `dirs.work`, with only the
/// environment `env`, and waits for it (at most `command.timeout`).
pub fn run_with(
    command: &AgentCommand,
    dirs: &RunDirs,
    fixed: &[&str],
    env: Vec<(String, String)>,
) -> Result<AgentOutcome, ProbeError> {
    let out_path = dirs.root().join("agent.stdout");
    let err_path = dirs.root().join("agent.stderr");
    let open = |p: &Path| {
        fs::File::create(p).map_err(|e| ProbeError::Io(format!("create {}", p.display()), e))
    };
    let start = Instant::now();
    let mut child = Command::new(&command.bin)
        .args(fixed)
        .args(&command.args)
        .current_dir(&dirs.work)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(open(&out_path)?)
        .stderr(open(&err_path)?)
        .spawn()
        .map_err(|e| ProbeError::Io(format!("start {}", command.bin.display()), e))?;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= command.timeout => {
                timed_out = true;
                // Only the child we started is killed.
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(ProbeError::Io("wait for the agent".into(), e)),
        }
    };
    let elapsed = start.elapsed();
    let read = |p: &Path| fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok(AgentOutcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read(&out_path).unwrap_or_default(),
        stderr: read(&err_path).unwrap_or_default(),
        elapsed,
    })
}

/// Refuses a run that timed out or sent the server no model request, naming the agent and
/// what it said on stderr.
pub fn require_requests(
    command: &AgentCommand,
    outcome: &AgentOutcome,
    log: &[Logged],
) -> Result<(), ProbeError> {
    if outcome.timed_out {
        return Err(ProbeError::Agent(format!(
            "{} did not finish within {} s",
            command.bin.display(),
            command.timeout.as_secs()
        )));
    }
    if !log.iter().any(|l| matches!(l.kind, Kind::Main(_))) {
        return Err(ProbeError::Agent(format!(
            "{} sent no request (exit {:?}): {}",
            command.bin.display(),
            outcome.code,
            outcome.stderr.trim()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_names_only_the_loopback_server() {
        let dirs = RunDirs::new().unwrap();
        let env = environment(&dirs, "http://127.0.0.1:4242");
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        for key in ["ANTHROPIC_BASE_URL", "HTTPS_PROXY", "HTTP_PROXY"] {
            assert_eq!(get(key), Some("http://127.0.0.1:4242"), "{key}");
        }
        assert_eq!(get("ANTHROPIC_API_KEY"), Some("sk-lab-probe"));
        assert_eq!(get("DISABLE_TELEMETRY"), Some("1"));
        assert_eq!(get("HOME"), Some(dirs.home.to_str().unwrap()));
        assert!(dirs.home.starts_with(dirs.root()) && dirs.tmp.starts_with(dirs.root()));
        let urls: Vec<&str> = env
            .iter()
            .map(|(_, v)| v.as_str())
            .filter(|v| v.contains("://"))
            .collect();
        assert!(
            urls.iter().all(|u| u.starts_with("http://127.0.0.1:")),
            "{urls:?}"
        );
    }

    #[test]
    fn fixtures_stay_under_the_working_directory() {
        let dirs = RunDirs::new().unwrap();
        dirs.write_fixture("fixtures/a.out", b"abc").unwrap();
        assert_eq!(fs::read(dirs.work.join("fixtures/a.out")).unwrap(), b"abc");
    }
}
