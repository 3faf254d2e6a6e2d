//! Python's `str` methods whose white space differs from Rust's: `isspace`, `strip()` and
//! `split()` without arguments.
//!
//! The course's code (learn-claude-code s09 `memory_document`, `parse_frontmatter`, the extract
//! and recall prompts) strips and splits record text with these methods, and the lab measures the
//! results to the character. CPython counts the information separators `\x1c`..`\x1f` as white
//! space; Rust's `char::is_whitespace` does not, so `str::trim` would keep them.

/// Python's `str.isspace()` for one character: Unicode white space plus the four information
/// separators `\x1c`..`\x1f`, which Rust does not count as white space.
pub fn py_is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` without arguments.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(py_is_space)
}

/// Python's `str.split()` without arguments: runs of white space separate, none are empty.
pub fn py_split(text: &str) -> impl Iterator<Item = &str> {
    text.split(py_is_space).filter(|word| !word.is_empty())
}

/// What a file opened in text mode reads back (`open(path, encoding=...)`, `Path.read_text()`):
/// universal newlines turn `\r\n` and a lone `\r` into `\n`.
pub fn universal_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_mode_reads_translate_newlines() {
        // open(p, encoding="utf-8").read() of b"a\r\nb\rc\r\r\nd" is "a\nb\nc\n\nd".
        assert_eq!(universal_newlines("a\r\nb\rc\r\r\nd"), "a\nb\nc\n\nd");
        assert_eq!(universal_newlines("a\nb"), "a\nb");
    }

    #[test]
    fn white_space_is_pythons() {
        // "\x1c a b\x1f\u3000".strip() == 'a b' in CPython 3.11.
        assert_eq!(py_strip("\u{1c} a b\u{1f}\u{3000}"), "a b");
        // " a\x1db\xa0c ".split() == ['a', 'b', 'c'].
        assert_eq!(
            py_split(" a\u{1d}b\u{a0}c ").collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        // "\u200b".isspace() is False, "\x85".isspace() is True.
        assert!(!py_is_space('\u{200b}'));
        assert!(py_is_space('\u{85}'));
    }
}
