//! Claude Code v2.1.332's autocompact (`CompactForm::KeepLastTurn`; probed: p14, docs/probe.md):
//! the summariser sees the history up to the last assistant turn, and that turn and its results
//! stay verbatim after the summary message. The summary message names the tools the session used
//! (`<tools-used-before-summary>`) and says that the messages after it were kept; the files read
//! before the compaction, except those a kept Read reads again, are restored as text blocks
//! appended to the kept results, followed by the attribution reminder.

use std::collections::BTreeSet;

use crate::call_id::CallId;
use crate::compaction::archive;
use crate::compaction::profile::fill;
use crate::compaction::store;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::hash::FastMap;
use crate::trace::{Event, reason};
use crate::transcript::{Block, Message, ResultText, Role};

use super::read_tool::{absolute, file_tokens, numbered, read_attachment, system_reminder};

/// The attribution reminder the agent re-attaches after a compaction (`Co-Authored-By: Claude
/// Opus 5.5 …`, the default model's). Vendor prompt text: kept as its length and sha256, the
/// form a conformance record stores it in.
const ATTRIBUTION: &str =
    "<hashed chars=579 sha256=c7c420407202d49de9fc952cb1f03960c3aadbd74064867b89fc2e787a9f9b74>";

/// The same reminder with the merge seam's `\n` (580 chars, as in the first request too).
const ATTRIBUTION_SEAM: &str =
    "<hashed chars=580 sha256=e291f933f8631786b609d42a9db8e2713cedfd6060aeaed4f275a7e8a0f1727f>";

/// Where the kept turn starts: the last assistant message (the history's length when there is
/// none, so that everything is summarised).
fn kept_from(messages: &[Message]) -> usize {
    messages
        .iter()
        .rposition(|m| m.role == Role::Assistant)
        .unwrap_or(messages.len())
}

