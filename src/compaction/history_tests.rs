//! The history's tests: what it keeps (sizes, lengths, the pair check, the result index)
//! against what reading the list again gives, under every estimator.

use super::*;
use crate::compaction::pairs;
use crate::transcript::estimate_chars;

/// One estimator of each kind of count.
const ESTIMATORS: [Estimator; 4] = [
    Estimator::PythonJson,
    Estimator::PythonRepr,
    Estimator::ClaudeTokens,
    Estimator::ClineTokens,
];

#[test]
fn into_context_sends_what_context_sends() {
    let build = |lead: usize| {
        let mut history = History::new(Estimator::PythonJson);
        history.pin(Message::user_text("pinned"));
        for text in ["restored a", "restored b", "summary"] {
            history.push(Message::user_text(text));
        }
        history.lead_before_pin(lead);
        history
    };
    for lead in [0, 2, 9] {
        let history = build(lead);
        let context = history.context();
        assert_eq!(history.into_context(), context, "lead {lead}");
    }
    // With two lead messages the pinned message is third.
    assert_eq!(build(2).into_context()[2], Message::user_text("pinned"));
}

#[test]
fn incremental_estimate_equals_full_serialisation() {
    let mut history = History::new(Estimator::PythonJson);
    assert_eq!(history.estimate(), estimate_chars(history.messages()));
    history.push(Message::user_text("请检查日志 \"now\""));
    history.push(Message::blocks(
        Role::Assistant,
        vec![Block::ToolUse {
            id: "t1".into(),
            name: "bash".into(),
            input: Default::default(),
        }],
    ));
    history.push(Message::tool_result("t1", &"x".repeat(500)));
    assert_eq!(history.estimate(), estimate_chars(history.messages()));
    let old = history.set_result(2, 0, "line\n\u{1}tab\t\\");
    assert_eq!(old.len(), 500);
    assert_eq!(history.estimate(), estimate_chars(history.messages()));
    assert_eq!(
        history.estimate_prefix(2),
        estimate_chars(&history.messages()[..2])
    );
    assert_eq!(
        history.estimate_suffix(1),
        estimate_chars(&history.messages()[1..])
    );
    assert_eq!(history.estimate_suffix(9), estimate_chars(&[]));
    let kept = history.messages()[1..].to_vec();
    history.replace_all(kept);
    assert_eq!(history.len(), 2);
    let lines: usize = history
        .messages()
        .iter()
        .map(|m| m.json_line().chars().count() + 1)
        .sum();
    assert_eq!(history.jsonl_chars(), lines);
    assert_eq!(history.estimate(), estimate_chars(history.messages()));
}

/// A user message answering two calls, the second result holding escapes and non-ASCII.
/// A request, a call, and [`two_results`] appended with their sizes measured once.
fn a_turn_measured(estimator: Estimator) -> History {
    let mut history = History::new(estimator);
    history.push(Message::user_text("go é 😀"));
    history.push(Message::tool_uses(&[("t0", "bash")]));
    let results = two_results();
    let known: Vec<TextSizes> = results
        .tool_results()
        .map(|(_, content)| TextSizes::of(content))
        .collect();
    history.push_measured(results, &known);
    history
}

fn two_results() -> Message {
    Message::blocks(
        Role::User,
        vec![
            Block::tool_result("a", "x".repeat(300)),
            Block::Text {
                text: "note".into(),
            },
            Block::tool_result("b", "it's \"中\"\n😀"),
        ],
    )
}

#[test]
fn cached_sizes_follow_every_change_under_every_estimator() {
    for estimator in ESTIMATORS {
        let full = |h: &History| estimator.full(h.messages());
        let jsonl =
            |h: &History| -> usize { h.messages().iter().map(|m| m.json_chars() + 1).sum() };
        let mut history = History::new(estimator);
        for index in 0..4 {
            history.push(Message::user_text(format!("turn {index}")));
            history.push(two_results());
        }
        assert_eq!(history.estimate(), full(&history), "{estimator:?}");
        assert_eq!(history.jsonl_chars(), jsonl(&history), "{estimator:?}");
        // The second result of message 3 (block 2), then the first of message 1 (block 0).
        let old = history.set_result(3, 2, "[saved at /x]");
        assert_eq!(old, "it's \"中\"\n😀");
        history.set_result(1, 0, String::new());
        assert_eq!(history.estimate(), full(&history), "{estimator:?}");
        assert_eq!(history.jsonl_chars(), jsonl(&history), "{estimator:?}");
        // Cut messages 2..6 for a marker: 2 + 1 + 2 messages remain.
        history.splice(2, vec![Message::user_text("[snipped]")], 6);
        assert_eq!(history.len(), 5);
        assert_eq!(history.estimate(), full(&history), "{estimator:?}");
        assert_eq!(history.jsonl_chars(), jsonl(&history), "{estimator:?}");
        history.set_result(4, 2, "short");
        assert_eq!(history.estimate(), full(&history), "{estimator:?}");
        assert_eq!(history.jsonl_chars(), jsonl(&history), "{estimator:?}");
        history.splice(0, vec![Message::user_text("summary")], 5);
        assert_eq!(history.len(), 1);
        assert_eq!(history.estimate(), full(&history), "{estimator:?}");
    }
}

