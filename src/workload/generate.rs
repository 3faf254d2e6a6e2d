//! The generator: a seeded [`Workload`] of agent-loop turns, idle gaps and user requests, ended
//! by a text answer. Every concern draws from its own child stream keyed by (seed, label, turn)
//! (see [`super::seed`]), so more turns append turns without changing the first ones and a size
//! parameter moves no tool or path.

use super::call::{Body, GenCall, Tool};
use super::params::GenParams;
use super::{math, seed};
use crate::python::json;
use crate::scenario::DEFAULT_SPILL_DIR;

/// One step of a generated workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenStep {
    /// An agent-loop turn with these calls (at least one).
    Turn(Vec<GenCall>),
    /// Minutes without an assistant message.
    Idle(u64),
    /// A new user request.
    User(String),
    /// The final text answer (a turn without calls: one more pass of the pipeline).
    Answer(String),
}

/// A generated workload: the value `lab search` shrinks, rendered by [`Workload::to_json`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    pub request: String,
    /// Characters of deep directory in the spill path; 0 keeps the default spill directory.
    pub spill_pad: usize,
    pub steps: Vec<GenStep>,
}

/// Directory names of the deep spill path, cut to `spill_pad` characters.
const DEEP: &str = "Library/Mobile Documents/com~apple~CloudDocs/research/agent-harness/learn-claude-code/s08_context_compact/workdir/sessions/2026-03/nightly-runs/benchmarks/long-horizon/archive";
const DIRS: &[&str] = &[
    "src",
    "parser",
    "lexer",
    "tests",
    "fixtures",
    "crates",
    "core",
    "util",
    "docs",
    "api",
    "v2",
    "internal",
    "generated",
    "vendor",
    "third_party",
    "integration-tests",
];
const FILES: &[&str] = &[
    "mod.rs",
    "lib.rs",
    "main.rs",
    "build.log",
    "README.md",
    "config.toml",
    "output.txt",
    "trace.json",
    "CHANGELOG.md",
];
const REQUESTS: &[&str] = &[
    "The nightly build fails; find out why and fix it.",
    "Add a --json flag to the report command.",
    "Why is the parser so slow on large inputs?",
    "Summarise what changed in the last release.",
];
const FOLLOW_UPS: &[&str] = &[
    "Also check the integration tests.",
    "Now look at the documentation.",
    "Try the release build too.",
    "Can you compare it with upstream?",
];
const FORGED: &[&str] = &["/etc/passwd", "/home/lab/.ssh/id_ed25519", "/tmp/evil.txt"];
const IDLE_MINUTES: &[u64] = &[5, 20, 45, 61, 90, 240];

/// The spill directory of a pad length: the default for 0, else a deep directory.
pub fn spill_dir(pad: usize) -> String {
    if pad == 0 {
        return DEFAULT_SPILL_DIR.to_owned();
    }
    let cut = json::char_prefix(DEEP, pad.min(DEEP.chars().count()));
    format!(
        "/Users/lab/{}/.task_outputs/tool-results",
        cut.trim_end_matches('/')
    )
}

/// Longest `spill_pad` the generator draws.
pub fn max_spill_pad() -> usize {
    DEEP.chars().count()
}

/// Generates the workload of `params` (checked with [`GenParams::check`] first).
pub fn generate(params: &GenParams) -> Workload {
    use seed::{below, chance, child};
    let s = params.seed;
    let request = REQUESTS[below(&mut child(s, "request", 0), REQUESTS.len())].to_owned();
    let mut spill_rng = child(s, "spill_dir", 0);
    let spill_pad = if chance(&mut spill_rng, params.deep_spill_rate) {
        1 + below(&mut spill_rng, max_spill_pad())
    } else {
        0
    };
    let mut steps = Vec::new();
    for turn in 0..params.turns {
        let t = turn as u64;
        if turn > 0 {
            let mut idle = child(s, "idle", t);
            if chance(&mut idle, params.idle_rate) {
                steps.push(GenStep::Idle(
                    IDLE_MINUTES[below(&mut idle, IDLE_MINUTES.len())],
                ));
            }
            let mut user = child(s, "user", t);
            if chance(&mut user, params.user_rate) {
                steps.push(GenStep::User(
                    FOLLOW_UPS[below(&mut user, FOLLOW_UPS.len())].to_owned(),
                ));
            }
        }
        steps.push(GenStep::Turn(turn_calls(params, turn)));
    }
    steps.push(GenStep::Answer("Done.".to_owned()));
    Workload {
        request,
        spill_pad,
        steps,
    }
}

