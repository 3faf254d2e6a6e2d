//! PyYAML's `emitter.py` for the one document `safe_dump` writes here: a block mapping of `str`
//! keys and values at indent 0 (with what `representer.py` and `serializer.py` decide for it).
//!
//! Ported: `analyze_scalar`, `choose_scalar_style` (plain, single-quoted or double-quoted; never
//! a block scalar, which `safe_dump` does not choose for a `str` without an explicit style),
//! `check_simple_key`, `write_plain`, `write_single_quoted`, `write_double_quoted` with their
//! folding at `best_width`, and the indentation of a block mapping. The serializer's part is the
//! `implicit` flag: a plain scalar is allowed only if it resolves back to `str`.

use super::reader::Z_BLANK_BREAK;
use super::resolver::{STR_TAG, resolve_implicit};

/// PyYAML's `best_width`: a scalar breaks at the first space once the column passes 80.
const BEST_WIDTH: usize = 80;
/// PyYAML's `best_indent`: a mapping value's continuation lines start at column 2.
const BEST_INDENT: usize = 2;

/// The characters PyYAML's emitter treats as line breaks.
const LINE_BREAKS: &str = "\n\u{85}\u{2028}\u{2029}";

fn is_line_break(c: char) -> bool {
    LINE_BREAKS.contains(c)
}

/// Writes a mapping of distinct `str` keys, in order: `{}` in flow style when it is empty
/// (`check_empty_mapping`), else a block mapping; then the end of the document (a line break).
pub(super) fn emit_str_mapping(entries: &[(&str, &str)]) -> String {
    if entries.is_empty() {
        return "{}\n".to_owned();
    }
    let mut emitter = Emitter::new();
    for &(key, value) in entries {
        emitter.entry(key, value);
    }
    // The document end.
    emitter.indent = 0;
    emitter.write_indent();
    emitter.out
}

/// What `analyze_scalar` finds out about a string (the parts a block mapping needs).
struct Analysis {
    empty: bool,
    multiline: bool,
    allow_block_plain: bool,
    allow_single_quoted: bool,
}

