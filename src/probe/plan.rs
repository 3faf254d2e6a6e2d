//! From a scenario to a probe: every result becomes a fixture file and every call a real tool
//! call that yields exactly that text through the agent's own tool, so the agent's thresholds
//! and persistence are exercised rather than bypassed (research/claude_code_probe.md §6.2).
//!
//! - `Bash`: `cat fixtures/<id>.out`, the fixture holding the result's exact bytes.
//! - `Grep`: content mode over `fixtures/<id>.grep` with the pattern `^` (every line matches),
//!   no line numbers and no head limit; the fixture is the text plus a final newline, and ripgrep
//!   prints the lines back joined by `\n`.
//!
//! Other tools are refused for now (Read adds line numbers and a reminder, Glob sorts by mtime).
//! The plan also rewrites the scenario the same way (request `go`, the calls' real inputs, no
//! expectations), so the profile predicts the very session the agent ran.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::ProbeError;
use super::agent::PROMPT;
use super::script::{Block, Script, Turn, Usage};
use crate::scenario::{Call, ResultSpec, Scenario, Step};

/// Where fixtures go, relative to the working directory.
pub const FIXTURE_DIR: &str = "fixtures";

/// A scenario made ready for the agent.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What the scripted model server answers.
    pub script: Script,
    /// Files to write below the working directory: relative path → exact bytes.
    pub fixtures: BTreeMap<String, Vec<u8>>,
    /// The scenario as the agent will run it, for the profile's prediction.
    pub scenario: Scenario,
}

/// Builds the plan of `scenario`.
pub fn plan(scenario: &Scenario) -> Result<Plan, ProbeError> {
    let refuse = |step: usize, message: String| ProbeError::Plan {
        file: scenario.file.clone(),
        location: format!("step {step}"),
        message,
    };
    if scenario.claude_md.is_some() {
        return Err(ProbeError::Plan {
            file: scenario.file.clone(),
            location: "claude_md".into(),
            message: "a CLAUDE.md cannot be probed yet".into(),
        });
    }
    let mut rewritten = scenario.clone();
    rewritten.request = Some(PROMPT.to_string());
    rewritten.expect.clear();
    let mut turns = Vec::new();
    let mut fixtures = BTreeMap::new();
    let mut pending: BTreeMap<String, String> = BTreeMap::new();
    for (index, step) in rewritten.steps.iter_mut().enumerate() {
        let number = index + 1;
        let (calls, results, reported) = match step {
            Step::Assistant(a) => (Some(&mut a.calls), None, a.usage),
            Step::Results(r) => (None, Some(&*r), None),
            Step::Turn { assistant, results } => {
                (Some(&mut assistant.calls), Some(&*results), assistant.usage)
            }
            other => {
                return Err(refuse(
                    number,
                    format!("a `{}` step cannot be probed", other.kind()),
                ));
            }
        };
        if let Some(calls) = calls {
            if !pending.is_empty() {
                let ids: Vec<&str> = pending.keys().map(String::as_str).collect();
                return Err(refuse(
                    number,
                    format!(
                        "calls {} are still unanswered; the agent answers every call of a turn before the next",
                        ids.join(", ")
                    ),
                ));
            }
            let mut blocks = Vec::new();
            for call in calls.iter_mut() {
                call.input = real_input(call).map_err(|m| refuse(number, m))?;
                pending.insert(call.id.clone(), call.name.clone());
                blocks.push(Block::ToolUse {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    input: Value::Object(call.input.clone()),
                });
            }
            turns.push(Turn {
                blocks,
                usage: reported.map(wire_usage).unwrap_or(Usage::SMALL),
            });
        }
        for result in results.into_iter().flatten() {
            let name = pending.remove(&result.id).ok_or_else(|| {
                refuse(
                    number,
                    format!("result {} answers no pending call", result.id),
                )
            })?;
            let (path, bytes) = fixture(&name, result);
            fixtures.insert(path, bytes);
        }
    }
    if let Some(id) = pending.keys().next() {
        return Err(ProbeError::Plan {
            file: scenario.file.clone(),
            location: "steps".into(),
            message: format!("call {id} has no result; the agent would run it"),
        });
    }
    Ok(Plan {
        script: Script {
            turns,
            summary: scenario.summary.clone().unwrap_or_else(|| "summary".into()),
        },
        fixtures,
        scenario: rewritten,
    })
}

