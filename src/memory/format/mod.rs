//! Record files per revision: how a record is named, written, read back and listed in
//! `MEMORY.md`. memory-main (`main.rs`) and memory-site (`site.rs`) differ in shape here, not in
//! a switch, so the store picks the format by the profile's [`Revision`].

pub(crate) mod main;
pub(crate) mod site;

use super::profile::Revision;
use super::record::Record;

/// The index line `rebuild_memory_index` writes for one record file.
pub(crate) fn index_line(revision: Revision, text: &str, filename: &str) -> String {
    match revision {
        Revision::Main => main::index_line(text, filename),
        Revision::Site => site::index_line(text, filename),
    }
}

/// The `list_memory_files` entry of one record file.
pub(crate) fn record(revision: Revision, filename: &str, text: &str) -> Record {
    match revision {
        Revision::Main => main::record(filename, text),
        Revision::Site => site::record(filename, text),
    }
}
