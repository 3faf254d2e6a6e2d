//! The spill store and the transcript archive, behind one small interface with two backends.
//!
//! The course writes large results to `spill_dir/<safe_id>.txt` (write only if absent) and whole
//! histories to `transcript_dir/transcript_<hex>.jsonl`. [`MemoryStore`] keeps both in memory under
//! virtual absolute paths, so runs are deterministic and fast; [`DirStore`] writes real files: in
//! the directories the user gave, or at the run's own paths below a private temporary directory.
//! For the same path lengths both give the same observables; a test checks that for every
//! scenario.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

pub(crate) use super::spill_text::SpillText;
pub(crate) use crate::compaction::paths::{
    NameOrder, Roots, basename, is_within, join, join_normal, join_normal_ext, join_normal_into,
    lexical, normalize, order_by_name, resolve_lexical,
};
use crate::error::RunError;
use crate::hash::OrderedPathMap;
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
    /// Shared with the in-memory store, which keys the file by it: listing a file counts one
    /// more holder of its path instead of copying it (issue 13: gemini-cli's 8 000 files).
    pub path: Rc<str>,
    pub chars: usize,
}

/// A path the sandbox found inside the run's directories, and its lexical resolution (the key
/// of an in-memory store's file).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checked<'a> {
    pub(crate) path: &'a str,
    pub(crate) key: &'a str,
}

/// Storage for spilled results and archived transcripts.
pub(crate) trait Store {
    /// True if a regular file exists at `path` (Python `Path.is_file`/`exists`).
    fn is_file(&self, path: &str) -> bool;
    /// Writes a spill file, creating parent directories.
    fn write_spill(&mut self, path: &str, content: SpillText) -> io::Result<()>;
    /// [`Self::write_spill`], its failure the run's error naming `path`.
    fn put_spill(&mut self, path: &str, content: SpillText) -> Result<(), RunError> {
        self.write_spill(path, content)
            .map_err(RunError::store(path))
    }
    /// [`Self::put_spill`], returning the text the file held before (none for a new file): an
    /// overwrite reads and writes the path once (issue 13: later `save_output` checks what it
    /// destroys at every result it persists).
    fn put_replacing(
        &mut self,
        path: &str,
        content: SpillText,
    ) -> Result<Option<ResultText>, RunError> {
        self.replace_spill(path, content)
            .map_err(RunError::store(path))
    }
    /// [`Self::write_spill`], returning the text the file held before; a store that keeps its
    /// files in memory finds both in one lookup.
    fn replace_spill(&mut self, path: &str, content: SpillText) -> io::Result<Option<ResultText>> {
        let old = self.read_spill(path);
        self.write_spill(path, content)?;
        Ok(old)
    }
    /// Reads a spill file.
    fn read_spill(&self, path: &str) -> Option<ResultText>;
    /// `path`'s text, shared with the store's key of the spill file it last wrote when that key
    /// is the same text (the in-memory store), else a copy. A trace reason that names the file
    /// just written holds this instead of a path of its own (issue 13: gemini-cli writes 8 000
    /// files, and each path was allocated twice, for the store and for the reason).
    fn shared_path(&self, path: &str) -> Rc<str> {
        path.into()
    }
    /// Every file of the spill directory `dir`, sorted by path.
    fn spill_files(&self, dir: &str) -> Vec<SpillFile>;
    /// Whether every path [`Self::spill_files`] lists is its own [`Self::resolved`] form (a
    /// store that keeps its files by resolved path and follows no links), so that the end of a
    /// run need not resolve each listed file again (issue 13: gemini-cli lists 6000).
    fn lists_resolved(&self) -> bool {
        false
    }
    /// Writes `messages` as JSONL lines in `dialect` to `path`; `chars` is the length of that
    /// text (the caller keeps it incrementally). Returns the characters written.
    fn write_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize>;
    /// Appends `messages` as JSONL lines to `path` (a session transcript); `chars` is the length
    /// of those lines with their newlines.
    fn append_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        chars: usize,
    ) -> io::Result<()>;
    /// `Path(path).resolve()`: absolute, `.`/`..` collapsed (and symlinks followed on disk).
    fn resolve(&self, path: &str) -> String;
    /// [`Self::resolve`], borrowing `path` when it is its own resolution (a store that follows
    /// no links, and most paths: issue 13, pointer checks and the end of a run resolve one path
    /// per result).
    fn resolved<'a>(&self, path: &'a str) -> Cow<'a, str> {
        Cow::Owned(self.resolve(path))
    }
    /// [`Self::resolved`] and [`Self::is_file`] of one path; a store that keys its files by
    /// that resolution looks the path up with it instead of resolving it twice (issue 13: the
    /// end of a run checks each pointer in context, 3 000 for gemini-cli).
    fn resolved_file<'a>(&self, path: &'a str) -> (Cow<'a, str>, bool) {
        (self.resolved(path), self.is_file(path))
    }
    /// Deletes the file at `path` (a spill file or a transcript); false when there is none.
    fn remove(&mut self, path: &str) -> io::Result<bool>;
    /// [`Self::write_spill`] of a path found inside the run's directories, or with `replacing`
    /// [`Self::replace_spill`]: a store that checks paths by the sandbox's rule keys the file
    /// by the resolution the sandbox found, without checking again (issue 13: a spill write
    /// checked its path three times).
    fn write_checked(
        &mut self,
        checked: Checked<'_>,
        content: SpillText,
        replacing: bool,
    ) -> io::Result<Option<ResultText>> {
        if replacing {
            return self.replace_spill(checked.path, content);
        }
        self.write_spill(checked.path, content).map(|()| None)
    }
    /// [`Self::write_transcript`] of a path found inside the run's directories, as
    /// [`Self::write_checked`] writes a spill file.
    fn write_transcript_checked(
        &mut self,
        checked: Checked<'_>,
        messages: &[Message],
        dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        self.write_transcript(checked.path, messages, dialect, chars)
    }
    /// Room for a run that may write up to about `spill` spill files and `transcripts`
    /// transcripts: a store that keeps them in memory makes it once it holds a few of either,
    /// instead of growing by rehashing every path again (issue 13: gemini-cli writes 8 000).
    fn expect_files(&mut self, _spill: usize, _transcripts: usize) {}
}

