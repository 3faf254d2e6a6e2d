//! Integration tests of the `lab` binary and of the library calls behind it. Every test works
//! under its own `tempfile::tempdir()`; `util` runs the built binary.

mod anywhere;
mod audit;
mod charts;
mod citations;
mod cline;
mod combos;
mod errors;
mod experiments;
mod fidelity;
mod fits;
mod fuzz;
mod fuzz_memory;
mod import;
mod memory;
mod montecarlo;
mod probe;
mod readme;
mod reports;
mod run;
mod schemas;
mod search;
mod snapshots;
mod stores;
mod util;
