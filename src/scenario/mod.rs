//! Scenario files (docs/scenario-format.md): a scripted agent session and, optionally, what it must
//! show. This module holds the loaded types; the files below hold how they are read and checked:
//!
//! - `load.rs`: JSON text → [`Scenario`], the top-level fields;
//! - `steps.rs`: the table of step kinds (key, profiles that run it, keys, parser);
//! - `calls.rs`: tool calls, tool results and the ledger of call ids;
//! - `expect.rs`: expectations (`expect` and `check` steps);
//! - `fields.rs`: typed reads of JSON values with errors that name file, place and expectation;
//! - `validate.rs`: [`Scenario::validate_for`], the checks that need the profile (stage names,
//!   switches, constants), also run before anything runs.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value;
use smol_str::SmolStr;

use crate::call_id::CallId;
use crate::compaction::profile::Stage;
use crate::memory::world::Reply;
use crate::transcript::{Block, Message, ResultText, Role, TextSizes};

/// The tool name of every call id of a scenario, by the id's number: a replay looks one up for
/// each result it delivers, in about the order the ids were met, so the lookups walk the table
/// (issue 13: a hash table's probe missed the cache at each, 3% of a course-latest replay's
/// time).
pub type CallTools = crate::call_id::IdMap<SmolStr>;

mod calls;
mod duplicates;
mod expect;
mod fields;
mod load;
mod steps;
mod validate;

/// Default virtual spill directory.
pub const DEFAULT_SPILL_DIR: &str = "/lab/.task_outputs/tool-results";
/// Default virtual transcript directory.
pub const DEFAULT_TRANSCRIPT_DIR: &str = "/lab/.transcripts";

/// How a result's text is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Literal text.
    Text(Literal),
    /// `N` times `x`.
    Chars(usize),
    /// `lines` lines of `width` `x`, joined by `\n`.
    Lines { lines: usize, width: usize },
}

impl Body {
    /// The text of the result.
    pub fn render(&self) -> String {
        match self {
            Body::Text(text) => text.as_str().to_owned(),
            Body::Chars(n) => "x".repeat(*n),
            // No line, no width: `lines: 0` with any `width` is empty (audit D4).
            Body::Lines { lines: 0, .. } => String::new(),
            Body::Lines { lines, width } => {
                let line = "x".repeat(*width);
                vec![line; *lines].join("\n")
            }
        }
    }

    /// The text of the result as a replay holds it: literal text the scenario's own (shared),
    /// generated text a prefix of `renderer`'s buffer of its shape (no bytes of its own).
    pub(crate) fn text(&self, renderer: &mut Renderer) -> ResultText {
        let shared = match *self {
            Body::Text(ref text) => return text.text.clone(),
            Body::Lines { lines: 0, .. } => return ResultText::default(),
            Body::Chars(chars) => renderer.prefix(None, chars, chars),
            Body::Lines { lines, width } => {
                renderer.prefix(Some(width), lines, lines * (width + 1) - 1)
            }
        };
        shared.unwrap_or_else(|| self.render().into())
    }

    /// The sizes of the result's text for every estimate: a run of `x` or lines of them counted
    /// from their shape, literal text read once for every replay of the scenario.
    pub(crate) fn sizes(&self) -> TextSizes {
        match self {
            Body::Text(text) => text.sizes(),
            Body::Chars(n) => TextSizes::of_plain_lines(1, *n),
            Body::Lines { lines, width } => TextSizes::of_plain_lines(*lines, *width),
        }
    }
}

/// A result's literal text as a scenario holds it: one buffer that every replay's copy of the
/// result shares, and its sizes for every estimate, measured the first time a replay asks
/// (issue 13: each replay copied each literal result and read it twice more, to count its
/// characters and to measure it).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Literal {
    text: ResultText,
    sizes: Memo<TextSizes>,
}

impl Literal {
    /// The text.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// [`TextSizes::of`] the text, measured once.
    fn sizes(&self) -> TextSizes {
        *self.sizes.get_or_init(|| TextSizes::of(&self.text))
    }
}

impl std::ops::Deref for Literal {
    type Target = str;
    fn deref(&self) -> &str {
        self.text.as_str()
    }
}

impl From<String> for Literal {
    fn from(text: String) -> Self {
        Literal {
            text: text.into(),
            sizes: Memo::default(),
        }
    }
}

impl From<&str> for Literal {
    fn from(text: &str) -> Self {
        Literal::from(text.to_owned())
    }
}

impl std::fmt::Debug for Literal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.text.fmt(f)
    }
}

