//! The memory lab: learn-claude-code s09's persistent-memory store, its gates, recall,
//! extraction and consolidation, as faithful models driven by scripted side-call replies
//! (docs/memory.md; negentropy 173-claude-code-memory-management.md §6-§7, M4-M5).
//!
//! `world.rs` holds the state of a run and nothing else; each mechanism is a function in the file
//! named after it, taking the world explicitly. `run.rs` drives a scenario and picks memory-main's
//! mechanisms or memory-site's (`site.rs`) by the profile's revision. Where each safeguard is
//! (switch and break from `profile.rs`, then file and function):
//!
//! - MB1 path guard (`path_guard`): `store.rs` `path_guard`
//! - MB2 derived index (`rebuild_index`): `store.rs` `rebuild_index`; off, `append_index_line`
//! - MB3 storage gates (`storage_gates`): `extract.rs` `storage_gates`
//! - MB4 snapshot restore (`snapshot_restore`): `consolidate.rs` `snapshot_restore`
//! - MB5 parse fallback (`parse_fallback`): `recall.rs` `parse_fallback`
//! - validity gate (always on): `extract.rs` `validate`
//! - reverse gate, M8 (constant `consolidate_input`): `consolidate.rs` `reverse_gate`
//! - chunked consolidation, a fix (`chunked_consolidation`): `consolidate.rs` `reverse_gate`
//! - recall cap, M10 (constant `recall_limit`): `recall.rs` `recall`
//! - memory-site's silent catalog cut: `site.rs` `consolidate`
//!
//! Record files per revision are in `format/`, the side model calls in `side_call.rs`, the
//! memory directory's two backends in `fs.rs`.

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

/// Scenario pieces the unit tests of both revisions share.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::transcript::{Block, Message, Role};

    /// Five user messages, the third a tool result: memory-main's query skips it, memory-site's
    /// gives it one of its three slots.
    pub(crate) fn user_turns_with_a_tool_result() -> Vec<Message> {
        vec![
            Message::user_text("first"),
            Message::user_text("second"),
            Message::blocks(
                Role::User,
                vec![Block::ToolResult {
                    tool_use_id: "t".into(),
                    content: "secret tool output".into(),
                }],
            ),
            Message::user_text("third"),
            Message::user_text("fourth"),
        ]
    }
}
