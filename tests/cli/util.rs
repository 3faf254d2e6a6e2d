//! Runs the built `lab` binary and captures what it printed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one invocation of `lab` produced.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `lab` with `args`. No invocation may panic, whatever its input: a panic message on
/// stderr fails the test right here.
pub fn lab(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(args)
        .output()
        .unwrap();
    let out = Output {
        code: output
            .status
            .code()
            .expect("lab was not killed by a signal"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    assert!(
        !out.stderr.contains("panicked"),
        "lab panicked: {}",
        out.stderr
    );
    out
}

/// The crate's own scenario directory.
pub fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// `scenarios/f01-coverage-gap.json`.
pub fn f01() -> PathBuf {
    scenarios_dir().join("f01-coverage-gap.json")
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A path as a command-line argument (temporary paths are UTF-8), which is also how `lab`
/// names it in messages.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
