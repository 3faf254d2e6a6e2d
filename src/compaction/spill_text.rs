//! A spill file's text as the store keeps it. Most files hold the text a stage wrote. Gemini
//! CLI's masking saves each prunable output as `JSON.stringify({output}, null, 2)`: the output
//! inside a fixed frame, with its escapes. The store keeps such a file as the output and the
//! saved text's length, and writes the text only for a reader (issue 13: building every saved
//! file cost gemini-cli as much as copying every result byte again).

use crate::python::json::{char_prefix, char_suffix, js_escapes, write_js_string};
use crate::transcript::{ResultText, result_utf16};

/// What `JSON.stringify({output}, null, 2)` puts before the quoted output.
const OPEN: &str = "{\n  \"output\": ";
/// What it puts after.
const CLOSE: &str = "\n}";

/// The text of one spill file.
#[derive(Debug, Clone)]
pub(crate) enum SpillText {
    /// The text as written.
    Text(ResultText),
    /// `JSON.stringify({output}, null, 2)` of `output`, `chars` characters long, not written out.
    OutputJson { output: ResultText, chars: usize },
}

impl SpillText {
    /// Gemini CLI's saved form of a tool output (`toolOutputMaskingService.ts`); `json`, when
    /// known, is the output's `json.dumps` length, whose escapes are `JSON.stringify`'s.
    pub(crate) fn output_json(output: ResultText, json: Option<usize>) -> Self {
        let quoted = json.unwrap_or_else(|| output.chars() + 2 + js_escapes(&output));
        let chars = OPEN.len() + quoted + CLOSE.len();
        SpillText::OutputJson { output, chars }
    }

    /// Characters of the text.
    pub(crate) fn chars(&self) -> usize {
        match self {
            SpillText::Text(text) => text.chars(),
            SpillText::OutputJson { chars, .. } => *chars,
        }
    }

    /// The UTF-16 units of the text. A saved output's frame and escapes are ASCII, so its units
    /// exceed its characters by as many as the output's do (one for each character written as a
    /// surrogate pair).
    pub(crate) fn utf16(&self) -> usize {
        match self {
            SpillText::Text(text) => result_utf16(text),
            SpillText::OutputJson { output, chars } => {
                chars + result_utf16(output) - output.chars()
            }
        }
    }

    /// The text, written out for a saved output.
    pub(crate) fn text(&self) -> ResultText {
        match self {
            SpillText::Text(text) => text.clone(),
            SpillText::OutputJson { output, chars } => {
                // The frame and the quotes are one byte a character, and so is every escape.
                let escapes = chars - OPEN.len() - output.chars() - 2 - CLOSE.len();
                let len = OPEN.len() + output.len() + 2 + escapes + CLOSE.len();
                let mut saved = String::with_capacity(len);
                self.push_text(&mut saved);
                ResultText::counted(saved, *chars)
            }
        }
    }

    /// Appends the text to `out`, a saved output written there from the output (issue 13: it
    /// was written into a text of its own, then copied).
    pub(crate) fn push_text(&self, out: &mut String) {
        match self {
            SpillText::Text(text) => out.push_str(text),
            SpillText::OutputJson { output, .. } => {
                out.push_str(OPEN);
                write_js_string(out, output);
                out.push_str(CLOSE);
            }
        }
    }

    /// The first `n` characters of the text (all of it when it is shorter).
    #[cfg(test)]
    pub(crate) fn head(&self, n: usize) -> String {
        let mut head = String::new();
        self.push_head(&mut head, n);
        head
    }

    /// The last `n` characters of the text (all of it when it is shorter).
    #[cfg(test)]
    pub(crate) fn tail(&self, n: usize) -> String {
        let mut tail = String::new();
        self.push_tail(&mut tail, n);
        tail
    }

    /// Appends the first `n` characters of the text (all of it when it is shorter) to `out`,
    /// written from at most `n` characters of a saved output (each of them is at least one
    /// character of the text) straight into `out`, then cut there (issue 13: a part of its own
    /// and a copy of its prefix at every masked output).
    pub(crate) fn push_head(&self, out: &mut String, n: usize) {
        let SpillText::OutputJson { output, .. } = self else {
            out.push_str(char_prefix(&self.text(), n));
            return;
        };
        let end = output.char_prefix(n).len();
        let mark = out.len();
        out.push_str(OPEN);
        // When the output is cut, the closing quote written after the cut lies past `n`.
        write_js_string(out, &output[..end]);
        out.push_str(CLOSE);
        // An ASCII output's escapes are ASCII too: its saved text is a byte a character.
        let kept = if output.is_ascii() {
            n.min(out.len() - mark)
        } else {
            char_prefix(&out[mark..], n).len()
        };
        out.truncate(mark + kept);
    }

