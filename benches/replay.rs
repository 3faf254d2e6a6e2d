//! Replay throughput: how long `lab::compaction::driver::run` takes to replay a long synthetic session through
//! the course-main profile (budget → snip → micro → compact when over the limit) with the
//! in-memory store.
//!
//! Why: `History` keeps its size estimate incrementally (one message's size added or replaced per
//! change) and snip bounds the number of messages in context, so each turn costs about the same
//! and the replay cost must grow linearly with the number of turns. The group measures 1 000 and
//! 10 000 turns with `Throughput::Elements(turns)`; the time per turn should stay flat, i.e. the
//! 10 000-turn run should take about 10x the 1 000-turn run. A clearly larger ratio means some
//! stage or the estimate re-walks state that grows with the run.
//!
//! Scenarios are built once, outside the timed closure, from a fixed `ChaCha8Rng` seed: each turn
//! has 1-3 `bash` calls (ids unique across the scenario) whose results are 50 to 40 000 chars.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::driver::run;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

/// Master seed of the synthetic workload; the same seed gives the same scenarios.
const SEED: u64 = 0x005e_ed2e_91a7;

/// Turn counts measured.
const TURNS: [u64; 2] = [1_000, 10_000];

/// One result size: mostly small outputs, some medium, a few near the 40 000-char maximum
/// (above course-main's `large` of 30 000).
fn result_size(rng: &mut ChaCha8Rng) -> u64 {
    match rng.random_range(0..10u32) {
        0..=5 => rng.random_range(50..=2_000u64),
        6..=8 => rng.random_range(2_000..=20_000u64),
        _ => rng.random_range(20_000..=40_000u64),
    }
}

/// A scenario value: a request, then `turns` turn steps with 1-3 calls each.
fn synthetic(turns: u64, seed: u64) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut next_id = 0u64;
    let steps: Vec<Value> = (0..turns)
        .map(|turn| {
            let count = rng.random_range(1..=3u32);
            let mut calls = Vec::new();
            let mut results = Vec::new();
            for _ in 0..count {
                let id = format!("t{next_id}");
                next_id += 1;
                calls.push(json!({
                    "id": id,
                    "name": "bash",
                    "input": {"command": format!("cat part_{turn}_{next_id}.log")},
                }));
                results.push(json!({"id": id, "chars": result_size(&mut rng)}));
            }
            json!({"turn": {"calls": calls, "results": results}})
        })
        .collect();
    json!({
        "request": "Read every log part and summarise the failures.",
        "steps": steps,
    })
}

fn replay(c: &mut Criterion) {
    let options = RunOptions::default();
    let mut group = c.benchmark_group("replay/course-main");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for turns in TURNS {
        let value = synthetic(turns, SEED);
        let scenario = Scenario::from_value("bench", &format!("synthetic-{turns}"), &value)
            .expect("the synthetic scenario is valid");
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
