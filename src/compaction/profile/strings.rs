//! The marker strings and templates a profile writes into the history (docs/profiles.md): persisted
//! previews, micro's placeholders, snip's marker, the summary message and its labels, and the
//! one-pass template engine [`fill`] that expands their `{name}` fields.

/// Marker strings and templates. `{name}` fields are filled by [`fill`]. The optional ones
/// belong to a stage or tool not every profile has, and are `None` where it is absent (the
/// prototype has no compact tool, compact or reactive stage; Claude Code no snip either): a
/// stage only runs for a profile that lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strings {
    /// What budget writes in place of a persisted result: `{path}`, `{preview}`.
    pub persisted: &'static str,
    /// The pointer placeholder micro writes: `{path}`.
    pub saved_at: &'static str,
    /// The placeholder micro writes when it finds no pointer (the one placeholder without a
    /// pointer, for `dropped_unsaved` and `pointer_lost`).
    pub omitted: &'static str,
    /// The line prefix micro takes a path from.
    pub pointer_line: &'static str,
    /// Snip's marker message: `{n}`, `{path}`.
    pub snip_marker: Option<&'static str>,
    /// The summary message of compact and reactive: `{label}`, `{request}`, `{summary}` (raw),
    /// `{summary_json}` (a JSON string), `{path}`.
    pub summary_message: &'static str,
    /// The compact tool's tool_result text.
    pub compact_tool_result: Option<&'static str>,
    /// Label of proactive compaction.
    pub compact_label: Option<&'static str>,
    /// Label of reactive compaction.
    pub reactive_label: Option<&'static str>,
}

// The optional strings are read through these, which state the invariant once: the stage
// that reads one only runs for a profile that has it.
impl Strings {
    /// Snip's marker message (a profile with snip has one).
    pub fn snip_marker(&self) -> &'static str {
        self.snip_marker
            .expect("a profile with snip has a snip marker")
    }

    /// The compact tool's tool_result text (a profile with a compact tool has one).
    pub fn compact_tool_result(&self) -> &'static str {
        self.compact_tool_result
            .expect("a profile with a compact tool has its result text")
    }

    /// Label of proactive compaction (a profile with compact has one).
    pub fn compact_label(&self) -> &'static str {
        self.compact_label
            .expect("a profile with compact has a compact label")
    }

    /// Label of reactive compaction (a profile with reactive has one).
    pub fn reactive_label(&self) -> &'static str {
        self.reactive_label
            .expect("a profile with reactive has a reactive label")
    }
}

/// Fills `{name}` fields of a template in one pass, so that field values containing braces are
/// never expanded again.
pub fn fill(template: &str, fields: &[(&str, &str)]) -> String {
    // Room for each field once: a persisted preview's text is most of the result, and growing
    // the buffer field by field copied it again (issue 13).
    let values: usize = fields.iter().map(|(_, value)| value.len()).sum();
    let mut out = String::with_capacity(template.len() + values);
    fill_into(&mut out, template, |name, out| {
        let value = fields.iter().find(|(key, _)| *key == name);
        value.map(|(_, value)| out.push_str(value)).is_some()
    });
    out
}

/// [`fill`] appending to `out`, each field written by `field(name, out)`, which returns false
/// (and writes nothing) for a name it does not know: that field stays as it is, braces and
/// all. A field written in place is not built apart first (issue 13: gemini-cli's masked
/// outputs built each preview in a string of their own, then copied it).
pub fn fill_into(
    out: &mut String,
    template: &str,
    mut field: impl FnMut(&str, &mut String) -> bool,
) {
    let mut rest = template;
    // The braces are found with `memchr` (issue 13: `str::find`'s char searcher cost more than
    // the copies, at every placeholder and preview a replay writes).
    while let Some(open) = memchr::memchr(b'{', rest.as_bytes()) {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match memchr::memchr(b'}', after.as_bytes()) {
            Some(close) if field(&after[..close], out) => rest = &after[close + 1..],
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_single_pass() {
        assert_eq!(
            fill("[{n} at {path}]", &[("n", "3"), ("path", "{n}")]),
            "[3 at {n}]"
        );
        assert_eq!(fill("{unknown} {", &[("n", "1")]), "{unknown} {");
        // Appended, each known field written by the caller.
        let mut out = "> ".to_owned();
        fill_into(&mut out, "{a}+{b}={c}", |name, out| match name {
            "a" | "b" => {
                out.push_str(&name.repeat(2));
                true
            }
            _ => false,
        });
        assert_eq!(out, "> aa+bb={c}");
    }
}
