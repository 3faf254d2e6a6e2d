//! Replay throughput per profile, against the floor of touching the session's bytes: how long
//! `lab::compaction::driver::run` takes to replay one generated session under each compaction
//! profile (in-memory store), and how long a `memcpy` of the same session's result bytes takes.
//!
//! Why: `History` keeps each message's size and the size of each tool_result content, so no
//! string is measured twice, snip bounds the messages in context and Claude Code's summary is
//! bounded by its call's max_tokens: each turn costs about the same and the replay cost must grow
//! linearly with the turns. The groups measure 300, 3 000 and 30 000 turns with
//! `Throughput::Elements(turns)`: the time per turn should stay flat (30 000 within about 10 % of
//! 3 000), and a profile's replay divided by `floor/memcpy` at the same turn count is how many
//! times the cost of copying every result byte once it spends (issue 13: at most 5, 3 for
//! course-main). Filter with `cargo bench --bench replay -- 3000` to run one size. The group
//! `issue13/3000` replays the session issue 13 took its ratios on (`lab gen --seed 1 --turns 3000
//! --size-max 50000`: 32.8 MB of results, larger ones than the capped family's), beside its own
//! floor. Each group measures its floor twice, before the profiles (`floor-memcpy`) and after
//! them (`floor-memcpy-after`): the machine's load drifts over a group's minutes, and a ratio to
//! the floor is only as good as the two floors' agreement. The issue-13 group also pairs every
//! timed replay with a floor measured just before it (the fastest of three copies, then one
//! untimed replay, as the copies evicted the replay's data; `examples/replay --floor` pairs them
//! the same way): each sample's replay and floor times are saved beside criterion's
//! own files, in `<profile>/3000/paired.json` under the group's directory, and
//! `tools/bench_ratios.py` divides each sample's replay by its own floor, which a load drifting
//! between minutes moves together. Then `interleaved-rounds` pairs replays with floors the same
//! way in rounds that take every profile in turn, so that a spell of load on the host falls on
//! every profile alike instead of on the one being measured (`interleaved.json` under its
//! directory); `tools/bench_ratios.py` decides by these when they are there.
//!
//! Scenarios are built once, outside the timed closure, by `lab::workload::generate` (what
//! `lab gen` writes) from a fixed master seed: `turns` agent-loop turns of the default tool mix
//! with 1-3 calls each, idle gaps, follow-up requests and a final answer, result sizes log-normal
//! (median about 1 800 chars) capped at 4 000 chars: every size uses the same flags, so the cost
//! per turn is comparable, and the cap keeps the 30 000-turn session within the scenario limit on
//! the result characters a run may hold (`limits::MAX_TOTAL_RESULT_CHARS`, 1e8: about 8.8e7 chars
//! here; a cap of 20 000 passes it at step 16 374). `lab gen --max-calls 3 --size-max 4000`
//! writes the 300- and 3 000-turn sessions; it stops at 10 000 turns, so the 30 000-turn session
//! comes from the library.

use std::cell::RefCell;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lab::compaction::driver::run;
use lab::compaction::profile::PROFILES;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use lab::workload::{self, Frame, GenParams};

#[path = "sessions/mod.rs"]
mod sessions;

/// Turn counts measured.
const TURNS: [u64; 3] = [300, 3_000, 30_000];

/// The scenario of a generated `turns`-turn session.
fn synthetic(turns: u64) -> Scenario {
    let count = usize::try_from(turns).expect("a turn count fits in usize");
    generated(sessions::capped(count), &format!("synthetic-{turns}"))
}

/// The scenario `lab gen` writes for `params`, named `name`.
fn generated(params: GenParams, name: &str) -> Scenario {
    let turns = params.turns;
    // `lab gen` refuses more than 10 000 turns; the library generator has no such bound, and the
    // bound that matters, the characters one run may hold, the size cap keeps.
    if turns <= 10_000 {
        params
            .check()
            .expect("the bench parameters are within bounds");
    }
    let frame = Frame {
        name: name.to_owned(),
        ..Frame::default()
    };
    workload::generate(&params)
        .scenario(&frame, "bench")
        .expect("a generated workload is valid")
}

