//! The spill store and the transcript archive, behind one small interface with two backends.
//!
//! The course writes large results to `spill_dir/<safe_id>.txt` (write only if absent) and whole
//! histories to `transcript_dir/transcript_<hex>.jsonl`. [`MemoryStore`] keeps both in memory under
//! virtual absolute paths, so runs are deterministic and fast; [`DirStore`] writes real files: in
//! the directories the user gave, or at the run's own paths below a private temporary directory.
//! For the same path lengths both give the same observables; a test checks that for every
//! scenario.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::RunError;
use crate::python::json::Dialect;
use crate::transcript::{Message, ResultText};

/// Which backend a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreKind {
    /// In memory, virtual absolute paths (deterministic; the default).
    #[default]
    Memory,
    /// A real directory.
    Dir,
}

/// One file of the spill store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillFile {
    pub path: String,
    pub chars: usize,
}

/// Storage for spilled results and archived transcripts.
pub(crate) trait Store {
    /// True if a regular file exists at `path` (Python `Path.is_file`/`exists`).
    fn is_file(&self, path: &str) -> bool;
    /// Writes a spill file, creating parent directories.
    fn write_spill(&mut self, path: &str, content: ResultText) -> io::Result<()>;
    /// [`Self::write_spill`], its failure the run's error naming `path`.
    fn put_spill(&mut self, path: &str, content: ResultText) -> Result<(), RunError> {
        self.write_spill(path, content)
            .map_err(|source| RunError::Store {
                path: path.to_owned(),
                source,
            })
    }
    /// Reads a spill file.
    fn read_spill(&self, path: &str) -> Option<ResultText>;
    /// Every file of the spill directory `dir`, sorted by path.
    fn spill_files(&self, dir: &str) -> Vec<SpillFile>;
    /// Writes `messages` as JSONL lines in `dialect` to `path`; `chars` is the length of that
    /// text (the caller keeps it incrementally). Returns the characters written.
    fn write_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize>;
    /// Appends one message as a JSONL line to `path` (a session transcript); `chars` is the
    /// line's length with its newline.
    fn append_transcript(&mut self, path: &str, message: &Message, chars: usize) -> io::Result<()>;
    /// `Path(path).resolve()`: absolute, `.`/`..` collapsed (and symlinks followed on disk).
    fn resolve(&self, path: &str) -> String;
    /// Deletes the file at `path` (a spill file or a transcript); false when there is none.
    fn remove(&mut self, path: &str) -> io::Result<bool>;
}

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
    let name = |part: &[u8]| !matches!(part, b"" | b"." | b"..");
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
        if !name(&bytes[start..at]) {
            return false;
        }
        at += 1;
        start = at;
    }
    name(&bytes[start..])
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
    let dir = normal(dir);
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
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
    path.rsplit('/').next().unwrap_or(path)
}

/// In-memory backend with virtual absolute paths.
#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    spill: BTreeMap<String, ResultText>,
    transcripts: BTreeMap<String, usize>,
    /// The run's directories; when set, a write that leaves them is refused, as the
    /// real-directory store refuses it, so that both stores agree (audit D11).
    roots: Vec<String>,
}

impl MemoryStore {
    /// A store that accepts any path (unit tests).
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A store for a run whose spill and transcript directories are `roots`.
    pub(crate) fn within(roots: &[&str]) -> Self {
        MemoryStore {
            roots: roots.iter().map(|root| resolve_lexical(root)).collect(),
            ..Self::default()
        }
    }

    fn writable(&self, path: &str) -> io::Result<()> {
        if !self.roots.is_empty() {
            inside_roots(&self.roots, path)?;
        }
        name_max(path)
    }
}

/// Linux's `NAME_MAX`: the longest file name (one path component), in bytes.
const NAME_MAX: usize = 255;

