//! The arguments of each subcommand, as clap parses them, and their one conversion into a typed
//! [`Command`] (ripgrep's LowArgs → HiArgs): break names, axes, ranges, profiles and the
//! generator's options are parsed here, and the inputs are read here (scenarios, shard files),
//! in the order the commands always checked them, so that the first error reported stays the
//! same.

use std::path::{Path, PathBuf};

use clap::Args;

use super::repro;
use super::value_enums::{CliStore, parse_axis, parse_pair, parse_shard};
use crate::commands::Command;
use crate::commands::compare::{self, CompareCmd};
use crate::commands::explain::{self, ExplainCmd};
use crate::commands::generate::GenCmd;
use crate::commands::matrix::MatrixCmd;
use crate::commands::memory::MemoryCmd;
use crate::commands::merge::{self, MergeCmd};
use crate::commands::montecarlo::MonteCarloCmd;
use crate::commands::report::ReportCmd;
use crate::commands::run::{self, RunCmd, RunMode};
use crate::commands::search::SearchCmd;
use crate::commands::sweep::SweepCmd;
use crate::commands::verify::VerifyCmd;
use crate::compaction::profile::PROFILES;
use crate::error::LabError;
use crate::experiments::matrix::Axis;
use crate::experiments::montecarlo::{self as mc, Study};
use crate::experiments::sweep::{self, Vary};
use crate::experiments::{self, breaks};
use crate::memory;
use crate::options::RunOptions;
use crate::render::Format;
use crate::scenario::Scenario;
use crate::search::{self, SearchParams, properties};
use crate::workload::GenParams;
use crate::workload::options::GenOptions;

/// `lab profiles [NAME]`.
#[derive(Debug, Args)]
pub struct ProfilesArgs {
    /// Only this profile (compaction or memory), e.g. `course-main` or `memory-site`.
    pub name: Option<String>,
}

/// The profile and its overrides: every command that runs a scenario.
#[derive(Debug, Args)]
pub struct CliOverrides {
    /// Profile to run under (default: the scenario's, else course-main).
    #[arg(long)]
    pub profile: Option<String>,
    /// Set a switch: `--set unseen_guard=off`, `--set order=swapped`.
    #[arg(long = "set", value_name = "SWITCH=VALUE", value_parser = parse_pair)]
    pub switches: Vec<(String, String)>,
    /// Set a constant: `--const keep_results=0`.
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub constants: Vec<(String, String)>,
}

/// The compaction layer's directories (not offered where no spill or transcript is written).
#[derive(Debug, Args)]
pub struct CliDirs {
    /// Spill directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub spill_dir: Option<String>,
    /// Transcript directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub transcript_dir: Option<String>,
}

/// The store backend.
#[derive(Debug, Args)]
pub struct CliStoreKind {
    /// Store backend: memory (virtual paths, default) or dir (a real temporary directory).
    #[arg(long, value_enum, default_value_t = CliStore::Memory)]
    pub store: CliStore,
}

/// Everything a compaction run can override: `run`, `explain`, `matrix`, `sweep`.
#[derive(Debug, Args)]
pub struct CliRunOptions {
    #[command(flatten)]
    pub overrides: CliOverrides,
    #[command(flatten)]
    pub dirs: CliDirs,
    #[command(flatten)]
    pub store: CliStoreKind,
    /// With `--store dir`: use a given --spill-dir/--transcript-dir that already holds files
    /// (they are never overwritten nor counted as spill files). Without it such a dir is refused.
    #[arg(long)]
    pub reuse_dir: bool,
}

/// What `lab memory` can override: the memory lab writes no spill or transcript.
#[derive(Debug, Args)]
pub struct CliMemoryOptions {
    #[command(flatten)]
    pub overrides: CliOverrides,
    #[command(flatten)]
    pub store: CliStoreKind,
}

/// What `lab search` can override: its candidates run on the memory store only.
#[derive(Debug, Args)]
pub struct CliSearchOptions {
    #[command(flatten)]
    pub overrides: CliOverrides,
    #[command(flatten)]
    pub dirs: CliDirs,
}

impl From<CliOverrides> for RunOptions {
    fn from(value: CliOverrides) -> Self {
        RunOptions {
            profile: value.profile,
            switches: value.switches,
            constants: value.constants,
            ..RunOptions::default()
        }
    }
}

impl From<CliRunOptions> for RunOptions {
    fn from(value: CliRunOptions) -> Self {
        RunOptions {
            spill_dir: value.dirs.spill_dir,
            transcript_dir: value.dirs.transcript_dir,
            store: value.store.store.into(),
            reuse_dir: value.reuse_dir,
            ..value.overrides.into()
        }
    }
}

