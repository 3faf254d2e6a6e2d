//! From a scenario to a probe: every result becomes a fixture file and every call a real tool
//! call that yields exactly that text through the agent's own tool, so the agent's thresholds
//! and persistence are exercised rather than bypassed (docs/probe.md).
//!
//! - `Bash`: `cat fixtures/<id>.out`, the fixture holding the result's exact bytes.
//! - `Grep`: content mode over `fixtures/<id>.grep` with the pattern `^` (every line matches),
//!   no line numbers and no head limit; the fixture is the text plus a final newline, and ripgrep
//!   prints the lines back joined by `\n`.
//! - `Glob`: pattern `**/*` under `fixtures/<id>`; every line of the result must be a path
//!   relative to the working directory below that folder (at most 100, Glob's own limit). Each
//!   becomes an empty file whose modification time follows the line order, since Glob lists
//!   files oldest first (`utils/glob.ts`: ripgrep `--files --sort=modified`) and relativises
//!   them to the working directory, joined by `\n`.
//!
//! - `Read`: `fixtures/<id>.txt` holding the result's text. Read returns the file with `N\t`
//!   line prefixes (`utils/file.ts` addLineNumbers, compact form) and its malware reminder after
//!   it (an appended reminder the comparison leaves out); the planned scenario keeps the file's
//!   text, which the profile numbers (or refuses over Read's token cap) as Read does.
//!
//! The plan also rewrites the scenario the same way (request `go`, the calls' real inputs, no
//! expectations), so the profile predicts the very session the agent ran.

use smol_str::SmolStr;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::ProbeError;
use super::agent::PROMPT;
use super::script::{Block, Script, Turn, Usage};
use crate::call_id::CallId;
use crate::scenario::{Call, ResultSpec, Scenario, Step};

/// Where fixtures go, relative to the working directory.
pub const FIXTURE_DIR: &str = "fixtures";

/// The modification time of the first Glob fixture (2026-01-01 00:00:00 UTC); later lines are
/// one second apart.
pub const MTIME_BASE: u64 = 1_767_225_600;

/// Glob's own limit on the files it lists (`GlobTool.ts`: `globLimits?.maxResults ?? 100`).
const GLOB_LIMIT: usize = 100;

/// A scenario made ready for the agent.
#[derive(Debug, Clone)]
pub struct Plan {
    /// What the scripted model server answers.
    pub script: Script,
    /// Files to write below the working directory: relative path → exact bytes.
    pub fixtures: BTreeMap<String, Vec<u8>>,
    /// Fixtures whose modification time matters (Glob lists oldest first): relative path →
    /// seconds after [`MTIME_BASE`].
    pub mtimes: BTreeMap<String, u64>,
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
    let mut mtimes = BTreeMap::new();
    let mut pending: BTreeMap<CallId, SmolStr> = BTreeMap::new();
    for (index, step) in rewritten.steps.iter_mut().enumerate() {
        let number = index + 1;
        let (calls, results, reported) = match step {
            Step::Assistant(a) => (Some(&mut a.calls), None, a.usage),
            Step::Results(r) => (None, Some(r), None),
            Step::Turn { assistant, results } => {
                (Some(&mut assistant.calls), Some(results), assistant.usage)
            }
            other => {
                return Err(refuse(
                    number,
                    format!("a `{}` step cannot be probed", other.kind()),
                ));
            }
        };
        if let Some(calls) = calls {
            let blocks = tool_uses(calls, &mut pending).map_err(|m| refuse(number, m))?;
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
            files(&name, result, &mut fixtures, &mut mtimes).map_err(|m| refuse(number, m))?;
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
        mtimes,
        scenario: rewritten,
    })
}

/// Grep runs ripgrep with `--max-columns 500` (`GrepTool.ts`): a line of 500 bytes or more
/// comes back as `[Omitted long matching line]` (measured with the vendored ripgrep), so a Grep
/// result cannot hold one.
fn grep_lines(result: &ResultSpec) -> Result<(), String> {
    const MAX_COLUMNS: usize = 500;
    match result
        .body
        .render()
        .split('\n')
        .position(|l| l.len() >= MAX_COLUMNS)
    {
        Some(at) => Err(format!(
            "result {}: line {} has {MAX_COLUMNS} bytes or more, which Grep does not print",
            result.id,
            at + 1
        )),
        None => Ok(()),
    }
}

/// The files a Glob result lists, in order: every line a path below `fixtures/<id>/`.
fn glob_files(result: &ResultSpec) -> Result<impl Iterator<Item = String>, String> {
    let text = result.body.render();
    let folder = format!("{FIXTURE_DIR}/{}/", result.id);
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.len() > GLOB_LIMIT {
        return Err(format!(
            "result {}: {} paths, more than Glob lists ({GLOB_LIMIT})",
            result.id,
            lines.len()
        ));
    }
    if let Some(bad) = lines.iter().find(|l| {
        !l.starts_with(&folder) || l.len() == folder.len() || l.split('/').any(|c| c == "..")
    }) {
        return Err(format!(
            "result {}: every line of a Glob result must be a file path below `{folder}`, not `{bad}`",
            result.id
        ));
    }
    Ok(lines.into_iter())
}