fn replay(c: &mut Criterion) {
    for turns in TURNS {
        measure(
            c,
            &format!("replay/{turns}"),
            turns,
            &synthetic(turns),
            false,
        );
    }
    // The session issue 13 measured its floor ratios on (`lab gen --seed 1 --turns 3000
    // --size-max 50000`, the profile's gen3000: 32.8 MB of results, median 1 808 chars).
    let issue = sessions::issue13(3_000);
    measure(c, "issue13/3000", 3_000, &generated(issue, "gen3000"), true);
}

/// One group: the memcpy floor of `scenario`'s result bytes, then a replay under each profile;
/// with `paired`, each profile's replays paired with floors too ([`save_paired`]).
fn measure(c: &mut Criterion, name: &str, turns: u64, scenario: &Scenario, paired: bool) {
    let mut group = c.benchmark_group(name);
    // Warm-up and measurement times are criterion's defaults, or the command line's
    // (`-- --warm-up-time 1 --measurement-time 3`).
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(turns));
    let source = sessions::result_bytes(scenario);
    let target = RefCell::new(vec![0u8; source.len()]);
    let copy = || sessions::copy(&source, &mut target.borrow_mut());
    let floor = |group: &mut criterion::BenchmarkGroup<'_, _>, name: &str| {
        group.bench_function(BenchmarkId::new(name, turns), |b| b.iter(copy));
    };
    floor(&mut group, "floor-memcpy");
    // Each profile's run options, in the order of `PROFILES` (the interleaved rounds use them
    // too).
    let options: Vec<RunOptions> = PROFILES
        .iter()
        .map(|profile| RunOptions {
            profile: Some(profile.name.to_owned()),
            ..RunOptions::default()
        })
        .collect();
    for (profile, options) in PROFILES.iter().zip(&options) {
        let replay = || run(black_box(scenario), options).expect("the synthetic scenario runs");
        // Each call of a paired bench's routine: its replays' and its floors' total times.
        let mut calls: Vec<(Duration, Duration, u64)> = Vec::new();
        group.bench_function(BenchmarkId::new(profile.name, turns), |b| {
            if !paired {
                b.iter(replay);
                return;
            }
            b.iter_custom(|iters| {
                let (mut replays, mut floors) = (Duration::ZERO, Duration::ZERO);
                for _ in 0..iters {
                    let (replay, floor) = paired_replay(&replay, &source, &target);
                    replays += replay;
                    floors += floor;
                }
                calls.push((replays, floors, iters));
                replays
            });
        });
        if paired && !calls.is_empty() {
            save_paired(name, profile.name, turns, &calls);
        }
    }
    if paired {
        let inputs = (scenario, options.as_slice(), source.as_slice(), &target);
        interleaved(&mut group, name, turns, inputs);
    }
    // The floor again after the profiles: the machine's load drifts over the minutes a group
    // takes, and the two floors bracket the profiles' times (a ratio is only as good as their
    // agreement).
    floor(&mut group, "floor-memcpy-after");
    group.finish();
}

/// One replay paired with its floor: the fastest of [`FLOOR_COPIES`] copies of the result
/// bytes, then a replay left untimed (the copies evicted the replay's data), then the replay
/// timed. Returns the timed replay's time and the floor's.
fn paired_replay<R>(
    replay: &impl Fn() -> R,
    source: &[u8],
    target: &RefCell<Vec<u8>>,
) -> (Duration, Duration) {
    let floor = sessions::fastest_copy(source, &mut target.borrow_mut(), FLOOR_COPIES);
    black_box(replay());
    let start = Instant::now();
    black_box(replay());
    (start.elapsed(), floor)
}

/// The bench function whose rounds replay every profile in turn ([`interleaved`]).
const INTERLEAVED: &str = "interleaved-rounds";

