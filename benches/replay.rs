//! Replay throughput: how long `lab::compaction::driver::run` takes to replay a long synthetic
//! session through the course-main profile (budget → snip → micro → compact when over the limit)
//! with the in-memory store.
//!
//! Why: `History` keeps its size estimate incrementally (one message's size added or replaced per
//! change) and snip bounds the number of messages in context, so each turn costs about the same
//! and the replay cost must grow linearly with the number of turns. The group measures 1 000 and
//! 10 000 turns with `Throughput::Elements(turns)`; the time per turn should stay flat, i.e. the
//! 10 000-turn run should take about 10x the 1 000-turn run. A clearly larger ratio means some
//! stage or the estimate re-walks state that grows with the run.
//!
//! Scenarios are built once, outside the timed closure, by `lab::workload::generate` (what
//! `lab gen` writes) from a fixed master seed: `turns` agent-loop turns of the default tool mix
//! with 1-3 calls each, idle gaps, follow-up requests and a final answer, result sizes log-normal
//! (median about 1 800 chars) capped at 40 000 (above course-main's `large` of 30 000). The cap
//! and the call count keep the 10 000-turn workload within the generator's bound on the
//! characters one run may hold.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::driver::run;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use lab::workload::{self, Frame, GenParams};

/// Master seed of the synthetic workload; the same seed gives the same scenarios.
const SEED: u64 = 0x005e_ed2e_91a7;

/// Turn counts measured.
const TURNS: [u64; 2] = [1_000, 10_000];

/// The scenario of a generated `turns`-turn session.
fn synthetic(turns: u64) -> Scenario {
    let params = GenParams {
        seed: SEED,
        turns: usize::try_from(turns).expect("a turn count fits in usize"),
        max_calls: 3,
        size_max: 40_000,
        ..GenParams::default()
    };
    params
        .check()
        .expect("the bench parameters are within bounds");
    let frame = Frame {
        name: format!("synthetic-{turns}"),
        ..Frame::default()
    };
    workload::generate(&params)
        .scenario(&frame, "bench")
        .expect("a generated workload is valid")
}

fn replay(c: &mut Criterion) {
    let options = RunOptions::default();
    let mut group = c.benchmark_group("replay/course-main");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for turns in TURNS {
        let scenario = synthetic(turns);
        group.throughput(Throughput::Elements(turns));
        group.bench_with_input(
            BenchmarkId::from_parameter(turns),
            &scenario,
            |b, scenario| {
                b.iter(|| run(black_box(scenario), &options).expect("the synthetic scenario runs"));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
