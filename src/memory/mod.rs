//! The memory lab: learn-claude-code s09's persistent-memory store, its gates, recall,
//! extraction and consolidation, as faithful models driven by scripted side-call replies
//! (SPEC §8; seed 000 §6-§7, M4-M5).

pub mod breaks;
pub mod consolidate;
pub mod extract;
pub mod fs;
pub mod growth;
pub mod observables;
pub mod profile;
pub mod recall;
pub mod run;
pub mod site;
pub mod store;
pub mod world;
