//! Gemini CLI's tool-output masking (google-gemini/gemini-cli @ 5411f113
//! `packages/core/src/context/toolOutputMaskingService.ts`), run before every turn after chat
//! compression. Scanning back from the message before the newest (`DEFAULT_PROTECT_LATEST_TURN`),
//! skipping the exempt tools and outputs already masked, the newest `mask_protect` tokens of tool
//! output are protected; the one that crosses that line and every older one are prunable. When the
//! prunable tokens reach `mask_min_prunable`, each prunable output's response
//! (`JSON.stringify({output}, null, 2)`) is written to
//! `tool-outputs/session-<id>/<tool>_<callId>_<random>.txt` (the lab: `<tool>_<callId>.txt` in the
//! spill directory) and, where that saves tokens, the output becomes `<tool_output_masked>` with a
//! preview and the file's path. The call and its response stay paired.

use super::gemini_compress::sanitize;
use crate::compaction::profile::fill;
use crate::compaction::store;
use crate::compaction::world::{MaskSkip, World};
use crate::error::RunError;
use crate::python::json::{char_len, js_string};
use crate::trace::Event;
use crate::transcript::ResultText;

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
        if let Some(name) = SHELL_SECTIONS.iter().find(|name| {
            line.strip_prefix(**name)
                .is_some_and(|rest| rest.starts_with(": "))
        }) {
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
    if char_len(saved) <= 500 {
        return saved.to_owned();
    }
    // The first and last 250 characters, found by byte offset (no copy of the text as chars).
    let head_end = saved
        .char_indices()
        .nth(250)
        .map_or(saved.len(), |(at, _)| at);
    let tail_start = saved.char_indices().nth_back(249).map_or(0, |(at, _)| at);
    format!(
        "{}\n... [TRUNCATED] ...\n{}",
        &saved[..head_end],
        &saved[tail_start..]
    )
}

/// One prunable output: message, block, id, tokens.
type Prunable = (usize, usize, String, usize);

