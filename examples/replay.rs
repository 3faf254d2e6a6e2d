//! Replays one generated session under a profile, `N` times in a row, for a profiler: the
//! instruction counts per replay and per turn in `docs/benchmarks.md` come from this program
//! under callgrind, which counts only inside `measured` (the session is generated, and with
//! `--warm` replayed once, before it):
//!
//! ```sh
//! cargo build --release --example replay
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='replay::measured' \
//!     target/release/examples/replay course-latest 1 --warm
//! ```
//!
//! The session is the bench's (`benches/replay.rs`): by default the issue-13 session (`lab gen
//! --seed 1 --turns 3000 --size-max 50000`), or with `--capped` the bench's capped family (its
//! seed, 1-3 calls a turn, results at most 4 000 chars) at `--turns` turns, 30 000 included,
//! beyond `lab gen`'s bound. With `--time` each replay is timed and the fastest, median and mean
//! are printed (wall time is the bench's to measure; this is for a quick look).
//!
//! With `--floor` each timed replay is paired with the bench's memcpy floor of the session's
//! result bytes (the fastest of five copies), measured just before it (with one untimed replay
//! between them, which the copies leave without its data in the cache), and the ratios of the
//! pairs are printed: on a machine whose speed drifts from one minute to the next, a replay's
//! ratio to a floor measured beside it moves less than its time does.
//!
//! With `--events` the session is replayed once, and the trace's events per thousand turns are
//! printed by stage and kind, with the spill files at the end: where a profile's work per turn
//! grows with the session's length, these tell whether the modelled system does more per turn
//! (more compressions, more files) or the lab does more per event.
//!
//! Usage: `replay PROFILE N [--warm] [--time] [--floor] [--capped] [--turns T] [--events]`. Bad
//! arguments exit 2.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use lab::compaction::driver::run;
use lab::compaction::profile::PROFILES;
use lab::options::RunOptions;
use lab::scenario::Scenario;
use lab::workload::{self, Frame};

#[path = "../benches/sessions/mod.rs"]
mod sessions;

/// What the command line asks for.
struct Args {
    profile: String,
    replays: usize,
    warm: bool,
    time: bool,
    floor: bool,
    capped: bool,
    turns: usize,
    events: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let profile = args.next().ok_or("a profile name is required")?;
    if !PROFILES.iter().any(|p| p.name == profile) {
        return Err(format!("no profile {profile:?}"));
    }
    let replays = args
        .next()
        .ok_or("a replay count is required")?
        .parse()
        .map_err(|e| format!("the replay count: {e}"))?;
    let mut parsed = Args {
        profile,
        replays,
        warm: false,
        time: false,
        floor: false,
        capped: false,
        turns: 3_000,
        events: false,
    };
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--warm" => parsed.warm = true,
            "--time" => parsed.time = true,
            "--floor" => {
                parsed.time = true;
                parsed.floor = true;
            }
            "--capped" => parsed.capped = true,
            "--events" => parsed.events = true,
            "--turns" => {
                let turns = args.next().ok_or("--turns needs a number")?;
                parsed.turns = turns.parse().map_err(|e| format!("--turns {turns}: {e}"))?;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(parsed)
}

/// The session: the issue-13 one, or the bench's capped family at `turns` turns.
fn session(args: &Args) -> Result<Scenario, String> {
    let params = if args.capped {
        sessions::capped(args.turns)
    } else {
        sessions::issue13(args.turns)
    };
    let frame = Frame {
        name: format!("replay-{}", args.turns),
        ..Frame::default()
    };
    workload::generate(&params)
        .scenario(&frame, "replay example")
        .map_err(|e| e.to_string())
}

/// The replays a profiler counts.
#[inline(never)]
fn measured(scenario: &Scenario, options: &RunOptions, replays: usize) -> Result<(), String> {
    for _ in 0..replays {
        black_box(run(black_box(scenario), options).map_err(|e| e.to_string())?);
    }
    Ok(())
}

/// Replays once and prints the trace's events per thousand turns by stage and kind, and the
/// spill files at the end.
fn print_events(scenario: &Scenario, options: &RunOptions, turns: usize) -> Result<(), String> {
    let report = run(scenario, options).map_err(|e| e.to_string())?;
    let mut counts = std::collections::BTreeMap::new();
    for event in &report.trace {
        *counts.entry((event.stage, event.kind)).or_insert(0usize) += 1;
    }
    let per_thousand = |n: usize| n as f64 * 1000.0 / turns.max(1) as f64;
    for ((stage, kind), n) in counts {
        println!("{stage:>24} {kind:<12} {n:>9} {:>10.1}", per_thousand(n));
    }
    let files = report.spill.len();
    println!(
        "{:>24} {:<12} {files:>9} {:>10.1}",
        "spill files",
        "at the end",
        per_thousand(files)
    );
    Ok(())
}

/// Times `args.replays` replays (each beside its floor with `--floor`) and prints the fastest,
/// the median and the mean, and with `--floor` the ratios of the pairs.
fn timed(scenario: &Scenario, options: &RunOptions, args: &Args) -> Result<(), String> {
    let source = if args.floor {
        sessions::result_bytes(scenario)
    } else {
        Vec::new()
    };
    let mut target = vec![0u8; source.len()];
    let mut times = Vec::with_capacity(args.replays);
    let mut ratios = Vec::with_capacity(args.replays);
    let mut floors = Vec::with_capacity(args.replays);
    for _ in 0..args.replays {
        let floor = if args.floor {
            sessions::fastest_copy(&source, &mut target, 5).as_secs_f64() * 1e3
        } else {
            0.0
        };
        if args.floor {
            // The copies evicted the replay's data; the bench times a replay among replays.
            measured(scenario, options, 1)?;
        }
        let start = Instant::now();
        measured(scenario, options, 1)?;
        let time = start.elapsed().as_secs_f64() * 1e3;
        times.push(time);
        if args.floor {
            ratios.push(time / floor);
            floors.push(floor);
        }
    }
    if args.floor {
        ratios.sort_by(f64::total_cmp);
        floors.sort_by(f64::total_cmp);
        if let (Some(fastest), Some(median), Some(floor)) =
            (ratios.first(), ratios.get(ratios.len() / 2), floors.first())
        {
            println!(
                "{}: replay over its floor ({} bytes, fastest copy {floor:.3} ms): lowest {fastest:.2}x, median {median:.2}x over {} pairs",
                args.profile,
                source.len(),
                ratios.len()
            );
        }
    }
    times.sort_by(f64::total_cmp);
    if let (Some(fastest), Some(median)) = (times.first(), times.get(times.len() / 2)) {
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "{}: fastest {fastest:.3} ms, median {median:.3} ms, mean {mean:.3} ms over {} replays",
            args.profile,
            times.len()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            eprintln!(
                "replay: {error}\nusage: replay PROFILE N [--warm] [--time] [--floor] [--capped] [--turns T] [--events]"
            );
            return ExitCode::from(2);
        }
    };
    let outcome = session(&args).and_then(|scenario| {
        let options = RunOptions {
            profile: Some(args.profile.clone()),
            ..RunOptions::default()
        };
        if args.events {
            return print_events(&scenario, &options, args.turns);
        }
        if args.warm {
            // Outside `measured`: a profiler toggled on it counts the replays that follow.
            black_box(run(&scenario, &options).map_err(|e| e.to_string())?);
        }
        if !args.time {
            return measured(&scenario, &options, args.replays);
        }
        timed(&scenario, &options, &args)
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("replay: {error}");
            ExitCode::from(2)
        }
    }
}
