//! Paths as the modelled code and the sandbox see them, by their text alone: Python
//! `PurePosixPath` normalisation, lexical resolution (`.` and `..` collapsed, never above the
//! root), the inside/outside rule of the run's directories and the order of a listing's names.
//! A leaf: nothing here touches a file system; the stores ([`crate::compaction::store`]) build
//! on it.

use std::borrow::Cow;

/// Python `PurePosixPath` normalisation: repeated and trailing slashes and `.` parts dropped.
pub(crate) fn normalize(path: &str) -> String {
    normal(path).into_owned()
}

/// [`normalize`], borrowing a path that is normal already (an absolute path with no empty, `.`
/// or `..` component, as every spill and transcript directory of a run is once resolved).
fn normal(path: &str) -> Cow<'_, str> {
    if is_resolved(path) {
        return Cow::Borrowed(path);
    }
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let joined = parts.join("/");
    Cow::Owned(match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    })
}

/// Lexical `resolve`: normalises and collapses `..` (never above the root).
pub(crate) fn resolve_lexical(path: &str) -> String {
    lexical(path).into_owned()
}

/// Whether a path component is a name: not empty, `.` or `..`.
fn is_name(part: &[u8]) -> bool {
    !matches!(part, b"" | b"." | b"..")
}

/// Whether `path` is resolved already: `/` then components none of which is empty, `.` or `..`
/// (most paths are). Slashes are found eight bytes at a time (a word with no `/` byte is
/// skipped whole): splitting into components byte by byte was 4-7% of Monte Carlo, whose spill
/// paths are deep.
fn is_resolved(path: &str) -> bool {
    const SLASHES: u64 = u64::from_le_bytes([b'/'; 8]);
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let bytes = path.as_bytes();
    if bytes.first() != Some(&b'/') {
        return false;
    }
    let (mut start, mut at) = (1, 1);
    while at < bytes.len() {
        if let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            // The lowest high bit of `(x - 1…1) & !x & 80…80` marks the first zero byte of
            // `x`: the first `/` of the word.
            let x = u64::from_le_bytes(word) ^ SLASHES;
            let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
            if zeros == 0 {
                at += 8;
                continue;
            }
            at += (zeros.trailing_zeros() / 8) as usize;
        } else if bytes[at] != b'/' {
            at += 1;
            continue;
        }
        if !is_name(&bytes[start..at]) {
            return false;
        }
        at += 1;
        start = at;
    }
    is_name(&bytes[start..])
}

/// [`resolve_lexical`], borrowing a path that is resolved already.
pub(crate) fn lexical(path: &str) -> Cow<'_, str> {
    if is_resolved(path) {
        return Cow::Borrowed(path);
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    Cow::Owned(format!("/{}", parts.join("/")))
}

/// `str(Path(dir) / name)`.
pub(crate) fn join(dir: &str, name: &str) -> String {
    join_normal(&normal(dir), name)
}

/// [`join`] below a directory that is normal already: the world's spill and transcript
/// directories, normalised once when the run starts, are not scanned again for every path
/// built below them (issue 13).
pub(crate) fn join_normal(dir: &str, name: &str) -> String {
    join_normal_ext(dir, name, "")
}

/// [`join_normal`] of the name `stem` followed by `ext`, written in one buffer (a spill file's
/// `<id>.txt`: issue 13, the name was grown by its extension and then copied into the path).
pub(crate) fn join_normal_ext(dir: &str, stem: &str, ext: &str) -> String {
    debug_assert_eq!(normal(dir), dir);
    // Written piece by piece: this runs for every spill path, and `format!` costs several
    // times the copy.
    let mut path = String::with_capacity(dir.len() + 1 + stem.len() + ext.len());
    if dir != "/" {
        path.push_str(dir);
    }
    path.push('/');
    path.push_str(stem);
    path.push_str(ext);
    path
}

/// [`join_normal`] of a name that `write_name` writes into the path itself, with room for
/// `name_room` bytes of it, written over `path` (emptied first), a buffer kept from one path to
/// the next (issue 13: gemini-cli names each file it writes from parts, and the name was built
/// in a string of its own, then copied into a path of its own).
pub(crate) fn join_normal_into(
    path: &mut String,
    dir: &str,
    name_room: usize,
    write_name: impl FnOnce(&mut String),
) {
    debug_assert_eq!(normal(dir), dir);
    path.clear();
    path.reserve(dir.len() + 1 + name_room);
    if dir != "/" {
        path.push_str(dir);
    }
    path.push('/');
    write_name(path);
}