/// A message pushed with its results' sizes measured once (a Monte Carlo session's cells)
/// is sized as one measured as it enters, under every estimator, and its `json.dumps`
/// length is the same too; a later change to it is tracked alike.
#[test]
fn sizes_measured_once_are_the_sizes_measured_on_entry() {
    for estimator in ESTIMATORS {
        let message = two_results();
        let known: Vec<TextSizes> = message
            .tool_results()
            .map(|(_, content)| TextSizes::of(content))
            .collect();
        let mut entered = History::new(estimator);
        let mut measured = History::new(estimator);
        for history in [&mut entered, &mut measured] {
            history.push(Message::user_text("go"));
        }
        entered.push(message.clone());
        measured.push_measured(message, &known);
        assert_eq!(measured.estimate(), entered.estimate(), "{estimator:?}");
        assert_eq!(measured.sizes[1].contents, entered.sizes[1].contents);
        assert_eq!(measured.sizes[1].units, entered.sizes[1].units);
        assert_eq!(measured.json_chars_at(1), entered.json_chars_at(1));
        assert_eq!(measured.json_chars_at(1), measured.messages[1].json_chars());
        measured.set_result(1, 2, "short");
        entered.set_result(1, 2, "short");
        assert_eq!(measured.estimate(), estimator.full(measured.messages()));
        assert_eq!(measured.estimate(), entered.estimate(), "{estimator:?}");
    }
}

/// A message appended with its `json.dumps` length (assistant, request, results) is sized as
/// one measured as it enters, under every estimator, and keeps that length.
/// A message whose contents' lengths were known when it entered keeps its `json.dumps`
/// length right through replaced results, whether it was counted before the change or
/// after, under every estimator.
#[test]
fn a_replaced_result_keeps_the_message_json_length_right() {
    for estimator in ESTIMATORS {
        for counted_first in [false, true] {
            let mut history = History::new(estimator);
            let texts = ["a \"q\"\n".repeat(40), "é\t".repeat(30), "plain".into()];
            let message = Message::blocks(
                Role::User,
                texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Block::tool_result(format!("t{i}"), t.as_str()))
                    .collect(),
            );
            let known: Vec<TextSizes> = texts.iter().map(|t| TextSizes::of(t)).collect();
            history.push_measured(message, &known);
            if counted_first {
                history.json_chars_at(0);
            }
            history.set_result(0, 1, "[saved \"x\"\u{1}]");
            history.set_result(0, 0, "");
            let expected = history.messages()[0].json_chars();
            assert_eq!(
                history.json_chars_at(0),
                expected,
                "{estimator:?} {counted_first}"
            );
        }
    }
}

#[test]
fn a_message_appended_with_its_json_length_is_sized_as_measured() {
    let mut call = serde_json::Map::new();
    call.insert("file_path".into(), "/a \"b\" é".into());
    let assistant = Message::blocks(
        Role::Assistant,
        vec![
            Block::Text {
                text: "reading\n".into(),
            },
            Block::ToolUse {
                id: "t1".into(),
                name: "Read".into(),
                input: call.into(),
            },
        ],
    );
    for estimator in ESTIMATORS {
        for message in [assistant.clone(), Message::user_text("go é"), two_results()] {
            let json = message.json_chars();
            let mut entered = History::new(estimator);
            let mut given = History::new(estimator);
            entered.push(message.clone());
            given.push_json(message, json);
            assert_eq!(given.estimate(), entered.estimate(), "{estimator:?}");
            assert_eq!(given.sizes[0].contents, entered.sizes[0].contents);
            assert_eq!(given.json_chars_at(0), json);
        }
    }
}

