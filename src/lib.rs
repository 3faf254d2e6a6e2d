//! harness-lab: a laboratory for the context-management layer of LLM agent harnesses.
//!
//! It replays scripted agent sessions ([`scenario`]) through faithful, deterministic models of
//! real compaction pipelines ([`profile`], [`stages`]), lets a user switch single safeguards off
//! ([`switches`]) and measures what breaks ([`observables`]). Every command is one library call
//! ([`execute`]); the binary only parses arguments and prints.

pub mod check;
pub mod cli;
pub mod commands;
pub mod compaction;
pub mod diff;
pub mod error;
pub mod experiments;
pub(crate) mod fmt;
pub mod import;
pub mod memory;
pub mod options;
pub mod python;
pub mod render;
pub mod replay;
pub mod report;
pub mod scenario;
pub mod search;
pub mod trace;
pub mod transcript;
pub mod workload;

use std::path::PathBuf;

use compaction::driver;
use compaction::{explain, profile};
pub use error::LabError;
use experiments::verify;
use options::RunOptions;
use render::Format;
use scenario::Scenario;

/// `lab run`.
#[derive(Debug, Clone)]
pub struct RunArgs {
    pub scenario: PathBuf,
    pub options: RunOptions,
    /// Compare against a break (`D1`..`D6` or `all`) instead of printing one run.
    pub brk: Option<String>,
    pub format: Format,
}

/// `lab explain`.
#[derive(Debug, Clone)]
pub struct ExplainArgs {
    pub scenario: PathBuf,
    pub id: String,
    pub options: RunOptions,
    /// Explain the run with this break applied.
    pub brk: Option<String>,
    pub format: Format,
}

/// `lab verify`.
#[derive(Debug, Clone)]
pub struct VerifyArgs {
    pub dir: PathBuf,
    pub format: Format,
}

