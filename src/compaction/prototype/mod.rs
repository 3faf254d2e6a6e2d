//! The companion prototype's three non-memory layers as tiny deterministic models, each with one
//! switch (docs/profiles.md): the agent loop's stop criterion (D1), the permission gate order (D4)
//! and the stage barrier (D5). Their observables join the compaction replay's in `lab --break`.

mod agent_loop;
mod barrier;
mod permission;

use serde::Serialize;

use crate::compaction::switches::Switches;

/// What the three layers show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerObservables {
    /// The deny-listed command (`rm -rf /`) ran.
    pub ran_deny_listed: bool,
    /// The first scripted tool (`ls data`) ran.
    pub ran_first_tool: bool,
    /// The tool of the turn whose `stop_reason` is wrong (`cat report`) ran.
    pub ran_late_tool: bool,
    /// Makespan of the three items through two stages.
    pub makespan: f64,
    /// A background completion notification reuses a tool_use_id (it must not).
    pub notify_reuses_id: bool,
}

/// Runs the three layers under the given switches.
pub fn probe(switches: &Switches) -> LayerObservables {
    let trace = agent_loop::run(switches);
    let ran = |command: &str| trace.iter().any(|line| line == &format!("ran:{command}"));
    LayerObservables {
        ran_deny_listed: trace
            .iter()
            .any(|line| line.starts_with("ran:") && line.contains("rm -rf /")),
        ran_first_tool: ran("ls data"),
        ran_late_tool: ran("cat report"),
        makespan: barrier::makespan(switches),
        notify_reuses_id: barrier::notification("bg_0001", "completed", "build finished")
            .contains("tool_use_id"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_matches_the_prototype_selftest() {
        let base = probe(&Switches::default());
        assert!(base.ran_first_tool);
        assert!(base.ran_late_tool);
        assert!(!base.ran_deny_listed);
        assert_eq!(base.makespan, 4.0);
        assert!(!base.notify_reuses_id);
    }

    #[test]
    fn each_switch_degrades_its_layer() {
        let d1 = probe(&Switches {
            trust_stop_reason: true,
            ..Switches::default()
        });
        assert!(!d1.ran_late_tool);
        assert!(d1.ran_first_tool);
        let d4 = probe(&Switches {
            gate_order_correct: false,
            ..Switches::default()
        });
        assert!(d4.ran_deny_listed);
        let d5 = probe(&Switches {
            pipeline_has_barrier: true,
            ..Switches::default()
        });
        assert_eq!(d5.makespan, 6.0);
    }
}