/// Audit D8: pair repair used to read the whole history before every request (quadratic:
/// 8 000 text turns took 29.5 s). Kept between requests, the check stops at most one message
/// short of the end (an assistant message an answer may still follow), so each request reads
/// only what was appended; a cut starts it again, and it still finds a broken pair.
#[test]
fn the_pair_check_reads_only_what_was_appended() {
    let mut history = History::new(Estimator::PythonJson);
    history.push(Message::user_text("go"));
    for turn in 0..2_000 {
        let id = format!("t{turn}");
        assert!(history.pairs_intact());
        history.push(Message::tool_uses(&[(&id, "Read")]));
        // Not answered yet: not intact, and the check stays before the call.
        assert!(!history.pairs_intact());
        assert_eq!(history.pair_check.resume, history.len() - 1);
        history.push(Message::tool_result(&id, "out"));
        assert!(history.pairs_intact());
        assert_eq!(history.pair_check.resume, history.len());
        history.push(Message {
            role: Role::Assistant,
            content: Content::Text(format!("answer {turn}")),
        });
        assert!(history.pairs_intact());
        assert_eq!(history.pair_check.resume, history.len() - 1);
        history.push(Message::user_text(format!("next {turn}")));
    }
    history.splice(1, Vec::new(), 3);
    assert_eq!(history.pair_check.resume, 0);
    assert!(history.pairs_intact());
    // A duplicate tool_use id far from the first is still found.
    history.push(Message::tool_uses(&[("t5", "Read")]));
    history.push(Message::tool_result("t5", "again"));
    assert!(!history.pairs_intact());
}

/// A stage's watch reports the pairs split between the list before its first cut and the list
/// after it, as `pairs::split` of the two finds them, whether the stage cut once, cut twice,
/// cut and rebuilt, or appended after a cut.
#[test]
fn the_pair_watch_reports_what_the_stage_split() {
    let pair = |id: &str| {
        [
            Message::tool_uses(&[(id, "Read")]),
            Message::tool_result(id, "out"),
        ]
    };
    let start: Vec<Message> = (0..12).flat_map(|i| pair(&format!("t{i}"))).collect();
    type Change = fn(&mut History);
    let changes: [(&str, Change); 7] = [
        ("one splice inside pairs", |h| {
            h.splice(3, vec![Message::user_text("cut")], 7)
        }),
        ("a splice, then another", |h| {
            h.splice(1, Vec::new(), 2);
            h.splice(15, vec![Message::user_text("cut")], 18);
        }),
        ("a splice, then a rebuild", |h| {
            h.splice(5, Vec::new(), 7);
            let mut kept = h.messages()[..3].to_vec();
            kept.extend_from_slice(&h.messages()[10..]);
            h.replace_all(kept);
        }),
        ("a splice, an append, a splice", |h| {
            h.splice(20, Vec::new(), 23);
            h.push(Message::tool_result("t0", "late"));
            h.splice(0, Vec::new(), 1);
        }),
        ("a rebuild that keeps a use, a result and a pair", |h| {
            // t2's use, t4's result, t6 whole: t2 and t4 are split, t6 is not.
            let old = h.messages().to_vec();
            h.replace_all(vec![
                Message::user_text("summary"),
                old[4].clone(),
                old[9].clone(),
                old[12].clone(),
                old[13].clone(),
            ]);
        }),
        ("a rebuild, then a splice", |h| {
            let old = h.messages().to_vec();
            h.replace_all(old[..10].to_vec());
            h.splice(1, Vec::new(), 2);
        }),
        ("a splice that joins halves anew", |h| {
            h.splice(1, Vec::new(), 3);
            h.splice(0, vec![Message::tool_uses(&[("t1", "Read")])], 1);
        }),
    ];
    for (name, change) in changes {
        let mut history = History::new(Estimator::PythonJson);
        for message in start.clone() {
            history.push(message);
        }
        let before = pairs::intact(history.messages());
        history.watch_pairs();
        change(&mut history);
        let fresh = ResultIndex::of(history.messages());
        let expected = pairs::split(&before, history.messages(), &fresh);
        assert_eq!(history.pairs_split(), expected, "{name}");
    }
    // The cases are not all empty: one splice splits t1 (its use at 2 stays) and t3 (its result
    // at 7 stays).
    let mut history = History::new(Estimator::PythonJson);
    for message in start.clone() {
        history.push(message);
    }
    history.watch_pairs();
    changes[0].1(&mut history);
    assert_eq!(history.pairs_split(), ["t1", "t3"]);
    // The rebuild that keeps a use, a result and a pair splits the first two.
    let mut history = History::new(Estimator::PythonJson);
    for message in start {
        history.push(message);
    }
    history.watch_pairs();
    changes[4].1(&mut history);
    assert_eq!(history.pairs_split(), ["t2", "t4"]);
}

