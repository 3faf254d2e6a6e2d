//! `lab probe --install`: installs a Claude Code version with npm into the cache directory of
//! [`session::install_dir`] (outside any repository), restores the exec bit of the vendored
//! ripgrep that the 2.1.88 package loses (research/claude_code_probe.md §0), and measures the
//! install's size.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use super::ProbeError;
use super::session;

/// Installs `@anthropic-ai/claude-code@version` unless it is there; returns its size in bytes
/// and whether it was installed now.
pub fn install(version: &str) -> Result<(u64, bool), ProbeError> {
    if !version
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return Err(ProbeError::Agent(format!(
            "--agent-version {version}: expected a version like 2.1.88"
        )));
    }
    let dir = session::install_dir(version);
    let fresh = !session::installed_bin(&dir).exists();
    if fresh {
        fs::create_dir_all(&dir)
            .map_err(|e| ProbeError::Io(format!("create {}", dir.display()), e))?;
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("@anthropic-ai/claude-code@{version}"))
            .status()
            .map_err(|e| ProbeError::Io("start npm".into(), e))?;
        if !status.success() {
            return Err(ProbeError::Agent(format!(
                "npm install @anthropic-ai/claude-code@{version} failed ({status})"
            )));
        }
    }
    let rg = dir.join("node_modules/@anthropic-ai/claude-code/vendor/ripgrep/x64-linux/rg");
    if let Ok(meta) = fs::metadata(&rg) {
        let mut perms = meta.permissions();
        perms.set_mode(perms.mode() | 0o111);
        fs::set_permissions(&rg, perms)
            .map_err(|e| ProbeError::Io(format!("chmod {}", rg.display()), e))?;
    }
    Ok((size(&dir), fresh))
}

/// Bytes of the regular files under `dir` (symlinks not followed).
pub fn size(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}
