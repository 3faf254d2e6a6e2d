//! The memory lab: learn-claude-code s09's persistent-memory store, its gates, recall,
//! extraction and consolidation, as faithful models driven by scripted side-call replies
//! (SPEC §8; seed 000 §6-§7, M4-M5).

pub mod breaks;
pub(crate) mod consolidate;
pub(crate) mod extract;
pub(crate) mod format;
pub mod fs;
pub mod growth;
pub mod observables;
pub mod profile;
pub(crate) mod recall;
pub(crate) mod record;
pub mod run;
pub(crate) mod side_call;
pub(crate) mod site;
pub(crate) mod store;
pub mod world;