/// The tool_use blocks of one assistant message, each call given its real input; the calls
/// join `pending` (id → tool), which must be empty: the agent answers every call of a turn
/// before the next.
fn tool_uses(
    calls: &mut [Call],
    pending: &mut BTreeMap<CallId, SmolStr>,
) -> Result<Vec<Block>, String> {
    if !pending.is_empty() {
        let ids: Vec<&str> = pending.keys().map(CallId::as_str).collect();
        return Err(format!(
            "calls {} are still unanswered; the agent answers every call of a turn before the next",
            ids.join(", ")
        ));
    }
    let mut blocks = Vec::new();
    for call in calls.iter_mut() {
        call.input = real_input(call)?.into();
        pending.insert(call.id, call.name.clone());
        blocks.push(Block::ToolUse {
            id: call.id.to_string(),
            name: call.name.to_string(),
            input: Value::Object((*call.input).clone()),
        });
    }
    Ok(blocks)
}

/// The fixture files of one result.
fn files(
    tool: &str,
    result: &mut ResultSpec,
    fixtures: &mut BTreeMap<String, Vec<u8>>,
    mtimes: &mut BTreeMap<String, u64>,
) -> Result<(), String> {
    match tool {
        "Read" => {
            let text = result.body.render();
            if text.is_empty() || text.contains('\r') {
                return Err(format!(
                    "result {}: a Read result must be non-empty text without `\\r`",
                    result.id
                ));
            }
            fixtures.insert(
                format!("{FIXTURE_DIR}/{}.txt", result.id),
                text.into_bytes(),
            );
        }
        "Glob" => {
            for (i, path) in glob_files(result)?.enumerate() {
                fixtures.insert(path.clone(), Vec::new());
                mtimes.insert(path, i as u64);
            }
        }
        _ => {
            if tool == "Grep" {
                grep_lines(result)?;
            }
            let (path, bytes) = fixture(tool, result);
            fixtures.insert(path, bytes);
        }
    }
    Ok(())
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
        "Glob" => json!({"pattern": "**/*", "path": format!("{FIXTURE_DIR}/{}", call.id)}),
        "Read" => json!({"file_path": format!("{FIXTURE_DIR}/{}.txt", call.id)}),
        other => {
            return Err(format!(
                "call {}: tool `{other}` cannot be probed yet (Bash, Grep, Glob and Read can)",
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
    fn read_and_glob_become_files_and_real_calls() {
        let s = scenario(
            r#"[{"turn": {"calls": [{"id": "r1", "name": "Read"}, {"id": "l1", "name": "Glob"}],
                "results": [{"id": "r1", "text": "a\nb"}, {"id": "l1", "text": "fixtures/l1/x/b\nfixtures/l1/a"}]}}]"#,
        )
        .unwrap();
        let p = plan(&s).unwrap();
        assert_eq!(p.fixtures["fixtures/r1.txt"], b"a\nb");
        assert_eq!(p.fixtures["fixtures/l1/x/b"], b"");
        assert_eq!(p.mtimes["fixtures/l1/x/b"], 0);
        assert_eq!(p.mtimes["fixtures/l1/a"], 1);
        let Step::Turn { assistant, results } = &p.scenario.steps[0] else {
            panic!("step 1 stays a turn")
        };
        assert_eq!(assistant.calls[0].input["file_path"], "fixtures/r1.txt");
        assert_eq!(assistant.calls[1].input["pattern"], "**/*");
        // The profile numbers the lines as Read does (`read_tool`); the plan keeps the text.
        assert_eq!(results[0].body.render(), "a\nb");
        assert_eq!(results[1].body.render(), "fixtures/l1/x/b\nfixtures/l1/a");
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
        let s = scenario(r#"[{"turn": {"calls": [{"id": "w1", "name": "Write"}], "results": [{"id": "w1", "text": "a"}]}}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "plan t.json: step 1: call w1: tool `Write` cannot be probed yet (Bash, Grep, Glob and Read can)"
        );
        let s = scenario(r#"[{"turn": {"calls": [{"id": "g1", "name": "Grep"}], "results": [{"id": "g1", "chars": 500}]}}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "plan t.json: step 1: result g1: line 1 has 500 bytes or more, which Grep does not print"
        );
        let s = scenario(r#"[{"turn": {"calls": [{"id": "l1", "name": "Glob"}], "results": [{"id": "l1", "text": "src/a.rs"}]}}]"#).unwrap();
        let e = plan(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "plan t.json: step 1: result l1: every line of a Glob result must be a file path below `fixtures/l1/`, not `src/a.rs`"
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
