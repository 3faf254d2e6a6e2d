//! The trace: one event per action of a run, so that `lab explain` can tell what happened to a
//! result and why (docs/observables.md). Events are built by intent, e.g.
//! `Event::new("budget", "keep").id(id).sizes(len, len).reason(why)`; the recorder stamps the
//! step. Field order is the JSON order.

use std::fmt;
use std::rc::Rc;

use serde::Serialize;

use crate::call_id::CallId;
use crate::fmt::eq_as_text;

/// A tool_use id as an event keeps it: the id itself, or a borrowed text's id.
pub trait IntoId {
    fn into_id(self) -> CallId;
}

impl IntoId for CallId {
    fn into_id(self) -> CallId {
        self
    }
}

impl IntoId for &CallId {
    fn into_id(self) -> CallId {
        *self
    }
}

impl IntoId for &str {
    fn into_id(self) -> CallId {
        CallId::new(self)
    }
}

/// One action. A replay records tens of thousands, each written once and read again only when
/// the trace is shown or dropped, so an event is kept small (issue 13: writing the trace and
/// reading it back was about a quarter of course-latest's cache misses): the step in 32 bits,
/// an id with its absence in 32 bits, a size with its absence in one word (88 bytes, not 112).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    /// 1-based scenario step (0 for the scenario's `request`). A scenario has fewer than 2^32
    /// steps: it holds at most 10^8 characters.
    pub step: u32,
    /// The stage that acted, or `scenario` for appended messages.
    pub stage: &'static str,
    /// What happened: `append`, `seen`, `persist`, `keep`, `replace`, `archive`, `snip`, `cut`,
    /// `compact`, `summary`, `check`.
    pub kind: &'static str,
    /// The tool_use_id concerned, if any.
    pub id: Option<CallId>,
    /// Characters before the action (a result's content, or the context estimate).
    pub before: Size,
    /// Characters after the action.
    pub after: Size,
    /// Why, in words.
    pub reason: Reason,
}

impl Event {
    /// An event of `stage` of this `kind`, with no id, sizes or reason yet. The step is the
    /// recorder's to set (`World::record` stamps the current one).
    pub fn new(stage: &'static str, kind: &'static str) -> Self {
        Event {
            step: 0,
            stage,
            kind,
            id: None,
            before: Size::NONE,
            after: Size::NONE,
            reason: Reason::default(),
        }
    }

    /// The event at scenario step `step` (the recorder's to stamp). A step past 2^32 - 1, which
    /// no scenario reaches, is kept as that.
    pub fn at(self, step: usize) -> Self {
        Event {
            step: u32::try_from(step).unwrap_or(u32::MAX),
            ..self
        }
    }

    /// The tool_use_id concerned: a shared id is kept as it is, a borrowed one copied.
    pub fn id(self, id: impl IntoId) -> Self {
        Event {
            id: Some(id.into_id()),
            ..self
        }
    }

    /// Characters before the action.
    pub fn before(self, chars: usize) -> Self {
        Event {
            before: Size::of(chars),
            ..self
        }
    }

    /// Characters after the action.
    pub fn after(self, chars: usize) -> Self {
        Event {
            after: Size::of(chars),
            ..self
        }
    }

    /// Characters before and after the action.
    pub fn sizes(self, before: usize, after: usize) -> Self {
        self.before(before).after(after)
    }

    /// Why, in words.
    pub fn reason(self, reason: impl Into<Reason>) -> Self {
        Event {
            reason: reason.into(),
            ..self
        }
    }
}

/// A size an event may carry, or none, in one word: none is kept as `usize::MAX`, a count of
/// characters or tokens no text reaches (a text's length is at most `isize::MAX` bytes). It
/// reads, compares, prints and serialises as the `Option<usize>` it stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Size(usize);

impl Size {
    /// No size.
    pub const NONE: Size = Size(usize::MAX);

    /// The size `chars`.
    pub fn of(chars: usize) -> Self {
        debug_assert!(chars != usize::MAX, "a size of usize::MAX characters");
        Size(chars)
    }

    /// The size, if there is one.
    pub fn get(self) -> Option<usize> {
        (self != Size::NONE).then_some(self.0)
    }
}

