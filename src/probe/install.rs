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
