//! Reproduce commands: the `lab gen` and `lab search` command lines written into generated
//! scenario files and printed with a search's result, so that a reader can run them again. They
//! spell the flags of this layer, which is why they live here and reach the core as plain text.

use crate::search::{DEFAULT_BUDGET, SearchParams};
use crate::workload::GenParams;

/// The command line that repeats a search (flags at their defaults left out).
pub(crate) fn command_line(params: &SearchParams) -> String {
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

/// The command line that writes the same workload: `lab gen --seed N` and the flags that differ
/// from the defaults.
pub(crate) fn gen_command(params: &GenParams) -> String {
    let mut command = format!("lab gen --seed {}", params.seed);
    for flag in gen_flags(params, &GenParams::default()) {
        command.push(' ');
        command.push_str(&flag);
    }
    command
}

/// `word` as one shell word: unchanged when it holds only safe characters, else single-quoted.
pub(crate) fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=,:+@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `--turns`, `--mix`, ... for the generator parameters that differ from `defaults`.
pub(crate) fn gen_flags(params: &GenParams, defaults: &GenParams) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::RunOptions;
    use crate::search::properties;

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