/// `Path(path).is_relative_to(root)` on already resolved paths.
pub(crate) fn is_within(path: &str, root: &str) -> bool {
    path == root
        || root == "/"
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The last path component.
pub(crate) fn basename(path: &str) -> &str {
    // The last `/` found by `memrchr`, a word at a time: `rsplit`'s searcher cost several times
    // it on a file name, and a loop over the bytes twice (issue 13: the end of a run names
    // every spill file).
    let slash = memchr::memrchr(b'/', path.as_bytes());
    slash.map_or(path, |slash| &path[slash + 1..])
}

/// The run's directories as the inside/outside rule reads them: each resolved lexically once,
/// and none that holds a NUL (every path below such a directory holds it too, and the rule
/// refuses a path that holds a NUL), so that a path is checked without reading its directory
/// again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Roots(Vec<String>);

impl Roots {
    pub(crate) fn new<S: AsRef<str>>(dirs: &[S]) -> Self {
        let resolved = dirs.iter().map(|dir| resolve_lexical(dir.as_ref()));
        Roots(resolved.filter(|dir| !dir.contains('\0')).collect())
    }

    /// The directories, resolved.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// True when `path`, resolved lexically, lies strictly below one of the directories and
    /// holds no NUL: the one rule by which the sandbox and both stores tell inside from outside.
    pub(crate) fn hold(&self, path: &str) -> bool {
        self.resolve(path).is_some()
    }

    /// `path` resolved lexically (borrowed when it is resolved already) when [`Self::hold`]: a
    /// store that checks a path and then keys it by its resolution does not read it twice.
    pub(crate) fn resolve<'a>(&self, path: &'a str) -> Option<Cow<'a, str>> {
        // Most paths (every spill file and transcript) are one name directly below a root, which
        // is resolved: such a path is its own resolution, and inside when its name holds no NUL.
        // The name is read a word at a time (issue 13: a `memchr` for the NUL and a searcher for
        // the `/` over the whole path, at every write, read and check of a spill file).
        let name_below = |root: &String| {
            path.strip_prefix(root.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|name| {
                    is_name(name.as_bytes()) && !holds_either(name.as_bytes(), b'/', 0)
                })
        };
        if self.0.iter().any(name_below) {
            return Some(Cow::Borrowed(path));
        }
        if holds_either(path.as_bytes(), 0, 0) {
            return None;
        }
        let lexical = lexical(path);
        let below = self.iter().any(|root| {
            lexical
                .strip_prefix(root)
                .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
        });
        below.then_some(lexical)
    }
}

/// A number whose order is the order of the names that start with `name`'s first 16 bytes:
/// those bytes, big-endian, padded with zeros. When two keys differ, the names compare as their
/// keys do (a name that ends first is padded with zeros, the least byte: it is a prefix of the
/// other, and sorts first); equal keys leave the names to be compared whole.
pub(crate) fn name_order_key(name: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    let len = name.len().min(16);
    bytes[..len].copy_from_slice(&name[..len]);
    u128::from_be_bytes(bytes)
}

/// Sorts `order`, each entry a key and an index into names that agree on their first `at`
/// bytes, into the order of those names (then of the indices), 16 bytes at a time: the entries
/// are keyed by the names' next 16 bytes ([`name_order_key`] from `at`), and the runs whose keys
/// are equal are keyed again from 16 bytes further (issue 13: gemini-cli lists 8 000 files,
/// and a real session's shell outputs all start `run_shell_command_`; comparing names whole
/// cost 70 instructions a step). A run whose names all end within the bytes read is ordered
/// whole, exactly as the names compare.
pub(crate) fn order_by_name<'a>(
    order: &mut [NameOrder],
    name: &impl Fn(usize) -> &'a [u8],
    at: usize,
) {
    for entry in order.iter_mut() {
        entry.set_key(name_order_key(
            name(entry.index()).get(at..).unwrap_or_default(),
        ));
    }
    // By key alone: entries whose keys tie are ordered below, by name and then index.
    order.sort_unstable_by_key(NameOrder::key);
    let next = at + 16;
    for run in order.chunk_by_mut(|a, b| a.key() == b.key()) {
        if run.len() < 2 {
            continue;
        }
        if run.iter().all(|entry| name(entry.index()).len() <= next) {
            run.sort_unstable_by(|a, b| {
                let (a, b) = (a.index(), b.index());
                name(a).cmp(name(b)).then(a.cmp(&b))
            });
        } else {
            order_by_name(run, name, next);
        }
    }
}

/// An entry of [`order_by_name`]: a name's index and its current key, the key kept as two
/// halves so that an entry is 24 bytes, not the 32 a `u128`'s alignment makes of it (issue
/// 13: gemini-cli's listing sorts 100 000 of them, and each step moves two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NameOrder {
    high: u64,
    low: u64,
    index: usize,
}

impl NameOrder {
    /// The entry of name `index`, its key not yet set.
    pub(crate) fn new(index: usize) -> Self {
        NameOrder {
            high: 0,
            low: 0,
            index,
        }
    }

