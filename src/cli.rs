//! Command-line parsing (clap). The types here stay at the edge and convert into core commands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::compaction::store::StoreKind;
use crate::options::RunOptions;
use crate::render::Format;
use crate::workload::GenParams;
use crate::{
    BreakArgs, Command, CompareArgs, ExplainArgs, GenArgs, GenOptions, MatrixArgs, MemoryArgs,
    MergeArgs, MonteCarloArgs, ReportArgs, RunArgs, SearchArgs, SweepArgs, VerifyArgs,
};

/// harness-lab: replay scripted agent sessions through faithful models of context-compaction
/// pipelines and measure what they lose.
#[derive(Debug, Parser)]
#[command(
    name = "lab",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<CliCommand>,
    /// Run a break of the companion prototype (D1..D6, or all) against its baseline and list
    /// every observable that changed.
    #[arg(long = "break", value_name = "D1..D6|all", conflicts_with = "selftest")]
    pub brk: Option<String>,
    /// Run the prototype's selftest on the lab's models.
    #[arg(long)]
    pub selftest: bool,
    /// Spill directory of the prototype replay (default: its 87-char deep directory).
    #[arg(long)]
    pub spill_dir: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CliFormat::Table)]
    pub format: CliFormat,
}

#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Turn real agent session logs (Claude Code, Codex, Cline, Gemini CLI) into scenarios.
    Import {
        /// A session log, or a folder searched for *.jsonl and *messages.json logs.
        input: PathBuf,
        /// The log format (claude-code, codex, cline, gemini-cli); detected per file if absent.
        #[arg(long, value_parser = crate::commands::import::parse_format)]
        from: Option<crate::import::Format>,
        /// Replace every text by filler of the same size (ids, tool names, sizes kept).
        #[arg(long)]
        redact: bool,
        /// A bad line is an error (exit 2) instead of being skipped and counted.
        #[arg(long)]
        strict: bool,
        /// Folder for the scenarios (`<session>.json` each); without it the one scenario of a
        /// single session goes to stdout.
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Format of the summary printed with -o.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Import real sessions and replay each under every compaction profile: what each would
    /// lose, and where it compacts beside the real agent. Worst sessions first.
    Audit {
        /// A session log, or a folder searched for logs.
        input: PathBuf,
        /// The log format; detected per file if absent.
        #[arg(long, value_parser = crate::commands::import::parse_format)]
        from: Option<crate::import::Format>,
        /// Profiles to replay under (default: every compaction profile).
        #[arg(long, value_delimiter = ',')]
        profiles: Vec<String>,
        /// A bad line of a log is an error instead of being skipped.
        #[arg(long)]
        strict: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run one scenario and print its observables, results, spill store and trace.
    Run {
        /// The scenario file.
        scenario: PathBuf,
        #[command(flatten)]
        options: CliRunOptions,
        /// Compare with a break applied (D1..D6, or all): baseline vs broken.
        #[arg(long = "break", value_name = "D1..D6|all")]
        brk: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Tell what happened to one tool result, step by step, and why.
    Explain {
        /// The scenario file.
        scenario: PathBuf,
        /// The tool_use_id of the result.
        id: String,
        #[command(flatten)]
        options: CliRunOptions,
        /// Explain the run with this break applied (D1..D6).
        #[arg(long = "break", value_name = "D1..D6")]
        brk: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run every scenario's expectations under DIR and the built-in findings; print expected
    /// against measured.
    Verify {
        /// Directory searched recursively for *.json scenarios.
        #[arg(default_value = "scenarios")]
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run a scenario over a grid of two axes and tabulate chosen observables.
    Matrix {
        /// The scenario file (default: the built-in prototype replay).
        scenario: Option<PathBuf>,
        /// Row axis: `switch`, `switch=a,b`, `constant=1,2,3` or `path=28,94` (spill file path
        /// lengths).
        #[arg(long)]
        rows: String,
        /// Column axis, as for --rows.
        #[arg(long)]
        cols: String,
        /// Observables shown in each cell.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "lost_forever,pointer_lost"
        )]
        observe: Vec<String>,
        #[command(flatten)]
        options: CliRunOptions,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Vary one parameter over a range and report each cliff (the first value where an
    /// observable changes).
    Sweep {
        /// The scenario file (default: the built-in prototype replay).
        scenario: Option<PathBuf>,
        /// `path` (spill file path length), a constant name, or `size:<tool_use_id>`.
        #[arg(long)]
        vary: String,
        /// First value.
        #[arg(long)]
        from: usize,
        /// Last value (inclusive).
        #[arg(long)]
        to: usize,
        /// Step between values.
        #[arg(long, default_value_t = 1)]
        step: usize,
        /// Observables shown per value.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "lost_forever,pointer_lost"
        )]
        observe: Vec<String>,
        #[command(flatten)]
        options: CliRunOptions,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// List every profile: the system and revision it models, its sources, constants, default
    /// switches and the layers it does not model.
    Profiles {
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run scenarios under several profiles and tabulate the key observables side by side.
    Compare {
        /// Scenario files or directories (default: scenarios/workloads).
        scenarios: Vec<PathBuf>,
        /// Profiles to compare (default: all).
        #[arg(long, value_delimiter = ',')]
        profiles: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Memory experiments: a break (MB1..MB5, or all) on its probe scenario, baseline against
    /// broken, or the 60-session growth experiment against the reverse gate.
    #[command(group(clap::ArgGroup::new("experiment").required(true).args(["brk", "growth"])))]
    Memory {
        /// The break: MB1 path guard, MB2 index rebuild, MB3 storage gates, MB4 snapshot
        /// restore, MB5 fallback on a parse failure.
        #[arg(long = "break", value_name = "MB1..MB5|all")]
        brk: Option<String>,
        /// Run the growth experiment (memory-main against chunked consolidation).
        #[arg(long)]
        growth: bool,
        /// Run every break on this scenario instead of each break's probe.
        #[arg(long)]
        scenario: Option<PathBuf>,
        #[command(flatten)]
        options: CliRunOptions,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Run N generated sessions under profiles × a switch grid: per cell the mean and a 95%
    /// interval of each loss, the context peak and the model calls. `--shard K/N` runs one slice
    /// and prints its sums as JSON for `lab merge`.
    Montecarlo {
        /// Sessions to generate (session i uses the child seed (seed, "session", i)).
        #[arg(long, default_value_t = 1000)]
        sessions: u64,
        #[command(flatten)]
        generator: CliGenOptions,
        /// Profiles (default: the five compaction profiles).
        #[arg(long, value_delimiter = ',')]
        profiles: Vec<String>,
        /// A grid axis: `--grid unseen_guard=on,off` (repeatable; cells are profiles × axes).
        #[arg(long = "grid", value_name = "SWITCH=V1,V2,..", value_parser = parse_axis)]
        grid: Vec<(String, Vec<String>)>,
        /// Run slice K of N (1-based) and print its sums as JSON, for `lab merge`.
        #[arg(long, value_name = "K/N", value_parser = parse_shard)]
        shard: Option<(u64, u64)>,
        /// Worker threads (default: one per core). The output does not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Output format (a shard is always JSON).
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Combine the shard files of one `lab montecarlo` study into its result.
    Merge {
        /// The shard files (every shard of the split, each once).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Write a seeded synthetic session as a scenario (same seed and flags, same bytes).
    Gen {
        #[command(flatten)]
        generator: CliGenOptions,
        /// Write the scenario to FILE instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Search generated sessions for one that violates a property, shrink it to a minimal
    /// scenario and write it to OUT_DIR/<property>-<profile>.json. Exit 0 when one is found,
    /// 1 when none is found within the budget.
    Search {
        /// The property to violate (see --list).
        #[arg(long, required_unless_present = "list")]
        property: Option<String>,
        /// List the properties and exit.
        #[arg(long, conflicts_with = "property")]
        list: bool,
        #[command(flatten)]
        generator: CliGenOptions,
        /// Candidates to try; candidate i is the workload of child seed (seed, "candidate", i).
        #[arg(long, default_value_t = crate::search::DEFAULT_BUDGET)]
        budget: usize,
        #[command(flatten)]
        options: CliRunOptions,
        /// Directory of the minimal scenario.
        #[arg(long, default_value = "scenarios/found")]
        out_dir: PathBuf,
        /// Output format (of --list).
        #[arg(long, value_enum, default_value_t = CliFormat::Table)]
        format: CliFormat,
    },
    /// Write the markdown reports (findings, breaks, matrix, sweep with an SVG chart), or check
    /// that the checked-in ones are current.
    Report {
        /// Directory of the reports.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// Compare instead of writing; exit 1 and show the first difference when stale.
        #[arg(long)]
        check: bool,
    },
}

/// Workload parameters shared by `gen` and `search`.
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

/// Overrides shared by the commands that run a scenario.
#[derive(Debug, Args)]
pub struct CliRunOptions {
    /// Profile to run under (default: the scenario's, else course-main).
    #[arg(long)]
    pub profile: Option<String>,
    /// Set a switch: `--set unseen_guard=off`, `--set order=swapped`.
    #[arg(long = "set", value_name = "SWITCH=VALUE", value_parser = parse_pair)]
    pub switches: Vec<(String, String)>,
    /// Set a constant: `--const keep_results=0`.
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub constants: Vec<(String, String)>,
    /// Spill directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub spill_dir: Option<String>,
    /// Transcript directory (an absolute path; virtual with the memory store).
    #[arg(long)]
    pub transcript_dir: Option<String>,
    /// Store backend: memory (virtual paths, default) or dir (a real temporary directory).
    #[arg(long, value_enum, default_value_t = CliStore::Memory)]
    pub store: CliStore,
}

fn parse_axis(text: &str) -> Result<(String, Vec<String>), String> {
    let (name, values) = parse_pair(text)?;
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_owned()).collect();
    if values.iter().any(String::is_empty) {
        return Err(format!(
            "expected SWITCH=V1,V2,.. with no empty value, got `{text}`"
        ));
    }
    Ok((name, values))
}

fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("expected K/N with 1 <= K <= N, got `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliFormat {
    Table,
    Markdown,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliStore {
    Memory,
    Dir,
}

impl From<CliFormat> for Format {
    fn from(value: CliFormat) -> Self {
        match value {
            CliFormat::Table => Format::Table,
            CliFormat::Markdown => Format::Markdown,
            CliFormat::Json => Format::Json,
        }
    }
}

impl From<CliStore> for StoreKind {
    fn from(value: CliStore) -> Self {
        match value {
            CliStore::Memory => StoreKind::Memory,
            CliStore::Dir => StoreKind::Dir,
        }
    }
}

impl From<CliRunOptions> for RunOptions {
    fn from(value: CliRunOptions) -> Self {
        RunOptions {
            profile: value.profile,
            switches: value.switches,
            constants: value.constants,
            spill_dir: value.spill_dir,
            transcript_dir: value.transcript_dir,
            store: value.store.into(),
        }
    }
}

impl From<Cli> for Command {
    fn from(cli: Cli) -> Self {
        let top_options = RunOptions {
            spill_dir: cli.spill_dir.clone(),
            ..RunOptions::default()
        };
        let Some(command) = cli.command else {
            return match cli.brk {
                Some(name) => Command::Break(BreakArgs {
                    name,
                    options: top_options,
                    format: cli.format.into(),
                }),
                None => Command::Selftest(top_options, cli.format.into()),
            };
        };
        match command {
            CliCommand::Run {
                scenario,
                options,
                brk,
                format,
            } => Command::Run(RunArgs {
                scenario,
                options: options.into(),
                brk,
                format: format.into(),
            }),
            CliCommand::Explain {
                scenario,
                id,
                options,
                brk,
                format,
            } => Command::Explain(ExplainArgs {
                scenario,
                id,
                options: options.into(),
                brk,
                format: format.into(),
            }),
            CliCommand::Verify { dir, format } => Command::Verify(VerifyArgs {
                dir,
                format: format.into(),
            }),
            CliCommand::Matrix {
                scenario,
                rows,
                cols,
                observe,
                options,
                format,
            } => Command::Matrix(MatrixArgs {
                scenario,
                rows,
                cols,
                observe,
                options: options.into(),
                format: format.into(),
            }),
            CliCommand::Sweep {
                scenario,
                vary,
                from,
                to,
                step,
                observe,
                options,
                format,
            } => Command::Sweep(SweepArgs {
                scenario,
                vary,
                from,
                to,
                step,
                observe,
                options: options.into(),
                format: format.into(),
            }),
            CliCommand::Memory {
                brk,
                growth: _,
                scenario,
                options,
                format,
            } => Command::Memory(MemoryArgs {
                name: brk,
                scenario,
                options: options.into(),
                format: format.into(),
            }),
            CliCommand::Montecarlo {
                sessions,
                generator,
                profiles,
                grid,
                shard,
                threads,
                format,
            } => Command::MonteCarlo(MonteCarloArgs {
                sessions,
                generator: generator.into(),
                profiles,
                grid,
                shard,
                threads,
                format: format.into(),
            }),
            CliCommand::Merge { files, format } => Command::Merge(MergeArgs {
                files,
                format: format.into(),
            }),
            CliCommand::Gen { generator, out } => Command::Gen(GenArgs {
                generator: generator.into(),
                out,
            }),
            CliCommand::Search {
                property,
                list: _,
                generator,
                budget,
                options,
                out_dir,
                format,
            } => Command::Search(SearchArgs {
                property,
                generator: generator.into(),
                budget,
                options: options.into(),
                out_dir,
                format: format.into(),
            }),
            CliCommand::Report { out, check } => Command::Report(ReportArgs { out, check }),
            CliCommand::Profiles { format } => Command::Profiles(format.into()),
            CliCommand::Audit {
                input,
                from,
                profiles,
                strict,
                format,
            } => Command::Audit(crate::commands::audit::AuditArgs {
                input,
                options: crate::import::ImportOptions {
                    from,
                    redact: false,
                    strict,
                },
                profiles,
                format: format.into(),
            }),
            CliCommand::Import {
                input,
                from,
                redact,
                strict,
                out,
                format,
            } => Command::Import(crate::commands::import::ImportArgs {
                input,
                options: crate::import::ImportOptions {
                    from,
                    redact,
                    strict,
                },
                out,
                format: format.into(),
            }),
            CliCommand::Compare {
                scenarios,
                profiles,
                format,
            } => Command::Compare(CompareArgs {
                profiles,
                scenarios,
                format: format.into(),
            }),
        }
    }
}