/// The tool_result positions the history keeps are those a walk of the list finds (user
/// messages only, in order) after every kind of change: appends, a result's new text, cuts at
/// the head, the middle and the end, a rebuild and a rebuild that keeps its tail.
#[test]
fn the_result_positions_follow_every_change() {
    let walk = |h: &History| -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (mi, message) in h.messages().iter().enumerate() {
            for (bi, block) in message.block_list().iter().enumerate() {
                if message.role == Role::User && matches!(block, Block::ToolResult { .. }) {
                    found.push((mi, bi));
                }
            }
        }
        found
    };
    let assistant_result = || {
        Message::blocks(
            Role::Assistant,
            vec![Block::tool_result(
                "odd",
                "an assistant's tool_result is not counted",
            )],
        )
    };
    let mut history = History::new(Estimator::PythonJson);
    for turn in 0..5 {
        history.push(Message::user_text(format!("turn {turn}")));
        history.push(two_results());
        history.push(assistant_result());
    }
    // Every third message holds two results, at blocks 0 and 2.
    assert_eq!(history.result_positions().len(), 10);
    assert_eq!(history.result_positions()[..2], [(1, 0), (1, 2)]);
    assert_eq!(history.result_positions(), walk(&history));
    history.set_result(4, 2, "[cleared]");
    assert_eq!(history.result_positions(), walk(&history));
    // A cut in the middle with a result message inserted, then at the head, then at the end.
    history.splice(3, vec![Message::tool_result("m", "marker")], 9);
    assert_eq!(history.result_positions(), walk(&history));
    assert_eq!(history.result_positions()[2], (3, 0));
    history.splice(0, vec![Message::user_text("summary")], 2);
    assert_eq!(history.result_positions(), walk(&history));
    let end = history.len();
    history.splice(end - 2, Vec::new(), end);
    assert_eq!(history.result_positions(), walk(&history));
    history.push(two_results());
    let parts = [Message::user_text("folded"), two_results()];
    history.replace_folded(parts.map(|m| Folded::New(m, None)).into(), 1);
    assert_eq!(history.result_positions(), [(1, 0), (1, 2)]);
    history.replace_all(vec![assistant_result()]);
    assert!(history.result_positions().is_empty());
    history.push(Message::tool_result("late", "after the rebuild"));
    assert_eq!(history.result_positions(), [(1, 0)]);
}

/// The result index the re-read check and the pair watch ask (issue 13) agrees with a scan of
/// the list, for tool_results and for either half, after every kind of change: appends, a
/// splice that drops and inserts results, a rebuild.
#[test]
fn the_result_index_follows_every_change() {
    let scan = |h: &History, id: &str| {
        h.messages()
            .iter()
            .any(|m| m.tool_results().any(|(r, _)| *r == id))
    };
    let used = |h: &History, id: &str| {
        h.messages()
            .iter()
            .any(|m| m.tool_use_ids().any(|u| u == id))
    };
    let check = |h: &History| {
        for id in ["t0", "t1", "t2", "t3", "t9"] {
            let call = CallId::new(id);
            assert_eq!(h.holds_result(&call), scan(h, id), "{id}");
            let half = scan(h, id) || used(h, id);
            assert_eq!(h.result_ids.holds_half(&call), half, "{id}");
        }
    };
    let mut history = History::new(Estimator::PythonJson);
    for turn in 0..4 {
        let id = format!("t{turn}");
        history.push(Message::tool_uses(&[(&id, "Read")]));
        history.push(Message::tool_result(&id, "out"));
    }
    history.push(Message::tool_result("t1", "twice"));
    check(&history);
    assert!(history.holds_result(&CallId::new("t3")) && !history.holds_result(&CallId::new("t9")));
    history.splice(2, vec![Message::tool_result("t9", "summary")], 4);
    check(&history);
    assert!(
        history.holds_result(&CallId::new("t1")),
        "t1's second result is still there"
    );
    history.set_result(2, 0, "[cleared]");
    check(&history);
    // t1's tool_use went with the splice, its second result stays; t0 has both halves.
    assert!(!used(&history, "t1") && history.result_ids.holds_half(&CallId::new("t1")));
    assert!(used(&history, "t0"));
    history.replace_all(vec![
        Message::user_text("summary"),
        Message::tool_uses(&[("t3", "Read")]),
    ]);
    check(&history);
    assert!(
        !history.holds_result(&CallId::new("t0"))
            && !history.result_ids.holds_half(&CallId::new("t0"))
    );
    assert!(
        history.result_ids.holds_half(&CallId::new("t3"))
            && !history.holds_result(&CallId::new("t3"))
    );
}

