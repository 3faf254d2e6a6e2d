//! Hash maps and sets for lookups by id or path inside a replay: foldhash's fixed-seed hasher
//! instead of the standard SipHash, which hashed short ids at a few percent of every replay
//! (issue 13). The seed is fixed, so a map behaves the same in every run and on every machine;
//! none of these maps is iterated into an output (ordered output uses `BTreeMap`).

/// A `HashMap` with the fixed-seed fast hasher.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// A `HashSet` with the fixed-seed fast hasher.
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;
