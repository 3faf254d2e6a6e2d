//! Memory profiles: the persistent-memory store of learn-claude-code s09 as data (SPEC §8).
//!
//! `memory-main` is s09 at f9e8b28 (logic identical from 168fff8 to e0f1430f,
//! research/lcc_revisions.md §2); `memory-site` is the older revision the course web site shows
//! (§1 "Site s09"). Each safeguard of memory-main is a switch, so that a break (MB1..MB5) can
//! turn one off and show what it protects.

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

/// Numeric constants of a memory profile (characters unless named otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryConstants {
    /// RECALL_CHAR_LIMIT: recalled text per request (0 = no cap).
    pub recall_limit: usize,
    /// CONSOLIDATE_THRESHOLD: records needed for a consolidation pass.
    pub consolidate_threshold: usize,
    /// CONSOLIDATE_INPUT_CHAR_LIMIT: a larger catalog raises before the model call (main) or is
    /// cut silently (site).
    pub consolidate_input: usize,
    /// Records a recall selects at most.
    pub max_items: usize,
    /// The selector query is cut to this many characters.
    pub query_limit: usize,
    /// The selector catalog is cut to this many characters.
    pub catalog_limit: usize,
    /// Messages the extractor reads.
    pub dialogue_messages: usize,
    /// The extractor's dialogue is cut to this many characters.
    pub dialogue_limit: usize,
    /// The extractor's existing-memory catalog is cut to this many characters.
    pub existing_limit: usize,
}

/// Names of the constants, in order.
pub const MEMORY_CONSTANT_NAMES: [&str; 9] = [
    "recall_limit",
    "consolidate_threshold",
    "consolidate_input",
    "max_items",
    "query_limit",
    "catalog_limit",
    "dialogue_messages",
    "dialogue_limit",
    "existing_limit",
];

impl MemoryConstants {
    fn slot(&mut self, name: &str) -> Option<&mut usize> {
        Some(match name {
            "recall_limit" => &mut self.recall_limit,
            "consolidate_threshold" => &mut self.consolidate_threshold,
            "consolidate_input" => &mut self.consolidate_input,
            "max_items" => &mut self.max_items,
            "query_limit" => &mut self.query_limit,
            "catalog_limit" => &mut self.catalog_limit,
            "dialogue_messages" => &mut self.dialogue_messages,
            "dialogue_limit" => &mut self.dialogue_limit,
            "existing_limit" => &mut self.existing_limit,
            _ => return None,
        })
    }

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

    /// The constants as a JSON object.
    pub fn to_value(&self) -> Value {
        let mut copy = *self;
        let mut map = Map::new();
        for name in MEMORY_CONSTANT_NAMES {
            let value = *copy.slot(name).expect("listed constant");
            map.insert(name.to_owned(), Value::from(value));
        }
        Value::Object(map)
    }
}

/// The safeguards of the store; each break MB1..MB5 turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySwitches {
    /// `memory_path`'s three checks (MB1 turns them off).
    pub path_guard: bool,
    /// MEMORY.md is rebuilt from all files after every write (MB2: appended by hand instead).
    pub rebuild_index: bool,
    /// `should_store_memory`: persistent scope, no temporary marker, no duplicate (MB3 off).
    pub storage_gates: bool,
    /// Consolidation restores its snapshot on any failure (MB4 off).
    pub snapshot_restore: bool,
    /// The keyword fallback also runs when the selector's reply holds no JSON array (MB5 on).
    pub parse_fallback: bool,
    /// A fix, not in the course: a catalog over the input cap is consolidated in chunks under
    /// the cap (one model call each, one atomic rewrite) instead of raising (the growth
    /// experiment's variant, M8).
    pub chunked_consolidation: bool,
}

/// Names of the switches, in order.
pub const MEMORY_SWITCH_NAMES: [&str; 6] = [
    "path_guard",
    "rebuild_index",
    "storage_gates",
    "snapshot_restore",
    "parse_fallback",
    "chunked_consolidation",
];

impl MemorySwitches {
    fn slot(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "path_guard" => &mut self.path_guard,
            "rebuild_index" => &mut self.rebuild_index,
            "storage_gates" => &mut self.storage_gates,
            "snapshot_restore" => &mut self.snapshot_restore,
            "parse_fallback" => &mut self.parse_fallback,
            "chunked_consolidation" => &mut self.chunked_consolidation,
            _ => return None,
        })
    }

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
                MEMORY_SWITCH_NAMES.join(", ")
            )),
        }
    }

    /// The switches as a JSON object.
    pub fn to_value(&self) -> Value {
        let mut copy = *self;
        let mut map = Map::new();
        for name in MEMORY_SWITCH_NAMES {
            map.insert(
                name.to_owned(),
                Value::Bool(*copy.slot(name).expect("listed switch")),
            );
        }
        Value::Object(map)
    }
}

/// One memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryProfile {
    pub name: &'static str,
    pub system: &'static str,
    pub sources: &'static [&'static str],
    pub revision: Revision,
    pub constants: MemoryConstants,
    pub switches: MemorySwitches,
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
        "seeds/000_52a05e0d3b77db11.txt §6-§7 (M4, M5)",
        "research/lcc_revisions.md §2",
        "shareAI-lab/learn-claude-code s09_memory/code.py @ e0f1430f",
    ],
    revision: Revision::Main,
    constants: MemoryConstants {
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
    switches: MemorySwitches {
        path_guard: true,
        rebuild_index: true,
        storage_gates: true,
        snapshot_restore: true,
        parse_fallback: false,
        chunked_consolidation: false,
    },
    switch_names: &MEMORY_SWITCH_NAMES,
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
    sources: &["research/lcc_revisions.md §1 (Site s09)"],
    revision: Revision::Site,
    constants: MemoryConstants {
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
    switches: MemorySwitches {
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
