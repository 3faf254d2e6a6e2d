//! Gemini CLI's tool-output masking (`packages/core/src/context/toolOutputMaskingService.ts` at
//! google-gemini/gemini-cli 5411f113; google-gemini/gemini-cli @ 5411f113
//! packages/core/src/context/toolOutputMaskingService.ts), run before every turn after chat
//! compression. Scanning back from the message before the newest (`DEFAULT_PROTECT_LATEST_TURN`),
//! skipping the exempt tools and outputs already masked, the newest `mask_protect` tokens of tool
//! output are protected; the one that crosses that line and every older one are prunable. When the
//! prunable tokens reach `mask_min_prunable`, each prunable output's response
//! (`JSON.stringify({output}, null, 2)`) is written to
//! `tool-outputs/session-<id>/<tool>_<callId>_<random>.txt` (the lab: `<tool>_<callId>.txt` in the
//! spill directory) and, where that saves tokens, the output becomes `<tool_output_masked>` with a
//! preview and the file's path. The call and its response stay paired.

use serde_json::json;

use super::gemini_compress::sanitize;
use crate::compaction::profile::fill;
use crate::compaction::store;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::trace::Event;

const STAGE: &str = "gemini_mask";

/// `EXEMPT_TOOLS`: outputs never masked.
const EXEMPT_TOOLS: &[&str] = &[
    "activate_skill",
    "ask_user",
    "enter_plan_mode",
    "exit_plan_mode",
];

/// `SHELL_TOOL_NAME`, whose preview is cut by section.
const SHELL_TOOL: &str = "run_shell_command";

/// The sections of a shell output, in the order `formatShellPreview` names them.
const SHELL_SECTIONS: &[&str] = &[
    "Output",
    "Error",
    "Exit Code",
    "Signal",
    "Background PIDs",
    "Process Group PGID",
];

/// `formatSimplePreview`: more than 20 lines keep the first and last 10.
fn simple_preview(content: &str) -> String {
    let lines: Vec<&str> = content.split('\n').collect();
    if lines.len() <= 20 {
        return content.to_owned();
    }
    format!(
        "{}\n\n... [{} lines omitted] ...\n\n{}",
        lines[..10].join("\n"),
        lines.len() - 20,
        lines[lines.len() - 10..].join("\n")
    )
}

