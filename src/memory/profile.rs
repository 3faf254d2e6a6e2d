//! Memory profiles: the persistent-memory store of learn-claude-code s09 as data (docs/memory.md).
//!
//! `memory-main` is s09 at f9e8b28 (logic identical from 168fff8 to e0f1430f,
//! shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8); `memory-site` is the older revision
//! the course web site shows (§1 "Site s09"). Each safeguard of memory-main is a switch, so that a
//! break (MB1..MB5) can turn one off and show what it protects.

use serde_json::{Map, Value};

/// Which revision's rules a memory profile follows where they differ in shape, not in a switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// s09 at f9e8b28: slugs by `\w`, YAML frontmatter, `- [name](file) - desc`, model selection
    /// with fallback only on an exception, scope and marker gates, guarded consolidation.
    Main,
    /// The older site s09: slugs by two replaces, `— ` index lines, fallback also on a missing
    /// array, no gates, unguarded consolidation.
    Site,
}

/// Declares a struct of named fields of one type, the list of its field names in declaration
/// order (which is also the order of its JSON object) and a by-name slot, so that each name is
/// written once.
macro_rules! named_fields {
    (
        $(#[$doc:meta])*
        pub struct $name:ident: $ty:ty, names $names:ident {
            $( $(#[$field_doc:meta])* $field:ident, )+
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name {
            $( $(#[$field_doc])* pub $field: $ty, )+
        }

        /// Names of the fields, in order.
        pub const $names: &[&str] = &[$(stringify!($field)),+];

        impl $name {
            /// The field called `name`, if there is one.
            fn slot(&mut self, name: &str) -> Option<&mut $ty> {
                match name {
                    $( stringify!($field) => Some(&mut self.$field), )+
                    _ => None,
                }
            }

            /// The fields as a JSON object, in order.
            pub fn to_value(&self) -> Value {
                let mut map = Map::new();
                $( map.insert(stringify!($field).to_owned(), Value::from(self.$field)); )+
                Value::Object(map)
            }
        }
    };
}

named_fields! {
    /// Numeric constants of a memory profile (characters unless named otherwise).
    pub struct Constants: usize, names CONSTANT_NAMES {
        /// RECALL_CHAR_LIMIT: recalled text per request (0 = no cap).
        recall_limit,
        /// CONSOLIDATE_THRESHOLD: records needed for a consolidation pass.
        consolidate_threshold,
        /// CONSOLIDATE_INPUT_CHAR_LIMIT: a larger catalog raises before the model call (main:
        /// the reverse gate, `consolidate::reverse_gate`) or is cut silently (site).
        consolidate_input,
        /// Records a recall selects at most.
        max_items,
        /// The selector query is cut to this many characters.
        query_limit,
        /// The selector catalog is cut to this many characters.
        catalog_limit,
        /// Messages the extractor reads.
        dialogue_messages,
        /// The extractor's dialogue is cut to this many characters.
        dialogue_limit,
        /// The extractor's existing-memory catalog is cut to this many characters.
        existing_limit,
    }
}

impl Constants {
    /// Sets a constant by name; false if there is none.
    pub fn set(&mut self, name: &str, value: usize) -> bool {
        match self.slot(name) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }
}

named_fields! {
    /// The safeguards of the store; each break MB1..MB5 turns one off. Each field names the
    /// function that reads it.
    pub struct Switches: bool, names SWITCH_NAMES {
        /// `memory_path`'s three checks, `store::path_guard` (MB1 turns them off).
        path_guard,
        /// MEMORY.md is rebuilt from all files after every write, `store::rebuild_index` (MB2:
        /// appended by hand instead, `store::append_index_line`).
        rebuild_index,
        /// `should_store_memory`, `extract::storage_gates`: persistent scope, no temporary
        /// marker, no duplicate (MB3 off).
        storage_gates,
        /// Consolidation restores its snapshot on any failure, `consolidate::snapshot_restore`
        /// (MB4 off).
        snapshot_restore,
        /// The keyword fallback also runs when the selector's reply holds no JSON array,
        /// `recall::parse_fallback` (MB5 on).
        parse_fallback,
        /// A fix, not in the course: a catalog over the input cap is consolidated in chunks
        /// under the cap (one model call each, one atomic rewrite) instead of raising, in
        /// `consolidate::reverse_gate` (the growth experiment's variant, M8).
        chunked_consolidation,
    }
}

impl Switches {
    /// Sets a switch from `on`/`off`/`true`/`false`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let flag = match value {
            "on" | "true" | "yes" | "1" => true,
            "off" | "false" | "no" | "0" => false,
            _ => return Err(format!("switch `{name}` expects on/off, got `{value}`")),
        };
        match self.slot(name) {
            Some(slot) => {
                *slot = flag;
                Ok(())
            }
            None => Err(format!(
                "unknown memory switch `{name}` (known: {})",
                SWITCH_NAMES.join(", ")
            )),
        }
    }
}

/// One memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryProfile {
    /// The name `--profile` and a scenario's `profile` use.
    pub name: &'static str,
    /// The real system and revision modelled.
    pub system: &'static str,
    /// Where each modelled rule comes from.
    pub sources: &'static [&'static str],
    /// The revision whose record format and agent loop the profile follows.
    pub revision: Revision,
    /// The defaults a scenario's `constants` or `--const` may override.
    pub constants: Constants,
    /// The safeguards on by default.
    pub switches: Switches,
    /// The switches a scenario or `--set` may change.
    pub switch_names: &'static [&'static str],
    /// What the real system does that the profile leaves out, and why.
    pub absent: &'static [&'static str],
}

