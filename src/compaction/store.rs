//! The spill store and the transcript archive, behind one small interface with two backends.
//!
//! The course writes large results to `spill_dir/<safe_id>.txt` (write only if absent) and whole
//! histories to `transcript_dir/transcript_<hex>.jsonl`. [`MemoryStore`] keeps both in memory under
//! virtual absolute paths, so runs are deterministic and fast; [`DirStore`] writes real files under
//! real paths (e.g. a `tempfile` directory). For the same path lengths both give the same
//! observables; a test checks that for every scenario.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::python::json::Dialect;
use crate::transcript::Message;

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
    fn write_spill(&mut self, path: &str, content: &str) -> io::Result<()>;
    /// Reads a spill file.
    fn read_spill(&self, path: &str) -> Option<String>;
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
}

/// Python `PurePosixPath` normalisation: repeated and trailing slashes and `.` parts dropped.
pub(crate) fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// Lexical `resolve`: normalises and collapses `..` (never above the root).
pub(crate) fn resolve_lexical(path: &str) -> String {
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
    format!("/{}", parts.join("/"))
}

/// `str(Path(dir) / name)`.
pub(crate) fn join(dir: &str, name: &str) -> String {
    let dir = normalize(dir);
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
    spill: BTreeMap<String, String>,
    transcripts: BTreeMap<String, usize>,
}

impl MemoryStore {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    fn is_file(&self, path: &str) -> bool {
        let path = resolve_lexical(path);
        self.spill.contains_key(&path) || self.transcripts.contains_key(&path)
    }

    fn write_spill(&mut self, path: &str, content: &str) -> io::Result<()> {
        self.spill.insert(resolve_lexical(path), content.to_owned());
        Ok(())
    }

    fn read_spill(&self, path: &str) -> Option<String> {
        self.spill.get(&resolve_lexical(path)).cloned()
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
        self.transcripts.insert(resolve_lexical(path), chars);
        Ok(chars)
    }

    fn append_transcript(
        &mut self,
        path: &str,
        _message: &Message,
        chars: usize,
    ) -> io::Result<()> {
        *self.transcripts.entry(resolve_lexical(path)).or_insert(0) += chars;
        Ok(())
    }

    fn resolve(&self, path: &str) -> String {
        resolve_lexical(path)
    }
}

/// Real-directory backend: paths are real absolute paths.
#[derive(Debug, Default)]
pub(crate) struct DirStore;

impl DirStore {
    pub(crate) fn new() -> Self {
        DirStore
    }
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
        Path::new(path).is_file()
    }

    fn write_spill(&mut self, path: &str, content: &str) -> io::Result<()> {
        write_creating(path, content)
    }

    fn read_spill(&self, path: &str) -> Option<String> {
        fs::read_to_string(path).ok()
    }

    fn spill_files(&self, dir: &str) -> Vec<SpillFile> {
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<SpillFile> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_file())
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
        write_creating(path, &text)?;
        Ok(crate::python::json::char_len(&text))
    }

    fn append_transcript(
        &mut self,
        path: &str,
        message: &Message,
        _chars: usize,
    ) -> io::Result<()> {
        use std::io::Write;
        if let Some(parent) = Path::new(path).parent() {
            fs::create_dir_all(parent)?;
        }
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        writeln!(file, "{}", message.json_line())
    }

    fn resolve(&self, path: &str) -> String {
        // Python's resolve(strict=False): follow what exists, keep the rest lexically.
        let lexical = PathBuf::from(resolve_lexical(path));
        let mut existing = lexical.clone();
        let mut tail: Vec<String> = Vec::new();
        loop {
            if let Ok(real) = fs::canonicalize(&existing) {
                let mut full = real;
                for part in tail.iter().rev() {
                    full.push(part);
                }
                return full.to_string_lossy().into_owned();
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
        lexical.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        store.write_spill("/lab/res/a.txt", "aaa").unwrap();
        store.write_spill("/lab/res/sub/b.txt", "b").unwrap();
        store.write_spill("/lab/other/c.txt", "c").unwrap();
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
    }

    #[test]
    fn dir_store_writes_real_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_string_lossy().into_owned();
        let mut store = DirStore::new();
        let path = join(&root, "res/x.txt");
        assert!(!store.is_file(&path));
        store.write_spill(&path, "中文").unwrap();
        assert!(store.is_file(&path));
        assert_eq!(store.read_spill(&path).as_deref(), Some("中文"));
        let files = store.spill_files(&join(&root, "res"));
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].chars, 2);
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
}
