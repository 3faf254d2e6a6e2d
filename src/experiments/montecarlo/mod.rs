//! `lab montecarlo` and `lab merge`: N generated sessions × profiles × a switch grid, with the
//! mean and a 95% interval of each loss per cell.
//!
//! Every session is a pure function of (study seed, session index), and a cell accumulates only
//! integer sums (count, total, sum of squares), which add up the same in any order. So the result
//! does not depend on the number of threads, nor on how the sessions are split into shards: a
//! shard file holds the sums of its slice, `lab merge` adds the slices up, and the statistics are
//! computed once, at the end, from exact integers.

mod shard;
mod stats;
mod study;

pub use shard::{
    CellSums, MAX_THREADS, METRICS, SHARD_FORMAT, Shard, Sums, merge, run_shard, run_with_threads,
    shard_range,
};
pub use stats::{CellResult, Estimate, MonteCarloReport, report};
pub use study::{Cell, Study, cells, check, session_params, session_scenario};
