//! `cargo fuzz run scenario`: any bytes as a scenario file, through the loader and, when it
//! accepts them, a replay on the in-memory store (compaction or memory lab). A panic, an abort or a hang is a bug; a refusal
//! (exit 2 in the binary) is the expected answer to most inputs.
#![no_main]

use lab::options::RunOptions;
use lab::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(scenario) = Scenario::parse("fuzz.json", "fuzz", text) {
        let _ = lab::replay::run_any(&scenario, &RunOptions::default());
    }
});
