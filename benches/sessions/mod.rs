//! The generated sessions `benches/replay.rs` measures and `examples/replay.rs` replays under a
//! profiler, and the bytes of their results the floor copies: one definition for both, each
//! including this file by `#[path]`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use lab::scenario::{Scenario, Step};
use lab::workload::GenParams;

/// Master seed of the capped family; the same seed gives the same scenarios.
const SEED: u64 = 0x005e_ed2e_91a7;

/// The capped family at `turns` turns: the default tool mix with 1-3 calls a turn, result sizes
/// log-normal (median about 1 800 chars) capped at 4 000 chars, so that every length costs the
/// same per turn.
pub fn capped(turns: usize) -> GenParams {
    GenParams {
        seed: SEED,
        turns,
        max_calls: 3,
        size_max: 4_000,
        ..GenParams::default()
    }
}

/// The session issue 13 took its ratios on at `turns` turns (`lab gen --seed 1 --turns 3000
/// --size-max 50000` at 3 000: 32.8 MB of results).
pub fn issue13(turns: usize) -> GenParams {
    GenParams {
        turns,
        size_max: 50_000,
        ..GenParams::default()
    }
}

/// Every result text of the scenario, concatenated: the bytes a replay must touch at least once,
/// which the floor copies.
pub fn result_bytes(scenario: &Scenario) -> Vec<u8> {
    let mut bytes = Vec::new();
    for step in &scenario.steps {
        let results = match step {
            Step::Results(results)
            | Step::Turn { results, .. }
            | Step::CompactTool { results, .. } => results,
            _ => continue,
        };
        for result in results {
            bytes.extend_from_slice(result.body.render().as_bytes());
        }
    }
    bytes
}

/// The floor's work: one copy of `source` into `target`, neither of which the compiler may
/// take as known or unread.
pub fn copy(source: &[u8], target: &mut [u8]) {
    target.copy_from_slice(black_box(source));
    black_box(&*target);
}

/// The floor beside a replay: the fastest of `copies` copies of `source` into `target` (the
/// first copy after a replay also writes the replay's data back, which is not the copy's cost).
pub fn fastest_copy(source: &[u8], target: &mut [u8], copies: usize) -> Duration {
    (0..copies)
        .map(|_| {
            let start = Instant::now();
            copy(source, target);
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}