/// Buffers of generated result text, one per shape, that a replay's generated results are
/// prefixes of: a run of `x` ([`Body::Chars`]) and, per width, lines of `x` joined by `\n`
/// ([`Body::Lines`]). A buffer grows to at least twice its length when a longer result of its
/// shape comes, so a session's generated text costs about its longest result, not the sum of
/// its results (issue 13, item 4).
#[derive(Debug, Default)]
pub struct Renderer {
    /// By line width (`None`: the run of `x`): the buffer and how many chars or lines it holds.
    buffers: BTreeMap<Option<usize>, (usize, Rc<String>)>,
}

impl Renderer {
    /// The first `len` bytes of the buffer of `width` (`None`: the run of `x`), grown first to
    /// hold at least `units` chars or lines.
    fn prefix(&mut self, width: Option<usize>, units: usize, len: usize) -> Option<ResultText> {
        let (held, buffer) = self.buffers.entry(width).or_default();
        if *held < units {
            *held = units.max(held.saturating_mul(2));
            let body = match width {
                None => Body::Chars(*held),
                Some(width) => Body::Lines {
                    lines: *held,
                    width,
                },
            };
            *buffer = Rc::new(body.render());
        }
        ResultText::generated_shape(buffer, len, width)
    }
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool_use id, unique in the scenario.
    pub id: CallId,
    /// The tool's name (`bash` unless given).
    pub name: SmolStr,
    /// The tool's input (`{}` unless given).
    pub input: crate::transcript::Input,
}

/// One tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultSpec {
    pub id: CallId,
    pub body: Body,
}

/// The token usage an API reported for one assistant message (the Messages API's `usage`):
/// what the request that produced it cost. Imported logs carry it; the `claude-code` profile's
/// autocompact counts the last one plus the estimate of what came after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: usize,
    pub output_tokens: usize,
    pub cache_creation_input_tokens: usize,
    pub cache_read_input_tokens: usize,
}

impl Usage {
    /// Input, cache creation, cache read and output tokens together: what Claude Code counts as
    /// the context size at this message (`tokenCountWithEstimation`'s usage part).
    pub fn total(&self) -> usize {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }
}

/// A scripted assistant message: optional text, then tool calls, and the usage the API reported
/// for it (imported logs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantSpec {
    pub text: Option<String>,
    pub calls: Vec<Call>,
    pub usage: Option<Usage>,
    /// The message's `json.dumps` length, measured once for every replay of the scenario.
    pub(crate) json: Memo<usize>,
}

/// A value computed once from its holder and shared by every replay that reads it (issue 13:
/// each replay of a scenario measured the same messages again). Never part of the holder's
/// identity: two memos are equal whatever they hold.
#[derive(Clone)]
pub(crate) struct Memo<T>(std::sync::OnceLock<T>);

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo(std::sync::OnceLock::new())
    }
}

impl<T> Memo<T> {
    fn get_or_init(&self, init: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(init)
    }
}

impl<T> PartialEq for Memo<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Memo<T> {}

impl<T> std::fmt::Debug for Memo<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

impl AssistantSpec {
    /// `len(json.dumps(message, ensure_ascii=False))` of [`Self::message`], measured the first
    /// time it is asked for.
    pub(crate) fn json_chars(&self) -> usize {
        *self.json.get_or_init(|| self.message().json_chars())
    }

    /// The assistant message of this step: a text block, then tool_use blocks.
    pub(crate) fn message(&self) -> Message {
        // Sized once (issue 13: grown from nothing at every assistant message).
        let mut blocks = Vec::with_capacity(usize::from(self.text.is_some()) + self.calls.len());
        if let Some(text) = &self.text {
            blocks.push(Block::Text { text: text.clone() });
        }
        for call in &self.calls {
            blocks.push(Block::ToolUse {
                id: call.id,
                name: call.name.clone(),
                input: call.input.clone(),
            });
        }
        Message::blocks(Role::Assistant, blocks)
    }
}

impl Step {
    /// Prefetches what replaying the step reads ([`crate::prefetch::prefetch`]): with `deep`,
    /// what its lists point to (each call's input, each literal result's text), else the lists
    /// themselves (its calls, its results, its text). A replay asks for the lists a few steps
    /// ahead and for what they point to two steps later, once the lists are in the cache (issue
    /// 13: a replay reads each step's data once, scattered over the scenario's allocations, and
    /// the first read of each missed the cache).
    pub(crate) fn prefetch(&self, deep: bool) {
        let (assistant, results) = match self {
            Step::Turn { assistant, results } => (Some(assistant), results.as_slice()),
            Step::Assistant(assistant) => (Some(assistant), &[][..]),
            Step::Results(results) | Step::CompactTool { results, .. } => {
                (None, results.as_slice())
            }
            _ => return,
        };
        let calls = assistant.map_or(&[][..], |a| a.calls.as_slice());
        if !deep {
            crate::prefetch::prefetch_slice(calls);
            crate::prefetch::prefetch_slice(results);
            if let Some(text) = assistant.and_then(|a| a.text.as_ref()) {
                crate::prefetch::prefetch(text.as_ptr());
            }
            return;
        }
        for call in calls {
            call.input.prefetch();
        }
        for result in results {
            if let Body::Text(literal) = &result.body {
                literal.text.prefetch();
            }
        }
    }
}

