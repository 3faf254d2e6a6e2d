//! Claude Code's pair repair (`ensureToolResultPairing`'s model; issue 13, defect D8 of issue
//! 11), at 1 000, 10 000 and 100 000 turns with `Throughput::Elements(turns)`, so that criterion
//! reports the time per turn, which must stay flat as the turns grow:
//!
//! - `pair_repair/intact`: one read-only check `pairs_intact` of a history of text turns (a user
//!   message and an assistant answer each): linear in the history it reads, no allocation.
//! - `pair_repair/replay`: a whole claude-code replay of `turns` agent-loop turns (one `Read`
//!   call and its 200-character result each), with the stage on and off (`pair_repair=off`);
//!   the difference is what the stage costs. The stage runs before every request; it used to
//!   read the whole history each time (8 000 text turns took 29.5 s in the audit, quadratic).
//!   The history now keeps how far it found the pairs intact and reads only what was appended
//!   since, so the whole replay reads each message once more, not once per request.
//!
//! Filter one group with `cargo bench --bench pair_repair -- replay`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::driver::run;
use lab::compaction::pairs_intact;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use lab::transcript::{Content, Message, Role};
use serde_json::json;

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

/// A claude-code scenario of `turns` turns, each one `Read` call answered by a 200-character
/// result (`turns` steps: 100 000 is the most a scenario may hold).
fn agent_turns(turns: u64) -> Scenario {
    let steps: Vec<_> = (0..turns)
        .map(|turn| {
            let id = format!("toolu_{turn}");
            json!({"turn": {
                "calls": [{"id": id, "name": "Read", "input": {"file_path": format!("/src/f{turn}.rs")}}],
                "results": [{"id": id, "chars": 200}],
            }})
        })
        .collect();
    let text = json!({"profile": "claude-code", "request": "Read them all.", "steps": steps});
    Scenario::parse("bench.json", "bench", &text.to_string()).expect("the bench scenario is valid")
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("pair_repair/replay");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for turns in TURNS {
        let scenario = agent_turns(turns);
        group.throughput(Throughput::Elements(turns));
        for repair in ["on", "off"] {
            let options = RunOptions {
                switches: vec![("pair_repair".to_owned(), repair.to_owned())],
                ..RunOptions::default()
            };
            let id = BenchmarkId::new(format!("pair_repair={repair}"), turns);
            group.bench_with_input(id, &scenario, |b, s| {
                b.iter(|| run(black_box(s), &options).expect("the bench scenario runs"));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, pair_repair, replay);
criterion_main!(benches);
