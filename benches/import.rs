//! Import throughput: how long `lab::import::import` takes to read a generated 100 MB Claude Code
//! log (issue 15: "a 100 MB log imports in seconds with memory that does not grow with the
//! file"). The log is written once, outside the timed closure, to
//! `target/import-bench/session-100mb.jsonl` (kept, so that the README's memory measurement,
//! `/usr/bin/time -v lab import <that file> -o DIR`, can read the same bytes), and the scenario
//! goes to a sink that discards it, so the time is the importer's: both passes over the file,
//! the live branch, the writer.
//!
//! The session is shaped like a real one: a prompt, then turns of one response written as two
//! records (text, then a Bash or Read call, same `message.id`), its result as a sibling record
//! (2 000 to 9 000 chars of code-like lines), `usage` on every response, a timestamp every few
//! seconds and a 75-minute pause every 500 turns; about 20 000 turns for 100 MB. The content is
//! a fixed function of the turn number: the same bytes on every machine.

use std::fs::File;
use std::hint::black_box;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lab::import::{self, ImportOptions, Sink};
use serde_json::json;

/// Size of the generated log.
const TARGET_BYTES: u64 = 100 * 1024 * 1024;

/// Discards every scenario.
struct Discard;

impl Sink for Discard {
    fn open(&mut self, _name: &str) -> io::Result<Box<dyn Write + '_>> {
        Ok(Box::new(io::sink()))
    }

    fn describe(&self, name: &str) -> String {
        name.to_owned()
    }
}

/// `2026-01-01T00:00:00.000Z` plus `seconds`.
fn stamp(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    format!(
        "2026-01-{:02}T{:02}:{:02}:{:02}.000Z",
        1 + days,
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The log being written, and its size so far.
struct Lines {
    out: BufWriter<File>,
    written: u64,
}

impl Lines {
    fn line(&mut self, value: serde_json::Value) {
        let text = value.to_string();
        self.written += text.len() as u64 + 1;
        writeln!(self.out, "{text}").expect("write the log");
    }
}

/// Writes the log (if it is not there yet) and returns its path.
fn log() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/import-bench");
    let path = dir.join("session-100mb.jsonl");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= TARGET_BYTES) {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("create target/import-bench");
    let mut out = Lines {
        out: BufWriter::new(File::create(&path).expect("create the log")),
        written: 0,
    };
    out.line(
        json!({"parentUuid": null, "isSidechain": false, "type": "user", "uuid": "u0",
        "timestamp": stamp(0), "message": {"role": "user", "content": "refactor the parser"}}),
    );
    let (mut parent, mut clock, mut turn) = ("u0".to_owned(), 0u64, 0u64);
    while out.written < TARGET_BYTES {
        turn += 1;
        clock += if turn % 500 == 0 {
            75 * 60
        } else {
            3 + turn % 5
        };
        let (tool, input) = if turn % 3 == 0 {
            (
                "Read",
                json!({"file_path": format!("/home/u/src/mod{turn}.rs")}),
            )
        } else {
            (
                "Bash",
                json!({"command": format!("cargo test -p crate{}", turn % 17)}),
            )
        };
        let (text_id, call_id, result_id) =
            (format!("a{turn}"), format!("c{turn}"), format!("r{turn}"));
        let id = format!("toolu_{turn:08}");
        let usage = json!({"input_tokens": 1000 + turn % 900, "output_tokens": 40, "cache_read_input_tokens": 20_000 + turn % 90_000});
        out.line(
            json!({"parentUuid": parent, "isSidechain": false, "type": "assistant", "uuid": text_id,
            "timestamp": stamp(clock), "message": {"id": format!("msg_{turn}"), "role": "assistant",
            "content": [{"type": "text", "text": format!("Step {turn}: checking the next module.")}], "usage": usage}}),
        );
        out.line(
            json!({"parentUuid": text_id, "isSidechain": false, "type": "assistant", "uuid": call_id,
            "timestamp": stamp(clock), "message": {"id": format!("msg_{turn}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}], "usage": usage}}),
        );
        let lines = 25 + (turn * 7919) % 100;
        let body: String = (0..lines)
            .map(|n| {
                format!(
                    "{n:>5}\tlet value_{n} = parse(input, {turn})?; // {}\n",
                    "x".repeat((turn % 30) as usize)
                )
            })
            .collect();
        out.line(
            json!({"parentUuid": call_id, "isSidechain": false, "type": "user", "uuid": result_id,
            "timestamp": stamp(clock + 1), "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": body}]}}),
        );
        parent = result_id;
    }
    out.out.flush().expect("flush the log");
    path
}

fn bench(c: &mut Criterion) {
    let path = log();
    let bytes = std::fs::metadata(&path).expect("the log").len();
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("claude-code 100 MB", |b| {
        b.iter(|| {
            let report = import::import(&path, &ImportOptions::default(), &mut Discard)
                .expect("the generated log imports");
            black_box(report.sessions[0].counts.turns)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