/// The file system's `ENAMETOOLONG` for a path with a component longer than [`NAME_MAX`]: the
/// in-memory store refuses such a write as the real directory does (a 300-character raw
/// tool_use id names a spill file no file system takes), so both stores agree (audit D11).
fn name_max(path: &str) -> io::Result<()> {
    if path
        .as_bytes()
        .split(|&b| b == b'/')
        .any(|part| part.len() > NAME_MAX)
    {
        #[cfg(target_os = "linux")]
        return Err(io::Error::from_raw_os_error(36));
        #[cfg(not(target_os = "linux"))]
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "File name too long",
        ));
    }
    Ok(())
}

/// True when `path`, resolved lexically, lies strictly below one of `roots` (resolved) and holds
/// no NUL: the one rule by which the sandbox and both stores tell inside from outside.
pub(crate) fn is_inside<R: AsRef<str>>(roots: &[R], path: &str) -> bool {
    if path.as_bytes().contains(&0) {
        return false;
    }
    // Most paths (every spill file and transcript) are one name directly below a root, which is
    // resolved: such a path is its own resolution, and inside.
    let name_below = |root: &R| {
        path.strip_prefix(root.as_ref())
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|name| !matches!(name, "" | "." | "..") && !name.contains('/'))
    };
    if roots.iter().any(name_below) {
        return true;
    }
    let lexical = lexical(path);
    roots.iter().any(|root| {
        lexical
            .strip_prefix(root.as_ref())
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
    })
}

/// `Ok` if [`is_inside`]; an error saying the lab writes nothing outside otherwise.
fn inside_roots(roots: &[String], path: &str) -> io::Result<()> {
    if !is_inside(roots, path) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the path leaves the run's directories; the lab writes nothing outside them",
        ));
    }
    Ok(())
}

impl Store for MemoryStore {
    fn is_file(&self, path: &str) -> bool {
        let path = lexical(path);
        self.spill.contains_key(path.as_ref()) || self.transcripts.contains_key(path.as_ref())
    }

    fn write_spill(&mut self, path: &str, content: ResultText) -> io::Result<()> {
        self.writable(path)?;
        self.spill.insert(resolve_lexical(path), content);
        Ok(())
    }

    fn read_spill(&self, path: &str) -> Option<ResultText> {
        self.spill.get(lexical(path).as_ref()).cloned()
    }

    fn spill_files(&self, dir: &str) -> Vec<SpillFile> {
        // Like a real directory listing: a transcript written into the spill directory is a
        // file of that directory too.
        let dir = resolve_lexical(dir);
        let in_dir = |path: &str| {
            path.rsplit_once('/')
                .is_some_and(|(parent, _)| parent == dir || (parent.is_empty() && dir == "/"))
        };
        let spilled = self.spill.iter().map(|(path, content)| SpillFile {
            path: path.clone(),
            chars: crate::python::json::char_len(content),
        });
        let archived = self.transcripts.iter().map(|(path, chars)| SpillFile {
            path: path.clone(),
            chars: *chars,
        });
        let mut files: Vec<SpillFile> = spilled
            .chain(archived)
            .filter(|f| in_dir(&f.path))
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    fn write_transcript(
        &mut self,
        path: &str,
        _messages: &[Message],
        _dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        self.writable(path)?;
        self.transcripts.insert(resolve_lexical(path), chars);
        Ok(chars)
    }

    fn append_transcript(
        &mut self,
        path: &str,
        _message: &Message,
        chars: usize,
    ) -> io::Result<()> {
        // A path already in the map was resolved and checked when it was first written (the
        // session transcript, appended to at every message).
        if let Some(total) = self.transcripts.get_mut(path) {
            *total += chars;
            return Ok(());
        }
        self.writable(path)?;
        let path = lexical(path);
        match self.transcripts.get_mut(path.as_ref()) {
            Some(total) => *total += chars,
            None => {
                self.transcripts.insert(path.into_owned(), chars);
            }
        }
        Ok(())
    }

    fn resolve(&self, path: &str) -> String {
        resolve_lexical(path)
    }

    fn remove(&mut self, path: &str) -> io::Result<bool> {
        let path = resolve_lexical(path);
        Ok(self.spill.remove(&path).is_some() || self.transcripts.remove(&path).is_some())
    }
}

/// Real-directory backend: every path it writes or reads must lie (lexically, and not through a
/// symlink at its place) inside one of the run's directories: a raw tool_use id such as
/// `../../x` is refused, never written (issue 11, audit D2). A directory the user gave is used
/// as it is; one the user did not give keeps the name the run gives it (the profile's default,
/// e.g. `/var/folders/lab/res`) and lives at that path below a private temporary directory, so
/// that no output, trace or error shows the temporary directory (determinism: no absolute temp
/// paths) and a run shows the same paths under both stores.
#[derive(Debug, Default)]
pub(crate) struct DirStore {
    /// The directories the run owns (spill and transcript directories), resolved lexically, as
    /// the run names them.
    roots: Vec<String>,
    /// For a directory kept below the temporary directory: its name and its real path, longest
    /// name first.
    hidden: Vec<(String, String)>,
    /// Files that were in those directories before the run (`--reuse-dir`), by name: the
    /// modelled code sees them, but the lab never overwrites them nor counts them as spill files.
    preexisting: BTreeSet<String>,
}

impl DirStore {
    /// A store over directories used as they are named.
    #[cfg(test)]
    pub(crate) fn new(roots: &[&str]) -> Self {
        Self::with_hidden(roots, None, &[])
    }