/// `content.split(/^(Output|Error|…): /m)`: the text before the first section, then
/// (name, body) pairs.
fn shell_sections(content: &str) -> (&str, Vec<(&'static str, &str)>) {
    let mut starts: Vec<(usize, &'static str, usize)> = Vec::new();
    let mut at = 0;
    for line in content.split_inclusive('\n') {
        if let Some(name) = SHELL_SECTIONS
            .iter()
            .find(|name| line.starts_with(&format!("{name}: ")))
        {
            starts.push((at, name, at + name.len() + 2));
        }
        at += line.len();
    }
    let first = starts.first().map_or(content.len(), |s| s.0);
    let sections = starts
        .iter()
        .enumerate()
        .map(|(i, (_, name, body))| {
            let end = starts.get(i + 1).map_or(content.len(), |next| next.0);
            (*name, &content[*body..end])
        })
        .collect();
    (&content[..first], sections)
}

/// `formatShellPreview` of a response whose `output` is `content`.
fn shell_preview(content: &str) -> String {
    let (before, sections) = shell_sections(content);
    if sections.is_empty() {
        return simple_preview(content);
    }
    let mut parts = Vec::new();
    if !before.trim().is_empty() {
        parts.push(simple_preview(before.trim()));
    }
    for (name, body) in sections {
        let body = body.trim();
        if name == "Output" {
            parts.push(format!("Output: {}", simple_preview(body)));
        } else {
            parts.push(format!("{name}: {body}"));
        }
    }
    parts.join("\n")
}

/// The preview of a masked output: shell by section, any other tool the first and last 250
/// chars of the saved JSON when it is longer than 500.
fn preview(tool: &str, output: &str, saved: &str) -> String {
    if tool == SHELL_TOOL {
        return shell_preview(output);
    }
    let chars: Vec<char> = saved.chars().collect();
    if chars.len() <= 500 {
        return saved.to_owned();
    }
    let head: String = chars[..250].iter().collect();
    let tail: String = chars[chars.len() - 250..].iter().collect();
    format!("{head}\n... [TRUNCATED] ...\n{tail}")
}

/// One prunable output: message, block, id, tokens.
type Prunable = (usize, usize, String, usize);

/// The backward scan: the prunable outputs and their tokens.
fn prunable(world: &World) -> (Vec<Prunable>, usize) {
    let c = world.profile.constants;
    let estimator = world.profile.estimator;
    let last = world.history.len().saturating_sub(1);
    let mut protected = 0;
    let mut boundary = false;
    let mut total = 0;
    let mut found = Vec::new();
    for (mi, bi) in world.history.result_positions().into_iter().rev() {
        if mi >= last {
            continue;
        }
        let (id, content) = world.history.result_at(mi, bi);
        let tool = world.ledger.results.get(id).map_or("", |r| r.name.as_str());
        if EXEMPT_TOOLS.contains(&tool) || content.contains("<tool_output_masked") {
            continue;
        }
        let tokens = estimator.string(content);
        if !boundary {
            protected += tokens;
            if protected <= c.mask_protect {
                continue;
            }
            boundary = true;
        }
        total += tokens;
        found.push((mi, bi, id.to_owned(), tokens));
    }
    (found, total)
}

/// Masks the prunable outputs once they reach `mask_min_prunable` tokens.
pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let (found, total) = prunable(world);
    let min = world.profile.constants.mask_min_prunable;
    if found.is_empty() || total < min {
        return Ok(());
    }
    world.record(Event::new(STAGE, "over").before(total).reason(format!(
        "{total} prunable tool tokens ≥ {min}, past the newest {} protected",
        world.profile.constants.mask_protect
    )));
    let estimator = world.profile.estimator;
    let template = world.profile.strings.persisted;
    // Gemini writes `session-<id>/<tool>_<callId>_<random>.txt`; the lab's spill store is one
    // flat directory, so the file is `<tool>_<callId>.txt` beside the compression spills.
    let dir = world.spill_dir.clone();
    for (mi, bi, id, tokens) in found {
        let (_, output) = world.history.owned_result_at(mi, bi);
        let tool = world
            .ledger
            .results
            .get(&id)
            .map(|r| r.name.clone())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "unknown_tool".to_owned());
        let saved = serde_json::to_string_pretty(&json!({ "output": output }))
            .expect("a JSON object serialises");
        let path = store::join(&dir, &format!("{}_{}.txt", sanitize(&tool), sanitize(&id)));
        world
            .store
            .write_spill(&path, &saved)
            .map_err(|source| RunError::Store {
                path: path.clone(),
                source,
            })?;
        world.ledger.mark_spilled(&id, true);
        let masked = fill(
            template,
            &[
                ("preview", &preview(&tool, &output, &saved)),
                ("path", &path),
            ],
        );
        if estimator.string(&masked) >= tokens {
            world.record(Event::new(STAGE, "skip").id(&id).reason(format!(
                "written to {path}, but the masked form saves nothing"
            )));
            continue;
        }
        world.replace_result(
            mi,
            bi,
            masked,
            STAGE,
            format!("masked, full output at {path}"),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_output_previews_ten_lines_each_end() {
        let text: Vec<String> = (1..=25).map(|i| i.to_string()).collect();
        let out = simple_preview(&text.join("\n"));
        assert!(out.starts_with("1\n2\n"), "{out}");
        assert!(
            out.contains("\n10\n\n... [5 lines omitted] ...\n\n16\n"),
            "{out}"
        );
        assert!(out.ends_with("\n25"), "{out}");
        assert_eq!(simple_preview("a\nb"), "a\nb");
    }

    #[test]
    fn a_shell_output_keeps_its_small_sections_whole() {
        let body: Vec<String> = (1..=21).map(|i| format!("l{i}")).collect();
        let text = format!("Output: {}\nExit Code: 1\n", body.join("\n"));
        let out = shell_preview(&text);
        assert!(out.starts_with("Output: l1\n"), "{out}");
        assert!(
            out.contains("l10\n\n... [1 lines omitted] ...\n\nl12\n"),
            "{out}"
        );
        assert!(out.ends_with("l21\nExit Code: 1"), "{out}");
    }

    #[test]
    fn another_tool_previews_the_saved_json() {
        let saved = format!("{{\n  \"output\": \"{}\"\n}}", "x".repeat(600));
        let out = preview("read_file", "", &saved);
        assert!(out.starts_with("{\n  \"output\": \"xxx"), "{out}");
        assert!(out.contains("\n... [TRUNCATED] ...\n"), "{out}");
        assert!(out.ends_with("xxx\"\n}"), "{out}");
        assert_eq!(out.chars().count(), 250 + 21 + 250);
    }
}