/// What an expectation looks at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExpectKey {
    /// An observable by name.
    Observable(String),
    /// The final content of one result (`result:<id>`).
    Result(String),
    /// The text of one message of what the next request sends, counted from 0 (`message:<n>`).
    Message(usize),
    /// Memory: the path guard's verdict on a filename (`guard:<name>`): `ok` or the message.
    Guard(String),
    /// Memory: the text of a file of the store (`file:<name>`).
    File(String),
    /// Memory: the text of MEMORY.md.
    Index,
    /// Memory: the system prompt of the last agent turn.
    System,
    /// Memory: the recalled text of the last agent turn (`recall`).
    Recall,
}

impl ExpectKey {
    /// The key as the scenario file writes it.
    pub fn label(&self) -> String {
        match self {
            ExpectKey::Observable(name) => name.clone(),
            ExpectKey::Result(id) => format!("result:{id}"),
            ExpectKey::Message(index) => format!("message:{index}"),
            ExpectKey::Guard(name) => format!("guard:{name}"),
            ExpectKey::File(name) => format!("file:{name}"),
            ExpectKey::Index => "index".to_owned(),
            ExpectKey::System => "system".to_owned(),
            ExpectKey::Recall => "recall".to_owned(),
        }
    }
}

/// One expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub key: ExpectKey,
    pub expected: Value,
}

/// One scenario step. Its key, the profiles that run it and its parser are a row of the table in
/// `steps.rs`, which [`Step::kind`], [`Step::is_memory`] and [`Step::is_compaction`] read.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A new user request.
    User(String),
    /// A scripted assistant message.
    Assistant(AssistantSpec),
    /// One user message of tool results.
    Results(Vec<ResultSpec>),
    /// One stage of the profile.
    Stage(Stage),
    /// The profile's whole pipeline.
    Prepare,
    /// One agent-loop step: prepare, the assistant message, its results.
    Turn {
        assistant: AssistantSpec,
        results: Vec<ResultSpec>,
    },
    /// Minutes pass without an assistant message.
    Idle(u64),
    /// The API rejected the next request under the `context_hint` beta (Claude Code v2.1.332:
    /// its KEEP-RECENT microcompact runs before the request is sent again).
    ContextHint,
    /// Expectations checked at this point of the run.
    Check(Vec<Expectation>),
    /// The model called the `compact` tool in the assistant message just before: the results of
    /// its other calls, and the profile's compact-tool behaviour.
    CompactTool {
        /// The id of the `compact` call.
        id: CallId,
        /// The calls of that assistant message, in order (compact included).
        calls: Vec<CallId>,
        /// Results of the other calls.
        results: Vec<ResultSpec>,
    },
    /// Memory: the selector's next reply.
    SelectReply(Reply),
    /// Memory: the extractor's next reply.
    ExtractReply(Reply),
    /// Memory: the consolidator's next reply.
    ConsolidateReply(Reply),
    /// Memory: a one-shot fault, the operation after `N` successful ones fails.
    Fault {
        write_after: Option<usize>,
        delete_after: Option<usize>,
    },
    /// Memory: the agent's generic file tool writes a file into the store (no gate, no index).
    WriteFile { name: String, text: String },
    /// Memory: a symlink in the store (`.` for the store itself) to an outside file with `text`.
    Symlink {
        name: String,
        target: String,
        text: String,
    },
    /// Memory: records written through `write_memory_file`, as an earlier session left them.
    Seed(Vec<SeedRecord>),
    /// What the real agent did at this point, as its log shows it (imported sessions): replayed
    /// as a trace event only, so that a run can be compared with the real agent.
    Observed(Observed),
    /// A file of the run's spill or transcript directory is deleted, as retention cleanup does
    /// (Claude Code's `cleanupPeriodDays`, run by another process); a missing file is traced and
    /// nothing else happens.
    RemoveFile { dir: StoreDir, name: String },
}