/// The history's `ensure_ascii` JSONL length (the course site's archive) takes a generated
/// result's length from its measured `json.dumps` length and measures the rest: it equals the
/// messages' own `ensure_ascii` lengths, with generated and literal results (non-ASCII, DEL,
/// astral), before and after a generated result is replaced, under every estimator and whether
/// the results' sizes were known when they entered or not.
#[test]
fn the_ascii_jsonl_length_takes_generated_results_as_measured() {
    let buffer = std::rc::Rc::new("xxxx\nxxxxx\nxx".repeat(20));
    for estimator in ESTIMATORS {
        for sized in [false, true] {
            let mut history = History::new(estimator);
            history.push(Message::user_text("go é"));
            let texts: Vec<ResultText> = vec![
                ResultText::generated(&buffer, 40).unwrap(),
                "é \u{7f} 😀 \"q\"".into(),
                ResultText::generated(&buffer, 200).unwrap(),
            ];
            let blocks = texts
                .iter()
                .enumerate()
                .map(|(i, t)| Block::tool_result(format!("t{i}"), t.clone()))
                .collect();
            let message = Message::blocks(Role::User, blocks);
            if sized {
                let known: Vec<TextSizes> = texts.iter().map(|t| TextSizes::of(t)).collect();
                history.push_measured(message, &known);
            } else {
                history.push(message);
            }
            let full = |history: &History| -> usize {
                let lines = history.messages().iter();
                lines.map(|m| m.json_ascii_chars() + 1).sum()
            };
            assert_eq!(history.jsonl_ascii_chars(), full(&history), "{estimator:?}");
            history.set_result(1, 2, "[cleared é]");
            assert_eq!(history.jsonl_ascii_chars(), full(&history), "{estimator:?}");
        }
    }
}

/// A result's `json.dumps` length, where the history knows it, is its text's, through a
/// replacement, under every estimator; unknown only when the results entered unmeasured and the
/// estimate is not that length.
#[test]
fn a_known_result_json_length_is_the_texts() {
    for estimator in ESTIMATORS {
        for sized in [false, true] {
            let mut history = History::new(estimator);
            let texts = ["a \"q\"\n".repeat(40), "é\t\u{7f}😀".repeat(30)];
            let message = Message::blocks(
                Role::User,
                vec![
                    Block::Text {
                        text: "note".into(),
                    },
                    Block::tool_result("t0", texts[0].as_str()),
                    Block::tool_result("t1", texts[1].as_str()),
                ],
            );
            if sized {
                let known: Vec<TextSizes> = texts.iter().map(|t| TextSizes::of(t)).collect();
                history.push_measured(message, &known);
            } else {
                history.push(message);
            }
            history.set_result(0, 1, "[saved]");
            let known = sized || estimator == Estimator::PythonJson;
            for block in [1, 2] {
                let (_, text) = history.result_at(0, block);
                let expected = known.then(|| json_str_chars(text));
                assert_eq!(
                    history.result_json(0, block),
                    expected,
                    "{estimator:?} {sized}"
                );
            }
        }
    }
}

/// A list that keeps the history's last messages keeps their sizes, and the estimate, sizes
/// and result index are what measuring the new list gives, under every estimator.
#[test]
fn a_kept_tail_keeps_its_sizes() {
    for estimator in ESTIMATORS {
        let mut history = a_turn_measured(estimator);
        let tail = history.messages()[1..].to_vec();
        let mut folded = vec![Message::user_text("[notice] folded")];
        folded.extend(tail);
        let mut measured = History::new(estimator);
        measured.replace_all(folded.clone());
        history.replace_folded(
            folded.into_iter().map(|m| Folded::New(m, None)).collect(),
            2,
        );
        assert_eq!(history.estimate(), measured.estimate(), "{estimator:?}");
        assert_eq!(history.estimate(), estimator.full(history.messages()));
        for index in 0..3 {
            assert_eq!(
                history.sizes[index].contents,
                measured.sizes[index].contents
            );
            assert_eq!(history.json_chars_at(index), measured.json_chars_at(index));
        }
        assert_eq!(history.result_ids.counts, measured.result_ids.counts);
    }
}