/// `lab --break`.
#[derive(Debug, Clone)]
pub struct BreakArgs {
    pub name: String,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab matrix`.
#[derive(Debug, Clone)]
pub struct MatrixArgs {
    /// The scenario; the built-in prototype replay when absent.
    pub scenario: Option<PathBuf>,
    pub rows: String,
    pub cols: String,
    pub observe: Vec<String>,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab sweep`.
#[derive(Debug, Clone)]
pub struct SweepArgs {
    /// The scenario; the built-in prototype replay when absent.
    pub scenario: Option<PathBuf>,
    pub vary: String,
    pub from: usize,
    pub to: usize,
    pub step: usize,
    pub observe: Vec<String>,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab report`.
#[derive(Debug, Clone)]
pub struct ReportArgs {
    pub out: PathBuf,
    pub check: bool,
}

/// `lab compare`.
#[derive(Debug, Clone)]
pub struct CompareArgs {
    /// Profile names (all when empty).
    pub profiles: Vec<String>,
    /// Scenario files or directories (`scenarios/workloads` when empty).
    pub scenarios: Vec<PathBuf>,
    pub format: Format,
}

/// `lab memory --break`.
#[derive(Debug, Clone)]
pub struct MemoryArgs {
    /// `MB1`..`MB5` or `all`; the growth experiment when absent.
    pub name: Option<String>,
    /// A scenario to run every break on instead of each break's probe.
    pub scenario: Option<PathBuf>,
    pub options: RunOptions,
    pub format: Format,
}

/// `lab montecarlo`.
#[derive(Debug, Clone)]
pub struct MonteCarloArgs {
    pub sessions: u64,
    /// The generator; its seed is the study's master seed.
    pub generator: GenOptions,
    /// Profile names (the five compaction profiles when empty).
    pub profiles: Vec<String>,
    /// Switch axes, each with its values.
    pub grid: Vec<(String, Vec<String>)>,
    /// `(K, N)`: run slice K of N and print its sums.
    pub shard: Option<(u64, u64)>,
    pub threads: Option<usize>,
    pub format: Format,
}

/// `lab merge`.
#[derive(Debug, Clone)]
pub struct MergeArgs {
    pub files: Vec<PathBuf>,
    pub format: Format,
}

/// Workload options shared by `lab gen`, `lab search` and `lab montecarlo`, as given on the
/// command line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenOptions {
    pub seed: u64,
    pub turns: usize,
    /// A mix name of [`workload::MIXES`].
    pub mix: String,
    pub max_calls: usize,
    pub size_mu: f64,
    pub size_sigma: f64,
    pub size_max: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        let d = workload::GenParams::default();
        GenOptions {
            seed: d.seed,
            turns: d.turns,
            mix: d.mix.name.to_owned(),
            max_calls: d.max_calls,
            size_mu: d.size_mu,
            size_sigma: d.size_sigma,
            size_max: d.size_max,
        }
    }
}

impl GenOptions {
    /// The checked generator parameters.
    pub fn params(&self) -> Result<workload::GenParams, LabError> {
        let params = workload::GenParams {
            seed: self.seed,
            turns: self.turns,
            mix: workload::mix_by_name(&self.mix)?,
            max_calls: self.max_calls,
            size_mu: self.size_mu,
            size_sigma: self.size_sigma,
            size_max: self.size_max,
            ..workload::GenParams::default()
        };
        params.check()?;
        Ok(params)
    }
}

/// `lab gen`.
#[derive(Debug, Clone)]
pub struct GenArgs {
    pub generator: GenOptions,
    /// Write the scenario here instead of printing it.
    pub out: Option<PathBuf>,
}

/// `lab search`.
#[derive(Debug, Clone)]
pub struct SearchArgs {
    /// The property to violate; `None` lists the properties.
    pub property: Option<String>,
    pub generator: GenOptions,
    pub budget: usize,
    pub options: RunOptions,
    /// Where the minimal scenario is written (`<property>-<profile>.json`).
    pub out_dir: PathBuf,
    pub format: Format,
}

/// One command of the binary.
#[derive(Debug, Clone)]
pub enum Command {
    Import(commands::import::ImportArgs),
    Audit(commands::audit::AuditArgs),
    Profiles(Format),
    Compare(CompareArgs),
    Run(RunArgs),
    Explain(ExplainArgs),
    Verify(VerifyArgs),
    Break(BreakArgs),
    Selftest(RunOptions, Format),
    Matrix(MatrixArgs),
    Sweep(SweepArgs),
    Report(ReportArgs),
    Memory(MemoryArgs),
    MonteCarlo(MonteCarloArgs),
    Merge(MergeArgs),
    Gen(GenArgs),
    Search(SearchArgs),
}

/// What a command prints and its exit code (0, or 1 when an expectation or check failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub code: u8,
}

fn outcome(text: String, ok: bool) -> Outcome {
    Outcome {
        text,
        code: if ok { 0 } else { 1 },
    }
}

/// Writes a generated file, creating its directory.
fn write_file(path: &std::path::Path, text: &str) -> Result<(), LabError> {
    let error = |source| LabError::Write {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    std::fs::write(path, text).map_err(error)
}

fn load_or_replay(path: &Option<PathBuf>) -> Result<Scenario, LabError> {
    match path {
        Some(path) => Ok(Scenario::load(path)?),
        None => Ok(experiments::prototype_replay()),
    }
}

/// Runs one command.
pub fn execute(command: Command) -> Result<Outcome, LabError> {
    execute_with(command, &mut |_, _| {})
}

/// Runs one command; long sweeps report `progress(done, total)`.
pub fn execute_with(
    command: Command,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Outcome, LabError> {
    match command {
        Command::Import(args) => commands::import::execute(&args),
        Command::Audit(args) => commands::audit::execute(&args, progress),
        Command::Profiles(format) => Ok(outcome(render::all_profiles(format), true)),
        Command::Compare(args) => {
            let profiles = experiments::compare::profiles(&args.profiles)?;
            let paths = if args.scenarios.is_empty() {
                vec![PathBuf::from("scenarios/workloads")]
            } else {
                args.scenarios.clone()
            };
            let mut scenarios = Vec::new();
            for path in paths {
                if path.is_dir() {
                    for file in verify::scenario_files(&path)? {
                        scenarios.push(Scenario::load(&file)?);
                    }
                } else {
                    scenarios.push(Scenario::load(&path)?);
                }
            }
            let report = experiments::compare::run(&profiles, &scenarios)?;
            Ok(outcome(render::compare(&report, args.format), true))
        }
        Command::Run(args) => {
            let scenario = Scenario::load(&args.scenario)?;
            if let Some(name) = args
                .brk
                .as_deref()
                .filter(|n| n.len() > 2 && n[..2].eq_ignore_ascii_case("MB"))
            {
                let list = memory::breaks::parse(name)?;
                let report = memory::breaks::run(&list, Some(&scenario), &args.options)?;
                return Ok(outcome(render::memory_breaks(&report, args.format), true));
            }
            if let Some(name) = &args.brk {
                let list = experiments::breaks::parse(name)?;
                if let Some(memory) = memory::run::memory_profile(&scenario, &args.options) {
                    return Err(LabError::Usage(format!(
                        "{}: `{name}` is a compaction break and {} is a memory profile; \
                         memory breaks are MB1..MB5 or all",
                        scenario.name, memory.name
                    )));
                }
                let report = experiments::breaks::run(Some(&scenario), &list, &args.options)?;
                let mut text = render::breaks(&report, args.format);
                if let [single] = list.as_slice() {
                    if args.format != Format::Json {
                        let broken = driver::run(&scenario, &single.apply(&args.options))?;
                        text.push_str(&format!("\nthe run with {}:\n\n", single.name));
                        text.push_str(&render::run(&broken, args.format));
                    }
                }
                return Ok(outcome(text, true));
            }
            match crate::replay::run_any(&scenario, &args.options)? {
                crate::replay::Ran::Compaction(report) => {
                    Ok(outcome(render::run(&report, args.format), report.passed()))
                }
                crate::replay::Ran::Memory(report) => Ok(outcome(
                    render::memory_run(&report, args.format),
                    report.passed(),
                )),
            }
        }
        Command::Explain(args) => {
            let scenario = Scenario::load(&args.scenario)?;
            if let Some(memory) = memory::run::memory_profile(&scenario, &args.options) {
                return Err(LabError::Usage(format!(
                    "{}: explain follows tool results through compaction, and {} is a memory \
                     profile; `lab run` prints a memory run's trace",
                    scenario.name, memory.name
                )));
            }
            let options = match &args.brk {
                Some(name) => match experiments::breaks::parse(name)?.as_slice() {
                    [single] => single.apply(&args.options),
                    _ => {
                        return Err(LabError::Usage(
                            "explain takes one break, not `all`".to_owned(),
                        ));
                    }
                },
                None => args.options.clone(),
            };
            let report = driver::run(&scenario, &options)?;
            let explanation = explain::explain(&report, &args.id)?;
            Ok(outcome(render::explain(&explanation, args.format), true))
        }
        Command::Verify(args) => {
            let report = verify::verify(&args.dir)?;
            Ok(outcome(
                render::verify(&report, args.format),
                report.passed(),
            ))
        }
        Command::Break(args) => {
            let list = experiments::breaks::parse(&args.name)?;
            let report = experiments::breaks::run(None, &list, &args.options)?;
            Ok(outcome(render::breaks(&report, args.format), true))
        }
        Command::Memory(args) => {
            let Some(name) = &args.name else {
                let report = memory::growth::run();
                return Ok(outcome(render::memory_growth(&report, args.format), true));
            };
            let list = memory::breaks::parse(name)?;
            let scenario = args
                .scenario
                .as_ref()
                .map(|p| Scenario::load(p))
                .transpose()?;
            let report = memory::breaks::run(&list, scenario.as_ref(), &args.options)?;
            Ok(outcome(render::memory_breaks(&report, args.format), true))
        }
        Command::Gen(args) => {
            let params = args.generator.params()?;
            let mut command = format!("lab gen --seed {}", params.seed);
            for flag in search::gen_flags(&params, &workload::GenParams::default()) {
                command.push(' ');
                command.push_str(&flag);
            }
            let workload = workload::generate(&params);
            let text = workload.to_json(&workload::gen_frame(&params, &command));
            let Some(out) = args.out else {
                return Ok(outcome(text, true));
            };
            write_file(&out, &text)?;
            Ok(outcome(
                format!(
                    "wrote {}: {} turns, {} calls\n",
                    out.display(),
                    workload.turns(),
                    workload.calls()
                ),
                true,
            ))
        }
        Command::Search(args) => {
            let Some(name) = &args.property else {
                return Ok(outcome(
                    render::properties(search::properties::PROPERTIES, args.format),
                    true,
                ));
            };
            let params = search::SearchParams {
                property: search::properties::by_name(name)?,
                generator: args.generator.params()?,
                budget: args.budget,
                options: args.options.clone(),
            };
            let report = search::search(&params, progress)?;
            let command = search::command_line(&params);
            let written = match &report.found {
                Some(found) => {
                    let path = args.out_dir.join(format!("{}.json", found.frame.name));
                    write_file(&path, &found.workload.to_json(&found.frame))?;
                    Some(path)
                }
                None => None,
            };
            Ok(outcome(
                render::search(&report, written.as_deref(), &command),
                report.found.is_some(),
            ))
        }
        Command::Selftest(options, format) => {
            let report = experiments::selftest::run(&options)?;
            Ok(outcome(render::selftest(&report, format), report.passed()))
        }
        Command::Matrix(args) => {
            let scenario = load_or_replay(&args.scenario)?;
            let rows = experiments::matrix::Axis::parse(&args.rows, &scenario, &args.options)?;
            let cols = experiments::matrix::Axis::parse(&args.cols, &scenario, &args.options)?;
            let report =
                experiments::matrix::run(&scenario, &rows, &cols, &args.observe, &args.options)?;
            Ok(outcome(render::matrix(&report, args.format), true))
        }
        Command::Sweep(args) => {
            let scenario = load_or_replay(&args.scenario)?;
            let vary = experiments::sweep::Vary::parse(&args.vary, &scenario, &args.options)?;
            let values = experiments::sweep::range(args.from, args.to, args.step)?;
            let report = experiments::sweep::run(
                &scenario,
                &vary,
                &values,
                &args.observe,
                &args.options,
                progress,
            )?;
            Ok(outcome(render::sweep(&report, args.format), true))
        }
        Command::MonteCarlo(args) => {
            use experiments::montecarlo as mc;
            let profiles = if args.profiles.is_empty() {
                profile::PROFILES
                    .iter()
                    .map(|p| p.name.to_owned())
                    .collect()
            } else {
                args.profiles.clone()
            };
            let study = mc::Study {
                sessions: args.sessions,
                generator: args.generator.clone(),
                cells: mc::cells(&profiles, &args.grid),
            };
            let (index, of) = args.shard.unwrap_or((1, 1));
            let shard = mc::run_with_threads(&study, index, of, args.threads, progress)?;
            if args.shard.is_some() {
                return Ok(outcome(render::json(&shard), true));
            }
            Ok(outcome(
                render::montecarlo(&mc::report(&shard), args.format),
                true,
            ))
        }
        Command::Merge(args) => {
            use experiments::montecarlo as mc;
            let mut shards = Vec::new();
            for path in &args.files {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(path).map_err(|source| LabError::Io {
                    path: name.clone(),
                    source,
                })?;
                let shard: mc::Shard = serde_json::from_str(&text).map_err(|e| {
                    LabError::Usage(format!(
                        "{name}:{}:{}: not a montecarlo shard: {e}",
                        e.line(),
                        e.column()
                    ))
                })?;
                shards.push((name, shard));
            }
            let whole = mc::merge(shards)?;
            Ok(outcome(
                render::montecarlo(&mc::report(&whole), args.format),
                true,
            ))
        }
        Command::Report(args) => {
            let done = report::report(&args.out, args.check)?;
            let text = match (&done.stale, args.check) {
                (Some(diff), _) => format!(
                    "stale report: {diff}\nregenerate with `cargo run --release -- report`\n"
                ),
                (None, true) => format!(
                    "{} reports in {} are up to date\n",
                    done.files.len(),
                    args.out.display()
                ),
                (None, false) => format!(
                    "wrote {} reports to {}: {}\n",
                    done.files.len(),
                    args.out.display(),
                    done.files.join(", ")
                ),
            };
            Ok(outcome(text, done.stale.is_none()))
        }
    }
}
