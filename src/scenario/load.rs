//! Loading a scenario file (docs/scenario-format.md): JSON text → [`Scenario`]. Malformed JSON is
//! reported with line and column; then every top-level field is checked by hand so that each error
//! names the file, the place and what was expected. Steps are parsed by [`super::steps`],
//! expectations by [`super::expect`]; checks that need the profile wait for
//! [`Scenario::validate_for`].

use std::path::Path;

use serde_json::Value;

use super::calls::Ids;
use super::expect::{check_expect_ids, parse_expect};
use super::fields::{Ctx, as_array, as_object, as_size, as_str, check_keys, type_name};
use super::steps::parse_step;
use super::{DEFAULT_SPILL_DIR, DEFAULT_TRANSCRIPT_DIR, Expectation, Scenario, Step};
use crate::error::ScenarioError;
use crate::limits;

/// The keys of a scenario object, in the order messages list them.
const TOP_KEYS: &[&str] = &[
    "name",
    "about",
    "source",
    "profile",
    "request",
    "spill_dir",
    "transcript_dir",
    "constants",
    "switches",
    "summary",
    "claude_md",
    "steps",
    "expect",
];

/// Where top-level errors point.
const TOP: &str = "top level";

impl Scenario {
    /// Reads and checks a scenario file; `-` reads it from stdin.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|source| {
                ScenarioError::Read {
                    file: "(stdin)".to_owned(),
                    source,
                }
            })?;
            return Scenario::parse("(stdin)", "stdin", &text);
        }
        let file = path.display().to_string();
        let text = limits::read_bounded(path).map_err(|source| ScenarioError::Read {
            file: file.clone(),
            source,
        })?;
        let default_name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.clone());
        Scenario::parse(&file, &default_name, &text)
    }

    /// Parses and checks scenario text; `file` names it in errors.
    pub fn parse(file: &str, default_name: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ScenarioError::Json {
            file: file.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or("")
                .to_owned(),
        })?;
        if let Some(twice) = super::duplicates::first_duplicate(text) {
            let (first, second) = (twice.first, twice.second);
            return Err(ScenarioError::Json {
                file: file.to_owned(),
                line: second.line,
                column: second.column,
                message: format!(
                    "key `{}` given twice in one object (first at line {}, column {}); \
                     JSON would keep only the last, so the lab refuses both",
                    twice.key, first.line, first.column
                ),
            });
        }
        Scenario::from_value(file, default_name, &value)
    }

    /// Checks a parsed JSON value; `default_name` is the name when the file gives none.
    pub fn from_value(
        file: &str,
        default_name: &str,
        value: &Value,
    ) -> Result<Scenario, ScenarioError> {
        let ctx = Ctx { file };
        let top = as_object(&ctx, TOP, "the scenario", value)?;
        check_keys(&ctx, TOP, top, TOP_KEYS)?;
        let text_field = |key: &str| -> Result<Option<String>, ScenarioError> {
            match top.get(key) {
                Some(v) => Ok(Some(as_str(&ctx, TOP, key, v)?.to_owned())),
                None => Ok(None),
            }
        };
        // Fields are read in this order so that the first error reported stays the same.
        let name = text_field("name")?.unwrap_or_else(|| default_name.to_owned());
        let constants = parse_constants(&ctx, top.get("constants"))?;
        let switches = parse_switches(&ctx, top.get("switches"))?;
        let (steps, ids) = parse_steps(&ctx, top.get("steps"))?;
        let expect = parse_expectations(&ctx, top.get("expect"), &steps, &ids)?;
        Ok(Scenario {
            file: file.to_owned(),
            name,
            about: text_field("about")?,
            source: text_field("source")?,
            profile: text_field("profile")?,
            request: text_field("request")?,
            spill_dir: parse_dir(&ctx, "spill_dir", top.get("spill_dir"), DEFAULT_SPILL_DIR)?,
            transcript_dir: parse_dir(
                &ctx,
                "transcript_dir",
                top.get("transcript_dir"),
                DEFAULT_TRANSCRIPT_DIR,
            )?,
            dirs_given: top.contains_key("spill_dir") || top.contains_key("transcript_dir"),
            constants,
            switches,
            summary: text_field("summary")?,
            claude_md: text_field("claude_md")?,
            steps,
            expect,
            calls: ids.calls,
        })
    }
}

