//! Tool-call ids (a tool_use block's `id`, a tool_result block's `tool_use_id`), interned: each
//! distinct id text is stored once per thread and an id is its number in that table, so that the
//! maps a replay keeps by id hash and compare a number instead of a string (issue 13: hashing
//! and comparing strings, ids most of them, was a fifth of a replay's instructions, and more of
//! its time).
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
use std::num::NonZeroU32;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::fmt::eq_as_text;
use crate::hash::FastMap;

/// One thread's id texts, by number and by text. The empty text is number 1, the default id.
struct Table {
    texts: Vec<&'static str>,
    numbers: FastMap<&'static str, NonZeroU32>,
}

impl Table {
    fn new() -> Self {
        let mut numbers = FastMap::default();
        numbers.insert("", NonZeroU32::MIN);
        Table {
            texts: vec![""],
            numbers,
        }
    }
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::new());
}

/// A tool-call id: its number in this thread's table, counted from 1 so that an `Option` of an
/// id is as small as the id (a trace event holds one: issue 13).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallId {
    number: NonZeroU32,
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
                    let number = u32::try_from(table.texts.len() + 1)
                        .ok()
                        .and_then(NonZeroU32::new)
                        .expect("fewer than 2^32 - 1 distinct tool-call ids in one thread");
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
        TABLE.with_borrow(|table| table.texts[self.index()])
    }

    /// The id's place in its thread's table: its number less one.
    fn index(&self) -> usize {
        self.number.get() as usize - 1
    }
}

/// The empty id, number 1 on every thread.
impl Default for CallId {
    fn default() -> Self {
        CallId {
            number: NonZeroU32::MIN,
            thread: PhantomData,
        }
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

eq_as_text!(CallId, as_str);

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

/// A map by [`CallId`] kept as a vector indexed by the id's place in its thread's table (its
/// number less one): a lookup is an index, not a hash and a probe (issue 13: the ledger and the
/// result index are read at every step). Its length follows the largest number it holds, so it
/// suits a run's ids, which a thread numbers as it meets them. Iteration is in number order, which depends on the thread's history: as
/// with a hash map, nothing iterated from it may reach an output in that order.
#[derive(Clone, Debug)]
pub struct IdMap<V> {
    slots: Vec<Option<(CallId, V)>>,
    len: usize,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<V> IdMap<V> {
    /// How many ids the map holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map holds no id.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of `id`.
    pub fn get(&self, id: &CallId) -> Option<&V> {
        match self.slots.get(id.index()) {
            Some(Some((_, value))) => Some(value),
            _ => None,
        }
    }

    /// The value of `id`, to change.
    pub fn get_mut(&mut self, id: &CallId) -> Option<&mut V> {
        match self.slots.get_mut(id.index()) {
            Some(Some((_, value))) => Some(value),
            _ => None,
        }
    }

    /// The id as the map holds it, and its value.
    pub fn get_key_value(&self, id: &CallId) -> Option<(&CallId, &V)> {
        match self.slots.get(id.index()) {
            Some(Some((key, value))) => Some((key, value)),
            _ => None,
        }
    }

    /// Whether the map holds `id`.
    pub fn contains_key(&self, id: &CallId) -> bool {
        self.get(id).is_some()
    }

    /// The slot of `id` in `slots`, the vector grown to hold it.
    fn slot(slots: &mut Vec<Option<(CallId, V)>>, id: CallId) -> &mut Option<(CallId, V)> {
        let at = id.index();
        if at >= slots.len() {
            slots.resize_with(at + 1, || None);
        }
        &mut slots[at]
    }

    /// Sets the value of `id`; returns the one it replaced.
    pub fn insert(&mut self, id: CallId, value: V) -> Option<V> {
        let old = Self::slot(&mut self.slots, id)
            .replace((id, value))
            .map(|(_, old)| old);
        self.len += usize::from(old.is_none());
        old
    }

    /// Takes `id` out of the map; returns its value.
    pub fn remove(&mut self, id: &CallId) -> Option<V> {
        let old = self
            .slots
            .get_mut(id.index())
            .and_then(Option::take)
            .map(|(_, old)| old);
        self.len -= usize::from(old.is_some());
        old
    }

    /// The value of `id`, set by `make` first when the map does not hold it.
    pub fn get_or_insert_with(&mut self, id: CallId, make: impl FnOnce() -> V) -> &mut V {
        let slot = Self::slot(&mut self.slots, id);
        self.len += usize::from(slot.is_none());
        &mut slot.get_or_insert_with(|| (id, make())).1
    }

    /// Forgets every id, keeping the room.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.len = 0;
    }

    /// The numbers below which an id needs no more room.
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Makes room for ids numbered below `numbers`.
    pub fn reserve(&mut self, numbers: usize) {
        self.slots.reserve(numbers.saturating_sub(self.slots.len()));
    }

    /// Every id and its value, in the order of their numbers.
    pub fn iter(&self) -> impl Iterator<Item = (&CallId, &V)> {
        self.slots
            .iter()
            .filter_map(|slot| slot.as_ref().map(|(id, value)| (id, value)))
    }

    /// Every id, in the order of their numbers.
    pub fn keys(&self) -> impl Iterator<Item = &CallId> {
        self.iter().map(|(id, _)| id)
    }

    /// Every value, in the order of their ids' numbers.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, value)| value)
    }
}

/// Equal when they hold the same ids with equal values, however long their vectors grew.
impl<V: PartialEq> PartialEq for IdMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().all(|(id, value)| other.get(id) == Some(value))
    }
}

impl<V: Eq> Eq for IdMap<V> {}

impl<V> std::ops::Index<&CallId> for IdMap<V> {
    type Output = V;

    fn index(&self, id: &CallId) -> &V {
        self.get(id).expect("the map holds the id")
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
        assert_eq!(CallId::new(""), CallId::default());
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

    /// A map by id holds what was set, once per id, counts what it holds, forgets what is
    /// removed, and equals another with the same ids and values however they were reached.
    #[test]
    fn an_id_map_is_a_map() {
        let (a, b, c) = (
            CallId::new("map_a"),
            CallId::new("map_b"),
            CallId::new("map_c"),
        );
        let mut map = IdMap::default();
        assert_eq!(map.insert(b, 2), None);
        assert_eq!(map.insert(a, 1), None);
        assert_eq!(map.insert(b, 20), Some(2));
        assert_eq!((map.len(), map.get(&b), map.get(&c)), (2, Some(&20), None));
        *map.get_or_insert_with(c, || 0) += 3;
        *map.get_or_insert_with(c, || 100) += 3;
        assert_eq!((map[&c], map.len()), (6, 3));
        assert_eq!(map.remove(&a), Some(1));
        assert_eq!(map.remove(&a), None);
        assert!(!map.contains_key(&a) && map.contains_key(&b));
        let mut held: Vec<(&str, i32)> = map.iter().map(|(id, v)| (id.as_str(), *v)).collect();
        held.sort();
        assert_eq!(held, [("map_b", 20), ("map_c", 6)]);
        // Grown past every id `other` holds, then back: equal all the same.
        let d = CallId::new("map_d");
        map.insert(d, 0);
        map.remove(&d);
        let mut other = IdMap::default();
        other.insert(c, 6);
        other.insert(b, 20);
        assert_eq!(map, other);
        other.insert(a, 1);
        assert_ne!(map, other);
        map.clear();
        assert!(map.is_empty() && map.get(&b).is_none());
    }
}
