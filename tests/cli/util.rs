//! Runs the built `lab` binary and captures what it printed; paths into the crate; the parsers
//! of its tables. Every test module spawns `lab` through here, so a panic check or a new
//! assertion on every invocation is made once.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The short spill directory the reports contrast with the prototype's deep one: `a1.txt` under
/// it is a 28-char path.
pub const SHORT_SPILL_DIR: &str = "/tmp/lab/tool-results";

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
    spawn(Command::new(env!("CARGO_BIN_EXE_lab")).args(args))
}

/// Like [`lab`], but in `dir`, for the commands whose defaults are relative paths (`verify`
/// reads `scenarios/`, `report` writes `reports/`, the README's examples name `scenarios/...`).
pub fn lab_in(dir: &Path, args: &[&str]) -> Output {
    spawn(
        Command::new(env!("CARGO_BIN_EXE_lab"))
            .args(args)
            .current_dir(dir),
    )
}

/// Like [`lab_in`], with tables fitted to `columns` (`COLUMNS`) instead of the wide screen the
/// other helpers give, so that tests reading table rows see one line per row.
pub fn lab_at_width(dir: &Path, columns: usize, args: &[&str]) -> Output {
    spawn(
        Command::new(env!("CARGO_BIN_EXE_lab"))
            .args(args)
            .current_dir(dir)
            .env("COLUMNS", columns.to_string()),
    )
}

/// Tables are as wide as their cells here (unless a test sets `COLUMNS`); stdout is a pipe,
/// so no colour.
const WIDE: &str = "1000";

fn spawn(command: &mut Command) -> Output {
    if !command.get_envs().any(|(key, _)| key == "COLUMNS") {
        command.env("COLUMNS", WIDE);
    }
    command.env_remove("NO_COLOR");
    let output = command.output().unwrap();
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

/// Runs `lab` and requires success with nothing on stderr.
pub fn lab_ok(args: &[&str]) -> Output {
    let out = lab(args);
    assert_eq!(out.code, 0, "lab {args:?}: stderr: {}", out.stderr);
    assert_eq!(out.stderr, "", "lab {args:?}");
    out
}

/// Runs `lab` and requires a refusal: exit 2, nothing on stdout, every fragment on stderr.
pub fn refused(args: &[&str], fragments: &[&str]) -> Output {
    let out = lab(args);
    assert_eq!(out.code, 2, "lab {args:?}: stderr: {}", out.stderr);
    assert_eq!(out.stdout, "", "lab {args:?}");
    for fragment in fragments {
        assert!(
            out.stderr.contains(fragment),
            "lab {args:?}: stderr lacks `{fragment}`: {}",
            out.stderr
        );
    }
    out
}

/// [`refused`] by `lab` itself rather than by the argument parser: stderr starts with `lab: `.
pub fn usage_error(args: &[&str], fragments: &[&str]) -> Output {
    let out = refused(args, fragments);
    assert!(out.stderr.starts_with("lab: "), "{}", out.stderr);
    out
}

/// The crate's root directory.
pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crate's own scenario directory.
pub fn scenarios_dir() -> PathBuf {
    manifest_dir().join("scenarios")
}

/// `scenarios/<name>`.
pub fn scenario(name: &str) -> PathBuf {
    scenarios_dir().join(name)
}

/// `scenarios/f01-coverage-gap.json`.
pub fn f01() -> PathBuf {
    scenario("f01-coverage-gap.json")
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

/// The trimmed cells of one line of a boxed table (`│ a │ b │`).
pub fn table_cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('│')
        .split('│')
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// The cells of the first table row whose first cell is `first`.
pub fn table_row(text: &str, first: &str) -> Vec<String> {
    text.lines()
        .map(table_cells)
        .find(|cells| cells.len() > 1 && cells[0] == first)
        .unwrap_or_else(|| panic!("no row `{first}` in:\n{text}"))
}