impl fmt::Debug for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl Serialize for Size {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

/// Why an event happened, in words: a fixed text, a built one, or one written only when it is
/// read. Most of a replay's trace is never printed (Monte Carlo reads none of it), so a reason
/// made of a run's values keeps the values and formats them on demand ([`reason!`]) instead of
/// formatting thousands of sentences per replay (issue 13). It reads, compares and serialises
/// as its text.
pub struct Reason(Text);

enum Text {
    Fixed(&'static str),
    Owned(String),
    /// Boxed, not shared: a replay makes and drops tens of thousands, and a shared pointer's
    /// count is two atomic operations per reason. A copy is the text, formatted once.
    Lazy(Box<dyn Fn(&mut fmt::Formatter<'_>) -> fmt::Result>),
    /// A sentence about a path the run keeps shared (a file it wrote), written by the function
    /// when read: no allocation of its own (issue 13: a boxed reason per masked output or
    /// archived result, about 5 000 a gemini-cli or course-latest replay, each living to its
    /// end and taking a block long out of the cache).
    Path(fn(&mut fmt::Formatter<'_>, &str) -> fmt::Result, Rc<str>),
}

impl Clone for Reason {
    fn clone(&self) -> Self {
        Reason(match &self.0 {
            Text::Fixed(text) => Text::Fixed(text),
            Text::Owned(text) => Text::Owned(text.clone()),
            Text::Lazy(_) => Text::Owned(self.to_string()),
            Text::Path(write, path) => Text::Path(*write, Rc::clone(path)),
        })
    }
}

impl Reason {
    /// A reason written by `write` when it is read (the [`reason!`] macro builds one from a
    /// format string and the values it names).
    pub fn lazy(write: impl Fn(&mut fmt::Formatter<'_>) -> fmt::Result + 'static) -> Self {
        Reason(Text::Lazy(Box::new(write)))
    }

    /// A reason about `path`, written by `write` when it is read: `Reason::naming(path, |f,
    /// path| write!(f, "written to {path}"))`, the path shared and nothing allocated.
    pub fn naming(path: Rc<str>, write: fn(&mut fmt::Formatter<'_>, &str) -> fmt::Result) -> Self {
        Reason(Text::Path(write, path))
    }

    /// The text, borrowed where it is held as text.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.0 {
            Text::Fixed(text) => (*text).into(),
            Text::Owned(text) => text.as_str().into(),
            Text::Lazy(_) | Text::Path(..) => self.to_string().into(),
        }
    }
}

/// A [`Reason`] formatted when it is read: `reason!("{chars} chars > {limit}")` takes the values
/// its format string names (by move: a borrowed one must be owned first) and formats nothing
/// until then. With positional arguments, which may borrow what the caller still changes, the
/// text is formatted at once.
macro_rules! reason {
    ($fmt:literal) => {
        $crate::trace::Reason::lazy(move |f: &mut std::fmt::Formatter<'_>| write!(f, $fmt))
    };
    ($fmt:literal, $($arg:tt)+) => {
        $crate::trace::Reason::from(format!($fmt, $($arg)+))
    };
}
pub(crate) use reason;

impl Default for Reason {
    fn default() -> Self {
        Reason(Text::Fixed(""))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Text::Fixed(text) => f.write_str(text),
            Text::Owned(text) => f.write_str(text),
            Text::Lazy(write) => write(f),
            Text::Path(write, path) => write(f, path),
        }
    }
}

impl fmt::Debug for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text(), f)
    }
}

impl PartialEq for Reason {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl Eq for Reason {}

eq_as_text!(Reason, text);

impl Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl From<&'static str> for Reason {
    fn from(text: &'static str) -> Self {
        Reason(Text::Fixed(text))
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Self {
        Reason(Text::Owned(text))
    }
}

impl From<&String> for Reason {
    fn from(text: &String) -> Self {
        Reason(Text::Owned(text.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event keeps an id, given as one or as its text, and writes it as the id's text.
    #[test]
    fn an_event_keeps_its_id() {
        let long = CallId::new("toolu_01ABCDEFGHJKLMNOPQRSTUVW");
        let given = Event::new("scenario", "append").id(long);
        assert_eq!(given.id, Some(long));
        let from_text = Event::new("scenario", "append").id("toolu_01ABCDEFGHJKLMNOPQRSTUVW");
        assert_eq!(from_text.id, Some(long));
        let json = serde_json::to_string(&given).unwrap();
        assert!(
            json.contains(r#""id":"toolu_01ABCDEFGHJKLMNOPQRSTUVW""#),
            "{json}"
        );
    }

    /// Every kind of reason reads, compares and serialises as its text; a lazy one formats the
    /// values it took when it was made, each time it is read.
    #[test]
    fn reasons_read_as_their_text() {
        let (chars, limit, path) = (120_001, 100_000, "/lab/a.txt".to_owned());
        let lazy = reason!("{chars} chars > limit {limit}: saved to {path}");
        let text = "120001 chars > limit 100000: saved to /lab/a.txt";
        assert_eq!(lazy.to_string(), text);
        assert_eq!(lazy.text(), text);
        assert_eq!(lazy, Reason::from(text.to_owned()));
        assert_eq!(Reason::from(text), lazy);
        assert_ne!(lazy, Reason::from("120001 chars"));
        assert_eq!(format!("{lazy:?}"), format!("{text:?}"));
        let event = Event::new("budget", "persist").reason(lazy.clone());
        let json = serde_json::to_value(&event).expect("an event serialises");
        assert_eq!(json["reason"], text);
        assert_eq!(lazy.to_string(), lazy.to_string());
        assert_eq!(Reason::default().text(), "");
        // A reason naming a shared path reads as the sentence about it, clones included.
        let named = Reason::naming("/lab/a.txt".into(), |f, path| write!(f, "saved to {path}"));
        assert_eq!(named.text(), "saved to /lab/a.txt");
        assert_eq!(named.clone(), Reason::from("saved to /lab/a.txt"));
        assert_eq!(format!("{named:?}"), format!("{:?}", "saved to /lab/a.txt"));
    }

    /// An event's sizes and step read, print and serialise as the optional counts they stand
    /// for, zero included; and an event takes 88 bytes on a 64-bit machine (112 with an
    /// `Option<usize>` per size, a word-sized step and an id with a separate tag).
    #[test]
    fn an_event_is_small_and_keeps_its_sizes() {
        let event = Event::new("fit", "replace").before(0).at(7);
        assert_eq!(
            (event.step, event.before.get(), event.after.get()),
            (7, Some(0), None)
        );
        assert_eq!(format!("{:?}", event.after), "None");
        assert_eq!(format!("{:?}", event.before), "Some(0)");
        let json = serde_json::to_value(&event).expect("an event serialises");
        assert_eq!(json["before"], 0);
        assert!(json["after"].is_null());
        assert_eq!(json["step"], 7);
        let sized = event.sizes(30_000, 120);
        assert_eq!(
            (sized.before.get(), sized.after.get()),
            (Some(30_000), Some(120))
        );
        #[cfg(target_pointer_width = "64")]
        assert_eq!(std::mem::size_of::<Event>(), 88);
    }
}
