//! The unit tests of `transcript.rs`.

use super::*;

#[test]
fn estimate_matches_python_json_dumps() {
    // CPython 3.11: len(json.dumps(<the same list of dicts>, ensure_ascii=False)) == 336.
    let messages = sample_messages();
    assert_eq!(estimate_chars(&messages), 336);
    let values = Value::Array(messages.iter().map(Message::to_value).collect());
    assert_eq!(json::value_chars(&values), 336);
}

#[test]
fn canonical_shape_key_order() {
    let text = json::dumps(&sample_messages()[2].to_value());
    assert_eq!(
        text,
        r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "line1\nline2\t😀"}]}"#
    );
    assert_eq!(sample_messages()[2].json_line(), text);
}

#[test]
fn repr_matches_python_str() {
    // CPython 3.11: len(str(<the same list of dicts>)) == 334, and the tool_result message
    // prints as below (single quotes, the emoji kept, \n and \t escaped).
    let messages = sample_messages();
    let total = list_chars(
        messages.len(),
        messages.iter().map(Message::repr_chars).sum(),
    );
    assert_eq!(total, 334);
    assert_eq!(
        messages[2].repr(),
        "{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_0', 'content': 'line1\\nline2\\t😀'}]}"
    );
}

#[test]
fn js_lengths_are_those_of_the_built_strings() {
    // The counted JSON.stringify of each message and block equals the UTF-16 length of the
    // string serde_json builds from its value (the emoji is a surrogate pair: 2 units).
    let mut messages = sample_messages();
    messages.push(Message::user_text("say \"é😀\"\n"));
    for message in &messages {
        let built = js_stringify(&message.to_value());
        let units: usize = built.chars().map(char::len_utf16).sum();
        assert_eq!(js_stringify_len(&JsMessage(message)), units, "{built}");
        for block in message.block_list() {
            let text = match block {
                Block::ToolUse { name, input, .. } => {
                    format!("{name}{}", js_stringify(&Value::Object((**input).clone())))
                }
                Block::Text { text } => text.clone(),
                Block::ToolResult { content, .. } => content.to_string(),
            };
            assert_eq!(block.rough_tokens_by(4), rough_tokens(&text), "{text}");
        }
    }
    // By hand: {"role":"user","content": is 25 units, "say \"é😀\"\n" 15 (the emoji
    // two, each escape two) and } one.
    assert_eq!(js_stringify_len(&JsMessage(&messages[3])), 41);
    assert_eq!(js_stringify_len("a\u{1}"), 2 + 1 + 6);
    // An input's length is the serialised map's, counted once and shared by its copies.
    let map: Map<String, Value> =
        serde_json::from_str(r#"{"file_path": "/é/😀", "n": [1, {"b": null}]}"#).unwrap();
    let input = Input::from(map.clone());
    let copy = input.clone();
    assert_eq!(input.js_len(), js_stringify_len(&map));
    // {"file_path":"/é/😀","n":[1,{"b":null}]}: 40 UTF-16 units (the emoji is two).
    assert_eq!(copy.js_len(), 40);
}

/// The bulk count agrees with a plain count at every length around its 128-byte chunk (a chunk
/// of newlines must not overflow its byte's sum), and with non-ASCII around.
#[test]
fn count_newlines_counts_every_newline() {
    for len in [
        0,
        1,
        127,
        128,
        129,
        255,
        256,
        257,
        4095,
        4096,
        4097,
        8192 + 40,
    ] {
        for text in [
            "\n".repeat(len),
            "ab\ncdé\n".chars().cycle().take(len).collect::<String>(),
            "x".repeat(len),
        ] {
            let plain = text.bytes().filter(|&b| b == b'\n').count();
            assert_eq!(count_newlines(text.as_bytes()), plain, "{len}");
        }
    }
    assert_eq!(count_newlines(&[b'\n'; 128 * 32 * 3]), 128 * 32 * 3);
}

#[test]
fn empty_list_and_predicates() {
    assert_eq!(estimate_chars(&[]), 2);
    let messages = sample_messages();
    assert!(messages[1].has_tool_use());
    assert!(!messages[1].is_tool_result());
    assert!(messages[2].is_tool_result());
    assert!(!messages[0].is_tool_result());
}

/// Two inputs with the same keys and values in another order are the same call: the same
/// sorted JSON, and so the same hash, which a map of call identities hashes in its place.
#[test]
fn inputs_equal_but_for_key_order_hash_alike() {
    let input = |text: &str| -> Input {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        match value {
            serde_json::Value::Object(map) => map.into(),
            _ => unreachable!("an object"),
        }
    };
    let a = input(r#"{"path": "/a", "lines": {"to": 9, "from": 1}}"#);
    let b = input(r#"{"lines": {"from": 1, "to": 9}, "path": "/a"}"#);
    let c = input(r#"{"path": "/b", "lines": {"from": 1, "to": 9}}"#);
    assert_eq!(a.sorted_json(), b.sorted_json());
    assert_eq!(a.sorted_hash(), b.sorted_hash());
    assert_ne!(a.sorted_hash(), c.sorted_hash());
}
