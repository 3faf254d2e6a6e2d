//! Record files per revision: how a record is named, written, read back and listed in
//! `MEMORY.md`. memory-main (`memory_main.rs`) and memory-site (`memory_site.rs`) differ in
//! shape here, not in a switch, so the store picks the format by the profile's [`Revision`].

pub(crate) mod memory_main;
pub(crate) mod memory_site;

use super::profile::Revision;
use super::record::Record;

/// The index line `rebuild_memory_index` writes for one record file.
pub(crate) fn index_line(revision: Revision, text: &str, filename: &str) -> String {
    match revision {
        Revision::Main => memory_main::index_line(text, filename),
        Revision::Site => memory_site::index_line(text, filename),
    }
}

/// The `list_memory_files` entry of one record file.
pub(crate) fn record(revision: Revision, filename: &str, text: &str) -> Record {
    match revision {
        Revision::Main => memory_main::record(filename, text),
        Revision::Site => memory_site::record(filename, text),
    }
}
