//! Byte-compatible ports of the Python behaviour the modelled code depends on: `json.dumps`
//! lengths, `repr` and its printable table, `str` white space, and PyYAML's safe dumper and
//! loader.
//!
//! A leaf layer: nothing here imports from the rest of the crate. The expected values its tests
//! pin come from CPython and PyYAML; the scripts that regenerate them are in `tools/`.

pub mod json;
pub(crate) mod repr_table;
pub mod str;
pub(crate) mod weigh;
pub mod yaml;