/// In-memory backend with virtual absolute paths.
#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    /// By resolved path; a listing sorts what it lists, so the map's own order is never seen:
    /// hashed, not a sorted map, whose comparisons read the long common directory of every
    /// spill path again at each level, and kept in the order of first writing, which a listing
    /// walks (issue 13).
    spill: OrderedPathMap<Rc<str>, SpillText>,
    /// Transcripts' lengths by resolved path, kept the same way (a course-latest replay writes
    /// one per turn, named by a 32-digit counter: long common prefixes).
    transcripts: OrderedPathMap<String, usize>,
    /// How many spill files and transcripts the run may write ([`Store::expect_files`]).
    expected: (usize, usize),
    /// The run's directories; when set, a write that leaves them is refused, as the
    /// real-directory store refuses it, so that both stores agree (audit D11).
    roots: Option<Roots>,
    /// The key of the spill file written last ([`Store::shared_path`]).
    last_key: Option<Rc<str>>,
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
            roots: Some(Roots::new(roots)),
            ..Self::default()
        }
    }

    /// Writes the spill file whose key is `key`; with `replacing`, returns what it held. Only
    /// an overwrite's caller reads the old text, which is converted for it alone (a saved
    /// output's is written out).
    fn insert_at(
        &mut self,
        key: Rc<str>,
        content: SpillText,
        replacing: bool,
    ) -> Option<ResultText> {
        make_room(&mut self.spill, self.expected.0);
        // An overwrite keeps the key the map holds and drops `key`: the one kept is shared.
        let (index, old) = self.spill.insert_full(key, content);
        self.last_key = self.spill.get_index(index).map(|(key, _)| Rc::clone(key));
        old.filter(|_| replacing).map(|old| old.text())
    }

    /// Writes the transcript whose key is `key`, `chars` long.
    fn insert_transcript(&mut self, key: String, chars: usize) {
        make_room(&mut self.transcripts, self.expected.1);
        self.transcripts.insert(key, chars);
    }

    /// The key of a file written at a path the sandbox checked: the resolution it found, once
    /// the name's length is checked (debug builds check that this store's rule agrees).
    fn checked_key<'c>(&self, checked: Checked<'c>) -> io::Result<&'c str> {
        debug_assert_eq!(
            self.inside(checked.path).ok().as_deref(),
            Some(checked.key),
            "the sandbox and the store disagree on {}",
            checked.path
        );
        name_max(checked.path)?;
        Ok(checked.key)
    }

    /// The key of a file written at `path`: its lexical resolution, when the write is allowed.
    fn writable<'a>(&self, path: &'a str) -> io::Result<Cow<'a, str>> {
        let resolved = self.inside(path)?;
        name_max(path)?;
        Ok(resolved)
    }

    /// `path`'s lexical resolution, when it lies inside the store's directories.
    fn inside<'a>(&self, path: &'a str) -> io::Result<Cow<'a, str>> {
        match &self.roots {
            Some(roots) => roots.resolve(path).ok_or_else(outside_error),
            None => Ok(lexical(path)),
        }
    }
}