/// Under Cline's estimate the history notes which prompts Cline's fold keeps as they stand, and
/// a fold that extends one moves it into the new list with its count from the parts: the list,
/// estimate, sizes and result index are what measuring the folded list gives, and the pair watch
/// reads the prompt's place as it read the prompt.
#[test]
fn a_plain_prompt_is_extended_where_it_stands() {
    let text = |text: &str| Block::Text {
        text: text.to_owned(),
    };
    let plain = Message::blocks(Role::User, vec![text("first"), text("second é")]);
    let mut history = History::new(Estimator::ClineTokens);
    history.push(plain.clone());
    history.push(Message::tool_uses(&[("t0", "bash")]));
    history.push(Message::tool_result("t0", "out"));
    history.push(Message::user_text("a prompt of text"));
    history.push(Message::blocks(Role::User, vec![text(" untrimmed")]));
    history.push(Message::blocks(
        Role::User,
        vec![text("[file a.rs]\nfn f() {}")],
    ));
    let plains: Vec<bool> = (0..6).map(|i| history.cline_plain(i)).collect();
    assert_eq!(plains, [true, false, false, false, false, false]);
    let blocks = vec![text("<notice>"), text("third")];
    let mut expected = plain;
    if let Content::Blocks(own) = &mut expected.content {
        own.extend(blocks.clone());
    }
    let units = cline_units(&expected, &[], &mut |_| {});
    let answer = Message::blocks(Role::Assistant, vec![text("done")]);
    history.push(answer.clone());
    history.watch_pairs();
    let parts = vec![
        Folded::Extended {
            index: 0,
            blocks,
            counted: (units, Vec::new()),
        },
        Folded::New(answer.clone(), None),
    ];
    history.replace_folded(parts, 1);
    let mut measured = History::new(Estimator::ClineTokens);
    measured.replace_all(vec![expected.clone(), answer]);
    assert_eq!(history.messages(), measured.messages());
    assert_eq!(history.estimate(), measured.estimate());
    assert_eq!(history.sizes, measured.sizes);
    assert!(history.cline_plain(0));
    assert_eq!(history.result_ids.counts, measured.result_ids.counts);
    assert!(!history.holds_result(&CallId::new("t0")));
    // The pair t0 left whole: nothing split.
    assert!(history.pairs_split().is_empty());
}

/// Under Cline's estimate a message's own estimate is its `cline_tokens`, which Cline's fold
/// weighs each message by: as it entered (measured or with known sizes) and after a change.
#[test]
fn a_message_estimate_is_its_cline_tokens() {
    use crate::compaction::profile::cline_tokens;
    let mut history = a_turn_measured(Estimator::ClineTokens);
    history.push(two_results());
    history.set_result(3, 2, "[cleared \"x\"]");
    for (index, message) in history.messages().iter().enumerate() {
        assert_eq!(
            history.message_estimate(index),
            cline_tokens(message),
            "{index}"
        );
    }
}

/// Four turns of a user text, a call and its result, then a text between a call and its result
/// (t9 is no intact pair).
fn rebuild_start() -> Vec<Message> {
    let mut messages = Vec::new();
    for (turn, ask) in ["first é", "second 😀", "third", "fourth"]
        .iter()
        .enumerate()
    {
        let id = format!("t{turn}");
        messages.push(Message::user_text(*ask));
        messages.push(Message::tool_uses(&[(&id, "Read")]));
        messages.push(Message::tool_result(&id, &format!("out {turn}")));
    }
    messages.push(Message::tool_uses(&[("t9", "Read")]));
    messages.push(Message::user_text("between"));
    messages.push(Message::tool_result("t9", "late"));
    messages
}