/// Which directory of a run a [`Step::RemoveFile`] names a file of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreDir {
    /// The spill directory (`spill_dir`).
    Spill,
    /// The transcript directory (`transcript_dir`).
    Transcript,
}

/// An event of a real session's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// The agent compacted its context here (Claude Code `compact_boundary`, Codex `compacted`).
    Compaction {
        /// How it was triggered, as the log says (`auto`, `manual`, ...).
        trigger: String,
        /// Tokens before and after, when the log gives them.
        pre_tokens: Option<usize>,
        post_tokens: Option<usize>,
        /// Length of the summary the agent kept, when the log holds it.
        summary_chars: Option<usize>,
    },
}

/// A record of a `seed` step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRecord {
    pub name: String,
    pub kind: String,
    pub description: String,
    pub body: String,
}

/// A loaded, structurally valid scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file it came from (as given), for messages.
    pub file: String,
    pub name: String,
    pub about: Option<String>,
    pub source: Option<String>,
    pub profile: Option<String>,
    pub request: Option<String>,
    pub spill_dir: String,
    pub transcript_dir: String,
    /// The file names its directories (else a profile may use its own defaults).
    pub dirs_given: bool,
    /// Constant overrides, in file order.
    pub constants: Vec<(String, usize)>,
    /// Switch overrides, in file order.
    pub switches: Vec<(String, String)>,
    /// Scripted summary text for every summariser call.
    pub summary: Option<String>,
    /// Project instructions (CLAUDE.md) for profiles that re-inject them on every request.
    pub claude_md: Option<String>,
    pub steps: Vec<Step>,
    pub expect: Vec<Expectation>,
    /// Tool name of every call id: looked up once per result a replay delivers, so indexed
    /// (issue 13: an ordered map's comparisons were 4% of course-main's replay, a hash table's
    /// cache misses 3% of course-latest's).
    pub calls: CallTools,
}