impl From<CliMemoryOptions> for RunOptions {
    fn from(value: CliMemoryOptions) -> Self {
        RunOptions {
            store: value.store.store.into(),
            ..value.overrides.into()
        }
    }
}

impl From<CliSearchOptions> for RunOptions {
    fn from(value: CliSearchOptions) -> Self {
        RunOptions {
            spill_dir: value.dirs.spill_dir,
            transcript_dir: value.dirs.transcript_dir,
            ..value.overrides.into()
        }
    }
}

/// Workload parameters shared by `gen`, `search` and `montecarlo`.
#[derive(Debug, Args)]
pub struct CliGenOptions {
    /// Master seed.
    #[arg(long, default_value_t = GenParams::default().seed)]
    pub seed: u64,
    /// Agent-loop turns with tool calls (a final text answer follows).
    #[arg(long, default_value_t = GenParams::default().turns)]
    pub turns: usize,
    /// Tool mix: default, read-heavy, web, bash-heavy.
    #[arg(long, default_value = "default")]
    pub mix: String,
    /// Most tool calls in one turn.
    #[arg(long, default_value_t = GenParams::default().max_calls)]
    pub max_calls: usize,
    /// Log-normal location of result sizes (ln chars).
    #[arg(long, default_value_t = GenParams::default().size_mu)]
    pub size_mu: f64,
    /// Log-normal scale of result sizes.
    #[arg(long, default_value_t = GenParams::default().size_sigma)]
    pub size_sigma: f64,
    /// Largest result in chars.
    #[arg(long, default_value_t = GenParams::default().size_max)]
    pub size_max: usize,
}

impl From<CliGenOptions> for GenOptions {
    fn from(value: CliGenOptions) -> Self {
        GenOptions {
            seed: value.seed,
            turns: value.turns,
            mix: value.mix,
            max_calls: value.max_calls,
            size_mu: value.size_mu,
            size_sigma: value.size_sigma,
            size_max: value.size_max,
        }
    }
}

/// `lab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (`-`: read it from stdin).
    pub scenario: PathBuf,
    #[command(flatten)]
    pub options: CliRunOptions,
    /// Compare with a break applied (D1..D6, or all): baseline vs broken.
    #[arg(long = "break", value_name = "D1..D6|all")]
    pub brk: Option<String>,
    /// Do not check the scenario's expectations (a what-if run under overrides).
    #[arg(long)]
    pub no_expect: bool,
}

impl RunArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let scenario = Scenario::load(&self.scenario)?;
        let options = RunOptions::from(self.options);
        run::refuse_compaction_dirs(&scenario, &options)?;
        let mode = match self.brk.as_deref() {
            None => RunMode::Plain,
            Some(name) if names_memory_break(name) => {
                RunMode::MemoryBreaks(memory::breaks::parse(name)?)
            }
            Some(name) => {
                let list = breaks::parse(name)?;
                run::refuse_memory_profile(&scenario, &options, name)?;
                RunMode::Breaks(list)
            }
        };
        Ok(Command::Run(RunCmd {
            scenario,
            mode,
            options,
            no_expect: self.no_expect,
            format,
        }))
    }
}

/// Whether `--break NAME` of `lab run` names a memory break: `MB` and more, in any case, so that
/// an unknown `MB9` gets the memory breaks' message and `MB` alone the compaction breaks'.
fn names_memory_break(name: &str) -> bool {
    name.len() > 2 && name.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("MB"))
}

/// `lab explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The scenario file (`-`: read it from stdin).
    pub scenario: PathBuf,
    /// The tool_use_id of the result.
    pub id: String,
    #[command(flatten)]
    pub options: CliRunOptions,
    /// Explain the run with this break applied (D1..D6).
    #[arg(long = "break", value_name = "D1..D6")]
    pub brk: Option<String>,
}

impl ExplainArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let scenario = Scenario::load(&self.scenario)?;
        let options = RunOptions::from(self.options);
        explain::refuse_memory_profile(&scenario, &options)?;
        let brk = match self.brk.as_deref().map(breaks::parse).transpose()? {
            None => None,
            Some(list) => match list.as_slice() {
                [single] => Some(*single),
                _ => {
                    return Err(LabError::Usage(
                        "explain takes one break, not `all`".to_owned(),
                    ));
                }
            },
        };
        Ok(Command::Explain(ExplainCmd {
            scenario,
            id: self.id,
            options,
            brk,
            format,
        }))
    }
}

/// `lab verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Scenario files, or directories searched recursively for *.json scenarios (default:
    /// scenarios/ when it exists; the findings run without it).
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Check only the scenarios named, not the built-in findings.
    #[arg(long)]
    pub no_findings: bool,
}

