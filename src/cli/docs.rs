//! The command line described for other programs, generated from the clap definition so that it
//! never drifts: shell completion scripts (clap_complete) and the man page (clap_mangen).

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

/// `lab completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: `lab completions bash > /etc/bash_completion.d/lab`.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The completion script of `args.shell`.
pub(crate) fn completions(args: &CompletionsArgs) -> String {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "lab", &mut script);
    String::from_utf8(script).expect("clap_complete writes UTF-8")
}

/// The man page of `lab` in roff, its commands listed.
pub(crate) fn man_page() -> String {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .expect("writing to a Vec does not fail");
    String::from_utf8(page).expect("clap_mangen writes UTF-8")
}
