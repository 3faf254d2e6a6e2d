//! The companion prototype's scripted replay, built in: the scenario `lab --break`, `lab
//! --selftest` and the findings run when no scenario file is given.

use crate::scenario::Scenario;

/// The companion prototype's scripted replay, built in (the same file as
/// `scenarios/prototype-replay.json`).
pub const PROTOTYPE_REPLAY: &str = include_str!("../../scenarios/prototype-replay.json");

/// The built-in prototype replay as a scenario.
pub fn prototype_replay() -> Scenario {
    Scenario::parse(
        "scenarios/prototype-replay.json",
        "prototype-replay",
        PROTOTYPE_REPLAY,
    )
    .expect("the built-in prototype replay is a valid scenario")
}
