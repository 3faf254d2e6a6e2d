//! Tests of Cline's fold ([`super`]).

use super::*;
use crate::call_id::CallId;
use crate::compaction::profile::CLINE;

fn assistant(text: &str) -> Message {
    Message::blocks(
        Role::Assistant,
        vec![Block::Text {
            text: text.to_owned(),
        }],
    )
}

#[test]
fn the_budget_follows_clines_floating_point() {
    // 128000 × 0.9 = 115200; × 0.7 = 80640 (the default model).
    assert_eq!(budget(128_000, Mode::Auto, 0), (115_200, 80_640));
    // 200 × 0.9 = 180, but 180 × 0.7 is 125.99999999999999: floor gives 125.
    assert_eq!(budget(200, Mode::Auto, 0), (180, 125));
    // Manual: half the messages' estimate, at most the trigger.
    assert_eq!(budget(1000, Mode::Manual, 301), (900, 150));
    assert_eq!(budget(1000, Mode::Manual, 5000), (900, 900));
}

/// A prompt's tokens counted in place are those of the message its kept blocks make: text
/// (blank or not, non-ASCII), blocks with an attachment kept or dropped, tool results.
#[test]
fn a_prompts_tokens_are_counted_without_copying_it() {
    let text = |text: &str| Block::Text {
        text: text.to_owned(),
    };
    let attachment = format!("{ATTACHMENT_PREFIX}/a/b.rs]\nfn main() {{}} é𝄞");
    let result = Block::ToolResult {
        tool_use_id: CallId::from("c1"),
        content: "out\n\"quoted\"".into(),
    };
    let messages = [
        Message::user_text("  "),
        Message::user_text("why is it slow? \u{7}"),
        Message::blocks(Role::User, vec![]),
        Message::blocks(Role::User, vec![text("a"), text(&attachment), text("𝄞 b")]),
        Message::blocks(Role::User, vec![text(&attachment)]),
        Message::blocks(Role::User, vec![result, text("after")]),
    ];
    for message in &messages {
        for keep in [false, true] {
            let copied = Message::blocks(Role::User, user_blocks(message, keep));
            assert_eq!(
                user_tokens(message, keep),
                cline_tokens(&copied),
                "{message:?}, attachments kept: {keep}"
            );
        }
    }
}

#[test]
fn a_lone_message_or_an_unchanged_history_is_not_folded() {
    assert_eq!(fold(&[Message::user_text("a")], 1), None);
    // Everything fits and nothing is dropped: no change, no fold.
    let messages = vec![Message::user_text("a"), assistant("b")];
    assert_eq!(fold(&messages, 1000), None);
}

#[test]
fn an_older_turn_without_a_plain_answer_merges_its_prompt_with_the_next() {
    // Turn one ends on a tool call and its result (no answer): its prompt and the next
    // prompt become one message with the notice for the dropped call between them.
    let messages = vec![
        Message::user_text(" one "),
        Message::tool_uses(&[("c1", "run_commands")]),
        Message::blocks(Role::User, vec![Block::tool_result("c1", "ok")]),
        Message::user_text("two"),
        assistant("done"),
    ];
    let folded = fold(&messages, 1000).expect("folds");
    assert_eq!(folded.len(), 2);
    let texts: Vec<&str> = folded[0]
        .block_list()
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.as_str(),
            _ => "",
        })
        .collect();
    // `Message::tool_uses` gives no `commands`, so the notice lists nothing and is left out.
    assert_eq!(texts, vec!["one", "two"]);
    assert_eq!(folded[1], assistant("done"));
}