/// The scenario's reported usage as the server reports it for that turn.
fn wire_usage(u: crate::scenario::Usage) -> Usage {
    Usage {
        input_tokens: u.input_tokens as u64,
        cache_creation_input_tokens: u.cache_creation_input_tokens as u64,
        cache_read_input_tokens: u.cache_read_input_tokens as u64,
        output_tokens: u.output_tokens as u64,
    }
}

/// The input that makes the tool yield the fixture's text.
fn real_input(call: &Call) -> Result<Map<String, Value>, String> {
    let value = match call.name.as_str() {
        "Bash" => json!({"command": format!("cat {FIXTURE_DIR}/{}.out", call.id)}),
        "Grep" => json!({
            "pattern": "^",
            "path": format!("{FIXTURE_DIR}/{}.grep", call.id),
            "output_mode": "content",
            "-n": false,
            "head_limit": 0,
        }),
        other => {
            return Err(format!(
                "call {}: tool `{other}` cannot be probed yet (Bash and Grep can)",
                call.id
            ));
        }
    };
    match value {
        Value::Object(map) => Ok(map),
        _ => unreachable!("json! of an object"),
    }
}

fn fixture(tool: &str, result: &ResultSpec) -> (String, Vec<u8>) {
    let text = result.body.render();
    match tool {
        "Grep" => (
            format!("{FIXTURE_DIR}/{}.grep", result.id),
            format!("{text}\n").into_bytes(),
        ),
        _ => (
            format!("{FIXTURE_DIR}/{}.out", result.id),
            text.into_bytes(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(steps: &str) -> Result<Scenario, crate::error::ScenarioError> {
        let text = format!(r#"{{"profile": "claude-code", "request": "r", "steps": {steps}}}"#);
        Scenario::parse("t.json", "t", &text)
    }

    #[test]
    fn bash_and_grep_become_fixtures_and_real_calls() {
        let s = scenario(
            r#"[{"assistant": {"calls": [{"id": "b1", "name": "Bash", "input": {"command": "make"}}, {"id": "g1", "name": "Grep"}]}},
                {"results": [{"id": "g1", "lines": 2, "width": 3}, {"id": "b1", "chars": 5}]}]"#,
        )
        .unwrap();
        let p = plan(&s).unwrap();
        assert_eq!(p.script.turns[0].usage, Usage::SMALL);
        assert_eq!(p.fixtures["fixtures/b1.out"], b"xxxxx");
        assert_eq!(p.fixtures["fixtures/g1.grep"], b"xxx\nxxx\n");
        assert_eq!(p.script.turns.len(), 1);
        assert_eq!(
            p.script.turns[0].blocks[0],
            Block::ToolUse {
                id: "b1".into(),
                name: "Bash".into(),
                input: json!({"command": "cat fixtures/b1.out"})
            }
        );
        let Step::Assistant(a) = &p.scenario.steps[0] else {
            panic!("step 1 stays an assistant step")
        };
        assert_eq!(a.calls[0].input["command"], "cat fixtures/b1.out");
        assert_eq!(a.calls[1].input["path"], "fixtures/g1.grep");
        assert_eq!(p.scenario.request.as_deref(), Some("go"));
    }

    #[test]
    fn a_scenario_usage_is_what_the_server_reports() {
        let s = scenario(
            r#"[{"turn": {"calls": [{"id": "b1", "name": "Bash"}], "results": [{"id": "b1", "text": "a"}],
                "usage": {"input_tokens": 1000, "cache_read_input_tokens": 165700, "output_tokens": 10}}}]"#,
        )
        .unwrap();
        let usage = plan(&s).unwrap().script.turns[0].usage;
        assert_eq!(
            (
                usage.input_tokens,
                usage.cache_read_input_tokens,
                usage.output_tokens
            ),
            (1000, 165_700, 10)
        );
    }

    #[test]
    fn refuses_what_cannot_be_probed() {
        let s = scenario(r#"[{"turn": {"calls": [{"id": "r1", "name": "Read"}], "results": [{"id": "r1", "text": "a"}]}}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "plan t.json: step 1: call r1: tool `Read` cannot be probed yet (Bash and Grep can)"
        );
        let s = scenario(r#"[{"assistant": {"calls": [{"id": "b1", "name": "Bash"}]}}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "plan t.json: steps: call b1 has no result; the agent would run it"
        );
        let s = scenario(r#"[{"idle": 5}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(e, "plan t.json: step 1: a `idle` step cannot be probed");
    }
}