    /// The index of the name.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    fn key(&self) -> u128 {
        (u128::from(self.high) << 64) | u128::from(self.low)
    }

    fn set_key(&mut self, key: u128) {
        // Split into its halves, which `key` joins again.
        self.high = (key >> 64) as u64;
        self.low = key as u64;
    }
}

/// [`Roots::hold`] of directories given as they are.
#[cfg(test)]
pub(crate) fn is_inside<R: AsRef<str>>(roots: &[R], path: &str) -> bool {
    Roots::new(roots).hold(path)
}

/// Whether `bytes` holds `a` or `b`, read eight bytes at a time: a word's bytes equal to a byte
/// are the zero bytes of the word xor that byte repeated, and `(x - 01…01) & !x & 80…80` is
/// not zero exactly when `x` has a zero byte.
fn holds_either(bytes: &[u8], a: u8, b: u8) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let (a_word, b_word) = (u64::from(a) * ONES, u64::from(b) * ONES);
    let holds = |chunk: &[u8]| {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        zero_byte(word ^ a_word) | zero_byte(word ^ b_word) != 0
    };
    if bytes.len() < 8 {
        return bytes.iter().any(|&byte| byte == a || byte == b);
    }
    // The last eight bytes are read as one more word, overlapping the words before it.
    bytes.chunks_exact(8).any(holds) || holds(&bytes[bytes.len() - 8..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string of at most `longest` characters from `alphabet`, the empty one included.
    fn every_path(alphabet: &[char], longest: usize) -> Vec<String> {
        let (mut all, mut last) = (vec![String::new()], vec![String::new()]);
        for _ in 0..longest {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    /// The word scan agrees with the definition (split into components, none empty, `.` or
    /// `..`) on every path of up to eight bytes over `/`, `.` and `a`, the empty one included.
    #[test]
    fn resolved_paths_are_those_whose_components_are_all_names() {
        fn by_parts(path: &str) -> bool {
            path.strip_prefix('/')
                .is_some_and(|rest| rest.split('/').all(|part| !matches!(part, "" | "." | "..")))
        }
        let paths = every_path(&['/', '.', 'a'], 8);
        assert_eq!(paths.len(), 9841);
        for path in &paths {
            assert_eq!(is_resolved(path), by_parts(path), "{path}");
        }
        // Longer paths, so that words are skipped whole and slashes fall at every offset.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let len = 9 + (state >> 59) as usize;
            let path: String = (0..len)
                .map(|i| match (state >> (i % 60)) & 7 {
                    0 => '/',
                    1 | 2 => '.',
                    _ => 'a',
                })
                .collect();
            let path = format!("/{path}");
            assert_eq!(is_resolved(&path), by_parts(&path), "{path}");
        }
        assert!(is_resolved(
            "/lab/.task_outputs/a..b/.x/tool-results/t0.txt"
        ));
        assert!(!is_resolved("/lab/.task_outputs/../tool-results/t0.txt"));
    }

    /// The shortcut for a name directly below a root gives what resolving first gives, on
    /// every path that starts with a root or its parent and goes on for up to six bytes over
    /// `/`, `.`, `a` and NUL.
    #[test]
    fn a_name_below_a_root_is_inside_as_resolved_paths_are() {
        fn by_resolving(roots: &[&str], path: &str) -> bool {
            let resolved = resolve_lexical(path);
            !path.contains('\0')
                && roots.iter().any(|root| {
                    resolved
                        .strip_prefix(root)
                        .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
                })
        }
        let roots = ["/r", "/r/.s"];
        let suffixes = every_path(&['/', '.', 'a', '\0'], 6);
        assert_eq!(suffixes.len(), 5461);
        let mut inside = 0;
        for start in ["/", "/r", "/r/.s", "/q"] {
            for suffix in &suffixes {
                let path = format!("{start}{suffix}");
                let expected = by_resolving(&roots, &path);
                assert_eq!(is_inside(&roots, &path), expected, "{path:?}");
                inside += usize::from(expected);
            }
        }
        assert!(inside > 1000, "{inside}");
    }

    /// Every path of up to 9 bytes over `/`, `.` and `a` is resolved exactly when splitting it
    /// into components finds none empty, `.` or `..` after its leading `/`.
    #[test]
    fn resolved_paths_are_those_whose_components_are_names() {
        let mut paths = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..9 {
            level = level
                .iter()
                .flat_map(|p| ["/", ".", "a"].map(|c| format!("{p}{c}")))
                .collect();
            paths.extend(level.iter().cloned());
        }
        let mut checked = 0;
        for path in &paths {
            let by_parts = path
                .strip_prefix('/')
                .is_some_and(|rest| rest.split('/').all(|part| !matches!(part, "" | "." | "..")));
            assert_eq!(is_resolved(path), by_parts, "{path:?}");
            checked += 1;
        }
        assert!(checked > 9_000, "{checked}");
    }

    #[test]
    fn lexical_resolution_keeps_resolved_paths_and_collapses_the_rest() {
        for (path, resolved) in [
            ("/a/b", "/a/b"),
            ("/", "/"),
            ("", "/"),
            ("a/b", "/a/b"),
            ("/a//b/", "/a/b"),
            ("/a/./b/../c", "/a/c"),
            ("/..", "/"),
            ("/a/b/..", "/a"),
            ("/a/.", "/a"),
            ("/a/...", "/a/..."),
            ("/.hidden/x", "/.hidden/x"),
            ("/a/b.", "/a/b."),
            ("/a/b/", "/a/b"),
            ("//", "/"),
        ] {
            assert_eq!(resolve_lexical(path), resolved, "{path}");
            // A path is borrowed when it is its own resolution (`/` alone is rebuilt).
            assert_eq!(
                matches!(lexical(path), Cow::Borrowed(_)),
                path == resolved && path != "/",
                "{path}"
            );
        }
    }

    /// Normalising borrows a resolved path and gives what dropping empty and `.` parts gives,
    /// on every path of up to seven bytes over `/`, `.` and `a`.
    #[test]
    fn a_resolved_path_is_its_own_normal_form() {
        fn by_parts(path: &str) -> String {
            let parts: Vec<&str> = path
                .split('/')
                .filter(|part| !part.is_empty() && *part != ".")
                .collect();
            match (path.starts_with('/'), parts.is_empty()) {
                (true, _) => format!("/{}", parts.join("/")),
                (false, true) => ".".to_owned(),
                (false, false) => parts.join("/"),
            }
        }
        for path in &every_path(&['/', '.', 'a'], 7) {
            assert_eq!(normal(path), by_parts(path), "{path:?}");
            assert_eq!(matches!(normal(path), Cow::Borrowed(_)), is_resolved(path));
        }
        assert!(matches!(
            normal("/lab/.task_outputs/a..b"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn paths_normalise_like_python() {
        assert_eq!(normalize("/var//lab/./res/"), "/var/lab/res");
        assert_eq!(
            join("/var/lab/res/", "toolu_0.txt"),
            "/var/lab/res/toolu_0.txt"
        );
        assert_eq!(join("/", "a.txt"), "/a.txt");
        assert_eq!(resolve_lexical("/lab/res/../../etc/passwd"), "/etc/passwd");
        assert!(is_within("/lab/res/a.txt", "/lab/res"));
        assert!(!is_within("/lab/resx/a.txt", "/lab/res"));
        assert_eq!(basename("/a/b/c.txt"), "c.txt");
        for path in ["", "/", "a", "/a/", "a/b", "//x", "/é/ü.txt"] {
            assert_eq!(basename(path), path.rsplit('/').next().unwrap(), "{path}");
        }
    }

    /// `holds_either` finds a byte at every position of texts of 0 to 24 bytes (the word loop,
    /// the overlapping last word and the short texts read byte by byte), and nothing in texts
    /// without it.
    #[test]
    fn holds_either_finds_a_byte_wherever_it_is() {
        for len in 0..=24 {
            let plain = "a".repeat(len);
            assert!(!holds_either(plain.as_bytes(), b'/', 0), "{len}");
            for at in 0..len {
                for byte in [b'/', 0] {
                    let mut text = plain.clone().into_bytes();
                    text[at] = byte;
                    assert!(holds_either(&text, b'/', 0), "{len} {at} {byte}");
                    assert_eq!(holds_either(&text, 0, 0), byte == 0, "{len} {at}");
                }
            }
        }
    }

    /// A directory that holds a NUL holds no path (every path below it holds the NUL), and
    /// takes nothing from the others; a name longer than a word with a NUL anywhere is outside,
    /// and one with a `/` anywhere is inside, as resolving it first finds.
    #[test]
    fn a_root_with_a_nul_holds_nothing_and_long_names_are_read_whole() {
        let roots = Roots::new(&["/r\0s", "/r"]);
        assert_eq!(roots.iter().collect::<Vec<_>>(), ["/r"]);
        assert!(!roots.hold("/r\0s/a"));
        assert!(roots.hold("/r/a"));
        let name = "abcdefghijklmnopqrstu";
        for at in 0..name.len() {
            for byte in ["/", "\0"] {
                let path = format!("/r/{}{byte}{}", &name[..at], &name[at + 1..]);
                // A `/` splits the name in two names, or leaves an empty part resolving drops.
                assert_eq!(roots.hold(&path), byte == "/", "{path:?}");
            }
        }
    }
}