/// The backward scan: the prunable outputs and their tokens. Each output's tokens and whether
/// it is masked already are the history's, measured once while it is unchanged (this scan runs
/// over every output before every turn).
fn prunable(world: &mut World) -> (Vec<Prunable>, usize) {
    let c = world.profile.constants;
    let last = world.history.len().saturating_sub(1);
    let mut protected = 0;
    let mut boundary = false;
    let mut total = 0;
    let mut found = Vec::new();
    for (mi, bi, tokens, masked) in world.history.results_newest_first() {
        if mi >= last {
            continue;
        }
        let (id, _) = world.history.result_at(mi, bi);
        let tool = world.ledger.results.get(id).map_or("", |r| r.name.as_str());
        if EXEMPT_TOOLS.contains(&tool) || masked {
            continue;
        }
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
    for (mi, bi, id, tokens) in found {
        if !rewrite_skip(world, mi, bi, &id)? {
            mask_one(world, mi, bi, id, tokens)?;
        }
    }
    Ok(())
}

/// The tool `id` answered, as its file is named.
fn tool_name(world: &World, id: &str) -> String {
    world
        .ledger
        .results
        .get(id)
        .map(|r| r.name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown_tool".to_owned())
}

/// The skip event of an output written to `path` but left in place.
fn skip_event(id: &str, path: &str) -> Event {
    Event::new(STAGE, "skip").id(id).reason(format!(
        "written to {path}, but the masked form saves nothing"
    ))
}

/// An output an earlier turn wrote but left in place (its masked form saves nothing), unchanged
/// since: writes it again and traces the skip as that turn did, without rebuilding the file text,
/// preview and masked form. False when there is no such output.
fn rewrite_skip(world: &mut World, mi: usize, bi: usize, id: &str) -> Result<bool, RunError> {
    let tool = tool_name(world, id);
    let (_, output) = world.history.result_at(mi, bi);
    let Some(skip) = world
        .mask_skips
        .get(id)
        .filter(|skip| skip.output == output && skip.tool == tool)
    else {
        return Ok(false);
    };
    world.store.put_spill(&skip.path, skip.saved.clone())?;
    let event = skip_event(id, &skip.path);
    world.ledger.mark_spilled(id, true);
    world.record(event);
    Ok(true)
}

/// Writes one prunable output to its file and masks it where that saves tokens; one that it does
/// not is remembered for the next turn.
fn mask_one(
    world: &mut World,
    mi: usize,
    bi: usize,
    id: String,
    tokens: usize,
) -> Result<(), RunError> {
    let estimator = world.profile.estimator;
    let template = world.profile.strings.persisted;
    // Gemini writes `session-<id>/<tool>_<callId>_<random>.txt`; the lab's spill store is one
    // flat directory, so the file is `<tool>_<callId>.txt` beside the compression spills.
    let (_, output) = world.history.owned_result_at(mi, bi);
    let tool = tool_name(world, &id);
    // `JSON.stringify({output}, null, 2)`.
    let saved = ResultText::from(format!("{{\n  \"output\": {}\n}}", js_string(&output)));
    let path = store::join(
        &world.spill_dir,
        &format!("{}_{}.txt", sanitize(&tool), sanitize(&id)),
    );
    world.store.put_spill(&path, saved.clone())?;
    world.ledger.mark_spilled(&id, true);
    let masked = fill(
        template,
        &[
            ("preview", &preview(&tool, &output, &saved)),
            ("path", &path),
        ],
    );
    if estimator.string(&masked) >= tokens {
        world.record(skip_event(&id, &path));
        let skip = MaskSkip {
            output,
            tool,
            path,
            saved,
        };
        world.mask_skips.insert(id, skip);
        return Ok(());
    }
    world.replace_result(
        mi,
        bi,
        masked,
        STAGE,
        format!("masked, full output at {path}"),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// A random output: short or long, shell (with sections) or not.
    fn output(rng: &mut ChaCha8Rng, tool: &str) -> String {
        let lines = 1 + (rng.next_u64() % 40) as usize;
        let width = 1 + (rng.next_u64() % 60) as usize;
        let body: Vec<String> = (0..lines)
            .map(|i| format!("{i}{}", "y".repeat(width)))
            .collect();
        if tool == SHELL_TOOL && rng.next_u64() % 2 == 0 {
            return format!("Output: {}\nExit Code: 0\n", body.join("\n"));
        }
        body.join("\n")
    }

    /// The two runs agree on the spill files (paths and text), trace, history and ledger.
    fn assert_same(kept: &World, rebuilt: &World, step: usize) {
        let files = kept.store.spill_files(&kept.spill_dir);
        assert_eq!(
            files,
            rebuilt.store.spill_files(&rebuilt.spill_dir),
            "step {step}"
        );
        for file in &files {
            let text = kept.store.read_spill(&file.path);
            assert_eq!(text, rebuilt.store.read_spill(&file.path), "step {step}");
        }
        assert!(kept.trace == rebuilt.trace, "step {step}: traces differ");
        assert_eq!(
            kept.history.messages(),
            rebuilt.history.messages(),
            "step {step}"
        );
        assert_eq!(kept.ledger.results, rebuilt.ledger.results, "step {step}");
    }

    /// The preview of a non-shell output keeps the first and last 250 characters of the saved
    /// JSON (characters, not bytes) once it is longer than 500, and the whole text otherwise.
    #[test]
    fn the_preview_keeps_250_characters_at_each_end() {
        let by_chars = |saved: &str| {
            let chars: Vec<char> = saved.chars().collect();
            if chars.len() <= 500 {
                return saved.to_owned();
            }
            let head: String = chars[..250].iter().collect();
            let tail: String = chars[chars.len() - 250..].iter().collect();
            format!("{head}\n... [TRUNCATED] ...\n{tail}")
        };
        for saved in [
            "short".to_owned(),
            "é".repeat(500),
            "é".repeat(501),
            format!("{}{}", "a".repeat(300), "😀".repeat(300)),
        ] {
            assert_eq!(preview("read_file", "", &saved), by_chars(&saved));
        }
        let cut = preview("read_file", "", &"é".repeat(501));
        assert_eq!(cut.chars().count(), 500 + "\n... [TRUNCATED] ...\n".len());
        // A line that starts a shell section only with its name and `: `.
        let (before, sections) = shell_sections("x\nOutput: a\nOutputs: b\nExit Code: 0\n");
        assert_eq!(before, "x\n");
        assert_eq!(
            sections,
            [("Output", "a\nOutputs: b\n"), ("Exit Code", "0\n")]
        );
    }

    /// A random session (short outputs whose masked form saves nothing, long ones, shell
    /// sections, exempt tools, reused ids, outputs rewritten in place): after every turn the
    /// masking that reuses its remembered skips leaves the state that rebuilding every prunable
    /// output from scratch (as before issue 13) leaves.
    #[test]
    fn remembered_skips_give_the_state_a_full_rebuild_gives() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut profile = crate::compaction::profile::GEMINI_CLI;
        profile.constants.mask_protect = 300;
        profile.constants.mask_min_prunable = 200;
        let mut kept = World::for_test(profile);
        let mut rebuilt = World::for_test(profile);
        let tools = [SHELL_TOOL, "read_file", "ask_user", "grep"];
        let (mut skips, mut reused) = (0, 0);
        for step in 0..300 {
            let calls: Vec<(String, &str, String)> = (0..1 + rng.next_u64() % 3)
                .map(|_| {
                    let tool = tools[(rng.next_u64() % 4) as usize];
                    (
                        format!("t{}", rng.next_u64() % 500),
                        tool,
                        output(&mut rng, tool),
                    )
                })
                .collect();
            let calls: Vec<(&str, &str, String)> = calls
                .iter()
                .map(|(id, tool, text)| (id.as_str(), *tool, text.clone()))
                .collect();
            let rewrite = rng.next_u64() % 5 == 0;
            let pick = rng.next_u64();
            for world in [&mut kept, &mut rebuilt] {
                world.clock.step = step + 1;
                world.turn(&calls);
                let positions = world.history.result_positions();
                if rewrite && !positions.is_empty() {
                    let (mi, bi) = positions[(pick % positions.len() as u64) as usize];
                    world.replace_result(
                        mi,
                        bi,
                        format!("rewritten {step}"),
                        "test",
                        String::new(),
                    );
                }
            }
            let remembered: Vec<String> = kept.mask_skips.keys().cloned().collect();
            let before = kept.trace.len();
            rebuilt.mask_skips.clear();
            run(&mut kept).unwrap();
            reused += kept.trace[before..]
                .iter()
                .filter(|e| {
                    e.kind == "skip" && e.id.as_ref().is_some_and(|id| remembered.contains(id))
                })
                .count();
            run(&mut rebuilt).unwrap();
            assert_same(&kept, &rebuilt, step);
            skips = kept.trace.iter().filter(|e| e.kind == "skip").count();
        }
        // The session exercises every path: outputs masked, many skips, most of them remembered
        // (42 164 and 41 945 at this seed).
        let masked = kept
            .trace
            .iter()
            .filter(|e| e.stage == STAGE && e.kind == "replace")
            .count();
        assert!(masked > 10, "{masked} masked");
        assert!(
            skips > 40_000 && reused > 40_000,
            "{skips} skips, {reused} reused"
        );
    }

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
