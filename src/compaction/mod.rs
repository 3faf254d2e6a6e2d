//! The compaction lab: the transcript world, the stages of each pipeline, the profiles that
//! configure them, the spill and transcript stores, the observables, and the driver that replays
//! a scenario through them (SPEC §1-§5).

pub mod driver;
pub mod explain;
pub mod observables;
pub mod profile;
pub mod prototype;
pub mod stages;
pub mod store;
pub mod switches;
pub mod world;
