//! Renderers: pure functions from a result value to text (a terminal table, GitHub markdown, or
//! JSON). The core never prints. JSON is the result's serde schema, produced in one place
//! ([`render`]); each result module here only writes its table and markdown forms.

mod audit;
mod breaks;
mod experiments;
mod import;
mod montecarlo;
mod profiles;
mod run;
mod search;
mod verify;

use serde::Serialize;
use serde_json::Value;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::fmt::short;

pub use audit::audit;
pub use breaks::{breaks, memory_breaks};
pub use experiments::{compare, matrix, memory_growth, sweep};
pub use import::import;
pub use montecarlo::{montecarlo, montecarlo_table};
pub use profiles::{all_profiles, memory_profile_value, memory_profiles, profile_value, profiles};
pub use run::{explain, memory_run, run};
pub use search::{properties, search};
pub use verify::{findings_table, selftest, verify};

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Box-drawn tables for a terminal.
    #[default]
    Table,
    /// GitHub markdown.
    Markdown,
    /// The documented JSON schema.
    Json,
}

/// A result in `format`: its JSON schema, or the table or markdown that `text` writes. Every
/// renderer goes through here, so JSON output is handled once for every result type.
fn render<T: Serialize + ?Sized>(
    value: &T,
    format: Format,
    text: impl FnOnce(&T, Format) -> String,
) -> String {
    match format {
        Format::Json => json(value),
        Format::Table | Format::Markdown => text(value, format),
    }
}

/// A value as pretty-printed JSON with a final newline: the documented schema of `--format
/// json`, and the format of a `lab montecarlo --shard` file.
pub fn json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("reports serialise to JSON");
    text.push('\n');
    text
}

/// A table with a header row: box-drawn for a terminal, or GitHub markdown.
pub fn table(header: &[&str], rows: Vec<Vec<String>>, format: Format) -> String {
    let mut builder = Builder::default();
    builder.push_record(header.iter().map(|h| h.to_string()));
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    match format {
        Format::Markdown => table.with(Style::markdown()),
        _ => table.with(Style::sharp()),
    };
    table.to_string()
}

/// A section title: a level-3 markdown heading, or the bare line in a terminal.
fn heading(title: &str, format: Format) -> String {
    heading_at(3, title, format)
}

/// A title line: a markdown heading of `level`, or the bare line in a terminal.
fn heading_at(level: usize, title: &str, format: Format) -> String {
    match format {
        Format::Markdown => format!("{} {title}\n\n", "#".repeat(level)),
        _ => format!("{title}\n"),
    }
}

/// A JSON object on one line: `name=value name=value`, values shortened.
fn compact_object(value: &Value) -> String {
    value
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(k, v)| format!("{k}={}", short(v)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}
