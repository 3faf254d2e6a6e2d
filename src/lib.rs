//! harness-lab: a laboratory for the context-management layer of LLM agent harnesses.
//!
//! It replays scripted agent sessions ([`scenario`]) through faithful, deterministic models of
//! real compaction pipelines ([`compaction`]) and memory systems ([`memory`]), lets a user switch
//! single safeguards off and measures what breaks. Every command of the binary is one library
//! call ([`execute`] on a [`Command`], one file per command in [`commands`]); [`cli`] turns a
//! command line into that call, and the binary only parses arguments and prints.

pub mod allocator;
pub mod call_id;
pub mod check;
pub mod cli;
pub mod commands;
pub mod compaction;
pub mod diff;
pub mod error;
pub mod experiments;
pub(crate) mod fmt;
pub(crate) mod hash;
pub mod import;
pub mod limits;
pub mod memory;
pub mod options;
pub(crate) mod prefetch;
pub mod probe;
pub mod python;
pub mod render;
pub mod replay;
pub mod report;
pub mod result_text;
pub mod scenario;
pub mod search;
pub mod trace;
pub mod transcript;
pub mod workload;

pub use commands::{Command, Outcome, execute, execute_with};
pub use error::LabError;

/// The allocator of everything that links the lab (the binary, its tests and benches): mimalloc,
/// because a replay builds and drops many small strings and vectors, and glibc's allocator took
/// a third of Monte Carlo's time (issue 13). [`allocator::Mimalloc`] says how it is called.
#[global_allocator]
static GLOBAL: allocator::Mimalloc = allocator::Mimalloc;
