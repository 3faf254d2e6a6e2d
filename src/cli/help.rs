//! The text after each command's `--help`: one or two real examples (each is run by the cli
//! tests from the crate's root) and the exit codes. `lab --help` also lists the prototype's
//! breaks D1–D6, one line each.

/// Exit codes, the same for every command.
macro_rules! exit_codes {
    () => {
        "Exit codes: 0 ok, 1 an expectation, finding or check failed, 2 bad usage or input."
    };
}

/// `lab --help`.
pub(crate) const LAB: &str = concat!(
    "Breaks of the companion prototype (lab --break NAME, or all):\n",
    "  D1  the loop trusts stop_reason instead of looking for tool_use blocks\n",
    "  D2  compaction order swapped: micro runs before budget\n",
    "  D3  no tool_use/tool_result pair protection at the cut\n",
    "  D4  permission gates inverted: human approval before the deny list\n",
    "  D5  the barrier-free pipeline gets a barrier between stages\n",
    "  D6  both safeguards gone: swapped order and no unseen guard\n\n",
    "Examples:\n",
    "  lab --break D6\n",
    "  lab run scenarios/f01-coverage-gap.json\n\n",
    exit_codes!()
);

/// `lab run --help`.
pub(crate) const RUN: &str = concat!(
    "Examples:\n",
    "  lab run scenarios/f01-coverage-gap.json\n",
    "  lab run scenarios/f01-coverage-gap.json --const keep_results=10 --no-expect\n\n",
    exit_codes!()
);

/// `lab explain --help`.
pub(crate) const EXPLAIN: &str = concat!(
    "Example:\n",
    "  lab explain scenarios/f01-coverage-gap.json toolu_1\n\n",
    exit_codes!()
);

/// `lab verify --help`.
pub(crate) const VERIFY: &str = concat!(
    "Examples:\n",
    "  lab verify\n",
    "  lab verify scenarios/f01-coverage-gap.json --no-findings\n\n",
    exit_codes!()
);

/// `lab matrix --help`.
pub(crate) const MATRIX: &str = concat!(
    "Example:\n",
    "  lab matrix --rows order --cols unseen_guard\n\n",
    exit_codes!()
);

/// `lab sweep --help`.
pub(crate) const SWEEP: &str = concat!(
    "Examples:\n",
    "  lab sweep --vary path --from 86 --to 94 --set unseen_guard=off\n",
    "  lab sweep --vary path --from 60 --to 120 --chart sweep.svg\n\n",
    exit_codes!()
);

/// `lab profiles --help`.
pub(crate) const PROFILES: &str = concat!(
    "Examples:\n",
    "  lab profiles\n",
    "  lab profiles course-main --format json\n\n",
    exit_codes!()
);

/// `lab compare --help`.
pub(crate) const COMPARE: &str = concat!(
    "Example:\n",
    "  lab compare scenarios/workloads/injected-result.json\n\n",
    exit_codes!()
);

/// `lab memory --help`.
pub(crate) const MEMORY: &str = concat!(
    "Examples:\n",
    "  lab memory --break MB4\n",
    "  lab memory --growth\n\n",
    exit_codes!()
);

/// `lab montecarlo --help`.
pub(crate) const MONTECARLO: &str = concat!(
    "Examples:\n",
    "  lab montecarlo --sessions 100 --profiles course-main,course-latest --grid unseen_guard=on,off\n",
    "  lab montecarlo --sessions 100 --chart loss.svg\n",
    "  lab montecarlo --sessions 100 --shard 1/2 > shard-1.json\n\n",
    exit_codes!()
);

/// `lab merge --help`.
pub(crate) const MERGE: &str = concat!(
    "Examples:\n",
    "  lab merge shard-1.json shard-2.json\n",
    "  lab merge shard-*.json --chart loss.svg\n\n",
    exit_codes!()
);

/// `lab gen --help`.
pub(crate) const GEN: &str = concat!(
    "Example:\n",
    "  lab gen --seed 1 --turns 2\n\n",
    exit_codes!()
);

/// `lab search --help`.
pub(crate) const SEARCH: &str = concat!(
    "Examples:\n",
    "  lab search --list\n",
    "  lab search --property dropped_unsaved --seed 1\n\n",
    "Exit codes: 0 a counterexample was found, 1 none within the budget, 2 bad usage or input."
);

/// `lab report --help`.
pub(crate) const REPORT: &str = concat!(
    "Examples:\n",
    "  lab report --check\n",
    "  lab report --out /tmp/reports\n\n",
    "Exit codes: 0 ok, 1 a checked-in report is stale, 2 bad usage or input."
);

/// `lab completions --help`.
pub(crate) const COMPLETIONS: &str = concat!(
    "Example:\n",
    "  lab completions bash > ~/.local/share/bash-completion/completions/lab\n\n",
    exit_codes!()
);

/// `lab man --help`.
pub(crate) const MAN: &str = concat!("Example:\n", "  lab man > lab.1\n\n", exit_codes!());

/// `lab import --help`.
pub(crate) const IMPORT: &str = concat!(
    "Example:\n",
    "  lab import tests/fixtures/import/claude-code/-home-u-proj/sess-a.jsonl --redact -o imported\n\n",
    exit_codes!()
);

/// `lab audit --help`.
pub(crate) const AUDIT: &str = concat!(
    "Example:\n",
    "  lab audit tests/fixtures/import/claude-code/-home-u-proj/sess-a.jsonl --profiles course-main\n\n",
    exit_codes!()
);