fn analyze_scalar(text: &[char]) -> Analysis {
    if text.is_empty() {
        return Analysis {
            empty: true,
            multiline: false,
            allow_block_plain: true,
            allow_single_quoted: true,
        };
    }
    let mut block_indicators =
        text.starts_with(&['-', '-', '-']) || text.starts_with(&['.', '.', '.']);
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut preceded_by_whitespace = true;
    let mut followed_by_whitespace = text.len() == 1 || Z_BLANK_BREAK.contains(text[1]);
    let mut previous_space = false;
    let mut previous_break = false;
    let last = text.len() - 1;
    for (index, &ch) in text.iter().enumerate() {
        if index == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(ch) || ("?:-".contains(ch) && followed_by_whitespace) {
                block_indicators = true;
            }
        } else if (ch == ':' && followed_by_whitespace) || (ch == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        if is_line_break(ch) {
            line_breaks = true;
        }
        if !(ch == '\n' || ('\x20'..='\x7e').contains(&ch)) {
            let unicode = (ch == '\u{85}'
                || ('\u{a0}'..='\u{d7ff}').contains(&ch)
                || ('\u{e000}'..='\u{fffd}').contains(&ch)
                || ('\u{10000}'..'\u{10ffff}').contains(&ch))
                && ch != '\u{feff}';
            // allow_unicode=True: only the non-printable ones are special.
            if !unicode {
                special_characters = true;
            }
        }
        if ch == ' ' {
            leading_space |= index == 0;
            trailing_space |= index == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_line_break(ch) {
            leading_break |= index == 0;
            trailing_break |= index == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = Z_BLANK_BREAK.contains(ch);
        followed_by_whitespace = index + 2 >= text.len() || Z_BLANK_BREAK.contains(text[index + 2]);
    }
    let mut allow_block_plain = true;
    let mut allow_single_quoted = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        allow_block_plain = false;
    }
    if break_space {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if space_break || special_characters {
        allow_block_plain = false;
        allow_single_quoted = false;
    }
    if line_breaks || block_indicators {
        allow_block_plain = false;
    }
    Analysis {
        empty: false,
        multiline: line_breaks,
        allow_block_plain,
        allow_single_quoted,
    }
}

/// The emitter's state while it writes one block mapping at indent 0.
struct Emitter {
    out: String,
    /// In characters (code points), as Python counts.
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: usize,
}

impl Emitter {
    fn new() -> Self {
        Self {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
            indent: 0,
        }
    }

    /// `expect_block_mapping_key` and its value.
    fn entry(&mut self, key: &str, value: &str) {
        self.indent = 0;
        self.write_indent();
        let key_chars: Vec<char> = key.chars().collect();
        let analysis = analyze_scalar(&key_chars);
        // check_simple_key counts the prepared tag `!!str` (5 characters) along with the text.
        if key_chars.len() + 5 < 128 && !analysis.empty && !analysis.multiline {
            self.scalar(key, &key_chars, &analysis, true);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.scalar(key, &key_chars, &analysis, false);
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        let value_chars: Vec<char> = value.chars().collect();
        let analysis = analyze_scalar(&value_chars);
        self.scalar(value, &value_chars, &analysis, false);
    }

    /// `expect_scalar` for a `str` node: `choose_scalar_style`, then the writer.
    fn scalar(&mut self, text: &str, chars: &[char], analysis: &Analysis, simple_key: bool) {
        // increase_indent(flow=True) inside the block mapping.
        self.indent = BEST_INDENT;
        // The serializer marks the scalar implicit for the plain style only if a plain scalar with
        // this text would resolve back to `str`.
        let plain_resolves_to_str = resolve_implicit(text) == STR_TAG;
        let split = !simple_key;
        if plain_resolves_to_str
            && !(simple_key && (analysis.empty || analysis.multiline))
            && analysis.allow_block_plain
        {
            self.write_plain(chars, split);
        } else if analysis.allow_single_quoted && !(simple_key && analysis.multiline) {
            self.write_single_quoted(chars, split);
        } else {
            self.write_double_quoted(chars, split);
        }
        self.indent = 0;
    }

    fn write_chars(&mut self, text: &[char]) {
        self.out.extend(text.iter());
        self.column += text.len();
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        whitespace: bool,
        indention: bool,
    ) {
        if !self.whitespace && need_whitespace {
            self.out.push(' ');
            self.column += 1;
        }
        self.out.push_str(indicator);
        self.column += indicator.chars().count();
        self.whitespace = whitespace;
        self.indention = self.indention && indention;
    }

    fn write_indent(&mut self) {
        let indent = self.indent;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.write_line_break(None);
        }
        if self.column < indent {
            self.whitespace = true;
            self.out
                .extend(std::iter::repeat_n(' ', indent - self.column));
            self.column = indent;
        }
    }

    fn write_line_break(&mut self, data: Option<char>) {
        self.out.push(data.unwrap_or('\n'));
        self.whitespace = true;
        self.indention = true;
        self.column = 0;
    }

    fn write_breaks(&mut self, breaks: &[char]) {
        for &br in breaks {
            self.write_line_break(if br == '\n' { None } else { Some(br) });
        }
    }

    /// `write_plain`; `analyze_scalar` never allows a plain scalar with a line break, so only the
    /// space handling is ported.
    fn write_plain(&mut self, text: &[char], split: bool) {
        if text.is_empty() {
            return;
        }
        if !self.whitespace {
            self.out.push(' ');
            self.column += 1;
        }
        self.whitespace = false;
        self.indention = false;
        let mut spaces = false;
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end && self.column > BEST_WIDTH && split {
                        self.write_indent();
                        self.whitespace = false;
                        self.indention = false;
                    } else {
                        self.write_chars(&text[start..end]);
                    }
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || is_line_break(c)) {
                self.write_chars(&text[start..end]);
                start = end;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
            }
        }
    }

    fn write_single_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if spaces {
                if ch != Some(' ') {
                    if start + 1 == end
                        && self.column > BEST_WIDTH
                        && split
                        && start != 0
                        && end != text.len()
                    {
                        self.write_indent();
                    } else {
                        self.write_chars(&text[start..end]);
                    }
                    start = end;
                }
            } else if breaks {
                if !ch.is_some_and(is_line_break) {
                    // A single break folds to a space when read back: write it twice.
                    if text[start] == '\n' {
                        self.write_line_break(None);
                    }
                    self.write_breaks(&text[start..end]);
                    self.write_indent();
                    start = end;
                }
            } else if ch.is_none_or(|c| c == ' ' || c == '\'' || is_line_break(c)) && start < end {
                self.write_chars(&text[start..end]);
                start = end;
            }
            if ch == Some('\'') {
                self.out.push_str("''");
                self.column += 2;
                start = end + 1;
            }
            if let Some(c) = ch {
                spaces = c == ' ';
                breaks = is_line_break(c);
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, text: &[char], split: bool) {
        self.write_indicator("\"", true, false, false);
        let mut start = 0;
        for end in 0..=text.len() {
            let ch = text.get(end).copied();
            if ch.is_none_or(|c| {
                "\"\\\u{85}\u{2028}\u{2029}\u{feff}".contains(c) || !double_quoted_printable(c)
            }) {
                if start < end {
                    self.write_chars(&text[start..end]);
                    start = end;
                }
                if let Some(c) = ch {
                    let data = double_quoted_escape(c);
                    self.column += data.chars().count();
                    self.out.push_str(&data);
                    start = end + 1;
                }
            }
            // `start` may be `end + 1` right after an escape (an empty slice in Python).
            if end > 0
                && end + 1 < text.len()
                && (ch == Some(' ') || start >= end)
                && self.column + end > BEST_WIDTH + start
                && split
            {
                if start < end {
                    self.write_chars(&text[start..end]);
                    start = end;
                }
                self.out.push('\\');
                self.column += 1;
                self.write_indent();
                self.whitespace = false;
                self.indention = false;
                if text[start] == ' ' {
                    self.out.push('\\');
                    self.column += 1;
                }
            }
        }
        self.write_indicator("\"", false, false, false);
    }
}

/// What a double-quoted scalar may hold unescaped with `allow_unicode=True` (no astral planes).
fn double_quoted_printable(c: char) -> bool {
    ('\x20'..='\x7e').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
}

fn double_quoted_escape(c: char) -> String {
    let short = match c {
        '\0' => "0",
        '\x07' => "a",
        '\x08' => "b",
        '\t' => "t",
        '\n' => "n",
        '\x0b' => "v",
        '\x0c' => "f",
        '\r' => "r",
        '\x1b' => "e",
        '"' => "\"",
        '\\' => "\\",
        '\u{85}' => "N",
        '\u{a0}' => "_",
        '\u{2028}' => "L",
        '\u{2029}' => "P",
        _ => "",
    };
    let cp = c as u32;
    if !short.is_empty() {
        format!("\\{short}")
    } else if cp <= 0xff {
        format!("\\x{cp:02X}")
    } else if cp <= 0xffff {
        format!("\\u{cp:04X}")
    } else {
        format!("\\U{cp:08X}")
    }
}
