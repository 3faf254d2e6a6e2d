//! The command line (clap). Its types stay at this edge: [`Cli::request`] converts them once
//! into a typed [`Command`] of the library (or text only this layer can make: shell completions
//! and the man page), and [`run`] executes that. Flag spellings live only here, including those
//! of the reproduce commands the library prints ([`repro`]).

mod args;
mod docs;
mod help;
mod import;
mod probe;
mod repro;
mod value_enums;

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use args::{
    CliGenOptions, CliRunOptions, CompareArgs, ExplainArgs, GenArgs, MatrixArgs, MemoryArgs,
    MergeArgs, MonteCarloArgs, ProfilesArgs, ReportArgs, RunArgs, SearchArgs, SweepArgs,
    VerifyArgs,
};
pub use docs::CompletionsArgs;
pub use import::{AuditCliArgs, ImportCliArgs};
pub use probe::ProbeArgs;
pub use value_enums::{CliColor, CliFormat, CliStore};

use crate::commands::breaks::BreaksCmd;
use crate::commands::profiles::{OneProfile, ProfilesCmd};
use crate::commands::selftest::SelftestCmd;
use crate::commands::{self, Command, Outcome};
use crate::error::LabError;
use crate::experiments::breaks;
use crate::options::RunOptions;
use crate::render::Format;

/// harness-lab: replay scripted agent sessions through faithful models of context-compaction
/// pipelines and measure what they lose.
#[derive(Debug, Parser)]
#[command(
    name = "lab",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true,
    after_help = help::LAB
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
    /// Output format (before or after the command).
    #[arg(long, value_enum, global = true, default_value_t = CliFormat::Table)]
    pub format: CliFormat,
    /// Colour ✓, ✗ and changed values in tables: auto (a terminal, and NO_COLOR unset), always
    /// or never.
    #[arg(long, value_enum, global = true, value_name = "WHEN", default_value_t = CliColor::Auto)]
    pub color: CliColor,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Run one scenario and print its observables, results, spill store and trace.
    #[command(after_help = help::RUN)]
    Run(RunArgs),
    /// Tell what happened to one tool result, step by step, and why.
    #[command(after_help = help::EXPLAIN)]
    Explain(ExplainArgs),
    /// Check the expectations of scenario files (or every one under a directory; default
    /// scenarios/) and the built-in findings; print expected against measured.
    #[command(after_help = help::VERIFY)]
    Verify(VerifyArgs),
    /// Run a scenario over a grid of two axes and tabulate chosen observables.
    #[command(after_help = help::MATRIX)]
    Matrix(MatrixArgs),
    /// Vary one parameter over a range and report each cliff (the first value where an
    /// observable changes).
    #[command(after_help = help::SWEEP)]
    Sweep(SweepArgs),
    /// List every profile (or the one named): the system and revision it models, its sources,
    /// constants, default switches and the layers it does not model.
    #[command(after_help = help::PROFILES)]
    Profiles(ProfilesArgs),
    /// Run scenarios under several profiles and tabulate the key observables side by side.
    #[command(after_help = help::COMPARE)]
    Compare(CompareArgs),
    /// Memory experiments: a break (MB1..MB5, or all) on its probe scenario, baseline against
    /// broken, or the 60-session growth experiment against the reverse gate.
    #[command(group(clap::ArgGroup::new("experiment").required(true).args(["brk", "growth"])))]
    #[command(after_help = help::MEMORY)]
    Memory(MemoryArgs),
    /// Run N generated sessions under profiles × a switch grid: per cell the mean and a 95%
    /// interval of each loss, the context peak and the model calls. `--shard K/N` runs one slice
    /// and prints its sums as JSON for `lab merge`.
    #[command(after_help = help::MONTECARLO)]
    Montecarlo(MonteCarloArgs),
    /// Combine the shard files of one `lab montecarlo` study into its result.
    #[command(after_help = help::MERGE)]
    Merge(MergeArgs),
    /// Write a seeded synthetic session as a scenario (same seed and flags, same bytes).
    #[command(after_help = help::GEN)]
    Gen(GenArgs),
    /// Search generated sessions for one that violates a property, shrink it to a minimal
    /// scenario and write it to OUT_DIR/<property>-<profile>.json. Exit 0 when one is found,
    /// 1 when none is found within the budget.
    #[command(after_help = help::SEARCH)]
    Search(SearchArgs),
    /// Write the markdown reports (findings, breaks, matrix, sweep with an SVG chart), or check
    /// that the checked-in ones are current.
    #[command(after_help = help::REPORT)]
    Report(ReportArgs),
    /// Run a scenario through the real Claude Code or Codex against a scripted model server on
    /// 127.0.0.1 and compare every tool call and result it sent with the profile; or (--replay)
    /// compare a committed conformance record. Exit 1 when one differs.
    Probe(ProbeArgs),
    /// Print the completion script of a shell (bash, elvish, fish, powershell, zsh).
    #[command(after_help = help::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print the man page (roff): `lab man > lab.1`.
    #[command(after_help = help::MAN)]
    Man,
    /// Turn real agent session logs (Claude Code, Codex, Cline) into scenarios.
    #[command(after_help = help::IMPORT)]
    Import(ImportCliArgs),
    /// Import real sessions and replay each under every compaction profile: what each would
    /// lose, and where it compacts beside the real agent. Worst sessions first.
    #[command(after_help = help::AUDIT)]
    Audit(AuditCliArgs),
}

/// What a command line asks for.
#[expect(
    clippy::large_enum_variant,
    reason = "one value per process: its size does not matter"
)]
#[derive(Debug, Clone)]
pub enum Request {
    /// A command of the library.
    Execute(Command),
    /// Text made from the clap definition itself (completions, man page).
    Print(String),
}