    /// A store over `roots`, of which those in `hidden` live below `temp`: `/var/x` at
    /// `temp/var/x` (`temp` canonicalised, so that a resolved path maps back).
    pub(crate) fn with_hidden(roots: &[&str], temp: Option<&Path>, hidden: &[&str]) -> Self {
        let roots: Vec<String> = roots.iter().map(|root| resolve_lexical(root)).collect();
        let mut mapped = Vec::new();
        if let Some(temp) = temp {
            let base = fs::canonicalize(temp).unwrap_or_else(|_| temp.to_path_buf());
            let base = base.to_string_lossy().into_owned();
            for name in hidden {
                let name = resolve_lexical(name);
                let real = format!("{}{}", base.trim_end_matches('/'), name);
                mapped.push((name, real));
            }
        }
        mapped.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        mapped.dedup();
        let mut store = DirStore {
            roots,
            hidden: mapped,
            preexisting: BTreeSet::new(),
        };
        for root in &store.roots {
            for name in dir_entries(&store.real(root)) {
                store.preexisting.insert(join(root, &name));
            }
        }
        store
    }

    /// The real path of a path as the run names it.
    fn real(&self, path: &str) -> String {
        let lexical = resolve_lexical(path);
        for (name, real) in &self.hidden {
            if let Some(rest) = below(&lexical, name) {
                return format!("{real}{rest}");
            }
        }
        path.to_owned()
    }

    /// The name the run gives a real path (the inverse of [`Self::real`]).
    fn shown(&self, real_path: String) -> String {
        for (name, real) in &self.hidden {
            if let Some(rest) = below(&real_path, real) {
                return format!("{name}{rest}");
            }
        }
        real_path
    }

    /// The real path of `path` if it stays inside a root and is not a symlink; an error
    /// saying why otherwise.
    fn sandboxed(&self, path: &str) -> io::Result<String> {
        inside_roots(&self.roots, path)?;
        let real = self.real(path);
        if fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "a symlink is in the way; the lab does not write through it",
            ));
        }
        Ok(real)
    }

    /// As [`Self::sandboxed`], and not a file that was there before the run.
    fn writable(&self, path: &str) -> io::Result<String> {
        let real = self.sandboxed(path)?;
        if self.preexisting.contains(&resolve_lexical(path)) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the file was there before the run (--reuse-dir); the lab does not overwrite it",
            ));
        }
        Ok(real)
    }
}