/// The calls of turn `turn` (0-based): 1..=k of them, each with its tool, input path, variant
/// and result, from the turn's own child streams.
fn turn_calls(params: &GenParams, turn: usize) -> Vec<GenCall> {
    use seed::{below, chance, child, unit, weighted};
    let (s, t) = (params.seed, turn as u64);
    let mut count_rng = child(s, "calls", t);
    let mut count = 1;
    while count < params.max_calls && chance(&mut count_rng, 0.45) {
        count += 1;
    }
    let mut tools = child(s, "tools", t);
    let mut sizes = child(s, "sizes", t);
    let mut inputs = child(s, "inputs", t);
    let mut inject = child(s, "inject", t);
    let mut calls = Vec::new();
    for index in 0..count {
        let tool = Tool::ALL[weighted(&mut tools, &params.mix.weights)];
        let (u1, u2) = (unit(&mut sizes), unit(&mut sizes));
        let chars = math::log_normal(
            u1,
            u2,
            params.size_mu,
            params.size_sigma,
            1,
            params.size_max,
        );
        let depth = below(&mut inputs, 9);
        let dirs = (0..depth)
            .map(|_| DIRS[below(&mut inputs, DIRS.len())].to_owned())
            .collect();
        let file = FILES[below(&mut inputs, FILES.len())].to_owned();
        let variant = below(&mut inputs, 12);
        let injected = chance(&mut inject, params.inject_rate);
        let target = FORGED[below(&mut inject, FORGED.len())];
        let body = match tool {
            Tool::Edit | Tool::Write => Body::Ack,
            Tool::WebFetch if injected => Body::Injected {
                target: target.to_owned(),
                // A page, not a log: at most 4000 chars keeps the file readable.
                chars: chars.min(4000),
            },
            _ => Body::Chars(chars),
        };
        calls.push(GenCall {
            id: format!("toolu_{:02}_{index}", turn + 1),
            tool,
            dirs,
            file,
            variant,
            body,
        });
    }
    calls
}

impl Workload {
    /// Turns with calls.
    pub fn turns(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, GenStep::Turn(_)))
            .count()
    }

    /// Tool calls in all turns.
    pub fn calls(&self) -> usize {
        self.steps
            .iter()
            .map(|s| match s {
                GenStep::Turn(calls) => calls.len(),
                _ => 0,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::gen_frame;

    fn sizes(w: &Workload) -> Vec<(String, Body)> {
        w.steps
            .iter()
            .flat_map(|s| match s {
                GenStep::Turn(calls) => calls.clone(),
                _ => Vec::new(),
            })
            .map(|c| (c.id, c.body))
            .collect()
    }

    #[test]
    fn same_params_same_workload_and_it_parses() {
        let params = GenParams::default();
        let a = generate(&params);
        assert_eq!(a, generate(&params));
        let frame = gen_frame(&params, "lab gen --seed 1");
        let scenario = a.scenario(&frame, "gen").unwrap();
        assert_eq!(scenario.name, "gen-seed1");
        assert_eq!(a.turns(), 12);
        assert!(a.calls() >= 12);
        let report =
            crate::compaction::driver::run(&scenario, &crate::options::RunOptions::default())
                .unwrap();
        assert!(report.observables.model_calls <= 12);
    }

    #[test]
    fn more_turns_keep_the_first_turns() {
        let short = generate(&GenParams {
            turns: 5,
            ..GenParams::default()
        });
        let long = generate(&GenParams {
            turns: 9,
            ..GenParams::default()
        });
        let first = sizes(&short);
        assert_eq!(&sizes(&long)[..first.len()], first.as_slice());
        assert_eq!(short.spill_pad, long.spill_pad);
    }

    #[test]
    fn a_size_parameter_does_not_move_tools_or_paths() {
        let a = generate(&GenParams::default());
        let b = generate(&GenParams {
            size_mu: 5.0,
            ..GenParams::default()
        });
        let shape = |w: &Workload| -> Vec<(Tool, String)> {
            w.steps
                .iter()
                .flat_map(|s| match s {
                    GenStep::Turn(calls) => calls.clone(),
                    _ => Vec::new(),
                })
                .map(|c| (c.tool, c.path()))
                .collect()
        };
        assert_eq!(shape(&a), shape(&b));
        assert_ne!(sizes(&a), sizes(&b));
    }

    #[test]
    fn spill_dirs_grow_with_the_pad() {
        assert_eq!(spill_dir(0), DEFAULT_SPILL_DIR);
        let lengths: Vec<usize> = [1, 10, 60, 120]
            .iter()
            .map(|p| spill_dir(*p).chars().count())
            .collect();
        assert!(lengths.windows(2).all(|w| w[0] < w[1]), "{lengths:?}");
        assert!(!spill_dir(8).contains("//"));
    }
}
