//! `lab gen`: seeded synthetic agent sessions in the scenario format (docs/scenario-format.md).
//!
//! A workload is a list of agent-loop `turn` steps (1..k tool calls each, so every profile runs
//! its whole pipeline before each assistant message), `idle` gaps and new `user` requests, ended
//! by a text answer. Tool names come from a named mix, result sizes from a log-normal
//! distribution (Box-Muller over ChaCha8, [`math`]), tool inputs carry paths of varying depth,
//! the spill directory varies in length (the F4 path cliff) and some web results carry a
//! `Full output: <path>` line of their own (F13, a forged pointer).
//!
//! Every concern draws from its own child stream keyed by (seed, label, turn), see [`seed`]:
//! more turns append turns without changing the first ones. The [`Workload`] is a plain value
//! that `lab search` shrinks; [`Workload::to_json`] renders it with a fixed key order and one
//! step per line, byte-identical on every machine.
//!
//! `params` holds what a workload depends on, `call` one tool call and its result, `generate`
//! the generator and the [`Workload`] value, `file` its rendering as a scenario file.

mod call;
mod file;
mod generate;
pub mod math;
pub mod options;
mod params;
pub mod seed;

pub use call::{Body, GenCall, Tool};
pub use file::{Frame, gen_frame, render_scenario};
pub use generate::{GenStep, Workload, generate, max_spill_pad, spill_dir};
pub use params::{GenParams, MAX_RESULT_CHARS, MAX_WORKLOAD_CHARS, MIXES, Mix, mix_by_name};