/// `constants`: name → non-negative integer, in file order (names are checked by the profile).
fn parse_constants(
    ctx: &Ctx,
    value: Option<&Value>,
) -> Result<Vec<(String, usize)>, ScenarioError> {
    let mut constants = Vec::new();
    if let Some(map) = value {
        for (key, value) in as_object(ctx, TOP, "constants", map)? {
            let at = format!("constants.{key}");
            constants.push((key.clone(), as_size(ctx, &at, key, value)?));
        }
    }
    Ok(constants)
}

/// `switches`: name → `true`/`false` (written `on`/`off`) or a value string, in file order.
fn parse_switches(
    ctx: &Ctx,
    value: Option<&Value>,
) -> Result<Vec<(String, String)>, ScenarioError> {
    let mut switches = Vec::new();
    if let Some(map) = value {
        for (key, value) in as_object(ctx, TOP, "switches", map)? {
            let text = match value {
                Value::Bool(true) => "on".to_owned(),
                Value::Bool(false) => "off".to_owned(),
                Value::String(s) => s.clone(),
                other => {
                    return Err(ctx.err(
                        format!("switches.{key}"),
                        format!(
                            "a switch is true/false or a string, got {}",
                            type_name(other)
                        ),
                    ));
                }
            };
            switches.push((key.clone(), text));
        }
    }
    Ok(switches)
}

/// `steps` (required), with the ledger of the call ids they issue.
fn parse_steps(ctx: &Ctx, value: Option<&Value>) -> Result<(Vec<Step>, Ids), ScenarioError> {
    let value = value.ok_or_else(|| ctx.err(TOP, "missing `steps` (an array of steps)"))?;
    let mut ids = Ids::default();
    let mut steps = Vec::new();
    let list = as_array(ctx, TOP, "steps", value)?;
    if list.len() > limits::MAX_STEPS {
        return Err(ctx.err(
            TOP,
            format!(
                "{} steps, more than the limit of {} (docs/limits.md)",
                list.len(),
                limits::MAX_STEPS
            ),
        ));
    }
    for (index, step) in list.iter().enumerate() {
        steps.push(parse_step(ctx, index, step, &mut ids)?);
    }
    Ok((steps, ids))
}

/// `expect`, once the steps are known: every `result:<id>` of it and of the `check` steps must
/// name a call of some step.
fn parse_expectations(
    ctx: &Ctx,
    value: Option<&Value>,
    steps: &[Step],
    ids: &Ids,
) -> Result<Vec<Expectation>, ScenarioError> {
    let expect = match value {
        Some(value) => parse_expect(ctx, "expect", value)?,
        None => Vec::new(),
    };
    check_expect_ids(ctx, "expect", &expect, &ids.calls)?;
    for (index, step) in steps.iter().enumerate() {
        if let Step::Check(list) = step {
            let at = format!("step {} (check)", index + 1);
            check_expect_ids(ctx, &at, list, &ids.calls)?;
        }
    }
    Ok(expect)
}

