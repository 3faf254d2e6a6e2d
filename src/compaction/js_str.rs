//! JavaScript's `String.prototype.trim()`, which Claude Code v2.1.88 uses where the lab models it
//! (the empty-result check on arrival, `formatCompactSummary`).
//!
//! ECMAScript trims WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP U+FEFF and every `Zs` character)
//! and LineTerminator (LF, CR, U+2028, U+2029). Rust's `char::is_whitespace` (Unicode
//! `White_Space`) differs on two characters: it keeps U+FEFF and trims NEL U+0085, which
//! JavaScript keeps.

/// Whether JavaScript's `trim()` removes `c`.
pub(crate) fn js_is_space(c: char) -> bool {
    c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace())
}

/// JavaScript's `String.prototype.trim()`.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(js_is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_space_is_javascripts() {
        // "\ufeff a \u3000".trim() === "a" and "\u0085a\u0085".trim().length === 3 in Node.
        assert_eq!(js_trim("\u{feff} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a\u{85}"), "\u{85}a\u{85}");
        // The information separators are not white space in JavaScript (unlike Python).
        assert_eq!(js_trim("\u{1c}a\u{1f}"), "\u{1c}a\u{1f}");
        assert_eq!(js_trim("\r\n\u{2028}\t"), "");
    }
}
