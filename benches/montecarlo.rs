//! Generated workloads and the Monte Carlo loop: how long `lab gen` takes to build a session, how
//! long one generated session takes to replay under each compaction profile, and how many
//! sessions per second `lab montecarlo` gets through on one core (`--threads 1`), every
//! compaction profile per session (the default study's cells).
//!
//! Why: the README states the time of a 10 000-session study; these numbers say where it goes.
//! Generation is string work (paths, inputs, JSON), replay is the engine; the Monte Carlo loop
//! should cost about one generation plus one replay per profile per session, with nothing on top.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::driver::run;
use lab::experiments::montecarlo::{self as mc, Study};
use lab::options::RunOptions;
use lab::workload::options::GenOptions;
use lab::workload::{self, Frame};

/// Sessions of the Monte Carlo measurement.
const SESSIONS: u64 = 100;

fn profiles() -> Vec<String> {
    lab::compaction::profile::PROFILES
        .iter()
        .map(|p| p.name.to_owned())
        .collect()
}

fn generator(c: &mut Criterion) {
    let mut group = c.benchmark_group("gen");
    let params = GenOptions::default().params().expect("default parameters");
    group.throughput(Throughput::Elements(1));
    group.bench_function("12-turn session", |b| {
        b.iter(|| {
            let workload = workload::generate(black_box(&params));
            black_box(workload.to_json(&Frame::default()))
        })
    });
    group.finish();
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay-generated");
    let study = Study {
        sessions: 1,
        generator: GenOptions::default(),
        cells: Vec::new(),
    };
    let scenario = mc::session_scenario(&study, 0).expect("session 0 generates");
    for profile in profiles() {
        let options = RunOptions {
            profile: Some(profile.clone()),
            ..RunOptions::default()
        };
        group.bench_with_input(BenchmarkId::from_parameter(&profile), &options, |b, o| {
            b.iter(|| run(black_box(&scenario), o).expect("generated sessions run"))
        });
    }
    group.finish();
}

fn montecarlo(c: &mut Criterion) {
    let mut group = c.benchmark_group("montecarlo");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(SESSIONS));
    let study = Study {
        sessions: SESSIONS,
        generator: GenOptions::default(),
        cells: mc::cells(&profiles(), &[]),
    };
    group.bench_function("100 sessions x every profile, 1 thread", |b| {
        b.iter(|| {
            mc::run_with_threads(black_box(&study), 1, 1, Some(1), &mut |_, _| {})
                .expect("study runs")
        })
    });
    group.finish();
}

criterion_group!(benches, generator, replay, montecarlo);
criterion_main!(benches);
