//! `lab probe --install`: installs an agent version with npm into the cache ([`NpmAgent`], one
//! value per agent), restores the exec bit of the vendored ripgrep that Claude Code 2.1.88 loses
//! (docs/probe.md), and measures the install's size.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::ProbeError;

/// An agent that npm installs into the cache (`$HOME/.cache/harness-lab/agents/<name>-<version>`,
/// outside any repository).
#[derive(Debug, Clone, Copy)]
pub struct NpmAgent {
    /// The directory name before `-<version>`, e.g. `claude-code`.
    pub name: &'static str,
    /// The npm package, e.g. `@anthropic-ai/claude-code`.
    pub package: &'static str,
    /// The executable npm links into `node_modules/.bin`.
    pub bin: &'static str,
    /// A version to show in the error for a malformed one.
    pub example: &'static str,
}

impl NpmAgent {
    /// Where `--agent-version V` looks for (and `--install` puts) this agent.
    pub fn dir(&self, version: &str) -> PathBuf {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| "/tmp".into());
        home.join(".cache/harness-lab/agents")
            .join(format!("{}-{version}", self.name))
    }

    /// The executable of an install directory.
    pub fn installed_bin(&self, dir: &Path) -> PathBuf {
        dir.join("node_modules/.bin").join(self.bin)
    }

    /// Installs `package@version` with npm unless it is there; its directory and whether it was
    /// installed now. A version is letters, digits, `.` and `-` only (it reaches npm's command
    /// line).
    pub fn install(&self, version: &str) -> Result<(PathBuf, bool), ProbeError> {
        if version.is_empty()
            || !version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        {
            return Err(ProbeError::Agent(format!(
                "--agent-version {version}: expected a version like {}",
                self.example
            )));
        }
        let dir = self.dir(version);
        let fresh = !self.installed_bin(&dir).exists();
        if fresh {
            fs::create_dir_all(&dir)
                .map_err(|e| ProbeError::Io(format!("create {}", dir.display()), e))?;
            let status = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&dir)
                .arg(format!("{}@{version}", self.package))
                .status()
                .map_err(|e| ProbeError::Io("start npm".into(), e))?;
            if !status.success() {
                return Err(ProbeError::Agent(format!(
                    "npm install {}@{version} failed ({status})",
                    self.package
                )));
            }
        }
        Ok((dir, fresh))
    }
}

/// How Claude Code is installed and found (`--agent-version`, `--install`).
pub const CLAUDE_CODE: NpmAgent = NpmAgent {
    name: "claude-code",
    package: "@anthropic-ai/claude-code",
    bin: "claude",
    example: "2.1.88",
};

/// Installs a Claude Code version unless it is there, restoring the exec bit of its vendored
/// ripgrep; returns its size in bytes and whether it was installed now.
pub fn install(version: &str) -> Result<(u64, bool), ProbeError> {
    let (dir, fresh) = CLAUDE_CODE.install(version)?;
    let rg = dir.join("node_modules/@anthropic-ai/claude-code/vendor/ripgrep/x64-linux/rg");
    if let Ok(meta) = fs::metadata(&rg) {
        let mut perms = meta.permissions();
        perms.set_mode(perms.mode() | 0o111);
        fs::set_permissions(&rg, perms)
            .map_err(|e| ProbeError::Io(format!("chmod {}", rg.display()), e))?;
    }
    Ok((size(&dir), fresh))
}

/// Bytes of the regular files under `dir` (symlinks not followed), a file with several hard
/// links counted once (2.1.332's 402 MB binary is linked twice: 384 MB on disk, not 804).
pub fn size(dir: &Path) -> u64 {
    let mut seen = std::collections::BTreeSet::new();
    size_once(dir, &mut seen)
}

fn size_once(dir: &Path, seen: &mut std::collections::BTreeSet<(u64, u64)>) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut total = 0;
    for e in entries.flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() => total += size_once(&e.path(), seen),
            Ok(t) if t.is_file() => {
                if let Ok(m) = e.metadata() {
                    if seen.insert((m.dev(), m.ino())) {
                        total += m.len();
                    }
                }
            }
            _ => {}
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_linked_file_counts_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("a"), b"0123456789").unwrap();
        fs::hard_link(dir.path().join("a"), dir.path().join("sub/b")).unwrap();
        fs::write(dir.path().join("sub/c"), b"xyz").unwrap();
        assert_eq!(size(dir.path()), 13);
    }
}