/// Rounds of paired replays over every profile, interleaved: each round takes the profiles in
/// turn (from a different first profile each round), and each replay is paired with a floor
/// just before it as in [`measure`] ([`paired_replay`]). A profile's own samples are taken within the half-minute
/// criterion gives it, so a spell of load on the host can cover all of one profile's pairs and
/// none of the next one's; spread over rounds, a spell costs every profile a few pairs, and
/// each profile's median pair stands. (Google Benchmark interleaves its runs for the same
/// reason, `--benchmark_enable_random_interleaving`.) Criterion times a call of `iters` rounds;
/// every round's pairs, the warm-up's included, are saved in `interleaved.json` under the
/// group's directory ([`save_interleaved`]).
fn interleaved(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    turns: u64,
    (scenario, options, source, target): (&Scenario, &[RunOptions], &[u8], &RefCell<Vec<u8>>),
) {
    // Per profile, in the order of `PROFILES`: each round's replay and floor.
    let mut pairs: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); PROFILES.len()];
    let mut rounds = 0;
    group.bench_function(BenchmarkId::new(INTERLEAVED, turns), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for turn in 0..PROFILES.len() {
                    let at = (rounds + turn) % PROFILES.len();
                    let replay =
                        || run(black_box(scenario), &options[at]).expect("the scenario runs");
                    let (elapsed, floor) = paired_replay(&replay, source, target);
                    total += elapsed;
                    pairs[at].push((elapsed, floor));
                }
                rounds += 1;
            }
            total
        });
    });
    if rounds > 0 {
        save_interleaved(name, turns, &pairs);
    }
}

/// Samples a bench function takes, after its warm-up.
const SAMPLES: usize = 10;

/// Copies of the result bytes made before each paired replay, the fastest taken as its floor.
const FLOOR_COPIES: usize = 3;

/// Writes the paired samples of `profile` in group `group` as JSON: the last [`SAMPLES`] calls
/// of its routine (criterion calls it during the warm-up first, then once per sample), each
/// sample's replay and floor in milliseconds per iteration.
fn save_paired(group: &str, profile: &str, turns: u64, calls: &[(Duration, Duration, u64)]) {
    let samples = &calls[calls.len().saturating_sub(SAMPLES)..];
    let per_iteration = |total: Duration, iters: u64| total.as_secs_f64() * 1e3 / iters as f64;
    let list = |pick: fn(&(Duration, Duration, u64)) -> Duration| -> Vec<String> {
        samples
            .iter()
            .map(|call| format!("{:.6}", per_iteration(pick(call), call.2)))
            .collect()
    };
    let json = format!(
        "{{\"replay_ms\": [{}], \"floor_ms\": [{}]}}\n",
        list(|call| call.0).join(", "),
        list(|call| call.1).join(", ")
    );
    save_json(group, profile, turns, "paired.json", &json);
}

/// Writes the interleaved rounds of group `group` as JSON: per profile, each round's replay and
/// floor in milliseconds.
fn save_interleaved(group: &str, turns: u64, pairs: &[Vec<(Duration, Duration)>]) {
    let ms = |time: &Duration| format!("{:.6}", time.as_secs_f64() * 1e3);
    let profiles: Vec<String> = PROFILES
        .iter()
        .zip(pairs)
        .map(|(profile, pairs)| {
            let replays: Vec<String> = pairs.iter().map(|(replay, _)| ms(replay)).collect();
            let floors: Vec<String> = pairs.iter().map(|(_, floor)| ms(floor)).collect();
            format!(
                "\"{}\": {{\"replay_ms\": [{}], \"floor_ms\": [{}]}}",
                profile.name,
                replays.join(", "),
                floors.join(", ")
            )
        })
        .collect();
    let json = format!("{{\n{}\n}}\n", profiles.join(",\n"));
    save_json(group, INTERLEAVED, turns, "interleaved.json", &json);
}

/// Writes `json` as `file` beside criterion's own files of bench `bench` in group `group`; a
/// failure is reported, and the bench goes on.
fn save_json(group: &str, bench: &str, turns: u64, file: &str, json: &str) {
    let dir = criterion_home()
        .join(group.replace('/', "_"))
        .join(bench)
        .join(turns.to_string());
    let written = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join(file), json));
    if let Err(error) = written {
        eprintln!("replay bench: {}: {error}", dir.display());
    }
}

/// Where criterion keeps its files: `CRITERION_HOME`, else `criterion` in cargo's target
/// directory (`CARGO_TARGET_DIR`, else `target` in the package), as criterion itself finds it.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    target.join("criterion")
}

criterion_group!(benches, replay);
criterion_main!(benches);