    /// Appends the last `n` characters of the text (all of it when it is shorter) to `out`, as
    /// [`Self::push_head`]: what is written before them is taken out again.
    pub(crate) fn push_tail(&self, out: &mut String, n: usize) {
        let SpillText::OutputJson { output, .. } = self else {
            out.push_str(char_suffix(&self.text(), n));
            return;
        };
        let start = output.len() - output.char_suffix(n).len();
        let mark = out.len();
        if start == 0 {
            out.push_str(OPEN);
        }
        // When the output is cut, the opening quote written before the cut lies before the
        // last `n`.
        write_js_string(out, &output[start..]);
        out.push_str(CLOSE);
        let written = out.len() - mark;
        let before = if output.is_ascii() {
            written - n.min(written)
        } else {
            written - char_suffix(&out[mark..], n).len()
        };
        out.replace_range(mark..mark + before, "");
    }
}

impl From<ResultText> for SpillText {
    fn from(text: ResultText) -> Self {
        SpillText::Text(text)
    }
}

impl From<String> for SpillText {
    fn from(text: String) -> Self {
        SpillText::Text(text.into())
    }
}

impl From<&str> for SpillText {
    fn from(text: &str) -> Self {
        SpillText::Text(text.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved output reads as `JSON.stringify({output}, null, 2)` (serde_json's pretty form of
    /// the same object), its length counted without writing it, and its ends written from the
    /// output alone equal the written text's, whatever the output's length, escapes and
    /// characters, and wherever the cut falls.
    #[test]
    fn a_saved_output_is_its_json_without_being_written() {
        // Outputs with wide characters, and ASCII ones (whose ends are cut by bytes) with
        // escapes.
        let wide = ["x", "\n", "\"", "\\", "é", "中", "😀", "\u{1}", "\t", " "];
        let ascii = ["x", "\n", "\"", "\\", "\u{1}", "\t", " "];
        let mut outputs = vec![String::new()];
        for pieces in [&wide[..], &ascii[..]] {
            for len in [1, 2, 5, 13, 40, 120, 260, 499, 501, 600] {
                for offset in 0..pieces.len() {
                    let text: String = (0..len)
                        .map(|i| pieces[(i * (offset + 1) + offset) % pieces.len()])
                        .collect();
                    outputs.push(text);
                }
            }
        }
        for output in &outputs {
            let known = crate::python::json::json_str_chars(output);
            let measured = SpillText::output_json(output.as_str().into(), None);
            let saved = SpillText::output_json(output.as_str().into(), Some(known));
            assert_eq!(saved.chars(), measured.chars(), "{output:?}");
            let expected = serde_json::to_string_pretty(&serde_json::json!({ "output": output }))
                .expect("an object serialises");
            let text = saved.text();
            assert_eq!(text.as_str(), expected, "{output:?}");
            assert_eq!(saved.chars(), expected.chars().count(), "{output:?}");
            assert_eq!(text.chars(), saved.chars());
            for n in [0, 1, 3, 14, 15, 16, 250] {
                assert_eq!(saved.head(n), char_prefix(&expected, n), "{output:?} {n}");
                assert_eq!(saved.tail(n), char_suffix(&expected, n), "{output:?} {n}");
                // Appended after text already in the buffer, which stays as it was.
                let mut both = String::from("é>");
                saved.push_head(&mut both, n);
                saved.push_tail(&mut both, n);
                let (head, tail) = (char_prefix(&expected, n), char_suffix(&expected, n));
                assert_eq!(both, format!("é>{head}{tail}"), "{output:?} {n}");
            }
        }
        // A text as written is itself.
        let plain = SpillText::from("ab中");
        assert_eq!(plain.text().as_str(), "ab中");
        assert_eq!(
            (plain.chars(), plain.head(2), plain.tail(2)),
            (3, "ab".into(), "b中".into())
        );
    }
}
