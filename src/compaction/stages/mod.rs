//! The compaction stages, one file each, shared by every profile and driven by its data.
//!
//! `pipeline.rs` runs the profile's pipeline (docs/profiles.md): for course main, budget → snip →
//! micro → (if the estimate exceeds `context_limit`) compact. Arrival applies to each result batch
//! as it enters the history. The course's compact tool and Claude Code's CLAUDE.md user context are
//! the two pieces of an agent loop that change the context outside the pipeline. `cut.rs` holds
//! what the stages that cut messages share.

pub(crate) mod arrival;
mod autocompact;
mod budget;
mod clear_tool_uses;
mod cline_activity;
pub(crate) mod cline_compact;
mod codex_compact;
mod codex_remote;
mod compact;
pub(crate) mod compact_tool;
mod cut;
mod fit;
mod gemini_compress;
mod gemini_mask;
mod keep_last_turn;
mod keep_recent_mc;
mod micro;
mod opencode;
mod opencode_v2;
mod openhands_condense;
mod output_cap;
mod pair_repair;
mod pipeline;
mod reactive;
mod read_tool;
mod snip;
mod summary_call;
mod time_mc;
mod todo_reminder;
pub(crate) mod user_context;

pub use pair_repair::is_intact as pairs_intact;
pub(crate) use pipeline::{prepare, run};
