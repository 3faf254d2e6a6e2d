//! Properties for `lab search`: named predicates over the observables of a run
//! (docs/observables.md). A property is *violated* when its predicate holds of the final state;
//! `lab search` looks for a generated workload that violates one and `lab search --list` prints
//! this registry.

use serde_json::Value;

use crate::compaction::observables::Observables;
use crate::error::LabError;

/// One property: what must not happen, as a predicate over observables.
#[derive(Debug, Clone, Copy)]
pub struct Property {
    /// The name `--property` takes.
    pub name: &'static str,
    /// The observable that shows a violation (written to the found scenario's `expect`).
    pub observable: &'static str,
    /// The predicate, as text.
    pub violated_when: &'static str,
    /// One line: what a violation means.
    pub about: &'static str,
    /// True when the observables violate the property.
    pub test: fn(&Observables) -> bool,
}

impl Property {
    /// True when the run's final state violates the property.
    pub fn violated(&self, observables: &Observables) -> bool {
        (self.test)(observables)
    }

    /// The observable's measured value.
    pub fn value(&self, observables: &Observables) -> Value {
        serde_json::to_value(observables)
            .expect("observables serialise to JSON")
            .get(self.observable)
            .cloned()
            .expect("a property names a known observable")
    }
}

/// Every property, in `--list` order.
pub const PROPERTIES: &[Property] = &[
    Property {
        name: "dropped_unsaved",
        observable: "dropped_unsaved",
        violated_when: "dropped_unsaved > 0",
        about: "a result became a no-pointer placeholder and was never spilled (F1, F10)",
        test: |o| o.dropped_unsaved > 0,
    },
    Property {
        name: "pointer_lost",
        observable: "pointer_lost",
        violated_when: "pointer_lost > 0",
        about: "a spilled result's pointer was replaced by a no-pointer placeholder (F4)",
        test: |o| o.pointer_lost > 0,
    },
    Property {
        name: "unrecoverable",
        observable: "unrecoverable",
        violated_when: "unrecoverable > 0",
        about: "a result's text is nowhere: not in context, spill store or any archive",
        test: |o| o.unrecoverable > 0,
    },
    Property {
        name: "orphan_files",
        observable: "orphan_files",
        violated_when: "orphan_files > 0",
        about: "a spill file that no pointer in the final context names (F4)",
        test: |o| o.orphan_files > 0,
    },
    Property {
        name: "forged_pointers",
        observable: "forged_pointers",
        violated_when: "forged_pointers > 0",
        about: "a pointer in context names a path outside the spill store or a missing file (F13)",
        test: |o| o.forged_pointers > 0,
    },
    Property {
        name: "unseen_compacted",
        observable: "unseen_compacted",
        violated_when: "unseen_compacted > 0",
        about: "a result was replaced before any assistant message saw it (F11, course-site)",
        test: |o| o.unseen_compacted > 0,
    },
    Property {
        name: "pairs_broken",
        observable: "pairs_intact",
        violated_when: "!pairs_intact",
        about: "an assistant message with tool_use is not followed by its tool_result message",
        test: |o| !o.pairs_intact,
    },
    Property {
        name: "api_invalid",
        observable: "api_valid",
        violated_when: "!api_valid",
        about: "a tool_use without exactly one result, or a result without its tool_use",
        test: |o| !o.api_valid,
    },
];

/// Looks a property up by name.
pub fn by_name(name: &str) -> Result<&'static Property, LabError> {
    let name = crate::compaction::observables::current_name(name);
    PROPERTIES.iter().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = PROPERTIES.iter().map(|p| p.name).collect();
        LabError::Usage(format!(
            "unknown property `{name}` (known: {}; see `lab search --list`)",
            known.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::observables::OBSERVABLE_NAMES;

    #[test]
    fn every_property_names_a_known_observable() {
        for property in PROPERTIES {
            assert!(
                OBSERVABLE_NAMES.contains(&property.observable),
                "{}",
                property.name
            );
            assert_eq!(by_name(property.name).unwrap().name, property.name);
        }
        assert!(matches!(by_name("lost"), Err(LabError::Usage(_))));
    }
}
