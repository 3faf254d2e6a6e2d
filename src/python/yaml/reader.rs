//! PyYAML's `reader.py`: the text as a buffer of characters closed by `\0`, the position of the
//! next one (index, line, column) and the `ReaderError` for a character YAML does not accept.
//!
//! PyYAML's reader also decodes bytes and reads streams in chunks; the lab hands it a `str`, so
//! only `check_printable`, `peek`, `prefix`, `forward` and `get_mark` are ported. PyYAML mixes the
//! reader into its loader; here the scanner owns one.

use super::error::{Mark, YamlError, yaml_error};

/// End of input, blanks and line breaks: what may follow an indicator (the scanner and the
/// emitter both test it).
pub(super) const Z_BLANK_BREAK: &str = "\0 \t\r\n\u{85}\u{2028}\u{2029}";

/// Whether `c` is one of the characters of `set` (PyYAML's `ch in '...'`).
pub(super) fn one_of(c: char, set: &str) -> bool {
    set.contains(c)
}

/// `Reader.NON_PRINTABLE`, inverted: the characters YAML accepts in a stream.
fn reader_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\x20'..='\x7e' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
}

/// The characters still to read and where the next one is.
pub(super) struct Reader {
    /// The text and a closing `\0`, as PyYAML's reader holds it.
    buf: Vec<char>,
    pub(super) pointer: usize,
    pub(super) line: usize,
    pub(super) column: usize,
}

impl Reader {
    /// A reader over `text`, or the `ReaderError` of `check_printable` for its first character
    /// YAML does not accept.
    pub(super) fn new(text: &str) -> Result<Self, YamlError> {
        if let Some((position, c)) = text
            .chars()
            .enumerate()
            .find(|(_, c)| !reader_printable(*c))
        {
            let before: String = text.chars().take(position).collect();
            let line = before.matches('\n').count();
            let column = before
                .rsplit('\n')
                .next()
                .map_or(0, |tail| tail.chars().count());
            return Err(yaml_error(
                "ReaderError",
                format!(
                    "unacceptable character #x{:04x}: special characters are not allowed",
                    c as u32
                ),
                Mark { line, column },
            ));
        }
        let mut buf: Vec<char> = text.chars().collect();
        buf.push('\0');
        Ok(Self {
            buf,
            pointer: 0,
            line: 0,
            column: 0,
        })
    }

    pub(super) fn peek(&self, index: usize) -> char {
        self.buf.get(self.pointer + index).copied().unwrap_or('\0')
    }

    pub(super) fn prefix(&self, length: usize) -> String {
        let end = (self.pointer + length).min(self.buf.len());
        self.buf[self.pointer..end].iter().collect()
    }

    pub(super) fn forward(&mut self, length: usize) {
        for _ in 0..length {
            let ch = self.peek(0);
            self.pointer += 1;
            if one_of(ch, "\n\u{85}\u{2028}\u{2029}") || (ch == '\r' && self.peek(0) != '\n') {
                self.line += 1;
                self.column = 0;
            } else if ch != '\u{feff}' {
                self.column += 1;
            }
        }
    }

    pub(super) fn mark(&self) -> Mark {
        Mark {
            line: self.line,
            column: self.column,
        }
    }

    pub(super) fn col(&self) -> isize {
        self.column as isize
    }
}