/// What follows `dir` in `path` (`""` or `/...`) when `path` is `dir` or lies below it.
fn below<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    path.strip_prefix(dir)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The names in `dir` (none when it does not exist or cannot be read).
pub(crate) fn dir_entries(dir: &str) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// A fresh temporary directory only its owner can read (mode 0700), removed when dropped.
pub(crate) fn private_temp_dir() -> io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o700));
    }
    builder.tempdir()
}

fn write_creating(path: &str, text: &str) -> io::Result<()> {
    let path = Path::new(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, text)
}

impl Store for DirStore {
    fn is_file(&self, path: &str) -> bool {
        Path::new(&self.real(path)).is_file()
    }

    fn write_spill(&mut self, path: &str, content: ResultText) -> io::Result<()> {
        write_creating(&self.writable(path)?, &content)
    }

    fn read_spill(&self, path: &str) -> Option<ResultText> {
        let path = self.sandboxed(path).ok()?;
        crate::limits::read_bounded(Path::new(&path))
            .ok()
            .map(ResultText::from)
    }

    fn spill_files(&self, dir: &str) -> Vec<SpillFile> {
        let Ok(entries) = fs::read_dir(self.real(dir)) else {
            return Vec::new();
        };
        let mut files: Vec<SpillFile> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_file())
            .filter(|entry| {
                let path = join(dir, &entry.file_name().to_string_lossy());
                !self.preexisting.contains(&resolve_lexical(&path))
            })
            .filter_map(|entry| {
                let content = fs::read_to_string(entry.path()).ok()?;
                let name = entry.file_name().into_string().ok()?;
                Some(SpillFile {
                    path: join(dir, &name),
                    chars: crate::python::json::char_len(&content),
                })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    fn write_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        let mut text = String::with_capacity(chars);
        for message in messages {
            message.write_py(&mut text, dialect);
            text.push('\n');
        }
        write_creating(&self.writable(path)?, &text)?;
        Ok(crate::python::json::char_len(&text))
    }

    fn append_transcript(
        &mut self,
        path: &str,
        message: &Message,
        _chars: usize,
    ) -> io::Result<()> {
        use std::io::Write;
        let path = self.writable(path)?;
        if let Some(parent) = Path::new(&path).parent() {
            fs::create_dir_all(parent)?;
        }
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        writeln!(file, "{}", message.json_line())
    }

    fn resolve(&self, path: &str) -> String {
        // Python's resolve(strict=False): follow what exists, keep the rest lexically.
        let lexical = PathBuf::from(resolve_lexical(&self.real(path)));
        let mut existing = lexical.clone();
        let mut tail: Vec<String> = Vec::new();
        loop {
            if let Ok(real) = fs::canonicalize(&existing) {
                let mut full = real;
                for part in tail.iter().rev() {
                    full.push(part);
                }
                return self.shown(full.to_string_lossy().into_owned());
            }
            let Some(name) = existing
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
            else {
                break;
            };
            tail.push(name);
            if !existing.pop() || existing.components().next_back() == Some(Component::RootDir) {
                break;
            }
        }
        self.shown(lexical.to_string_lossy().into_owned())
    }

    fn remove(&mut self, path: &str) -> io::Result<bool> {
        let real = self.real(path);
        if !Path::new(&real).is_file() {
            return Ok(false);
        }
        fs::remove_file(real)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window test agrees with the definition (split into components, none empty, `.` or
    /// `..`) on every path of up to eight bytes over `/`, `.` and `a`.
    #[test]
    fn resolved_paths_are_those_whose_components_are_all_names() {
        fn by_parts(path: &str) -> bool {
            path.strip_prefix('/')
                .is_some_and(|rest| rest.split('/').all(|part| !matches!(part, "" | "." | "..")))
        }
        let mut paths = vec![String::new()];
        let mut checked = 0;
        for _ in 0..8 {
            let mut longer = Vec::new();
            for path in &paths {
                for c in ['/', '.', 'a'] {
                    let path = format!("{path}{c}");
                    assert_eq!(is_resolved(&path), by_parts(&path), "{path}");
                    checked += 1;
                    longer.push(path);
                }
            }
            paths = longer;
        }
        assert_eq!(checked, 9840);
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
        let (mut suffixes, mut last) = (vec![String::new()], vec![String::new()]);
        for _ in 0..6 {
            last = last
                .iter()
                .flat_map(|s| ['/', '.', 'a', '\0'].map(|c| format!("{s}{c}")))
                .collect();
            suffixes.extend(last.iter().cloned());
        }
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

    #[cfg(unix)]
    #[test]
    fn temporary_run_directories_are_private_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let temp = private_temp_dir().unwrap();
        let path = temp.path().to_path_buf();
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(temp);
        assert!(!path.exists());
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
        let (mut all, mut last) = (vec![String::new()], vec![String::new()]);
        for _ in 0..7 {
            last = last
                .iter()
                .flat_map(|s| ['/', '.', 'a'].map(|c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        for path in &all {
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
    }

    #[test]
    fn memory_store_lists_only_its_directory() {
        let mut store = MemoryStore::new();
        store.write_spill("/lab/res/a.txt", "aaa".into()).unwrap();
        store.write_spill("/lab/res/sub/b.txt", "b".into()).unwrap();
        store.write_spill("/lab/other/c.txt", "c".into()).unwrap();
        let files = store.spill_files("/lab/res");
        assert_eq!(
            files,
            vec![SpillFile {
                path: "/lab/res/a.txt".into(),
                chars: 3
            }]
        );
        assert!(store.is_file("/lab/res/../res/a.txt"));
        assert!(!store.is_file("/lab/res/zzz.txt"));
        assert!(store.remove("/lab/res/./a.txt").unwrap());
        assert!(!store.is_file("/lab/res/a.txt"));
        assert!(!store.remove("/lab/res/a.txt").unwrap());
    }

    #[test]
    fn dir_store_writes_real_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_string_lossy().into_owned();
        let mut store = DirStore::new(&[&root]);
        let path = join(&root, "res/x.txt");
        assert!(!store.is_file(&path));
        store.write_spill(&path, "中文".into()).unwrap();
        assert!(store.is_file(&path));
        assert_eq!(store.read_spill(&path).as_deref(), Some("中文"));
        let files = store.spill_files(&join(&root, "res"));
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].chars, 2);
        assert!(store.remove(&path).unwrap());
        assert!(!store.is_file(&path));
        assert!(!store.remove(&path).unwrap());
        let messages = [Message::user_text("hi")];
        let chars = store
            .write_transcript(
                &join(&root, "t/transcript.jsonl"),
                &messages,
                Dialect::Json,
                0,
            )
            .unwrap();
        // len('{"role": "user", "content": "hi"}') == 33, plus the newline.
        assert_eq!(chars, 34);
    }

    /// Audit D2: a raw tool_use id such as `../../x` or a symlink in the spill directory must not
    /// take a write outside the run's directories.
    #[test]
    fn dir_store_refuses_paths_outside_its_roots() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_string_lossy().into_owned();
        let root = join(&base, "res");
        let mut store = DirStore::new(&[&root]);
        let escape = join(&root, "../../victim/spilled.txt");
        let error = store.write_spill(&escape, "x".into()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        assert!(!Path::new(&join(&base, "victim")).exists());
        assert!(store.write_spill("/abs/x.txt", "x".into()).is_err());
        assert!(
            store
                .write_spill(&join(&base, "res2/x.txt"), "x".into())
                .is_err()
        );
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(join(&base, "keep.txt"), "mine").unwrap();
        std::os::unix::fs::symlink(join(&base, "keep.txt"), join(&root, "t.txt")).unwrap();
        assert!(
            store
                .write_spill(&join(&root, "t.txt"), "overwrite".into())
                .is_err()
        );
        assert_eq!(
            std::fs::read_to_string(join(&base, "keep.txt")).unwrap(),
            "mine"
        );
        assert_eq!(store.read_spill(&join(&root, "t.txt")), None);
    }
}
