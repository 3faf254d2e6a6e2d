//! The text of a tool result as a replay holds it: one immutable buffer shared by every copy of
//! the result (issue 13). A leaf; [`crate::transcript`] re-exports it.

use std::rc::Rc;

use serde::Serialize;

use crate::fmt::eq_as_text;

/// The text of a tool result, shared by its copies: the Monte Carlo cells of one session replay
/// the same rendered results, and a spill file, a session log or readFileState holding a result
/// verbatim holds the same text (issue 13: a copy per cell was 6% of Monte Carlo's time).
/// Immutable; a stage that changes a result gives the history a new text.
///
/// The text is a prefix of a shared buffer: the whole `String` it was built as (moved behind the
/// pointer, not copied), or the first `len` bytes of a buffer that generated results of one
/// shape share ([`crate::scenario::Renderer`]): a generated result costs no bytes of its own
/// (issue 13, item 4). Equality, order and hash are the text's.
///
/// A text knows its length in characters, counted once when it is made (a generated one's is
/// its length), so that the stages that weigh a result in characters (budget, micro, cuts, the
/// spill store) do not read it again; and a generated text knows it holds only `x` and
/// newlines, so that a search for a marker with any other character is answered without
/// reading it.
///
/// The buffer's count is not atomic: a replay runs on one thread (a Monte Carlo worker renders
/// its own sessions), and an atomic count cost about 10 ns a copy and drop, tens of thousands
/// of them a replay (issue 13: 8-10% of a course-latest replay, with its trace's shared paths).
#[derive(Clone, Default)]
pub struct ResultText {
    buffer: Rc<String>,
    len: usize,
    chars: usize,
    only_x: bool,
    /// Where a generated text's newlines are, known from its buffer's shape: 0 when not known,
    /// [`NO_NEWLINE`] for a run of `x`, else `n` for lines of `n - 1` `x` joined by newlines (a
    /// newline ends every `n` bytes).
    newline_every: u32,
}

/// [`ResultText::newline_every`] of a run of `x`.
const NO_NEWLINE: u32 = u32::MAX;

impl ResultText {
    pub fn as_str(&self) -> &str {
        &self.buffer[..self.len]
    }

    /// The number of characters (`len(text)` in Python).
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Whether the text is known to hold only `x` and newlines (a generated text), without
    /// reading it: then every way of writing it as a string literal writes it alike.
    pub fn is_only_x(&self) -> bool {
        self.only_x
    }

    /// Whether every character is one byte (ASCII), known from the counts without reading the
    /// text: then its UTF-16 length is its length.
    pub fn is_ascii(&self) -> bool {
        self.chars == self.len
    }

    /// Python's `text[:n]` on characters: an ASCII text (known from its counts) is cut at byte
    /// `n` without being read (issue 13: every preview and masked output read its first
    /// characters again to find where they end).
    pub fn char_prefix(&self, n: usize) -> &str {
        if self.is_ascii() {
            return &self.as_str()[..n.min(self.len)];
        }
        crate::python::json::char_prefix(self.as_str(), n)
    }

    /// The last `n` characters (all of them when there are fewer), as [`Self::char_prefix`].
    pub fn char_suffix(&self, n: usize) -> &str {
        if self.is_ascii() {
            return &self.as_str()[self.len - n.min(self.len)..];
        }
        crate::python::json::char_suffix(self.as_str(), n)
    }

    /// Whether the text may hold `pattern`: false only when it certainly does not (a generated
    /// text and a pattern with a character other than `x` or a newline); else a search.
    pub fn contains(&self, pattern: &str) -> bool {
        if self.only_x && pattern.bytes().any(|b| b != b'x' && b != b'\n') {
            return false;
        }
        find_text(self.as_str(), pattern).is_some()
    }

    /// Whether `other` is this very text: a prefix of one length of the same buffer, known equal
    /// without reading either.
    pub(crate) fn shares(&self, other: &ResultText) -> bool {
        Rc::ptr_eq(&self.buffer, &other.buffer) && self.len == other.len
    }

    /// Prefetches the text's shared buffer ([`crate::prefetch::prefetch`]): a copy of the text
    /// reads its count there.
    pub(crate) fn prefetch(&self) {
        crate::prefetch::prefetch(Rc::as_ptr(&self.buffer));
    }