/// s09 at f9e8b28.
pub const MEMORY_MAIN: MemoryProfile = MemoryProfile {
    name: "memory-main",
    system: "learn-claude-code s09_memory/code.py at f9e8b28 (logic as at 168fff8..e0f1430f)",
    sources: &[
        "ThreeFish-AI/negentropy docs/research/agent-harness/173-claude-code-memory-management.md §6-§7 (M4, M5)",
        "shareAI-lab/learn-claude-code s09_memory/code.py @ 168fff8",
        "shareAI-lab/learn-claude-code s09_memory/code.py @ e0f1430f",
    ],
    revision: Revision::Main,
    constants: Constants {
        recall_limit: 20_000,
        consolidate_threshold: 10,
        consolidate_input: 20_000,
        max_items: 5,
        query_limit: 4_000,
        catalog_limit: 12_000,
        dialogue_messages: 12,
        dialogue_limit: 8_000,
        existing_limit: 6_000,
    },
    switches: Switches {
        path_guard: true,
        rebuild_index: true,
        storage_gates: true,
        snapshot_restore: true,
        parse_fallback: false,
        chunked_consolidation: false,
    },
    switch_names: SWITCH_NAMES,
    absent: &[
        "glob order: the store lists its files sorted (Python's glob gives the file system's order)",
        "NaN and Infinity in model replies: json.loads accepts them, the lab's reader does not",
        "the agent loop's own tools and compaction: memory runs script the turns",
    ],
};

/// The older site s09.
pub const MEMORY_SITE: MemoryProfile = MemoryProfile {
    name: "memory-site",
    system: "learn-claude-code s09 as the course web site shows it (site revision, 67a9126c era)",
    sources: &["shareAI-lab/learn-claude-code @ 67a9126c, site-track s09"],
    revision: Revision::Site,
    constants: Constants {
        recall_limit: 0,
        consolidate_threshold: 10,
        consolidate_input: 16_000,
        max_items: 5,
        query_limit: 2_000,
        catalog_limit: 0,
        dialogue_messages: 10,
        dialogue_limit: 4_000,
        existing_limit: 0,
    },
    switches: Switches {
        path_guard: false,
        rebuild_index: true,
        storage_gates: false,
        snapshot_restore: false,
        parse_fallback: true,
        chunked_consolidation: false,
    },
    switch_names: &[],
    absent: &[
        "glob order: the store lists its files sorted (Python's glob gives the file system's order)",
        "NaN and Infinity in model replies: json.loads accepts them, the lab's reader does not",
        "the site chapter's copy of the compaction code: the course-site profile models it",
    ],
};

/// Every memory profile.
pub const MEMORY_PROFILES: [MemoryProfile; 2] = [MEMORY_MAIN, MEMORY_SITE];

/// Looks a memory profile up by name.
pub fn by_name(name: &str) -> Option<&'static MemoryProfile> {
    MEMORY_PROFILES.iter().find(|p| p.name == name)
}