/// Sizes `files` for `expected` entries once it holds [`ROOM_AFTER`]: a run that writes a
/// handful of files allocates nothing for the rest.
fn make_room<K, V>(files: &mut OrderedPathMap<K, V>, expected: usize) {
    if files.len() == ROOM_AFTER {
        files.reserve(expected.saturating_sub(ROOM_AFTER));
    }
}

/// How many files a map of [`MemoryStore`] holds before it is sized for the run.
const ROOM_AFTER: usize = 16;

/// Linux's `NAME_MAX`: the longest file name (one path component), in bytes.
const NAME_MAX: usize = 255;

/// The file system's `ENAMETOOLONG` for a path with a component longer than [`NAME_MAX`]: the
/// in-memory store refuses such a write as the real directory does (a 300-character raw
/// tool_use id names a spill file no file system takes), so both stores agree (audit D11).
fn name_max(path: &str) -> io::Result<()> {
    // A path no longer than the limit has no component over it: most paths are not split.
    if path.len() > NAME_MAX
        && path
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

/// `Ok` if the roots [hold](Roots::hold) `path`; an error saying the lab writes nothing outside
/// otherwise.
fn inside_roots(roots: &Roots, path: &str) -> io::Result<()> {
    if !roots.hold(path) {
        return Err(outside_error());
    }
    Ok(())
}

/// The error of a write outside the run's directories.
fn outside_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "the path leaves the run's directories; the lab writes nothing outside them",
    )
}

impl Store for MemoryStore {
    fn is_file(&self, path: &str) -> bool {
        self.resolved_file(path).1
    }

    fn write_spill(&mut self, path: &str, content: SpillText) -> io::Result<()> {
        self.insert_at(self.writable(path)?.as_ref().into(), content, false);
        Ok(())
    }

    fn replace_spill(&mut self, path: &str, content: SpillText) -> io::Result<Option<ResultText>> {
        Ok(self.insert_at(self.writable(path)?.as_ref().into(), content, true))
    }

    fn read_spill(&self, path: &str) -> Option<ResultText> {
        self.spill.get(lexical(path).as_ref()).map(SpillText::text)
    }

    fn shared_path(&self, path: &str) -> Rc<str> {
        match &self.last_key {
            Some(key) if **key == *path => Rc::clone(key),
            _ => path.into(),
        }
    }