    /// A text of `chars` characters, counted by its maker (debug builds check them).
    pub(crate) fn counted(text: String, chars: usize) -> Self {
        debug_assert_eq!(text.chars().count(), chars);
        ResultText::owning(text, chars)
    }

    /// `text` moved behind the shared pointer, whole, with its count of characters.
    fn owning(text: String, chars: usize) -> Self {
        ResultText {
            len: text.len(),
            chars,
            only_x: false,
            newline_every: 0,
            buffer: Rc::new(text),
        }
    }

    /// The first `len` bytes of a buffer of generated text, shared: the buffer holds only `x`
    /// and newlines, so its characters are its bytes and nothing is read. `None` if `len` is
    /// past the end.
    pub(crate) fn generated(buffer: &Rc<String>, len: usize) -> Option<ResultText> {
        debug_assert!(buffer.bytes().all(|b| b == b'x' || b == b'\n'));
        (len <= buffer.len()).then(|| ResultText {
            buffer: Rc::clone(buffer),
            len,
            chars: len,
            only_x: true,
            newline_every: 0,
        })
    }

    /// [`Self::generated`] of a buffer of one shape: a run of `x` (`width` `None`) or lines of
    /// `width` `x` joined by newlines, so that its newlines are counted without reading it
    /// ([`Self::newlines`]).
    pub(crate) fn generated_shape(
        buffer: &Rc<String>,
        len: usize,
        width: Option<usize>,
    ) -> Option<ResultText> {
        let every = match width {
            None => NO_NEWLINE,
            // A width too wide to record is left to be read.
            Some(width) => width
                .checked_add(1)
                .and_then(|every| u32::try_from(every).ok())
                .filter(|&every| every != NO_NEWLINE)
                .unwrap_or(0),
        };
        debug_assert!(match width {
            None => !buffer.contains('\n'),
            Some(width) => buffer.split('\n').all(|line| line.len() == width),
        });
        let mut text = ResultText::generated(buffer, len)?;
        text.newline_every = every;
        Some(text)
    }

    /// How many newlines the text holds, when known without reading it (a generated text of
    /// one shape, [`Self::generated_shape`]).
    pub fn newlines(&self) -> Option<usize> {
        match self.newline_every {
            0 => None,
            NO_NEWLINE => Some(0),
            every => Some(self.len / every as usize),
        }
    }
}

impl PartialEq for ResultText {
    fn eq(&self, other: &Self) -> bool {
        self.shares(other) || self.as_str() == other.as_str()
    }
}

impl Eq for ResultText {}

impl PartialOrd for ResultText {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResultText {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for ResultText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::ops::Deref for ResultText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ResultText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for ResultText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for ResultText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for ResultText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for ResultText {
    fn from(text: String) -> Self {
        let chars = crate::python::json::char_len(&text);
        ResultText::owning(text, chars)
    }
}

impl From<&str> for ResultText {
    fn from(text: &str) -> Self {
        ResultText::from(text.to_owned())
    }
}

impl From<&String> for ResultText {
    fn from(text: &String) -> Self {
        ResultText::from(text.clone())
    }
}

impl From<ResultText> for String {
    fn from(text: ResultText) -> Self {
        if text.len == text.buffer.len() {
            Rc::unwrap_or_clone(text.buffer)
        } else {
            text.as_str().to_owned()
        }
    }
}

eq_as_text!(ResultText, as_str);

impl Serialize for ResultText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Texts made from generated texts by a rule that writes each prefix of a text as a prefix of
/// what it writes for the whole (Read's line numbering): made once per buffer of generated text
/// ([`crate::scenario::Renderer`]), each generated result's is a prefix of its buffer's, shared,
/// so that such a result costs what its shape costs, not its bytes (issue 13, item 4).
#[derive(Debug, Default)]
pub(crate) struct DerivedBuffers {
    /// Per buffer of generated text, held so that its address stays its own: the rule's text of
    /// the whole buffer.
    by_buffer: Vec<(Rc<String>, Rc<String>)>,
}

impl DerivedBuffers {
    /// `rule(text)` for a generated `text`, given as the first `len` bytes (`chars`
    /// characters) of `rule` of the whole buffer `text` is a prefix of; `None` for a text that
    /// is not generated. The caller answers for `rule` writing prefixes as prefixes and for
    /// `len` and `chars` being those of `rule(text)`.
    pub(crate) fn prefix(
        &mut self,
        text: &ResultText,
        len: usize,
        chars: usize,
        rule: impl FnOnce(&str) -> String,
    ) -> Option<ResultText> {
        if !text.only_x {
            return None;
        }
        let known = self
            .by_buffer
            .iter()
            .find(|(source, _)| Rc::ptr_eq(source, &text.buffer));
        let derived = match known {
            Some((_, derived)) => Rc::clone(derived),
            None => {
                // A buffer that only this holds any more has been outgrown: no text will ask.
                self.by_buffer
                    .retain(|(source, _)| Rc::strong_count(source) > 1);
                let derived = Rc::new(rule(text.buffer.as_str()));
                let source = Rc::clone(&text.buffer);
                self.by_buffer.push((source, Rc::clone(&derived)));
                derived
            }
        };
        debug_assert!(len <= derived.len() && derived.is_char_boundary(len));
        let derived = ResultText {
            buffer: derived,
            len,
            chars,
            only_x: false,
            newline_every: 0,
        };
        debug_assert_eq!(derived.as_str().chars().count(), chars);
        Some(derived)
    }

