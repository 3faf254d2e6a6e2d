//! The world's tests: the ledger, the trace and the replaced results.

use super::*;

#[test]
fn bash_task_id_stand_in_has_the_real_shape() {
    // b + 8 of 0-9a-z; values from Python: sha256(id)[i] % 36 for i < 8.
    assert_eq!(bash_task_id("toolu_b"), "bdo4dhqpf");
    assert_eq!(bash_task_id("toolu_b30001"), "bc52t1amu");
}

#[test]
fn call_keys_sort_object_keys_at_every_depth() {
    // Parsed as a scenario's input is: the number keeps its text.
    let input: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        r#"{"z": [{"b": 1, "a": "é\n"}, 2.50, null], "a": {"y": true, "x": {"d": [], "c": "q"}}}"#,
    )
    .unwrap();
    let input = Input::from(input);
    let sorted = "{\"a\":{\"x\":{\"c\":\"q\",\"d\":[]},\"y\":true},\
                  \"z\":[{\"a\":\"é\\n\",\"b\":1},2.50,null]}";
    let key = |name: &str, input: &Input| CallKey::new(&name.into(), input);
    assert_eq!(key("Read", &input).parts(), ("Read", sorted));
    // The sorted text is the input's own: a copy of the input (a later replay's) reads it
    // from the same place, and another name makes another key.
    assert_eq!(key("Grep", &input.clone()).parts(), ("Grep", sorted));
    assert!(std::ptr::eq(
        input.sorted_json(),
        input.clone().sorted_json()
    ));
    assert_eq!(key("Bash", &Input::default()).parts(), ("Bash", "{}"));
    // Keys are equal (and hash alike) when the name and the sorted input are: another map
    // with the same entries in another order is the same call.
    let reordered: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        r#"{"a": {"x": {"d": [], "c": "q"}, "y": true}, "z": [{"a": "é\n", "b": 1}, 2.50, null]}"#,
    )
    .unwrap();
    let reordered = Input::from(reordered);
    let hash = |key: &CallKey| {
        use std::hash::BuildHasher;
        crate::hash::FastMap::<(), ()>::default()
            .hasher()
            .hash_one(key)
    };
    assert!(key("Read", &input) == key("Read", &reordered));
    assert_eq!(hash(&key("Read", &input)), hash(&key("Read", &reordered)));
    assert!(key("Read", &input) != key("Grep", &input));
    assert!(key("Read", &input) != key("Read", &Input::default()));
}
use crate::compaction::profile::COURSE_MAIN;

#[test]
fn an_assistant_message_marks_earlier_results_seen() {
    let mut world = World::for_test(COURSE_MAIN);
    world.turn(&[("t0", "bash", "x".into())]);
    assert!(!world.ledger.results[&CallId::new("t0")].seen);
    world.push(Message::tool_uses(&[("t1", "bash")]));
    assert!(world.ledger.results[&CallId::new("t0")].seen);
    let seen: Vec<&str> = world
        .trace
        .iter()
        .filter(|e| e.kind == "seen")
        .filter_map(|e| e.id.as_deref())
        .collect();
    assert_eq!(seen, ["t0"]);
}

fn read(world: &mut World, id: &str, input: serde_json::Value) {
    let serde_json::Value::Object(input) = input else {
        panic!("an object")
    };
    world.push(Message::blocks(
        Role::Assistant,
        vec![Block::ToolUse {
            id: id.to_owned().into(),
            name: "Read".to_owned().into(),
            input: input.into(),
        }],
    ));
    world.push_results(vec![IncomingResult::measured(id, "Read", "fn main() {}")]);
}

fn rereads(world: &World) -> Vec<&str> {
    world
        .trace
        .iter()
        .filter(|e| e.kind == "reread")
        .filter_map(|e| e.id.as_deref())
        .collect()
}

#[test]
fn a_repeated_call_counts_only_once_no_earlier_result_is_in_context_verbatim() {
    let mut world = World::for_test(COURSE_MAIN);
    read(
        &mut world,
        "r1",
        serde_json::json!({"file_path": "/a", "limit": 5}),
    );
    // r1 is still verbatim: the model could see it.
    read(
        &mut world,
        "r2",
        serde_json::json!({"limit": 5, "file_path": "/a"}),
    );
    assert!(rereads(&world).is_empty());
    world.replace_result(1, 0, "[cleared]", "micro", "r");
    read(
        &mut world,
        "r3",
        serde_json::json!({"file_path": "/a", "limit": 5}),
    );
    assert!(rereads(&world).is_empty(), "r2 is still verbatim");
    world.replace_result(3, 0, "[cleared]", "micro", "r");
    world.replace_result(5, 0, "[cleared]", "micro", "r");
    // Keys in another order are the same input; another input is another call.
    read(
        &mut world,
        "r4",
        serde_json::json!({"limit": 5, "file_path": "/a"}),
    );
    read(
        &mut world,
        "r5",
        serde_json::json!({"file_path": "/b", "limit": 5}),
    );
    assert_eq!(rereads(&world), ["r4"]);
    // Out of context counts too.
    world
        .history
        .replace_all(vec![Message::user_text("summary")]);
    read(
        &mut world,
        "r6",
        serde_json::json!({"file_path": "/b", "limit": 5}),
    );
    assert_eq!(rereads(&world), ["r4", "r6"]);
}

