//! `lab search`: find a generated workload that violates a property under a profile, then shrink
//! it to a minimal scenario (proptest-state-machine style: drop whole steps, then single calls,
//! then simplify sizes and path lengths, until nothing changes).
//!
//! Candidate `i` is the workload of the child seed (seed, "candidate", i), so a search is
//! reproducible from its command line. A reduction is kept only when the scenario still parses
//! and validates and the property is still violated; the result is a local minimum: no step and
//! no call can be removed, no size made smaller by one, without losing the violation.
//!
//! `properties` is the registry of what can be searched for, `engine` the candidate loop and
//! `shrink` the shrinker.

mod engine;
pub mod properties;
mod shrink;

pub use engine::{Found, SearchParams, SearchReport, found_name, search};
pub use shrink::{ShrinkStats, shrink};

use crate::workload::GenParams;

/// The tests of the reproduce command line build a `SearchParams`.
#[cfg(test)]
use crate::options::RunOptions;

/// The command line that repeats a search (flags at their defaults left out).
pub fn command_line(params: &SearchParams) -> String {
    let defaults = GenParams::default();
    let mut parts = vec![
        "lab search".to_owned(),
        format!("--property {}", params.property.name),
    ];
    if let Some(profile) = &params.options.profile {
        parts.push(format!("--profile {profile}"));
    }
    for (k, v) in &params.options.switches {
        parts.push(format!("--set {}", shell_word(&format!("{k}={v}"))));
    }
    for (k, v) in &params.options.constants {
        parts.push(format!("--const {}", shell_word(&format!("{k}={v}"))));
    }
    parts.push(format!("--seed {}", params.generator.seed));
    if params.budget != DEFAULT_BUDGET {
        parts.push(format!("--budget {}", params.budget));
    }
    parts.extend(gen_flags(&params.generator, &defaults));
    if let Some(dir) = &params.options.spill_dir {
        parts.push(format!("--spill-dir {}", shell_word(dir)));
    }
    if let Some(dir) = &params.options.transcript_dir {
        parts.push(format!("--transcript-dir {}", shell_word(dir)));
    }
    parts.join(" ")
}

/// `word` as one shell word: unchanged when it holds only safe characters, else single-quoted.
pub fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=,:+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `--turns`, `--mix`, ... for the generator parameters that differ from `defaults`.
pub fn gen_flags(params: &GenParams, defaults: &GenParams) -> Vec<String> {
    let mut flags = Vec::new();
    if params.turns != defaults.turns {
        flags.push(format!("--turns {}", params.turns));
    }
    if params.mix.name != defaults.mix.name {
        flags.push(format!("--mix {}", params.mix.name));
    }
    if params.max_calls != defaults.max_calls {
        flags.push(format!("--max-calls {}", params.max_calls));
    }
    if params.size_mu != defaults.size_mu {
        flags.push(format!("--size-mu {}", params.size_mu));
    }
    if params.size_sigma != defaults.size_sigma {
        flags.push(format!("--size-sigma {}", params.size_sigma));
    }
    if params.size_max != defaults.size_max {
        flags.push(format!("--size-max {}", params.size_max));
    }
    flags
}

/// Candidates `lab search` tries by default.
pub const DEFAULT_BUDGET: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_survive_a_shell() {
        assert_eq!(shell_word("/tmp/lab/tool-results"), "/tmp/lab/tool-results");
        assert_eq!(shell_word("/tmp/my dir"), "'/tmp/my dir'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn command_line_names_what_differs_from_the_defaults() {
        let mut params = SearchParams {
            property: properties::by_name("pointer_lost").unwrap(),
            generator: GenParams::default(),
            budget: DEFAULT_BUDGET,
            options: RunOptions::default(),
        };
        assert_eq!(
            command_line(&params),
            "lab search --property pointer_lost --seed 1"
        );
        params.generator.seed = 9;
        params.generator.turns = 30;
        params.generator.mix = crate::workload::mix_by_name("web").unwrap();
        params.budget = 50;
        params.options.profile = Some("course-site".to_owned());
        params.options.switches = vec![("unseen_guard".to_owned(), "off".to_owned())];
        assert_eq!(
            command_line(&params),
            "lab search --property pointer_lost --profile course-site --set unseen_guard=off --seed 9 --budget 50 --turns 30 --mix web"
        );
    }
}