impl Scenario {
    /// The same scenario with no expectation to check: `expect` empty and every `check` step
    /// empty (kept, so that step numbers stay those of the file).
    pub fn without_expectations(&self) -> Scenario {
        let mut out = self.clone();
        out.expect.clear();
        for step in &mut out.steps {
            if let Step::Check(list) = step {
                list.clear();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{Body, Renderer};
    use crate::transcript::{ResultText, TextSizes};

    /// The sizes counted from a body's shape are those measured on its rendered text, at the
    /// edges (empty, one line, zero width) and beyond.
    #[test]
    fn shape_sizes_are_the_measured_ones() {
        let mut bodies: Vec<Body> = [0, 1, 2, 63, 64, 1000].map(Body::Chars).into();
        for lines in 0..4 {
            for width in [0, 1, 5] {
                bodies.push(Body::Lines { lines, width });
            }
        }
        bodies.push(Body::Text("a \"q\"\n\tb é 😀 \\".into()));
        for body in &bodies {
            let text = body.render();
            assert_eq!(body.sizes(), TextSizes::of(&text), "{body:?}");
        }
        // By hand: two lines of three, `xxx\nxxx`: 7 characters, 10 once quoted and escaped.
        let two = Body::Lines { lines: 2, width: 3 }.sizes();
        assert_eq!((two.chars, two.json, two.utf16), (7, 10, 7));
    }

    /// A result shared out of a renderer's buffers is the text rendered on its own, whether its
    /// buffer grows for it, is longer already or was grown for a longer result of its shape
    /// before; lines of different widths do not share.
    #[test]
    fn shared_texts_are_the_rendered_ones() {
        let mut renderer = Renderer::default();
        let bodies = [
            Body::Chars(5),
            Body::Chars(3),
            Body::Chars(0),
            Body::Chars(11),
            Body::Chars(21),
            Body::Chars(4),
            Body::Lines { lines: 2, width: 3 },
            Body::Lines { lines: 1, width: 3 },
            Body::Lines { lines: 7, width: 3 },
            Body::Lines { lines: 3, width: 2 },
            Body::Lines { lines: 4, width: 0 },
            Body::Lines { lines: 0, width: 9 },
            Body::Lines { lines: 2, width: 3 },
            Body::Text("a\nb é".into()),
        ];
        let texts: Vec<_> = bodies.iter().map(|b| b.text(&mut renderer)).collect();
        for (body, text) in bodies.iter().zip(&texts) {
            assert_eq!(text.as_str(), body.render(), "{body:?}");
        }
        assert_eq!(texts[1].as_str(), "xxx");
        assert_eq!(texts[7].as_str(), "xxx");
        assert_eq!(texts[12].as_str(), "xxx\nxxx");
        // The run of `x` was grown to 5, 11 and then 22 (twice 11, more than 21).
        assert_eq!(renderer.buffers[&None].0, 22);
        assert_eq!(renderer.buffers[&Some(3)].0, 7);
    }

    /// An assistant message's length is measured once and is the message's own; the memo that
    /// holds it takes no part in comparing specs.
    #[test]
    fn an_assistant_spec_measures_its_message_once() {
        use super::{AssistantSpec, Call};
        let spec = AssistantSpec {
            text: Some("é \"q\"".into()),
            calls: vec![Call {
                id: "t1".into(),
                name: "Bash".into(),
                input: serde_json::Map::from_iter([("command".to_owned(), "ls\n".into())]).into(),
            }],
            ..AssistantSpec::default()
        };
        let fresh = spec.clone();
        assert_eq!(spec.json_chars(), spec.message().json_chars());
        assert_eq!(spec.json.0.get(), Some(&spec.message().json_chars()));
        assert_eq!(fresh.json.0.get(), None);
        assert_eq!(spec, fresh);
        let other = AssistantSpec {
            text: Some("other".into()),
            ..spec.clone()
        };
        assert_ne!(other, spec);
    }

    /// A generated text knows how many newlines it holds, as counting them finds, whatever
    /// the order the shapes' buffers grow in; a literal text and a text of an unknown shape
    /// are left to be read.
    #[test]
    fn generated_texts_know_their_newlines() {
        let mut renderer = Renderer::default();
        let mut bodies = Vec::new();
        for units in [1, 9, 2, 40, 3, 0, 17, 100, 5] {
            bodies.push(Body::Chars(units));
            for width in [0, 1, 4, 79] {
                bodies.push(Body::Lines {
                    lines: units,
                    width,
                });
            }
        }
        for body in bodies {
            let text = body.text(&mut renderer);
            let counted = body.render().bytes().filter(|&b| b == b'\n').count();
            let known = text.newlines().or(text.is_empty().then_some(0));
            assert_eq!(known, Some(counted), "{body:?}");
        }
        assert_eq!(
            Body::Text("a\nb".into()).text(&mut renderer).newlines(),
            None
        );
        let buffer = std::rc::Rc::new("xx\nxxx".to_owned());
        assert_eq!(ResultText::generated(&buffer, 6).unwrap().newlines(), None);
    }

    /// A literal result is one buffer for every replay (each replay's text is the scenario's, not
    /// a copy), and its sizes, measured the first time, are those of its text; a clone of the
    /// scenario shares both.
    #[test]
    fn a_literal_result_is_shared_and_measured_once() {
        let body = Body::Text("a \"q\"\n\tb é 😀 \\ Full output: /x".into());
        let Body::Text(literal) = &body else {
            unreachable!()
        };
        assert!(literal.sizes.0.get().is_none());
        let (mut first, mut second) = (Renderer::default(), Renderer::default());
        let (a, b) = (body.text(&mut first), body.clone().text(&mut second));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, body.render());
        assert_eq!(a.chars(), body.render().chars().count());
        assert_eq!(body.sizes(), TextSizes::of(&body.render()));
        assert_eq!(literal.sizes.0.get(), Some(&TextSizes::of(&body.render())));
    }

    /// A generated text knows its characters and that it holds only `x` and newlines, as a
    /// text made from a string counts them; a prefix past its buffer is refused.
    #[test]
    fn texts_know_their_characters_and_what_they_cannot_hold() {
        let mut renderer = Renderer::default();
        for body in [
            Body::Chars(0),
            Body::Chars(7),
            Body::Lines { lines: 3, width: 4 },
            Body::Text("a\nb é 😀 Full output: /x".into()),
        ] {
            let text = body.text(&mut renderer);
            let made = ResultText::from(body.render());
            assert_eq!(text.chars(), body.render().chars().count(), "{body:?}");
            assert_eq!(made.chars(), text.chars(), "{body:?}");
            for pattern in ["", "x", "xx\nx", "\n", "Full output: ", "é", "y"] {
                let expected = body.render().contains(pattern);
                assert_eq!(text.contains(pattern), expected, "{body:?} {pattern:?}");
                assert_eq!(made.contains(pattern), expected, "{body:?} {pattern:?}");
            }
        }
        assert_eq!(ResultText::from("中文abc".to_owned()).chars(), 5);
        let buffer = std::rc::Rc::new("xxx".to_owned());
        assert_eq!(ResultText::generated(&buffer, 3).as_deref(), Some("xxx"));
        assert_eq!(ResultText::generated(&buffer, 4), None);
    }
}