/// Rebuilds of [`rebuild_start`]'s list, named.
type Plan = fn() -> Vec<Part>;
const REBUILD_PLANS: [(&str, Plan); 4] = [
    ("in place, a cut one first", || {
        vec![
            Part::New(Message::user_text("[cut]")),
            Part::Kept(3),
            Part::Kept(6),
            Part::Kept(9),
            Part::New(Message::user_text("summary")),
        ]
    }),
    ("in place, after a kept head", || {
        vec![
            Part::Kept(0),
            Part::Kept(3),
            Part::Kept(13),
            Part::New(Message::user_text("s")),
        ]
    }),
    // t9's result stays: it was no intact pair, so the rebuild split none.
    ("in place, a half kept new", || {
        vec![
            Part::Kept(13),
            Part::New(Message::tool_result("t9", "late")),
        ]
    }),
    ("moved, a new one between", || {
        vec![
            Part::Kept(0),
            Part::New(Message::user_text("a\nb")),
            Part::Kept(6),
        ]
    }),
];

/// A rebuild that keeps some of the list's user texts, in place (the new messages all before or
/// after them) or by moving them (a new message between them), leaves what a rebuild from
/// copies of the same messages leaves: the messages, the estimate, each message's sizes and
/// JSON length, the result index and the pairs the stage split, under every estimator.
#[test]
fn a_rebuild_keeps_user_texts_as_a_rebuild_from_copies_does() {
    for estimator in ESTIMATORS {
        for (name, plan) in REBUILD_PLANS {
            let old = rebuild_start();
            let copies: Vec<Message> = plan()
                .into_iter()
                .map(|part| match part {
                    Part::Kept(index) => old[index].clone(),
                    Part::New(message) => message,
                })
                .collect();
            let filled = || {
                let mut history = History::new(estimator);
                rebuild_start().into_iter().for_each(|m| history.push(m));
                // Each text's JSON length known before the rebuild, as a session log leaves it.
                (0..history.len()).for_each(|i| _ = history.json_chars_at(i));
                history.watch_pairs();
                history
            };
            let (mut rebuilt, mut copied) = (filled(), filled());
            rebuilt.rebuild(plan());
            copied.replace_all(copies);
            let case = format!("{name}, {estimator:?}");
            assert_eq!(rebuilt.messages(), copied.messages(), "{case}");
            assert_eq!(rebuilt.estimate(), copied.estimate(), "{case}");
            let full = estimator.full(rebuilt.messages());
            assert_eq!(rebuilt.estimate(), full, "{case}");
            assert_eq!(rebuilt.sizes, copied.sizes, "{case}");
            for index in 0..rebuilt.len() {
                let json = (rebuilt.json_chars_at(index), copied.json_chars_at(index));
                assert_eq!(json.0, json.1, "{case}");
            }
            assert_eq!(rebuilt.jsonl_chars(), copied.jsonl_chars(), "{case}");
            let ids = (&rebuilt.result_ids, &copied.result_ids);
            assert_eq!(ids.0.counts, ids.1.counts, "{case}");
            assert_eq!(ids.0.gone, ids.1.gone, "{case}");
            assert_eq!(rebuilt.pairs_split(), copied.pairs_split(), "{case}");
        }
    }
    // The plans are not all alike: the first keeps three asks between new messages.
    let mut history = History::new(Estimator::PythonJson);
    rebuild_start().into_iter().for_each(|m| history.push(m));
    history.rebuild(REBUILD_PLANS[0].1());
    let texts: Vec<&Message> = history.messages().iter().collect();
    assert_eq!(texts[1], &Message::user_text("second 😀"));
    assert_eq!(texts[3], &Message::user_text("fourth"));
    assert_eq!(history.len(), 5);
}

#[test]
fn a_list_that_grows_long_is_given_room_for_the_session_once() {
    let grown = |expected: usize, pushes: usize| {
        let mut history = History::new(Estimator::PythonJson);
        history.expect_messages(expected);
        for i in 0..pushes {
            history.push(Message::user_text(format!("m{i}")));
        }
        (
            history.messages.capacity(),
            history.sizes.capacity(),
            history.derived.capacity(),
        )
    };
    // Past the mark, room for every message the session may append, in each of the three lists.
    assert_eq!(grown(5_000, ROOM_AFTER + 1), (5_000, 5_000, 5_000));
    // Up to the mark, and with no session size known, the lists grow as vectors do.
    let (messages, ..) = grown(5_000, ROOM_AFTER);
    assert!(messages < 5_000, "{messages}");
    let (messages, ..) = grown(0, ROOM_AFTER + 1);
    assert!(messages < 1_000, "{messages}");
}