    /// How many buffers' texts are held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_buffer.len()
    }
}

/// `haystack.find(needle)`, looking for the needle only where its first byte is (a vectorised
/// `memchr` scan) instead of building a two-way searcher per call. The searches here are for
/// markers and pointer lines in results whose text holds their first character seldom, and a
/// searcher's construction cost more than the search itself (issue 13: a masked output's
/// pointer line, gemini's mark in every new result). The first byte of a UTF-8 text is the lead
/// byte of its character, so every match starts at a character boundary.
pub fn find_text(haystack: &str, needle: &str) -> Option<usize> {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return Some(0);
    };
    memchr::memchr_iter(first, haystack).find(|&at| haystack[at..].starts_with(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text's first and last `n` characters are `json::char_prefix`'s and `char_suffix`'s,
    /// whether it is ASCII (cut by bytes, unread) or not, a generated one included.
    #[test]
    fn a_texts_ends_are_its_first_and_last_characters() {
        let generated = ResultText::generated(&Rc::new("x".repeat(40)), 30);
        let texts: Vec<ResultText> = ["", "abc", "a\nb\tc\"d", "é", "aé中😀b", "xé"]
            .into_iter()
            .map(ResultText::from)
            .chain(generated)
            .collect();
        assert_eq!(texts.len(), 7, "the generated text is one of them");
        for text in &texts {
            for n in [0, 1, 2, 3, 5, 29, 30, 31, 100] {
                let (prefix, suffix) = (
                    crate::python::json::char_prefix(text.as_str(), n),
                    crate::python::json::char_suffix(text.as_str(), n),
                );
                assert_eq!(text.char_prefix(n), prefix, "{:?} {n}", text.as_str());
                assert_eq!(text.char_suffix(n), suffix, "{:?} {n}", text.as_str());
                assert_eq!(prefix.chars().count(), n.min(text.chars()));
            }
        }
    }

    /// `find_text` finds what `str::find` finds, the first occurrence, on texts dense with the
    /// needle's first character, its near misses and multi-byte characters.
    #[test]
    fn find_text_is_str_find() {
        let pieces = [
            "F",
            "Fu",
            "Full output: ",
            "é",
            "x",
            "\n",
            "<tool_output_masked",
            "<",
        ];
        let needles = ["Full output: ", "<tool_output_masked", "é", "F", "", "xx\n"];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut found = 0;
        for _ in 0..3000 {
            let mut text = String::new();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            for _ in 0..(state >> 60) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            for needle in needles {
                assert_eq!(
                    find_text(&text, needle),
                    text.find(needle),
                    "{text:?} {needle:?}"
                );
                found += usize::from(!needle.is_empty() && text.contains(needle));
            }
        }
        // The texts hold the needles often enough for the agreement to mean something.
        assert!(found > 3000, "{found}");
    }
}