/// An absolute directory, or `default` when absent.
fn parse_dir(
    ctx: &Ctx,
    key: &str,
    value: Option<&Value>,
    default: &str,
) -> Result<String, ScenarioError> {
    match value {
        None => Ok(default.to_owned()),
        Some(value) => {
            let dir = as_str(ctx, TOP, key, value)?;
            if !dir.starts_with('/') {
                return Err(ctx.err(
                    TOP,
                    format!("`{key}` must be an absolute path, got `{dir}`"),
                ));
            }
            Ok(dir.to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse("s.json", "s", text)
    }

    fn message(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn minimal_scenario_and_defaults() {
        let s = parse(
            r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}},
                          {"results": [{"id": "t1", "lines": 2, "width": 3}]}, {"prepare": true}]}"#,
        )
        .unwrap();
        assert_eq!(s.name, "s");
        assert_eq!(s.spill_dir, DEFAULT_SPILL_DIR);
        assert_eq!(s.calls[&crate::call_id::CallId::new("t1")], "bash");
        match &s.steps[1] {
            Step::Results(results) => assert_eq!(results[0].body.render(), "xxx\nxxx"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_json_has_line_and_column() {
        let error = message("{\n  \"steps\": [\n    {\"user\": \"a\",}\n  ]\n}");
        assert!(
            error.starts_with("parse s.json: invalid JSON at line 3, column"),
            "{error}"
        );
    }

    #[test]
    fn unknown_step_names_the_step() {
        let error = message(r#"{"steps": [{"user": "a"}, {"dance": true}]}"#);
        assert!(
            error.contains("step 2 (dance): unknown step `dance`"),
            "{error}"
        );
    }

    #[test]
    fn result_for_an_uncalled_id() {
        let error = message(r#"{"steps": [{"results": [{"id": "t9", "chars": 5}]}]}"#);
        assert!(error.contains("step 1 (results)"), "{error}");
        assert!(
            error.contains("`t9`, which no earlier assistant message called"),
            "{error}"
        );
    }

    #[test]
    fn duplicate_call_id() {
        let error = message(
            r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}},
                          {"assistant": {"calls": [{"id": "t1"}]}}]}"#,
        );
        assert!(
            error.contains("step 2 (assistant): call id `t1` is used twice"),
            "{error}"
        );
    }

    #[test]
    fn negative_and_fractional_sizes() {
        let base = r#"{"steps": [{"assistant": {"calls": [{"id": "t1"}]}}, {"results": [{"id": "t1", "chars": SIZE}]}]}"#;
        for size in ["-5", "2.5", "\"10\"", "1e3"] {
            let error = message(&base.replace("SIZE", size));
            assert!(
                error.contains(
                    "step 2 (results), result `t1`: `chars` must be a non-negative integer"
                ),
                "{size}: {error}"
            );
        }
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let error = message(r#"{"steps": [], "colour": 1}"#);
        assert!(error.contains("unknown key `colour`"), "{error}");
        let error =
            message(r#"{"steps": [{"assistant": {"calls": [{"id": "t1", "nmae": "x"}]}}]}"#);
        assert!(
            error.contains("step 1 (assistant): unknown key `nmae`"),
            "{error}"
        );
    }

    #[test]
    fn unknown_observable_in_expect() {
        let error = message(r#"{"steps": [], "expect": {"lost": 1}}"#);
        assert!(
            error.contains("expect: unknown observable `lost`"),
            "{error}"
        );
    }

    #[test]
    fn turn_results_must_match_calls() {
        let error = message(
            r#"{"steps": [{"turn": {"calls": [{"id": "a"}, {"id": "b"}], "results": [{"id": "a", "chars": 1}]}}]}"#,
        );
        assert!(
            error.contains("step 1 (turn): call `b` has no result"),
            "{error}"
        );
    }

    #[test]
    fn usage_is_read_and_checked() {
        let s = parse(
            r#"{"steps": [{"turn": {"text": "hi", "usage": {"input_tokens": 1000, "cache_read_input_tokens": 165700, "output_tokens": 10}}}]}"#,
        )
        .unwrap();
        let Step::Turn { assistant, .. } = &s.steps[0] else {
            panic!("{:?}", s.steps[0]);
        };
        let usage = assistant.usage.unwrap();
        assert_eq!(usage.cache_read_input_tokens, 165700);
        assert_eq!(usage.cache_creation_input_tokens, 0);
        assert_eq!(usage.total(), 166710);
        let error = message(
            r#"{"steps": [{"assistant": {"text": "a", "usage": {"input_tokens": 1, "cache": 2}}}]}"#,
        );
        assert!(
            error.contains(
                "step 1 (assistant): unknown key `cache` (expected one of: input_tokens,"
            ),
            "{error}"
        );
        let error =
            message(r#"{"steps": [{"assistant": {"text": "a", "usage": {"input_tokens": -1}}}]}"#);
        assert!(
            error.contains("`input_tokens` must be a non-negative integer"),
            "{error}"
        );
        let error = message(r#"{"steps": [{"assistant": {"text": "a", "usage": {}}}]}"#);
        assert!(error.contains("`usage` needs at least one of"), "{error}");
    }

    #[test]
    fn observed_compaction_is_read_and_checked() {
        let s = parse(
            r#"{"steps": [{"observed": {"compaction": "auto", "pre_tokens": 167000, "summary_chars": 796}}]}"#,
        )
        .unwrap();
        assert_eq!(
            s.steps[0],
            Step::Observed(crate::scenario::Observed::Compaction {
                trigger: "auto".to_owned(),
                pre_tokens: Some(167000),
                post_tokens: None,
                summary_chars: Some(796),
            })
        );
        let error = message(r#"{"steps": [{"observed": {"pre_tokens": 5}}]}"#);
        assert!(
            error.contains("step 1 (observed): an observed event names what happened"),
            "{error}"
        );
        let error = message(r#"{"steps": [{"observed": {"compaction": "auto", "when": 1}}]}"#);
        assert!(error.contains("unknown key `when`"), "{error}");
    }
}
