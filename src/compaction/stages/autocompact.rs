//! Autocompact: when the token count reaches the threshold, summarise the whole history into one
//! message and restore the most recent files.
//!
//! Claude Code v2.1.88 `autoCompact.ts` / `compact.ts` (SPEC §5.5, C3-C4): threshold = window −
//! min(max output, 20000) − 13000 tokens (167000 for a 200K window), compared with `>=`; one
//! summariser call with the 9-section prompt; the history becomes the summary message (with the
//! path of the session transcript and, for autocompact, the instruction to continue), followed by
//! up to 5 files re-read from the most recent Reads: a file of more than 5000 tokens becomes a
//! one-line reference, and files are accepted while their tokens together stay within 50000. The
//! originals stay in the session transcript; CLAUDE.md is re-injected outside the history.

use crate::compaction::profile::fill;
use crate::compaction::store;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::transcript::{Message, Role, js_stringify, rough_tokens};

fn system_reminder(text: &str) -> Message {
    Message::user_text(format!("<system-reminder>\n{text}\n</system-reminder>"))
}

/// `file_path` content with `cat -n` style line numbers (`{n}\t{line}`).
fn numbered(content: &str) -> String {
    content
        .split('\n')
        .enumerate()
        .map(|(i, line)| format!("{}\t{line}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file's token estimate as Read's `validateContentTokens` makes it (JSON counts double).
fn file_tokens(path: &str, content: &str) -> usize {
    let json = [".json", ".jsonl", ".jsonc"]
        .iter()
        .any(|e| path.ends_with(e));
    if json {
        (crate::transcript::utf16_len(content) * 2 + 2) / 4
    } else {
        rough_tokens(content)
    }
}

/// The post-compact file attachments.
fn restored_files(world: &mut World) -> Vec<Message> {
    let c = world.profile.constants;
    let mut out = Vec::new();
    let mut used = 0;
    let files: Vec<(String, String)> = world
        .read_files
        .iter()
        .rev()
        .filter(|(path, _)| store::basename(path) != "CLAUDE.md")
        .take(c.restore_files)
        .cloned()
        .collect();
    for (path, content) in files {
        let filename = store::basename(&path).to_owned();
        let attachment = if file_tokens(&path, &content) > c.restore_file_tokens {
            vec![system_reminder(&format!(
                "Note: {filename} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it."
            ))]
        } else {
            let input = js_stringify(&serde_json::json!({ "file_path": path }));
            vec![
                system_reminder(&format!(
                    "Called the Read tool with the following input: {input}"
                )),
                system_reminder(&format!(
                    "Result of calling the Read tool:\n{}",
                    numbered(&content)
                )),
            ]
        };
        let tokens: usize = attachment.iter().map(Message::rough_tokens).sum();
        if used + tokens <= c.restore_budget {
            used += tokens;
            world.event(
                "autocompact",
                "restore",
                None,
                None,
                Some(tokens),
                format!(
                    "restored {path} ({tokens} tokens, {used} of {} used)",
                    c.restore_budget
                ),
            );
            out.extend(attachment);
        } else {
            world.event(
                "autocompact",
                "restore",
                None,
                None,
                Some(tokens),
                format!(
                    "not restored {path}: {used} + {tokens} > budget {}",
                    c.restore_budget
                ),
            );
        }
    }
    out
}

/// The scripted 9-section summary, as `formatCompactSummary` leaves it.
fn scripted_summary(world: &World, count: usize) -> String {
    if let Some(text) = &world.summary {
        return format!("Summary:\n{}", text.trim());
    }
    let files: Vec<&str> = world.read_files.iter().map(|(p, _)| p.as_str()).collect();
    let users: Vec<String> = world
        .history
        .messages()
        .iter()
        .filter(|m| m.role == Role::User)
        .filter_map(|m| match &m.content {
            crate::transcript::Content::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let none = "(none recorded by the scripted summariser)";
    format!(
        "Summary:\n1. Primary Request and Intent:\n   {}\n\n2. Key Technical Concepts:\n   {none}\n\n3. Files and Code Sections:\n   {}\n\n4. Errors and fixes:\n   {none}\n\n5. Problem Solving:\n   {none}\n\n6. All user messages:\n   {}\n\n7. Pending Tasks:\n   {none}\n\n8. Current Work:\n   summary of {count} messages\n\n9. Optional Next Step:\n   {none}",
        world.active_request,
        if files.is_empty() {
            "(none)".to_owned()
        } else {
            files.join(", ")
        },
        if users.is_empty() {
            "(none)".to_owned()
        } else {
            users.join(" | ")
        },
    )
}

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let tokens = world.history.estimate();
    let threshold = world.profile.autocompact_threshold();
    if tokens < threshold {
        return Ok(());
    }
    world.event(
        "autocompact",
        "over",
        None,
        Some(tokens),
        None,
        format!("{tokens} tokens ≥ autocompact threshold {threshold}"),
    );
    let len = world.history.len();
    let path = world
        .session_path()
        .unwrap_or_else(|| store::join(&world.transcript_dir, "session.jsonl"));
    super::note_removed(world, 0..len, "autocompact", "compacted away", Some(&path));
    let summary_text = scripted_summary(world, len);
    world.model_calls += 1;
    world.event(
        "autocompact",
        "summary",
        None,
        Some(tokens),
        Some(rough_tokens(&summary_text)),
        format!("summariser call over {len} messages ({tokens} tokens)"),
    );
    let summary = fill(
        world.profile.strings.summary_message,
        &[("summary", &summary_text), ("path", &path)],
    );
    let mut messages = vec![Message::user_text(summary)];
    messages.extend(restored_files(world));
    world.read_files.clear();
    world.log_session(&messages)?;
    world.history.replace_all(messages);
    world.event(
        "autocompact",
        "compact",
        None,
        Some(tokens),
        Some(world.history.estimate()),
        format!("{len} messages replaced by the summary and the restored files"),
    );
    Ok(())
}
