//! Claude Code's pair repair on an intact history: the read-only check `pairs_intact` that
//! `ensureToolResultPairing`'s model now runs before it builds anything (issue 13, defect D8 of
//! issue 11).
//!
//! Why: the stage runs before every request. It used to rebuild the whole history (one clone of
//! every message) and compare it with the original on every turn; now an intact history is read
//! once and nothing is allocated but the set of tool_use ids. The group measures 1 000, 10 000
//! and 100 000 text turns (a user message and an assistant answer each) with
//! `Throughput::Elements(turns)`: the time per turn should stay flat, i.e. one check is linear in
//! the history it reads, and a history of text turns allocates nothing at all.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::pairs_intact;
use lab::transcript::{Content, Message, Role};

/// Turn counts measured.
const TURNS: [u64; 3] = [1_000, 10_000, 100_000];

/// `turns` text turns: a user question and an assistant answer each.
fn text_turns(turns: u64) -> Vec<Message> {
    (0..turns)
        .flat_map(|turn| {
            [
                Message::user_text(format!("question {turn}")),
                Message {
                    role: Role::Assistant,
                    content: Content::Text(format!("answer {turn}")),
                },
            ]
        })
        .collect()
}

fn pair_repair(c: &mut Criterion) {
    let mut group = c.benchmark_group("pair_repair/intact");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for turns in TURNS {
        let history = text_turns(turns);
        assert!(pairs_intact(&history), "a text history needs no repair");
        group.throughput(Throughput::Elements(turns));
        group.bench_with_input(BenchmarkId::from_parameter(turns), &history, |b, h| {
            b.iter(|| pairs_intact(black_box(h)));
        });
    }
    group.finish();
}

criterion_group!(benches, pair_repair);
criterion_main!(benches);
