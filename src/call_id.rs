//! Tool-call ids (a tool_use block's `id`, a tool_result block's `tool_use_id`), interned: each
//! distinct id text is stored once per thread and an id is its number in that table, so that the
//! maps a replay keeps by id hash and compare a number instead of a string (issue 13: hashing
//! and comparing id strings was a fifth of a replay's instructions, and more of its time).
//!
//! The table lives as long as its thread and only grows: a run's ids, a generated session's
//! (`toolu_<turn>_<k>`, the same for every session of a study) and an imported log's are a few
//! bytes each. The number depends on the order in which a thread first met each id, so it never
//! reaches an output: ids print, serialise and order by their text. An id is neither `Send` nor
//! `Sync`, so that a number cannot be read against another thread's table.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::hash::FastMap;

/// One thread's id texts, by number and by text.
#[derive(Default)]
struct Table {
    texts: Vec<&'static str>,
    numbers: FastMap<&'static str, u32>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

/// A tool-call id: its number in this thread's table.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallId {
    number: u32,
    /// Not `Send` or `Sync`: the number means something only on the thread that made it.
    thread: PhantomData<*const ()>,
}

impl CallId {
    /// The id whose text is `text`, added to the table the first time it is met.
    pub fn new(text: &str) -> Self {
        TABLE.with_borrow_mut(|table| {
            let number = match table.numbers.get(text) {
                Some(&number) => number,
                None => {
                    let number = u32::try_from(table.texts.len())
                        .expect("fewer than 2^32 distinct tool-call ids in one thread");
                    // Kept for the thread's life: an id is a copyable number whose text any
                    // holder may borrow.
                    let text: &'static str = Box::leak(text.into());
                    table.texts.push(text);
                    table.numbers.insert(text, number);
                    number
                }
            };
            CallId {
                number,
                thread: PhantomData,
            }
        })
    }

    /// The id's text.
    pub fn as_str(&self) -> &'static str {
        TABLE.with_borrow(|table| table.texts[self.number as usize])
    }
}

impl Default for CallId {
    fn default() -> Self {
        CallId::new("")
    }
}

impl Deref for CallId {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for CallId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for CallId {
    fn from(text: &str) -> Self {
        CallId::new(text)
    }
}

impl From<&String> for CallId {
    fn from(text: &String) -> Self {
        CallId::new(text)
    }
}

impl From<String> for CallId {
    fn from(text: String) -> Self {
        CallId::new(&text)
    }
}

impl From<&CallId> for CallId {
    fn from(id: &CallId) -> Self {
        *id
    }
}

impl PartialEq<str> for CallId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CallId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for CallId {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<CallId> for str {
    fn eq(&self, other: &CallId) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<CallId> for &str {
    fn eq(&self, other: &CallId) -> bool {
        *self == other.as_str()
    }
}

/// By text, as the strings they were ordered as.
impl Ord for CallId {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.number == other.number {
            return Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for CallId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for CallId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CallId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(CallId::new(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal texts are one id and different texts two, whatever order they were met in; an id
    /// orders, prints and serialises as its text.
    #[test]
    fn ids_are_their_texts() {
        let b = CallId::new("toolu_b");
        let a = CallId::new("toolu_a");
        assert_eq!(CallId::from("toolu_b".to_owned()), b);
        assert_ne!(a, b);
        assert_eq!(a.as_str(), "toolu_a");
        assert!(a < b, "ordered by text, not by the order they were met");
        assert_eq!(b.cmp(&a), Ordering::Greater);
        assert_eq!(format!("{a} {b:?}"), "toolu_a \"toolu_b\"");
        assert_eq!(
            serde_json::to_string(&a).ok().as_deref(),
            Some("\"toolu_a\"")
        );
        let parsed: Result<CallId, _> = serde_json::from_str("\"toolu_b\"");
        assert_eq!(parsed.ok(), Some(b));
        assert_eq!(a, "toolu_a");
        assert_eq!("toolu_a", a);
        assert_eq!(CallId::default().as_str(), "");
    }

    /// Another thread's table numbers the same texts in its own order: an id made there equals,
    /// once its text comes back, the id of that text here.
    #[test]
    fn each_thread_has_its_own_table() {
        let here = CallId::new("toolu_here");
        let there = std::thread::spawn(|| {
            let _first = CallId::new("toolu_there_first");
            CallId::new("toolu_here").as_str().to_owned()
        })
        .join()
        .ok();
        assert_eq!(there.as_deref(), Some("toolu_here"));
        assert_eq!(CallId::new(there.as_deref().unwrap_or_default()), here);
    }
}
