//! The small values of the command line: the `--format` and `--store` choices and the parsers of
//! `NAME=VALUE` pairs, `--grid` axes and `--shard K/N`. clap reports their errors itself (exit 2),
//! so these messages are part of the command line's contract.

use std::io::IsTerminal;

use clap::ValueEnum;

use crate::compaction::store::StoreKind;
use crate::render::{Format, Screen};

/// `--format`: how a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliFormat {
    Table,
    Markdown,
    Json,
}

/// `--color`: whether tables colour ✓, ✗ and changed values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliColor {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    Always,
    Never,
}

/// `--store`: where spill files and transcripts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliStore {
    Memory,
    Dir,
}

impl CliFormat {
    /// The library's format; tables get the screen measured from this process's environment.
    pub fn format(self, color: CliColor) -> Format {
        match self {
            CliFormat::Table => Format::Table(screen(color)),
            CliFormat::Markdown => Format::Markdown,
            CliFormat::Json => Format::Json,
        }
    }
}

/// The width output must fit, tables and help alike: `COLUMNS`, else the width of the terminal
/// on stdout, else 100.
pub(crate) fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&width| width > 0)
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
        })
        .unwrap_or(Screen::DEFAULT_WIDTH)
}

/// The screen tables are drawn for: [`terminal_width`], and colour by `--color`, where `auto`
/// means a terminal on stdout and no `NO_COLOR` (so pipes and tests never see escapes).
fn screen(color: CliColor) -> Screen {
    let stdout = std::io::stdout();
    let width = terminal_width();
    let color = match color {
        CliColor::Always => true,
        CliColor::Never => false,
        CliColor::Auto => {
            stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    Screen::new(width, color)
}

impl From<CliStore> for StoreKind {
    fn from(value: CliStore) -> Self {
        match value {
            CliStore::Memory => StoreKind::Memory,
            CliStore::Dir => StoreKind::Dir,
        }
    }
}

/// `NAME=VALUE` (`--set`, `--const`), both sides trimmed and non-empty.
pub(crate) fn parse_pair(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))
}

/// `SWITCH=V1,V2,..` (`--grid`), with no empty value.
pub(crate) fn parse_axis(text: &str) -> Result<(String, Vec<String>), String> {
    let (name, values) = parse_pair(text)?;
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err(format!(
            "expected SWITCH=V1,V2,.. with no empty value, got `{text}`"
        ));
    }
    Ok((name, values))
}

/// `K/N` (`--shard`) with `1 <= K <= N`.
pub(crate) fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("expected K/N with 1 <= K <= N, got `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}
