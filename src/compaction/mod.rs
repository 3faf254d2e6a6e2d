//! The compaction lab: the transcript world, the stages of each pipeline, the profiles that
//! configure them, the spill and transcript stores, the observables, and the driver that replays
//! a scenario through them (docs/scenario-format.md, docs/profiles.md).
//!
//! Where each mechanism lives:
//! - state: `world.rs` (the `World` and its ledger, archive, script, clock and counters),
//!   `history.rs` (the messages and their incremental size estimate);
//! - the unseen guard: `stages/micro.rs`, `unseen_guard` (switch `unseen_guard`);
//! - pointer recognition, the idempotency defect (F4) and forged pointers (F13): `pointer.rs`,
//!   `unchecked_full_output_line` and its fix `own_pointer`;
//! - persistence (write if absent, `persisted_preview`, `save_output`): `persist.rs`;
//! - the transcript archive and Claude Code's session transcript: `archive.rs`;
//! - the scripted summarisers: `summarizer.rs`;
//! - the stages, one file each, and the pipeline runner: `stages/`; Claude Code's autocompact
//!   threshold is `Profile::autocompact_threshold` in `profile`, checked by
//!   `stages/autocompact.rs`;
//! - the replay of a scenario: `driver.rs`; what is measured: `observables.rs` (the pairs a
//!   stage splits: `pairs.rs`).

mod archive;
pub mod driver;
pub mod explain;
mod history;
mod holds;
mod js_str;
pub mod observables;
mod pairs;
mod paths;
mod persist;
mod pointer;
pub mod profile;
pub mod prototype;
mod read_files;
mod rereads;
mod result_index;
mod sandbox;
mod spill_text;
pub(crate) mod stages;
pub mod store;
mod summarizer;
pub mod switches;
mod tool_uses;
pub mod world;

/// Claude Code's pair repair, read-only: whether a history needs no repair (benched in
/// `benches/pair_repair.rs`).
pub use stages::pairs_intact;

/// Cline's `basic` compaction as a pure function over messages (its fold, the budget of a
/// fold, and the prefix that marks a converted attachment), for replaying Cline's own sessions.
pub use stages::cline_compact::{
    ATTACHMENT_PREFIX as CLINE_ATTACHMENT, Mode as ClineMode, budget as cline_budget,
    fold as cline_fold,
};
