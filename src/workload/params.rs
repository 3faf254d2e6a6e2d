//! What a generated workload depends on: the tool mix and the numbers of [`GenParams`], with the
//! bounds `lab gen` and `lab search` check before generating (exit status 2 beyond them).

use crate::error::LabError;

/// A named tool mix: one weight per tool of [`Tool::ALL`](super::Tool::ALL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    pub name: &'static str,
    pub about: &'static str,
    /// Weights for Bash, Read, Grep, Glob, Edit, Write, WebFetch.
    pub weights: [u32; 7],
}

/// The mixes `--mix` accepts; the first is the default.
pub const MIXES: &[Mix] = &[
    Mix {
        name: "default",
        about: "a coding session: shell, reads and searches, a few edits and web fetches",
        weights: [30, 25, 15, 8, 10, 4, 8],
    },
    Mix {
        name: "read-heavy",
        about: "exploring a code base: mostly Read, Grep and Glob",
        weights: [10, 55, 15, 10, 5, 2, 3],
    },
    Mix {
        name: "web",
        about: "research: mostly WebFetch, whose pages may carry injected lines",
        weights: [15, 10, 5, 5, 5, 5, 55],
    },
    Mix {
        name: "bash-heavy",
        about: "builds and test runs: mostly Bash with long logs",
        weights: [60, 15, 10, 5, 5, 2, 3],
    },
];

/// Looks a mix up by name.
pub fn mix_by_name(name: &str) -> Result<&'static Mix, LabError> {
    MIXES.iter().find(|m| m.name == name).ok_or_else(|| {
        let known: Vec<&str> = MIXES.iter().map(|m| m.name).collect();
        LabError::Usage(format!(
            "unknown mix `{name}` (known: {})",
            known.join(", ")
        ))
    })
}

/// Everything a workload depends on. The same value gives the same bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct GenParams {
    /// Master seed. Default 1.
    pub seed: u64,
    /// Agent-loop turns with tool calls. Default 12.
    pub turns: usize,
    /// Tool mix. Default `default`.
    pub mix: &'static Mix,
    /// Most calls in one turn (k). Default 4; each extra call has probability 0.45.
    pub max_calls: usize,
    /// Log-normal location of result sizes (ln chars). Default 7.5 (median 1808 chars).
    pub size_mu: f64,
    /// Log-normal scale. Default 2.0 (about 1 result in 100 exceeds 200000 chars).
    pub size_sigma: f64,
    /// Largest result in chars. Default 400000.
    pub size_max: usize,
    /// Probability of an idle gap before a turn. Default 0.1.
    pub idle_rate: f64,
    /// Probability of a new user request before a turn (not the first). Default 0.08.
    pub user_rate: f64,
    /// Probability that a WebFetch page carries a `Full output: <path>` line. Default 0.3.
    pub inject_rate: f64,
    /// Probability of a deep spill directory instead of the default one. Default 0.5.
    pub deep_spill_rate: f64,
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            seed: 1,
            turns: 12,
            mix: &MIXES[0],
            max_calls: 4,
            size_mu: 7.5,
            size_sigma: 2.0,
            size_max: 400_000,
            idle_rate: 0.1,
            user_rate: 0.08,
            inject_rate: 0.3,
            deep_spill_rate: 0.5,
        }
    }
}

/// Largest `--size-max`.
pub const MAX_RESULT_CHARS: usize = 10_000_000;

/// Largest worst-case total of result characters in one workload (turns × calls × size max).
pub const MAX_WORKLOAD_CHARS: u128 = 2_000_000_000;

impl GenParams {
    /// Rejects values that cannot make a workload (exit status 2).
    pub fn check(&self) -> Result<(), LabError> {
        let bad = |what: String| Err(LabError::Usage(what));
        if self.turns == 0 || self.turns > 10_000 {
            return bad(format!("--turns {}: expected 1..=10000", self.turns));
        }
        if self.max_calls == 0 || self.max_calls > 64 {
            return bad(format!("--max-calls {}: expected 1..=64", self.max_calls));
        }
        // `-0` is refused with the negatives: it would print as `-0`, which no shell command
        // line can pass back as a value.
        if !self.size_mu.is_finite()
            || self.size_mu.is_sign_negative()
            || !(0.0..=20.0).contains(&self.size_mu)
        {
            return bad(format!("--size-mu {}: expected 0..=20", self.size_mu));
        }
        if !self.size_sigma.is_finite()
            || self.size_sigma.is_sign_negative()
            || !(0.0..=10.0).contains(&self.size_sigma)
        {
            return bad(format!("--size-sigma {}: expected 0..=10", self.size_sigma));
        }
        if self.size_max == 0 || self.size_max > MAX_RESULT_CHARS {
            return bad(format!(
                "--size-max {}: expected 1..={MAX_RESULT_CHARS}",
                self.size_max
            ));
        }
        // A run holds every result in full: bound the worst case, not the typical one.
        let worst = (self.turns as u128) * (self.max_calls as u128) * (self.size_max as u128);
        if worst > MAX_WORKLOAD_CHARS {
            return bad(format!(
                "--turns {} × --max-calls {} × --size-max {} = {worst} chars at worst, over the \
                 {MAX_WORKLOAD_CHARS} a run may hold; lower one of them",
                self.turns, self.max_calls, self.size_max
            ));
        }
        for (name, p) in [
            ("idle rate", self.idle_rate),
            ("user rate", self.user_rate),
            ("inject rate", self.inject_rate),
            ("deep spill rate", self.deep_spill_rate),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return bad(format!("{name} {p}: expected a probability in 0..=1"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_usage_errors() {
        for params in [
            GenParams {
                turns: 0,
                ..GenParams::default()
            },
            GenParams {
                size_sigma: f64::NAN,
                ..GenParams::default()
            },
            GenParams {
                size_max: 0,
                ..GenParams::default()
            },
        ] {
            assert!(matches!(params.check(), Err(LabError::Usage(_))));
        }
        assert!(mix_by_name("nope").is_err());
        assert_eq!(mix_by_name("web").unwrap().name, "web");
    }
}
