//! The room a terminal gives a table: its width in columns and whether marks are coloured. The
//! command line measures it once (`COLUMNS`, else the terminal, else 100; `--color`, `NO_COLOR`)
//! and every table renderer reads it from [`super::Format::Table`]: tables wrap their widest
//! cells to fit ([`super::table`]), prose lines wrap with a hanging indent ([`fit`]), and ✓, ✗
//! and the new side of a change (`0 → 1`) are coloured ([`paint`]) only when asked.

use unicode_width::UnicodeWidthStr;

/// Width and colour of a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Screen {
    /// Columns every line must fit in (at least [`Screen::MIN_WIDTH`]).
    pub width: usize,
    /// ANSI colours on ✓, ✗ and changed values.
    pub color: bool,
}

impl Screen {
    /// The width when neither `COLUMNS` nor a terminal says otherwise.
    pub const DEFAULT_WIDTH: usize = 100;
    /// Narrower than this, a table's borders alone would not fit.
    pub const MIN_WIDTH: usize = 40;

    /// A screen `width` columns wide (clamped to [`Screen::MIN_WIDTH`]), colours as given.
    pub fn new(width: usize, color: bool) -> Screen {
        Screen {
            width: width.max(Screen::MIN_WIDTH),
            color,
        }
    }
}

impl Default for Screen {
    /// 100 columns, no colour: what a pipe or a test sees.
    fn default() -> Self {
        Screen::new(Screen::DEFAULT_WIDTH, false)
    }
}

/// Display width of a line: box-drawing characters, ✓ and → count 1.
pub(crate) fn width_of(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` with every line no wider than `width`: table lines (drawn by [`super::table`], which
/// fits them itself) pass unchanged, longer prose lines break between words and continue two
/// columns deeper than they started; a word longer than a whole line is cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if width_of(line) <= width || is_table_line(line) {
            out.push_str(line);
        } else {
            wrap_line(line, width, &mut out);
        }
    }
    out
}

fn is_table_line(line: &str) -> bool {
    line.starts_with(['┌', '│', '├', '└'])
}

/// One long line, broken at spaces, continuation lines indented two more than the first.
fn wrap_line(line: &str, width: usize, out: &mut String) {
    let indent = line.len() - line.trim_start_matches(' ').len();
    // A deep indent must still leave room for words.
    let hang = " ".repeat((indent + 2).min(width / 2));
    let mut current = line[..indent].to_owned();
    let mut at_start = true;
    for word in words(&line[indent..]) {
        let word = word.as_str();
        let word_width = width_of(word);
        // A word that fits on a fresh line goes there; a longer one is cut where it stands.
        let fits_alone = width_of(&hang) + word_width <= width;
        if !at_start && fits_alone && width_of(&current) + 1 + word_width > width {
            out.push_str(current.trim_end());
            out.push('\n');
            current = hang.clone();
            at_start = true;
        }
        if !at_start {
            current.push(' ');
        }
        push_cut(&mut current, word, width, &hang, out);
        at_start = false;
    }
    out.push_str(&current);
}

/// The words of a line split at spaces, a change `old → new` kept as one word.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut glue = false;
    for word in text.split(' ') {
        if glue || (word == "→" && out.last().is_some_and(|w| !w.is_empty())) {
            let last = out.last_mut().expect("a word before the arrow");
            last.push(' ');
            last.push_str(word);
            glue = word == "→";
        } else {
            out.push(word.to_owned());
        }
    }
    out
}

/// Appends `word` to `current`, moving whole lines to `out` while it is wider than the rest.
fn push_cut(current: &mut String, word: &str, width: usize, hang: &str, out: &mut String) {
    let mut used = width_of(current);
    for c in word.chars() {
        let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
        if used + w > width {
            out.push_str(current.trim_end());
            out.push('\n');
            *current = hang.to_owned();
            used = width_of(current);
        }
        current.push(c);
        used += w;
    }
}

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const CHANGED: &str = "\x1b[1;33m";
const RESET: &str = "\x1b[0m";

/// `text` with ✓ green, ✗ red and the word after each `→ ` (a changed value) bold yellow.
/// Escapes take no columns, so a fitted text stays fitted.
pub(crate) fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '✓' => push_colored(&mut out, GREEN, "✓"),
            '✗' => push_colored(&mut out, RED, "✗"),
            '→' if chars.peek() == Some(&' ') => {
                out.push_str("→ ");
                chars.next();
                let mut word = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || matches!(n, ',' | '│' | ')') {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                if !word.is_empty() {
                    push_colored(&mut out, CHANGED, &word);
                }
            }
            other => out.push(other),
        }
    }
    out
}

fn push_colored(out: &mut String, color: &str, text: &str) {
    out.push_str(color);
    out.push_str(text);
    out.push_str(RESET);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_between_words_with_a_hanging_indent() {
        let line = "  also changed: orphan_files 1 → 2, api_valid true → false, context_chars 2009";
        let fitted = fit(line, 40);
        assert_eq!(
            fitted,
            "  also changed: orphan_files 1 → 2,\n    api_valid true → false,\n    context_chars 2009"
        );
        assert!(fitted.lines().all(|l| width_of(l) <= 40), "{fitted}");
    }

    #[test]
    fn a_word_wider_than_the_line_is_cut_and_tables_pass() {
        let path = format!("spill {}", "a".repeat(50));
        let fitted = fit(&path, 40);
        assert_eq!(fitted.lines().map(width_of).collect::<Vec<_>>(), [40, 18]);
        let table = format!("│ {} │", "x".repeat(60));
        assert_eq!(fit(&table, 40), table);
        assert_eq!(fit("short\n\nlines", 40), "short\n\nlines");
    }

    #[test]
    fn marks_and_new_values_are_painted() {
        assert_eq!(
            paint("✓ a 0 → 1, b"),
            "\x1b[32m✓\x1b[0m a 0 → \x1b[1;33m1\x1b[0m, b"
        );
        assert_eq!(paint("✗"), "\x1b[31m✗\x1b[0m");
        assert_eq!(Screen::new(10, false).width, Screen::MIN_WIDTH);
    }
}