    fn spill_files(&self, dir: &str) -> Vec<SpillFile> {
        // Like a real directory listing: a transcript written into the spill directory is a
        // file of that directory too.
        let dir = resolve_lexical(dir);
        // The parent is what precedes the last `/`, found by `memrchr` (`rsplit_once`'s searcher,
        // then a byte loop, cost more than the rest of the test: issue 13).
        let in_dir = |path: &str| {
            let slash = memchr::memrchr(b'/', path.as_bytes());
            slash.is_some_and(|slash| {
                let parent = &path[..slash];
                parent == dir || (parent.is_empty() && dir == "/")
            })
        };
        // Each with its shared path where the store keys it by one (a spill file).
        let spilled = self
            .spill
            .iter()
            .map(|(path, content)| (&**path, Some(path), content.chars()));
        let archived = self
            .transcripts
            .iter()
            .map(|(path, chars)| (path.as_str(), None, *chars));
        // Room for every file of the store, made once (issue 13: grown by copying, the list
        // of gemini-cli's 8 000 files was copied about a dozen times).
        let mut listed: Vec<(&str, Option<&Rc<str>>, usize)> =
            Vec::with_capacity(self.spill.len() + self.transcripts.len());
        listed.extend(spilled.chain(archived).filter(|(path, ..)| in_dir(path)));
        // Every listed path is the directory, a `/` and a name: the names alone are compared
        // (issue 13: comparing whole paths read the long common directory again at each step),
        // 16 bytes at a time as numbers. The order is sorted, not the files. Equal names keep
        // the listing's order: a transcript at a spill file's path follows it.
        let names_at = if dir == "/" { 1 } else { dir.len() + 1 };
        let name = |index: usize| &listed[index].0.as_bytes()[names_at..];
        let mut order: Vec<NameOrder> = (0..listed.len()).map(NameOrder::new).collect();
        order_by_name(&mut order, &name, 0);
        order
            .into_iter()
            .map(|entry| {
                let (path, shared, chars) = listed[entry.index()];
                SpillFile {
                    path: shared.map_or_else(|| path.into(), Rc::clone),
                    chars,
                }
            })
            .collect()
    }

    fn write_transcript(
        &mut self,
        path: &str,
        _messages: &[Message],
        _dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        self.insert_transcript(self.writable(path)?.into_owned(), chars);
        Ok(chars)
    }

    fn append_transcript(
        &mut self,
        path: &str,
        _messages: &[Message],
        chars: usize,
    ) -> io::Result<()> {
        // A path already in the map was resolved and checked when it was first written (the
        // session transcript, appended to at every message).
        if let Some(total) = self.transcripts.get_mut(path) {
            *total += chars;
            return Ok(());
        }
        let path = self.writable(path)?;
        match self.transcripts.get_mut(path.as_ref()) {
            Some(total) => *total += chars,
            None => self.insert_transcript(path.into_owned(), chars),
        }
        Ok(())
    }

    fn resolve(&self, path: &str) -> String {
        resolve_lexical(path)
    }

    fn resolved<'a>(&self, path: &'a str) -> Cow<'a, str> {
        lexical(path)
    }

    fn resolved_file<'a>(&self, path: &'a str) -> (Cow<'a, str>, bool) {
        let resolved = lexical(path);
        let key = resolved.as_ref();
        let is_file = self.spill.contains_key(key) || self.transcripts.contains_key(key);
        (resolved, is_file)
    }

    /// Files are kept by their lexical resolution, which is all the resolving this store does.
    fn lists_resolved(&self) -> bool {
        true
    }

    fn remove(&mut self, path: &str) -> io::Result<bool> {
        let path = resolve_lexical(path);
        // Removing swaps the last file into the removed one's place: the order is never listed.
        Ok(self.spill.swap_remove(path.as_str()).is_some()
            || self.transcripts.swap_remove(&path).is_some())
    }

    fn expect_files(&mut self, spill: usize, transcripts: usize) {
        self.expected = (spill, transcripts);
    }

    fn write_checked(
        &mut self,
        checked: Checked<'_>,
        content: SpillText,
        replacing: bool,
    ) -> io::Result<Option<ResultText>> {
        Ok(self.insert_at(self.checked_key(checked)?.into(), content, replacing))
    }

    fn write_transcript_checked(
        &mut self,
        checked: Checked<'_>,
        _messages: &[Message],
        _dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        self.insert_transcript(self.checked_key(checked)?.to_owned(), chars);
        Ok(chars)
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
    roots: Roots,
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
        let roots = Roots::new(roots);
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
        for root in store.roots.iter() {
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

    fn write_spill(&mut self, path: &str, content: SpillText) -> io::Result<()> {
        write_creating(&self.writable(path)?, &content.text())
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
                    path: join(dir, &name).into(),
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
        messages: &[Message],
        chars: usize,
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
        // Written as `write_transcript` writes its lines, into one buffer.
        let mut lines = String::with_capacity(chars);
        for message in messages {
            message.write_py(&mut lines, Dialect::Json);
            lines.push('\n');
        }
        file.write_all(lines.as_bytes())
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
#[path = "store_tests.rs"]
mod tests;
