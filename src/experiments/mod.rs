//! Experiments: named breaks, n×m matrices, parameter sweeps with cliff detection, profile
//! comparisons, Monte Carlo studies, the prototype's selftest, and the findings registry that `lab
//! verify` and `lab report` check (docs/commands.md, docs/findings.md). Each produces a result
//! value; `render` turns it into text.

pub mod breaks;
pub mod compare;
pub mod findings;
pub mod matrix;
pub mod montecarlo;
pub(crate) mod observe;
pub(crate) mod prototype;
pub mod selftest;
pub(crate) mod spill;
pub mod sweep;
pub mod verify;

pub use prototype::{PROTOTYPE_REPLAY, prototype_replay};
