//! Duplicate keys in a scenario's JSON objects. `serde_json` keeps the last of two equal keys, so
//! `{"steps": [...], "steps": []}` would silently run nothing; the lab refuses such a file and
//! names both places (issue 11, fuzz audit D13). The scan runs on text that already parsed as JSON,
//! so it only has to follow strings, escapes and nesting.

/// Where a key stands in the text: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: usize,
    pub column: usize,
}

/// The first key given twice in one object: its decoded text and both positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Duplicate {
    pub key: String,
    pub first: Position,
    pub second: Position,
}

/// One open container: an object keeps the keys seen so far (sorted, for a binary search).
enum Open {
    Object(Vec<(String, Position)>),
    Array,
}

/// The first duplicate key of `text` (valid JSON), if any.
pub(crate) fn first_duplicate(text: &str) -> Option<Duplicate> {
    let mut stack: Vec<Open> = Vec::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut column) = (1, 0);
    // A string just read, waiting to learn whether a `:` makes it a key.
    let mut pending: Option<(String, Position)> = None;
    while let Some(c) = chars.next() {
        column += 1;
        match c {
            '\n' => (line, column) = (line + 1, 0),
            '{' => stack.push(Open::Object(Vec::new())),
            '[' => stack.push(Open::Array),
            '}' | ']' => {
                stack.pop();
            }
            ':' => {
                let (Some((key, at)), Some(Open::Object(keys))) =
                    (pending.take(), stack.last_mut())
                else {
                    continue;
                };
                match keys.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
                    Ok(index) => {
                        return Some(Duplicate {
                            key,
                            first: keys[index].1,
                            second: at,
                        });
                    }
                    Err(index) => keys.insert(index, (key, at)),
                }
            }
            '"' => {
                let at = Position { line, column };
                let mut raw = String::from('"');
                while let Some(c) = chars.next() {
                    column += 1;
                    raw.push(c);
                    match c {
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                column += 1;
                                raw.push(escaped);
                            }
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                // The text parsed as JSON already, so the literal decodes.
                let key = serde_json::from_str::<String>(&raw).unwrap_or(raw);
                pending = Some((key, at));
            }
            _ if c.is_whitespace() => {}
            _ => pending = None,
        }
        if c == ',' {
            pending = None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn a_repeated_top_level_key_is_found_with_both_positions() {
        let text = "{\"steps\": [1],\n \"steps\": []}";
        let found = first_duplicate(text).unwrap();
        assert_eq!(found.key, "steps");
        assert_eq!((found.first, found.second), (at(1, 2), at(2, 2)));
    }

    #[test]
    fn equal_keys_in_different_objects_and_equal_string_values_are_fine() {
        assert_eq!(
            first_duplicate(r#"{"a": {"id": "x"}, "b": {"id": "x"}, "c": ["a", "a"]}"#),
            None
        );
        assert_eq!(first_duplicate(r#"{"a": "b", "b": "a"}"#), None);
    }

    #[test]
    fn nested_duplicates_and_escaped_spellings_of_one_key_are_found() {
        // "chars" and "ch\u0061rs" are the same key once decoded.
        let text = r#"{"steps": [{"results": [{"id": "a", "chars": 5, "ch\u0061rs": 9}]}]}"#;
        let found = first_duplicate(text).unwrap();
        assert_eq!(found.key, "chars");
        assert_eq!((found.first.column, found.second.column), (37, 49));
    }

    #[test]
    fn quotes_and_colons_inside_strings_do_not_confuse_the_scan() {
        let text = r#"{"a": "x\": y", "b": "{\"a\": 1}", "c": 1}"#;
        assert_eq!(first_duplicate(text), None);
        let text = r#"{"a": "x\": y", "a": 2}"#;
        assert_eq!(first_duplicate(text).unwrap().second, at(1, 17));
    }
}