/// Fold after fold, the merged prompt's count is summed from its parts, not measured again:
/// the history's estimate stays that of its messages counted afresh (and debug builds
/// compare each counted message with its measure). Prompts trimmed or not, with an
/// attachment, and with a tool result of their own.
#[test]
fn a_merged_prompt_is_counted_from_its_parts_fold_after_fold() {
    let mut profile = CLINE;
    profile.constants.context_window = 1000;
    let mut world = World::for_test(profile);
    let text = |text: String| Block::Text { text };
    for i in 0..60 {
        let prompt = match i % 4 {
            0 => Message::user_text(format!("prompt {i}")),
            1 => Message::user_text(format!("  spaced prompt {i} ")),
            2 => Message::blocks(
                Role::User,
                vec![
                    text(format!("{ATTACHMENT_PREFIX}/src/{i}.rs]\nfn f() {{}}")),
                    text(format!("look at {i} é")),
                ],
            ),
            _ => Message::blocks(
                Role::User,
                vec![
                    Block::ToolResult {
                        tool_use_id: CallId::new(&format!("u{i}")),
                        content: "pasted \"output\"".into(),
                    },
                    text(format!("and this {i}")),
                ],
            ),
        };
        world.push(prompt);
        world.turn(&[(&format!("t{i}"), "Bash", "x".repeat(200))]);
        // An answer: the latest ones come back in the notices of the spans a fold drops.
        world.push(assistant(&format!("done {i}")));
        run(&mut world).unwrap();
        let afresh: usize = world.history.messages().iter().map(cline_tokens).sum();
        assert_eq!(world.history.estimate(), afresh, "after prompt {i}");
    }
    let folds = world.trace.iter().filter(|e| e.kind == "compact").count();
    assert!(folds >= 5, "{folds} folds");
    // The first message holds the prompts merged so far, and notices between them.
    let merged = world.history.messages()[0].block_list();
    let notices = merged
        .iter()
        .filter(|b| matches!(b, Block::Text { text } if text.starts_with("<SYSTEM_NOTICE>")))
        .count();
    assert!(merged.len() >= 10 && notices >= 2, "{merged:?}");
}

/// Prompts of text only make a merged prompt that the history notes as plain: each later
/// fold extends it where it stands, and the history is then what the pure fold builds of
/// the history before it, copying every message.
#[test]
fn a_plain_merged_prompt_is_extended_as_the_pure_fold_builds_it() {
    let mut profile = CLINE;
    profile.constants.context_window = 1000;
    let (_, target) = budget(1000, Mode::Auto, 0);
    let mut world = World::for_test(profile);
    let mut extended = 0;
    for i in 0..60 {
        world.push(Message::user_text(format!("prompt {i}")));
        world.turn(&[(&format!("t{i}"), "Bash", "x".repeat(200))]);
        world.push(assistant(&format!("done {i}")));
        let before = world.history.messages().to_vec();
        let plain = world.history.cline_plain(0);
        let folds = world.trace.iter().filter(|e| e.kind == "compact").count();
        run(&mut world).unwrap();
        if world.trace.iter().filter(|e| e.kind == "compact").count() > folds {
            let expected = fold(&before, target).expect("a fold");
            assert_eq!(world.history.messages(), expected, "after prompt {i}");
            extended += usize::from(plain);
        }
        let afresh: usize = world.history.messages().iter().map(cline_tokens).sum();
        assert_eq!(world.history.estimate(), afresh, "after prompt {i}");
    }
    assert!(extended >= 5, "{extended} folds extended the merged prompt");
    assert!(world.history.cline_plain(0));
}

#[test]
fn the_stage_folds_at_ninety_percent_and_marks_unseen_results() {
    let mut profile = CLINE;
    profile.constants.context_window = 100;
    let mut world = World::for_test(profile);
    world.push(Message::user_text("go"));
    world.turn(&[("t1", "Bash", "x".repeat(300))]);
    // 10 + tool_use + result: over 90.
    assert!(world.history.estimate() >= 90);
    run(&mut world).unwrap();
    assert_eq!(world.history.len(), 1);
    assert_eq!(world.result("t1"), None);
    assert!(world.ledger.results[&CallId::new("t1")].unseen_compacted);
    assert_eq!(world.counters.model_calls, 0);
}