#[test]
fn removing_a_file_takes_the_copies_it_held() {
    let mut world = World::for_test(COURSE_MAIN);
    world.turn(&[("t0", "bash", "x".into())]);
    world
        .store
        .write_spill("/lab/tool-results/t0.txt", "x".into())
        .unwrap();
    world.ledger.mark_spilled(&CallId::new("t0"), true);
    crate::compaction::archive::write_transcript(&mut world, "compact").unwrap();
    assert!(world.ledger.results[&CallId::new("t0")].archived_verbatim);
    world.remove_file(StoreDir::Spill, "t0.txt").unwrap();
    assert!(!world.ledger.results[&CallId::new("t0")].spilled_verbatim);
    assert!(world.ledger.results[&CallId::new("t0")].archived_verbatim);
    let name = format!("transcript_{:032x}.jsonl", 0);
    world.remove_file(StoreDir::Transcript, &name).unwrap();
    assert!(!world.ledger.results[&CallId::new("t0")].archived_verbatim);
    assert!(!world.store.is_file(&format!("/lab/.transcripts/{name}")));
    world.remove_file(StoreDir::Spill, "t0.txt").unwrap();
    let last = world.trace.last().unwrap();
    assert_eq!(
        last.reason,
        "no file /lab/tool-results/t0.txt: nothing removed"
    );
}

#[test]
fn only_a_placeholder_before_the_model_saw_it_counts_as_unseen_compaction() {
    let mut world = World::for_test(COURSE_MAIN);
    world.clock.step = 4;
    world.turn(&[("t0", "bash", "x".into()), ("t1", "bash", "y".into())]);
    let preview = "<persisted-output>\nFull output: /p\nPreview:\nx\n</persisted-output>";
    world.replace_result(1, 0, preview, "budget", "r");
    world.replace_result(1, 1, "[Earlier tool result omitted.]", "micro", "r");
    assert!(!world.ledger.results[&CallId::new("t0")].unseen_compacted);
    assert!(world.ledger.results[&CallId::new("t1")].unseen_compacted);
    assert!(!world.ledger.results[&CallId::new("t0")].is_original);
    let last = world.trace.last().unwrap();
    assert_eq!(
        (last.step, last.before.get(), last.after.get()),
        (4, Some(1), Some(30))
    );
}

/// A Read result is kept as a file read back only where a stage reads the list (Claude Code's
/// autocompact); course-main keeps none.
#[test]
fn the_files_read_are_kept_only_for_autocompact() {
    use crate::compaction::profile::{CLAUDE_CODE, CLAUDE_CODE_2_1_332, COURSE_LATEST, GEMINI_CLI};
    for (profile, kept) in [
        (CLAUDE_CODE, 1),
        (CLAUDE_CODE_2_1_332, 1),
        (COURSE_MAIN, 0),
        (COURSE_LATEST, 0),
        (GEMINI_CLI, 0),
    ] {
        assert_eq!(
            profile.runs(Stage::Autocompact),
            kept == 1,
            "{}",
            profile.name
        );
        let mut world = World::for_test(profile);
        let mut input = serde_json::Map::new();
        input.insert("file_path".into(), "/repo/a.rs".into());
        world.push(Message::blocks(
            Role::Assistant,
            vec![Block::ToolUse {
                id: "r1".into(),
                name: "Read".into(),
                input: input.into(),
            }],
        ));
        world.push_results(vec![IncomingResult::measured("r1", "Read", "fn a() {}")]);
        assert_eq!(
            world.ledger.read_files.iter().count(),
            kept,
            "{}",
            profile.name
        );
    }
}

/// The events the observables count are counted as they are recorded: the counts equal a count
/// of the trace, whatever stage or step recorded them.
#[test]
fn recorded_events_are_counted_as_the_trace_holds_them() {
    let mut world = World::for_test(COURSE_MAIN);
    let events = [
        Event::new("scenario", "reread"),
        Event::new("snip", "split"),
        Event::new("compact", "split"),
        Event::new("scenario", "escape"),
        Event::new("compact", "compact").sizes(1000, 990),
        Event::new("compact", "compact").sizes(1000, 500),
        Event::new("snip", "snip").sizes(1000, 999),
        Event::new("snip", "keep").sizes(1000, 1000),
        Event::new("micro", "replace").sizes(1000, 999),
    ];
    for event in events {
        world.record(event);
    }
    let count = |kind: &str| world.trace.iter().filter(|e| e.kind == kind).count();
    let counts = &world.counters.events;
    assert_eq!(counts.rereads, count("reread"));
    assert_eq!(counts.splits, 2);
    assert_eq!(counts.escapes, count("escape"));
    assert_eq!(
        counts.churn,
        world.trace.iter().filter(|e| is_churn(e)).count()
    );
    assert_eq!(counts.churn, 2);
}