/// The tool names of every tool_use in `messages`, sorted and without repeats.
fn tools_used(messages: &[Message]) -> BTreeSet<&str> {
    messages
        .iter()
        .flat_map(Message::block_list)
        .filter_map(|b| match b {
            Block::ToolUse { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect()
}

/// The `<tools-used-before-summary>` reminder that opens the summary, with its line break.
fn tools_reminder(tools: &BTreeSet<&str>) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let list: Vec<&str> = tools.iter().copied().collect();
    format!(
        "{}\n",
        system_reminder(&format!(
            "<tools-used-before-summary>{}</tools-used-before-summary>",
            list.join(", ")
        ))
    )
}

/// The `file_path` of every Read in `messages`.
fn kept_reads(messages: &[Message]) -> BTreeSet<String> {
    messages
        .iter()
        .flat_map(Message::block_list)
        .filter_map(|b| match b {
            Block::ToolUse { name, input, .. } if name == "Read" => input
                .get("file_path")
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// The files the session's Bash calls `cat` (one path, nothing else on the line), newest call
/// first, with the text each showed. 2.1.332 counts them as read: p14 and p15 restore them
/// after the files Read read, the newest call first (the order is what those runs show; the code
/// that orders them was not traced). A result no longer in context verbatim (persisted: over
/// 30000 bytes, so over the per-file cap anyway) is left out.
fn bash_reads(world: &mut World) -> Vec<(String, String)> {
    let positions = world.history.result_positions();
    let world: &World = world;
    let mut calls = Vec::new();
    for block in world
        .history
        .messages()
        .iter()
        .flat_map(Message::block_list)
    {
        if let Block::ToolUse { id, name, input } = block {
            let command = input.get("command").and_then(|v| v.as_str());
            let path = command.and_then(|c| c.strip_prefix("cat ")).filter(|p| {
                !p.is_empty()
                    && !p.contains(|c: char| c.is_whitespace() || "|&;<>$`'\"\\*?".contains(c))
            });
            if let (true, Some(path)) = (name == "Bash", path) {
                calls.push((*id, path.to_owned()));
            }
        }
    }
    // The first result in the history with each id, looked up by id (issue 13: the list was
    // searched from the start for every `cat` call).
    let mut results: FastMap<CallId, &str> = FastMap::default();
    for (mi, bi) in positions {
        let (id, content) = world.history.result_at(mi, bi);
        results.entry(*id).or_insert(content);
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (id, path) in calls.into_iter().rev() {
        let verbatim = world.ledger.results.get(&id).is_some_and(|r| r.is_original);
        let text = results.get(&id).copied();
        if let Some(text) = text.filter(|_| verbatim && !out.iter().any(|(p, _)| *p == path)) {
            out.push((path, text.to_owned()));
        }
    }
    out
}

/// The restored files as text blocks, oldest read first: each a `Called the Read tool…` and a
/// `Result of calling the Read tool:` block, the whole file numbered. A file a kept Read reads
/// again is left out, as is a file over the per-file cap (its note goes in a system message,
/// not modelled), and files are taken, newest first, while their tokens stay within the budget.
fn restored_files(world: &mut World, skip: &BTreeSet<String>) -> Vec<String> {
    let c = world.profile.constants;
    let mut known = world.ledger.read_files.clone();
    for (path, text) in bash_reads(world) {
        known.read(path, text);
    }
    let files: Vec<(String, ResultText)> = known
        .iter()
        .rev()
        .filter(|(path, _)| !skip.contains(*path) && store::basename(path) != "CLAUDE.md")
        .take(c.restore_files)
        .map(|(path, text)| (path.clone(), text.clone()))
        .collect();
    let mut out = Vec::new();
    let mut used = 0;
    for (path, content) in files {
        let path = absolute(path);
        if file_tokens(&path, &content) > c.restore_file_tokens {
            world.record(Event::new("autocompact", "restore").reason(reason!(
                "not restored {path}: over restore_file_tokens {} (a note in a system message, not modelled)",
                c.restore_file_tokens
            )));
            continue;
        }
        let pair = read_attachment(&path, &numbered(&content));
        if super::summary_call::within_budget(world, &path, &pair, &mut used) {
            out.push(pair);
        }
    }
    // Chosen most recent first; sent oldest first.
    out.into_iter().rev().flatten().collect()
}

/// The restored blocks with the `\n` the agent adds to the last text of a user message when it
/// merges the next one into it (`joinTextAtSeam`), then the attribution reminder. As probed:
/// appended to the kept results (p14), every block but the last ends in it and the reminder
/// does not; before the summary (p17), the first block is a message of its own and the last
/// ends a message too, so neither ends in it, while the reminder does (the summary is merged
/// after it).
fn with_seams(mut blocks: Vec<String>, kept_turn: bool) -> Vec<String> {
    let count = blocks.len();
    for (i, block) in blocks.iter_mut().enumerate() {
        let first = !kept_turn && i == 0;
        if i + 1 < count && !first {
            block.push('\n');
        }
    }
    blocks.push(
        if kept_turn {
            ATTRIBUTION
        } else {
            ATTRIBUTION_SEAM
        }
        .to_owned(),
    );
    blocks
}

/// The paragraph that closes the summary message when the last turn is kept.
const KEPT_PARAGRAPH: &str = "\n\nThe messages after this summary are the most recent messages from before compaction, kept verbatim. The summary was written without seeing them, so something it says has not happened yet may already have happened in them.";

/// Compacts keeping the last turn: the summary message, then the kept turn with the restored
/// files and the attribution reminder appended to its last message. When nothing but user
/// messages precede the last turn, there is nothing to summarise before it: the agent does not
/// compact (p18) until the count reaches the blocking limit, and there summarises the whole
/// history (p17): the restored files and the attribution reminder come first, then the summary
/// message, without the closing paragraph.
pub(super) fn compact(world: &mut World, tokens: usize) -> Result<(), RunError> {
    let len = world.history.len();
    let last_turn = kept_from(world.history.messages());
    let keep = world.history.messages()[..last_turn]
        .iter()
        .any(|m| m.role == Role::Assistant);
    if !keep && tokens < world.profile.blocking_limit() {
        world.record(Event::new("autocompact", "skip").before(tokens).reason(reason!(
            "nothing but user messages before the last turn to summarise: no compaction below the blocking limit {}",
            world.profile.blocking_limit()
        )));
        return Ok(());
    }
    let from = if keep { last_turn } else { len };
    let (path, summary_text) =
        super::summary_call::summarise(world, from, tokens, Some(len - from));
    let tools = tools_reminder(&tools_used(world.history.messages()));
    let summary = fill(
        world.profile.strings.summary_message,
        &[
            ("tools", &tools),
            ("summary", &summary_text),
            ("path", &path),
            ("kept", if keep { KEPT_PARAGRAPH } else { "" }),
        ],
    );
    let mut kept: Vec<Message> = world.history.messages()[from..].to_vec();
    let restored = with_seams(restored_files(world, &kept_reads(&kept)), keep);
    let texts = |blocks: Vec<String>| blocks.into_iter().map(|text| Block::Text { text });
    let mut messages = Vec::new();
    if let Some(last) = kept.last_mut().filter(|m| m.role == Role::User) {
        let mut blocks = last.block_list().to_vec();
        blocks.extend(texts(restored));
        *last = Message::blocks(Role::User, blocks);
        messages.push(Message::user_text(summary));
    } else {
        let mut blocks: Vec<Block> = texts(restored).collect();
        blocks.push(Block::Text { text: summary });
        messages.push(Message::blocks(Role::User, blocks));
    }
    archive::log_session(world, &messages)?;
    messages.append(&mut kept);
    // What the kept Reads read stays known; the rest was summarised.
    let still_read = kept_reads(&messages);
    world.ledger.read_files.retain(|p| still_read.contains(p));
    world.history.replace_all(messages);
    world.script.reported_usage = None;
    let how = if keep {
        format!(
            "the last {} kept verbatim, the restored files appended to them",
            len - from
        )
    } else {
        "nothing before the last turn to summarise: everything summarised, the restored files before the summary".to_owned()
    };
    world.record(
        Event::new("autocompact", "compact")
            .sizes(tokens, world.history.estimate())
            .reason(reason!("{from} messages replaced by the summary; {how}")),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::CLAUDE_CODE_2_1_332;
    use crate::compaction::world::IncomingResult;
    use crate::transcript::Content;

    fn call(world: &mut World, id: &str, name: &str, key: &str, value: &str) {
        let mut input = serde_json::Map::new();
        input.insert(key.into(), value.into());
        world.push(Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: id.into(),
                name: name.into(),
                input: input.into(),
            }],
        ));
    }

    fn answer(world: &mut World, id: &str, tool: &str, content: &str) {
        world.push_results(vec![IncomingResult::measured(id, tool, content)]);
    }

    fn texts(message: &Message) -> Vec<&str> {
        message
            .block_list()
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_last_turn_stays_and_the_files_read_before_follow_its_results() {
        let mut world = World::for_test(CLAUDE_CODE_2_1_332);
        world.push(Message::user_text("go"));
        call(&mut world, "r1", "Read", "file_path", "src/a.rs");
        answer(&mut world, "r1", "Read", "fn a() {}");
        call(&mut world, "b1", "Bash", "command", "cat notes.txt");
        answer(&mut world, "b1", "Bash", "note");
        call(&mut world, "r2", "Read", "file_path", "src/b.rs");
        answer(&mut world, "r2", "Read", "fn b() {}");
        compact(&mut world, 967_000).unwrap();
        let messages = world.history.messages();
        // The summary, then the last turn (r2's call and its result) verbatim.
        assert_eq!(messages.len(), 3);
        let Content::Text(summary) = &messages[0].content else {
            unreachable!("the summary message is text")
        };
        assert!(summary.contains(
            "<system-reminder>\n<tools-used-before-summary>Bash, Read</tools-used-before-summary>\n</system-reminder>\nSummary:\n"
        ));
        assert!(summary.ends_with("may already have happened in them."));
        assert_eq!(messages[1], world_call("r2"));
        // r2's file is read by the kept turn: not restored. a.rs (Read) comes first, then the
        // file `cat` read; every block but the last ends in the seam's `\n`; the attribution
        // reminder closes the message.
        assert_eq!(
            texts(&messages[2]),
            [
                "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/home/lab/repo/src/a.rs\"}\n</system-reminder>\n",
                "<system-reminder>\nResult of calling the Read tool:\n1\tfn a() {}\n</system-reminder>\n",
                "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/home/lab/repo/notes.txt\"}\n</system-reminder>\n",
                "<system-reminder>\nResult of calling the Read tool:\n1\tnote\n</system-reminder>",
                ATTRIBUTION,
            ]
        );
        assert!(matches!(
            messages[2].block_list()[0],
            Block::ToolResult { ref tool_use_id, .. } if tool_use_id == "r2"
        ));
        assert_eq!(world.counters.model_calls, 1);
        // Only the kept Read's file is still known as read.
        let known: Vec<&str> = world
            .ledger
            .read_files
            .iter()
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(known, ["src/b.rs"]);
    }

    fn world_call(id: &str) -> Message {
        let mut input = serde_json::Map::new();
        input.insert("file_path".into(), "src/b.rs".into());
        Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: id.into(),
                name: "Read".into(),
                input: input.into(),
            }],
        )
    }

    #[test]
    fn only_a_plain_cat_of_one_path_counts_as_a_read() {
        let mut world = World::for_test(CLAUDE_CODE_2_1_332);
        for (id, command) in [
            ("c1", "cat a.txt"),
            ("c2", "cat a.txt | head"),
            ("c3", "cat"),
            ("c4", "cat b.txt c.txt"),
            ("c5", "tac d.txt"),
            ("c6", "cat e.txt"),
        ] {
            call(&mut world, id, "Bash", "command", command);
            answer(&mut world, id, "Bash", id);
        }
        // Newest call first.
        assert_eq!(
            bash_reads(&mut world),
            [
                ("e.txt".to_owned(), "c6".to_owned()),
                ("a.txt".to_owned(), "c1".to_owned())
            ]
        );
        assert_eq!(kept_from(world.history.messages()), 10);
        assert_eq!(kept_from(&[Message::user_text("go")]), 1);
        // A reused id reads the first result in the history with that id, for both calls.
        for (command, text) in [("cat f.txt", "first"), ("cat g.txt", "second")] {
            call(&mut world, "c7", "Bash", "command", command);
            answer(&mut world, "c7", "Bash", text);
        }
        let reads = bash_reads(&mut world);
        assert_eq!(
            reads[..2],
            [
                ("g.txt".to_owned(), "first".to_owned()),
                ("f.txt".to_owned(), "first".to_owned())
            ]
        );
        assert_eq!(reads.len(), 4);
    }

    #[test]
    fn with_only_the_request_before_the_last_turn_it_waits_for_the_blocking_limit() {
        let mut world = World::for_test(CLAUDE_CODE_2_1_332);
        world.push(Message::user_text("go"));
        call(&mut world, "b1", "Bash", "command", "cat a.txt");
        answer(&mut world, "b1", "Bash", "alpha");
        // 1000000 − min(128000, 20000) − 3000.
        assert_eq!(world.profile.blocking_limit(), 977_000);
        compact(&mut world, 976_999).unwrap();
        assert_eq!(world.history.len(), 3);
        assert_eq!(world.counters.model_calls, 0);
        compact(&mut world, 977_000).unwrap();
        // Everything summarised: one message of the restored file, the reminder and the summary
        // (the first block without the seam, the reminder with it).
        let messages = world.history.messages();
        assert_eq!(messages.len(), 1);
        let texts = texts(&messages[0]);
        assert_eq!(
            texts[..3],
            [
                "<system-reminder>\nCalled the Read tool with the following input: {\"file_path\":\"/home/lab/repo/a.txt\"}\n</system-reminder>",
                "<system-reminder>\nResult of calling the Read tool:\n1\talpha\n</system-reminder>",
                ATTRIBUTION_SEAM,
            ]
        );
        assert!(texts[3].contains("<tools-used-before-summary>Bash</tools-used-before-summary>"));
        assert!(texts[3].ends_with("as if the break never happened."));
        assert_eq!(world.counters.model_calls, 1);
    }
}
