//! Renderers: pure functions from a result value to text (a terminal table, GitHub markdown, or
//! JSON). The core never prints. JSON is the result's serde schema under its versioned name
//! ([`schema`]), produced in one place ([`render`]); each result module here only writes its
//! table and markdown forms and names its schema.

mod audit;
mod breaks;
pub(crate) mod charts;
mod experiments;
pub(crate) mod forest;
mod import;
mod montecarlo;
mod profiles;
mod run;
pub mod schema;
mod screen;
mod search;
mod verify;

use serde::Serialize;
use serde_json::Value;
use tabled::builder::Builder;
use tabled::settings::peaker::PriorityMax;
use tabled::settings::{Style, Width};

use crate::fmt::short;

pub use audit::audit;
pub use breaks::{breaks, memory_breaks};
pub use experiments::{compare, matrix, memory_growth, sweep};
pub use import::import;
pub use montecarlo::{montecarlo, montecarlo_table};
pub use profiles::{all_profiles, memory_profile_value, memory_profiles, profile_value, profiles};
pub use run::{explain, memory_run, run};
pub use screen::Screen;
pub use search::{properties, search};
pub use verify::{findings_table, selftest, verify};

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Box-drawn tables for a terminal of this width and colour.
    Table(Screen),
    /// GitHub markdown.
    Markdown,
    /// The documented JSON schema.
    Json,
}

impl Default for Format {
    /// Tables for a 100-column terminal without colour.
    fn default() -> Self {
        Format::Table(Screen::default())
    }
}

/// A result in `format`: its JSON document (`{"schema": T::SCHEMA, ...}`), or the table or
/// markdown that `text` writes. Every renderer goes through here, so JSON output is handled
/// once for every result type.
fn render<T: schema::Document>(
    value: &T,
    format: Format,
    text: impl FnOnce(&T, Format) -> String,
) -> String {
    match format {
        Format::Json => schema::document(value),
        Format::Markdown => text(value, format),
        Format::Table(screen) => {
            let fitted = screen::fit(&text(value, format), screen.width);
            if screen.color {
                screen::paint(&fitted)
            } else {
                fitted
            }
        }
    }
}

/// A value as pretty-printed JSON with a final newline: the body of every `--format json`
/// document ([`schema::document`]), and the format of a `lab montecarlo --shard` file.
pub fn json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("reports serialise to JSON");
    text.push('\n');
    text
}

/// A table with a header row: GitHub markdown, or box-drawn for a terminal, its widest cells
/// wrapped (between words where they can) until it fits the screen.
pub fn table(header: &[&str], rows: Vec<Vec<String>>, format: Format) -> String {
    let mut builder = Builder::default();
    builder.push_record(header.iter().map(|h| h.to_string()));
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    match format {
        Format::Table(screen) => {
            table.with(Style::sharp()).with(
                Width::wrap(screen.width)
                    .priority(PriorityMax::right())
                    .keep_words(true),
            );
        }
        _ => {
            table.with(Style::markdown());
        }
    }
    table.to_string()
}

/// Key/value data (a profile): in a terminal one block per key, its value's items indented
/// below it one a line (so it fits any width); in markdown a two-column table, items joined
/// with `; `.
fn fields(rows: Vec<(&str, Vec<String>)>, format: Format) -> String {
    if let Format::Table(_) = format {
        let mut out = String::new();
        for (key, items) in rows {
            out.push_str(key);
            out.push('\n');
            for item in items {
                out.push_str(&format!("  {item}\n"));
            }
        }
        return out;
    }
    let rows = rows
        .into_iter()
        .map(|(key, items)| vec![key.to_owned(), items.join("; ")])
        .collect();
    table(&["property", "value"], rows, format)
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
