//! Byte-compatible ports of the Python behaviour the modelled code depends on: `json.dumps`
//! lengths, `repr` and its printable table, and PyYAML's safe dumper and loader.

pub mod json;
pub(crate) mod repr_table;
pub mod yaml;
