//! `lab search`: find a generated workload that violates a property under a profile, then shrink
//! it to a minimal scenario (proptest-state-machine style: drop whole steps, then single calls,
//! then simplify sizes and path lengths, until nothing changes).
//!
//! Candidate `i` is the workload of the child seed (seed, "candidate", i), so a search is
//! reproducible from its command line. A reduction is kept only when the scenario still parses
//! and validates and the property is still violated; the result is a local minimum: no step and
//! no call can be removed, no size made smaller by one, without losing the violation.
//!
//! `properties` is the registry of what can be searched for, `engine` the candidate loop and
//! `shrink` the shrinker.

mod engine;
pub mod properties;
mod shrink;

pub use engine::{Found, SearchParams, SearchReport, found_name, search};
pub use shrink::{ShrinkStats, shrink};

/// Candidates `lab search` tries by default.
pub const DEFAULT_BUDGET: usize = 200;