impl VerifyArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let mut paths = self.paths;
        if paths.is_empty() && Path::new("scenarios").is_dir() {
            paths.push(PathBuf::from("scenarios"));
        }
        if paths.is_empty() && self.no_findings {
            return Err(LabError::Usage(
                "verify --no-findings: no scenarios to check (name files or directories, or run \
                 where scenarios/ is)"
                    .to_owned(),
            ));
        }
        Ok(Command::Verify(VerifyCmd {
            paths,
            findings: !self.no_findings,
            format,
        }))
    }
}

/// The scenario of `lab matrix` and `lab sweep`: the built-in prototype replay when absent.
fn load_or_replay(path: Option<&Path>) -> Result<Scenario, LabError> {
    match path {
        Some(path) => Ok(Scenario::load(path)?),
        None => Ok(experiments::prototype_replay()),
    }
}

/// `lab matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// The scenario file (default: the built-in prototype replay).
    pub scenario: Option<PathBuf>,
    /// Row axis: `switch`, `switch=a,b`, `constant=1,2,3` or `path=28,94` (spill file path
    /// lengths).
    #[arg(long)]
    pub rows: String,
    /// Column axis, as for --rows.
    #[arg(long)]
    pub cols: String,
    /// Observables shown in each cell.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "dropped_unsaved,pointer_lost"
    )]
    pub observe: Vec<String>,
    #[command(flatten)]
    pub options: CliRunOptions,
}

impl MatrixArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let scenario = load_or_replay(self.scenario.as_deref())?;
        let options = RunOptions::from(self.options);
        let rows = Axis::parse(&self.rows, &scenario, &options)?;
        let cols = Axis::parse(&self.cols, &scenario, &options)?;
        Ok(Command::Matrix(MatrixCmd {
            scenario,
            rows,
            cols,
            observe: self.observe,
            options,
            format,
        }))
    }
}

/// `lab sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The scenario file (default: the built-in prototype replay).
    pub scenario: Option<PathBuf>,
    /// `path` (spill file path length), a constant name, or `size:<tool_use_id>`.
    #[arg(long)]
    pub vary: String,
    /// First value.
    #[arg(long)]
    pub from: usize,
    /// Last value (inclusive).
    #[arg(long)]
    pub to: usize,
    /// Step between values.
    #[arg(long, default_value_t = 1)]
    pub step: usize,
    /// Observables shown per value.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "dropped_unsaved,pointer_lost"
    )]
    pub observe: Vec<String>,
    /// Also draw the sweep as an SVG line chart into FILE (its directory must exist).
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    #[command(flatten)]
    pub options: CliRunOptions,
}

impl SweepArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        if let Some(path) = &self.chart {
            crate::commands::check_chart_path(path)?;
        }
        let scenario = load_or_replay(self.scenario.as_deref())?;
        let options = RunOptions::from(self.options);
        let vary = Vary::parse(&self.vary, &scenario, &options)?;
        let values = sweep::range(self.from, self.to, self.step)?;
        Ok(Command::Sweep(SweepCmd {
            scenario,
            vary,
            values,
            observe: self.observe,
            options,
            format,
            chart: self.chart,
        }))
    }
}

/// `lab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Scenario files or directories.
    #[arg(default_value = "scenarios/workloads")]
    pub scenarios: Vec<PathBuf>,
    /// Profiles to compare (default: all).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
}

impl CompareArgs {
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let profiles = experiments::compare::profiles(&self.profiles)?;
        let scenarios = compare::load_scenarios(&self.scenarios)?;
        Ok(Command::Compare(CompareCmd {
            profiles,
            scenarios,
            format,
        }))
    }
}

/// `lab memory`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// The break: MB1 path guard, MB2 index rebuild, MB3 storage gates, MB4 snapshot
    /// restore, MB5 fallback on a parse failure.
    #[arg(long = "break", value_name = "MB1..MB5|all")]
    pub brk: Option<String>,
    /// Run the growth experiment (memory-main against chunked consolidation).
    #[arg(long)]
    pub growth: bool,
    /// Run every break on this scenario instead of each break's probe.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    #[command(flatten)]
    pub options: CliMemoryOptions,
}

impl MemoryArgs {
    /// The growth experiment unless a break is named (clap makes `--growth` and `--break`
    /// exclusive and requires one of them); it reads no scenario.
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let Some(name) = self.brk else {
            return Ok(Command::Memory(MemoryCmd::Growth { format }));
        };
        let breaks = memory::breaks::parse(&name)?;
        let scenario = self.scenario.as_deref().map(Scenario::load).transpose()?;
        Ok(Command::Memory(MemoryCmd::Breaks {
            breaks,
            scenario,
            options: self.options.into(),
            format,
        }))
    }
}