impl Cli {
    /// Parses the process's arguments; on bad usage prints clap's message and exits with 2
    /// (`--help` and `--version` exit with 0).
    pub fn parse_args() -> Cli {
        Cli::try_parse_args(std::env::args_os()).unwrap_or_else(|error| error.exit())
    }

    /// Parses `args`, the program name first. `--format` and `--color` are global, so they may
    /// come before the command; but `args_conflicts_with_subcommands` (which keeps `--break`,
    /// `--selftest` and `--spill-dir` of the prototype away from the commands) counts a global
    /// argument as a conflict too. When it is the only one, the line is parsed again without
    /// that setting.
    pub fn try_parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        // Help wraps at the width tables fit (clap would prefer the terminal to COLUMNS).
        let mut command = Cli::command().term_width(value_enums::terminal_width());
        let mut matches = match command.try_get_matches_from_mut(&args) {
            Err(error) if only_format_before_command(&error) => {
                command = command.args_conflicts_with_subcommands(false);
                command.try_get_matches_from_mut(&args)?
            }
            parsed => parsed?,
        };
        Cli::from_arg_matches_mut(&mut matches).map_err(|error| error.format(&mut command))
    }

    /// The one conversion into the library's terms: every name parsed, every input read.
    pub fn request(self) -> Result<Request, LabError> {
        let format = self.format.format(self.color);
        let Some(command) = self.command else {
            return prototype(self.brk, self.spill_dir, format).map(Request::Execute);
        };
        let command = match command {
            CliCommand::Run(args) => args.into_command(format)?,
            CliCommand::Explain(args) => args.into_command(format)?,
            CliCommand::Verify(args) => args.into_command(format)?,
            CliCommand::Matrix(args) => args.into_command(format)?,
            CliCommand::Sweep(args) => args.into_command(format)?,
            CliCommand::Profiles(args) => Command::Profiles(ProfilesCmd {
                only: args.name.as_deref().map(OneProfile::by_name).transpose()?,
                format,
            }),
            CliCommand::Compare(args) => args.into_command(format)?,
            CliCommand::Memory(args) => args.into_command(format)?,
            CliCommand::Montecarlo(args) => args.into_command(format)?,
            CliCommand::Merge(args) => args.into_command(format)?,
            CliCommand::Gen(args) => args.into_command()?,
            CliCommand::Search(args) => args.into_command(format)?,
            CliCommand::Report(args) => args.into_command(),
            CliCommand::Probe(args) => args.into_command(format)?,
            CliCommand::Completions(args) => return Ok(Request::Print(docs::completions(&args))),
            CliCommand::Man => return Ok(Request::Print(docs::man_page())),
            CliCommand::Import(args) => args.into_command(format),
            CliCommand::Audit(args) => args.into_command(format),
        };
        Ok(Request::Execute(command))
    }
}

/// Whether clap refused the line only because `--format` or `--color` came before the command.
fn only_format_before_command(error: &clap::Error) -> bool {
    error.kind() == ErrorKind::ArgumentConflict
        && error.get(ContextKind::InvalidSubcommand).is_some()
        && matches!(
            error.get(ContextKind::PriorArg),
            Some(ContextValue::String(arg))
                if arg.starts_with("--format ") || arg.starts_with("--color ")
        )
}

/// `lab --break D1..D6|all` or the selftest (`lab --selftest`, or options and no command).
fn prototype(
    brk: Option<String>,
    spill_dir: Option<String>,
    format: Format,
) -> Result<Command, LabError> {
    let options = RunOptions {
        spill_dir,
        ..RunOptions::default()
    };
    Ok(match brk {
        Some(name) => Command::Breaks(BreaksCmd {
            breaks: breaks::parse(&name)?,
            options,
            format,
        }),
        None => Command::Selftest(SelftestCmd { options, format }),
    })
}

/// Runs a parsed command line; long commands report `progress(done, total)`.
pub fn run(cli: Cli, progress: &mut dyn FnMut(usize, usize)) -> Result<Outcome, LabError> {
    match cli.request()? {
        Request::Execute(command) => commands::execute_with(command, progress),
        Request::Print(text) => Ok(Outcome::new(text, true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_args(std::iter::once("lab").chain(args.iter().copied()))
    }

    #[test]
    fn the_clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn format_is_accepted_before_and_after_the_command() {
        for args in [
            &["--format", "json", "run", "s.json"][..],
            &["run", "s.json", "--format", "json"],
            &["--format=json", "run", "s.json"],
        ] {
            let cli = parse(args).unwrap();
            assert_eq!(cli.format, CliFormat::Json, "{args:?}");
            assert!(matches!(cli.command, Some(CliCommand::Run(_))), "{args:?}");
        }
        let cli = parse(&["--break", "all", "--format", "json"]).unwrap();
        assert_eq!(
            (cli.brk.as_deref(), cli.format),
            (Some("all"), CliFormat::Json)
        );
    }

    #[test]
    fn prototype_flags_still_conflict_with_commands() {
        for args in [
            &["--break", "D1", "run", "s.json"][..],
            &["--selftest", "run", "s.json"],
            &["--format", "json", "--spill-dir", "/x", "run", "s.json"],
        ] {
            let error = parse(args).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ArgumentConflict, "{args:?}");
        }
    }

    #[test]
    fn completions_and_man_page_are_printed() {
        let cli = parse(&["completions", "bash"]).unwrap();
        let Request::Print(script) = cli.request().unwrap() else {
            panic!("completions print text")
        };
        assert!(script.contains("montecarlo"), "{script}");
        let Request::Print(page) = parse(&["man"]).unwrap().request().unwrap() else {
            panic!("man prints text")
        };
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
        assert!(page.contains("montecarlo"), "{page}");
    }
}
