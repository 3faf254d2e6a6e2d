//! Hash maps and sets for lookups by id or path inside a replay: foldhash's fixed-seed hasher
//! instead of the standard SipHash, which hashed short ids at a few percent of every replay
//! (issue 13). The seed is fixed, so a map behaves the same in every run and on every machine;
//! none of these maps is iterated into an output (ordered output uses `BTreeMap`).

/// A `HashMap` with the fixed-seed fast hasher.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// A [`FastMap`] that keeps its entries in the order they were first inserted, side by side in
/// one vector, and finds them through a small table of their positions (`indexmap`). A map that
/// gains an entry at nearly every step writes it at the end of the vector instead of into a
/// bucket anywhere in a table larger than the cache (issue 13: the ledger's tool calls, 112
/// bytes an entry, one new entry for nearly every call).
pub(crate) type OrderedFastMap<K, V> = indexmap::IndexMap<K, V, foldhash::fast::FixedState>;

/// A `HashSet` with the fixed-seed fast hasher.
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

/// A map keyed by path, hashed as [`PathSet`] hashes its keys, that keeps its entries in the order they were first inserted, side by side in
/// one vector, and finds them through a table of their positions (`indexmap`). Walking it
/// visits the entries in that order, so the keys' text is read in about the order it was
/// allocated, not scattered as a hash table's buckets scatter it (issue 13: the listing at the
/// end of a gemini-cli replay reads 8 000 spill paths, and doing so in bucket order cost a
/// tenth of the replay's time in cache misses).
pub(crate) type OrderedPathMap<K, V> = indexmap::IndexMap<K, V, PathHash>;

/// A `HashSet` of paths: each is hashed by its length and its last [`PATH_TAIL`] bytes, the
/// name part where paths of one directory differ, not by the long directory every path of a
/// run repeats (issue 13: hashing whole spill and transcript paths was 2% of a gemini-cli
/// replay). Paths that agree there still compare whole.
pub(crate) type PathSet<T> = std::collections::HashSet<T, PathHash>;

/// How many bytes at the end of a path [`PathHash`] reads.
pub(crate) const PATH_TAIL: usize = 16;

/// The hasher of [`PathSet`] and [`OrderedPathMap`]: the fixed-seed fast hasher over a key's length and tail.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PathHash;

impl std::hash::BuildHasher for PathHash {
    type Hasher = PathHasher;

    fn build_hasher(&self) -> PathHasher {
        PathHasher(std::hash::BuildHasher::build_hasher(
            &foldhash::fast::FixedState::default(),
        ))
    }
}

/// See [`PathHash`].
pub(crate) struct PathHasher(foldhash::fast::FoldHasher<'static>);

impl std::hash::Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write_usize(bytes.len());
        self.0
            .write(&bytes[bytes.len().saturating_sub(PATH_TAIL)..]);
    }

    fn write_u8(&mut self, byte: u8) {
        self.0.write_u8(byte);
    }

    fn write_usize(&mut self, value: usize) {
        self.0.write_usize(value);
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    /// Paths that differ only before their tail hash alike and are still two keys; paths that
    /// differ in their tail or length hash apart (as far as these show).
    #[test]
    fn paths_hash_by_length_and_tail() {
        let hash = |path: &str| PathHash.hash_one(path);
        let (a, b) = (
            "/one/dir/spill/read_toolu_1_0.txt",
            "/two/dir/spill/read_toolu_1_0.txt",
        );
        assert_eq!(hash(a), hash(b));
        assert_ne!(hash(a), hash("/one/dir/spill/read_toolu_2_0.txt"));
        assert_ne!(hash(a), hash("/one/dir/spil/read_toolu_1_0.txt"));
        let mut files: OrderedPathMap<String, u8> = OrderedPathMap::default();
        files.insert(a.to_owned(), 1);
        files.insert(b.to_owned(), 2);
        assert_eq!(
            (files.len(), files.get(a), files.get(b)),
            (2, Some(&1), Some(&2))
        );
        let set: PathSet<&str> = [a, b, a].into_iter().collect();
        assert_eq!(set.len(), 2);
    }
}