/// `lab montecarlo`.
#[derive(Debug, Args)]
pub struct MonteCarloArgs {
    /// Sessions to generate (session i uses the child seed (seed, "session", i)).
    #[arg(long, default_value_t = 1000)]
    pub sessions: u64,
    #[command(flatten)]
    pub generator: CliGenOptions,
    /// Profiles (default: every compaction profile, as `lab profiles` lists them).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// A grid axis: `--grid unseen_guard=on,off` (repeatable; cells are profiles × axes).
    #[arg(long = "grid", value_name = "SWITCH=V1,V2,..", value_parser = parse_axis)]
    pub grid: Vec<(String, Vec<String>)>,
    /// Run slice K of N (1-based) and print its sums as JSON, for `lab merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also draw P(any loss) per cell with its interval as an SVG chart into FILE (its
    /// directory must exist).
    #[arg(long, value_name = "FILE", conflicts_with = "shard")]
    pub chart: Option<PathBuf>,
}

impl MonteCarloArgs {
    /// The study; its profile names and switch values are checked when it runs, the chart's
    /// path before.
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        if let Some(path) = &self.chart {
            crate::commands::check_chart_path(path)?;
        }
        let profiles: Vec<String> = if self.profiles.is_empty() {
            PROFILES.iter().map(|p| p.name.to_owned()).collect()
        } else {
            self.profiles
        };
        let study = Study {
            sessions: self.sessions,
            generator: self.generator.into(),
            cells: mc::cells(&profiles, &self.grid),
        };
        Ok(Command::MonteCarlo(MonteCarloCmd {
            study,
            shard: self.shard,
            threads: self.threads,
            format,
            chart: self.chart,
        }))
    }
}

/// `lab merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shard files (every shard of the split, each once).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also draw P(any loss) per cell with its interval as an SVG chart into FILE (its
    /// directory must exist), as `lab montecarlo --chart` does.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
}

impl MergeArgs {
    /// The shards, read here; the chart's path is checked before they are.
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        if let Some(path) = &self.chart {
            crate::commands::check_chart_path(path)?;
        }
        let shards = self
            .files
            .iter()
            .map(|path| merge::read_shard(path))
            .collect::<Result<_, _>>()?;
        Ok(Command::Merge(MergeCmd {
            shards,
            format,
            chart: self.chart,
        }))
    }
}

/// `lab gen`.
#[derive(Debug, Args)]
pub struct GenArgs {
    #[command(flatten)]
    pub generator: CliGenOptions,
    /// Write the scenario to FILE instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl GenArgs {
    pub(crate) fn into_command(self) -> Result<Command, LabError> {
        let params = GenOptions::from(self.generator).params()?;
        Ok(Command::Gen(GenCmd {
            command_line: repro::gen_command(&params),
            params,
            out: self.out,
        }))
    }
}

/// `lab search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The property to violate (see --list).
    #[arg(long, required_unless_present = "list")]
    pub property: Option<String>,
    /// List the properties and exit.
    #[arg(long, conflicts_with = "property")]
    pub list: bool,
    #[command(flatten)]
    pub generator: CliGenOptions,
    /// Candidates to try; candidate i is the workload of child seed (seed, "candidate", i).
    #[arg(long, default_value_t = search::DEFAULT_BUDGET)]
    pub budget: usize,
    #[command(flatten)]
    pub options: CliSearchOptions,
    /// Directory of the minimal scenario (default ./found, never the committed scenarios/).
    #[arg(long, default_value = "found")]
    pub out_dir: PathBuf,
}

impl SearchArgs {
    /// The list without `--property` (clap requires one of `--property` and `--list`).
    pub(crate) fn into_command(self, format: Format) -> Result<Command, LabError> {
        let Some(name) = self.property else {
            return Ok(Command::Search(SearchCmd::List { format }));
        };
        let params = SearchParams {
            property: properties::by_name(&name)?,
            generator: GenOptions::from(self.generator).params()?,
            budget: self.budget,
            options: self.options.into(),
        };
        Ok(Command::Search(SearchCmd::Find {
            command_line: repro::command_line(&params),
            params,
            out_dir: self.out_dir,
            format,
        }))
    }
}

/// `lab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Directory of the reports.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Compare instead of writing; exit 1 and show the first difference when stale.
    #[arg(long)]
    pub check: bool,
}

impl ReportArgs {
    pub(crate) fn into_command(self) -> Command {
        Command::Report(ReportCmd {
            out: self.out,
            check: self.check,
        })
    }
}
